//! What a TypeScript extension costs through the extension host (Node):
//! one event's round trip with no handler work (wall time, median), and
//! the per-turn time of a `context` handler on a long transcript (the
//! transcript crosses the socket as JSON each turn). Skipped, with a line
//! saying so, where Node or the host's packages cannot be had.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use pi_agent_core::TransformContext;
use pi_coding_agent::CodingMessage;
use pi_coding_agent::extensions::host::{self, HostOptions};
use pi_coding_agent::extensions::{ExtensionSet, TurnStartEvent, context_transform, load};

fn listener() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/perf/host_listener.ts")
}

/// The host rows.
pub fn rows(quick: bool) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let started = runtime.block_on(host::start(
        &[listener()],
        HostOptions {
            cwd: PathBuf::from("."),
            agent_dir: std::env::temp_dir(),
            mode: "print".into(),
            output_to_terminal: false,
            ..HostOptions::default()
        },
    ));
    if started.extensions.is_empty() {
        println!(
            "extension host rows skipped: {}",
            started
                .warnings
                .iter()
                .chain(&started.errors)
                .cloned()
                .collect::<Vec<_>>()
                .join("; ")
        );
        return;
    }
    let runner = Arc::new(load(&ExtensionSet(started.extensions), PathBuf::from(".")));
    // One event, there and back, no handler work.
    let events = if quick { 300 } else { 3_000 };
    let mut times: Vec<f64> = runtime.block_on(async {
        let mut times = Vec::with_capacity(events);
        for i in 0..events {
            let begin = Instant::now();
            runner
                .emit(TurnStartEvent {
                    turn_index: u32::try_from(i).unwrap_or_default(),
                    timestamp: 0,
                })
                .await;
            times.push(begin.elapsed().as_secs_f64());
        }
        times
    });
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    crate::row(
        "extension host: one event round trip, no handler work, wall",
        &format!("median of {events} (Node host, TypeScript handler)"),
        0,
        (median, 0),
    );
    // A `context` handler on a long transcript: what the hook adds to a
    // turn (the transcript to JSON, the socket, the handler in Node).
    let n = if quick { 2_500 } else { 10_000 };
    let turns = if quick { 5 } else { 20 };
    let hook: Arc<dyn TransformContext<CodingMessage>> = context_transform(&runner);
    let transcript = Arc::new(crate::agent::agent_transcript(n));
    // For a side-by-side figure with pi (whose `context` event is a
    // structuredClone of the same transcript): PI_PERF_DUMP_TRANSCRIPT=FILE.
    if let Some(file) = std::env::var_os("PI_PERF_DUMP_TRANSCRIPT") {
        std::fs::write(file, serde_json::to_string(&*transcript).unwrap()).unwrap();
    }
    let cancel = pi_ai::CancellationToken::new();
    let mut times: Vec<f64> = runtime.block_on(async {
        let mut times = Vec::with_capacity(turns);
        for _ in 0..turns {
            let begin = Instant::now();
            let changed = hook
                .transform_shared(Arc::clone(&transcript), &cancel)
                .await
                .unwrap();
            std::hint::black_box(changed);
            times.push(begin.elapsed().as_secs_f64());
        }
        times
    });
    times.sort_by(f64::total_cmp);
    crate::row(
        "extension host: one TypeScript `context` handler per turn, wall",
        &format!("{n} messages: median of {turns} turns"),
        n as u64,
        (times[times.len() / 2], 0),
    );
    for handle in started.handles {
        runtime.block_on(handle.stop());
    }
}
