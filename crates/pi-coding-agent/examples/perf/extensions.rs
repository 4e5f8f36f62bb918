//! What extensions add to a turn: the loop's per-turn time with one
//! `context` handler (the runner's `emit_context` as the loop's
//! `transform_context`, as the app installs it) against none, and the
//! dispatch of one event to 10 handlers.
//!
//! With no extension listening to `context`, `tool_call`, `tool_result`,
//! `message_end` or a run event, the app installs no hook and no listener
//! (`tests/it/extension_runner.rs` checks it), so its turn is the plain
//! "agent per-turn overhead" row.

use std::path::PathBuf;
use std::sync::Arc;

use pi_agent_core::TransformContext;
use pi_coding_agent::CodingMessage;
use pi_coding_agent::extensions::{
    ContextEvent, Extension, ExtensionApi, ExtensionRunner, ExtensionSet, TurnStartEvent,
    context_transform, load,
};

/// An extension that registers `handlers` no-op handlers of `context`
/// and of `turn_start`.
struct Listener {
    handlers: usize,
}

impl Extension for Listener {
    fn path(&self) -> String {
        "<perf>".to_owned()
    }

    fn register(&self, api: &mut ExtensionApi<'_>) {
        for _ in 0..self.handlers {
            api.on(|event: ContextEvent, _| {
                // Reads the transcript, answers nothing.
                std::hint::black_box(event.messages.len());
                async { Ok(None) }
            });
            api.on(|event: TurnStartEvent, _| {
                std::hint::black_box(event.turn_index);
                async { Ok(None) }
            });
        }
    }
}

fn runner(handlers: usize) -> Arc<ExtensionRunner> {
    let mut set = ExtensionSet::default();
    set.push(Listener { handlers });
    Arc::new(load(&set, PathBuf::from(".")))
}

/// Per-turn time with and without one `context` handler, and the
/// dispatch of one event to 10 handlers.
pub fn rows(quick: bool) {
    let sizes: &[usize] = &[2_500, 10_000];
    let turns = if quick { 10 } else { 40 };
    for &n in sizes {
        let plain = crate::agent::per_turn(n, turns, 3);
        // The app's `context` hook, as it installs it.
        let hook: Arc<dyn TransformContext<CodingMessage>> = context_transform(&runner(1));
        let with = crate::agent::per_turn_with(n, turns, 3, Some(hook));
        crate::row(
            "agent per-turn, one `context` handler, CPU",
            &format!(
                "{n} messages: +{:.2} ms per turn over none ({:.2} ms)",
                (with - plain) * 1e3,
                plain * 1e3
            ),
            n as u64,
            (with, 0),
        );
    }
    crate::row(
        "extension event dispatch to 10 handlers (turn_start), CPU",
        "one event",
        0,
        (dispatch(10), 0),
    );
}

/// Mean seconds to deliver one `turn_start` to `handlers` handlers.
fn dispatch(handlers: usize) -> f64 {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let runner = runner(handlers);
    let batch = 10_000;
    let (mut total, mut events) = (0.0, 0usize);
    while total < crate::MIN_CPU_SECONDS && events < 10_000_000 {
        let start = crate::cpu_seconds();
        runtime.block_on(async {
            for i in 0..batch {
                let turn_index = u32::try_from(i).unwrap_or_default();
                runner
                    .emit(TurnStartEvent {
                        turn_index,
                        timestamp: 0,
                    })
                    .await;
            }
        });
        total += crate::cpu_seconds() - start;
        events += batch;
    }
    total / events as f64
}
