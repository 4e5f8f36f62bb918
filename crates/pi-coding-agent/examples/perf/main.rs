//! Workloads for `cargo xtask bench`: each is timed in a fresh child
//! process (so its peak RSS is its own) and printed as one tab-separated
//! row: `workload<TAB>size label<TAB>input size<TAB>seconds<TAB>peak RSS KiB`
//! (input size in the workload's own unit, for the complexity check).
//!
//! `cargo run --release -p pi-coding-agent --example perf -- [--quick]`
//!
//! Workloads: SSE decode per wire, in memory ([`decode`]) and through
//! loopback HTTP, and request encode per wire ([`wire`]), the
//! app's conversion plus pi-ai's transform and the agent's per-turn
//! overhead ([`agent`]), what extensions add to a turn ([`extensions`]), resume (open + context of the leaf + convert to
//! LLM messages) of generated sessions, and listing a directory of small
//! sessions plus one large one. Sizes come in pairs 4x apart so the caller
//! can check that 4x the input does not take more than 8x the time.
//!
//! `perf --write-session PATH ENTRIES` writes a generated session (for the
//! whole-command rows of `cargo xtask bench`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    missing_docs
)]

#[path = "../../benches/support/gen.rs"]
mod generator;

mod agent;
mod decode;
mod extensions;
mod host;
mod search;
mod wire;

/// The `pi` binary's allocator and its setting (`main`), so the rows
/// measure what the binary does.
#[global_allocator]
static ALLOCATOR: pi_alloc::MiMalloc = pi_alloc::MiMalloc;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use pi_coding_agent::convert_to_llm;
use pi_coding_agent::session::{SessionManager, list_sessions_in};

/// CPU time of this thread so far, seconds (`/proc/thread-self/schedstat`,
/// nanoseconds on the CPU; the workloads that use it run on one thread): on a
/// shared machine a workload's wall time mostly measures the other
/// processes.
///
/// The kernel updates this clock at scheduler ticks, so workloads repeat
/// until they have used [`MIN_CPU_SECONDS`] and report the mean.
pub fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns * 1e-9)
}

/// The CPU time a repeated workload runs for at least, so the tick-grained
/// clock's error stays under a few percent.
pub const MIN_CPU_SECONDS: f64 = 0.2;

/// Peak RSS of this process, KiB (0 when /proc is missing).
fn vm_hwm_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("VmHWM"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or(0)
}

/// CPU time of this process so far, every thread's (those that ended
/// too), seconds: a resume parses a long file on two threads.
fn process_cpu_seconds() -> f64 {
    use nix::sys::resource::{UsageWho, getrusage};
    getrusage(UsageWho::RUSAGE_SELF).map_or(0.0, |usage| {
        let seconds = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 * 1e-6;
        seconds(usage.user_time()) + seconds(usage.system_time())
    })
}

/// Child: resume `path` as `pi -c` does before its first request (CPU of
/// every thread).
fn child_resume(path: &Path) {
    let start = process_cpu_seconds();
    let mut session = SessionManager::open(path, None).unwrap();
    let context = session.take_session_context();
    let converted = convert_to_llm(&context.messages);
    let seconds = process_cpu_seconds() - start;
    assert!(!converted.is_empty());
    println!("{seconds}\t{}", vm_hwm_kib());
}

/// Child: list the sessions of `dir`.
fn child_list(dir: &Path) {
    let start = cpu_seconds();
    let sessions = list_sessions_in(dir).unwrap();
    let seconds = cpu_seconds() - start;
    assert!(!sessions.is_empty());
    println!("{seconds}\t{}", vm_hwm_kib());
}

/// Child: the session picker's first paint over `dir` (list, build the
/// picker, render one frame), as `/resume` and `pi -r` do.
fn child_picker(dir: &Path) {
    use pi_coding_agent::modes::interactive::selectors::SlotComponent;
    use pi_coding_agent::modes::interactive::selectors::session::{
        SessionPicker, SessionStore, StoreError,
    };
    struct NoStore;
    impl SessionStore for NoStore {
        fn list_all(&self) -> Vec<pi_coding_agent::session::SessionInfo> {
            Vec::new()
        }
        fn rename(&self, _: &Path, _: &str) -> Result<(), StoreError> {
            Ok(())
        }
        fn delete(&self, _: &Path) -> Result<bool, StoreError> {
            Ok(false)
        }
    }
    let start = Instant::now();
    let sessions = list_sessions_in(dir).unwrap();
    let theme = std::sync::Arc::new(pi_tui::Theme::dark(pi_tui::ColorMode::TrueColor));
    let mut picker = SessionPicker::new(theme, sessions, None, Box::new(NoStore));
    let frame = picker.render(120, 40);
    let seconds = start.elapsed().as_secs_f64();
    assert!(frame.len() > 10 && picker.shown() > 0);
    println!("{seconds}\t{}", vm_hwm_kib());
}

/// Runs this binary as a child with `args` `reps` times; the fastest run's
/// time, the largest peak RSS and the fastest run's further fields.
fn in_child_args(args: &[&str], reps: usize) -> (f64, u64, String) {
    let exe = std::env::current_exe().unwrap();
    let mut best = (f64::INFINITY, 0, String::new());
    for _ in 0..reps {
        let out = Command::new(&exe).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let mut fields = text.trim().splitn(3, '\t');
        let seconds: f64 = fields.next().unwrap().parse().unwrap();
        let rss: u64 = fields.next().unwrap().parse().unwrap();
        let rest = fields.next().unwrap_or_default().to_owned();
        if seconds < best.0 {
            best.0 = seconds;
            best.2 = rest;
        }
        best.1 = best.1.max(rss);
    }
    best
}

/// Runs this binary as a child `reps` times; the fastest run's time and
/// the largest peak RSS.
fn in_child(flag: &str, path: &Path, reps: usize) -> (f64, u64) {
    let exe = std::env::current_exe().unwrap();
    let mut best = (f64::INFINITY, 0);
    for _ in 0..reps {
        let out = Command::new(&exe).arg(flag).arg(path).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let mut fields = text.trim().split('\t');
        let seconds: f64 = fields.next().unwrap().parse().unwrap();
        let rss: u64 = fields.next().unwrap().parse().unwrap();
        best = (best.0.min(seconds), best.1.max(rss));
    }
    best
}

fn row(workload: &str, size: &str, n: u64, (seconds, rss): (f64, u64)) {
    println!("{workload}\t{size}\t{n}\t{seconds:.6}\t{rss}");
}

/// A session of `entries` messages in `dir`, written once.
fn session(dir: &Path, entries: usize) -> PathBuf {
    let path = dir.join(format!("big-{entries}.jsonl"));
    generator::write_session(&path, entries);
    path
}

/// `count` small sessions plus `big` in a fresh directory.
fn listing_dir(root: &Path, count: usize, big: &Path) -> PathBuf {
    let dir = root.join(format!(
        "list-{count}-{}",
        big.file_name().unwrap().display()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let small = dir.join("small-0.jsonl");
    generator::write_session(&small, 20);
    for i in 1..count {
        std::fs::copy(&small, dir.join(format!("small-{i}.jsonl"))).unwrap();
    }
    std::fs::copy(big, dir.join("big.jsonl")).unwrap();
    dir
}

fn mib(path: &Path) -> String {
    let len = std::fs::metadata(path).unwrap().len();
    format!("{:.1} MB", len as f64 / 1e6)
}

fn mb(bytes: usize) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

/// Decode of a long streamed answer and the request of a long context,
/// per wire.
fn wire_rows(quick: bool) {
    wire::register_all();
    let (answers, contexts): (&[usize], &[usize]) = if quick {
        (&[1 << 20, 4 << 20], &[125, 500])
    } else {
        (&[4 << 20, 16 << 20], &[500, 2_000])
    };
    for w in &wire::WIRES {
        let short = wire::short_answer(w);
        for &bytes in answers {
            let body = wire::long_answer(w, bytes);
            let seconds = decode::decode(w, &body, 3);
            decode_row(&w.decode_in_memory_workload(), body.len, seconds);
        }
        for &bytes in answers {
            let body = wire::long_answer(w, bytes);
            let (seconds, _) = wire::request(w, &[], &body, 3);
            decode_row(&w.decode_workload(), body.len, seconds);
        }
        for &n in contexts {
            let messages = agent::transcript(n);
            let (seconds, sent) = wire::request(w, &messages, &short, 3);
            row(
                &format!("request encode + loopback send, CPU, {}", w.name),
                &format!(
                    "{n} messages, {} body: {:.0} MB/s",
                    mb(sent),
                    sent as f64 / seconds / 1e6
                ),
                n as u64,
                (seconds, 0),
            );
        }
    }
}

/// One SSE decode row: the answer's size and its throughput.
fn decode_row(workload: &str, len: usize, seconds: f64) {
    row(
        workload,
        &format!("{} answer: {:.0} MB/s", mb(len), len as f64 / seconds / 1e6),
        len as u64,
        (seconds, 0),
    );
}

/// The app's conversion plus pi-ai's transform, and the agent's overhead
/// per turn.
fn agent_rows(quick: bool) {
    let sizes: &[usize] = if quick {
        &[2_500, 10_000]
    } else {
        &[2_500, 10_000, 40_000]
    };
    for &n in sizes {
        row(
            "convert + transform (app converter, pi-ai transform), CPU",
            &format!("{n} messages"),
            n as u64,
            (agent::convert_and_transform(n, 3), 0),
        );
    }
    let turns = if quick { 20 } else { 100 };
    for &n in sizes {
        row(
            "agent per-turn overhead (loop, events, no-op tool), CPU",
            &format!("{n} messages, per turn of {turns}"),
            n as u64,
            (agent::per_turn(n, turns, 3), 0),
        );
    }
}

/// The Bedrock API key the bedrock rows sign with (the wire reads its
/// credentials from the environment, as the app does).
const BEDROCK_KEY: &str = "AWS_BEARER_TOKEN_BEDROCK";

fn main() {
    pi_alloc::release_freed_memory_at_once();
    if std::env::var_os(BEDROCK_KEY).is_none() {
        // Run again with a key in the environment: this process cannot set
        // its own (`set_var` is unsafe and the workspace forbids unsafe code).
        let status = Command::new(std::env::current_exe().unwrap())
            .args(std::env::args_os().skip(1))
            .env(BEDROCK_KEY, "perf-bench-key")
            .status()
            .unwrap();
        std::process::exit(status.code().unwrap_or(1));
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag, path] if flag == "--child-resume" => return child_resume(Path::new(path)),
        [flag, path] if flag == "--child-list" => return child_list(Path::new(path)),
        [flag, path] if flag == "--child-picker" => return child_picker(Path::new(path)),
        [flag, path, query] if flag == "--child-search" => {
            return search::child(Path::new(path), query);
        }
        [flag, path, n] if flag == "--write-session" => {
            generator::write_session(Path::new(path), n.parse().unwrap());
            return;
        }
        [flag, path, n, shape] if flag == "--write-session" => {
            let shape = generator::Shape::parse(shape).expect("shape: standard or issue");
            generator::write_shaped_session(Path::new(path), n.parse().unwrap(), shape);
            return;
        }
        _ => {}
    }
    let quick = args.iter().any(|a| a == "--quick");
    // `--listing-only`: only the listing and picker rows (with the largest session).
    let listing_only = args.iter().any(|a| a == "--listing-only");
    // `--wire-only`: only the rows of each wire (decode and request encode).
    if args.iter().any(|a| a == "--wire-only") {
        wire_rows(quick);
        return;
    }
    // `--search-only`: only the session search rows.
    if args.iter().any(|a| a == "--search-only") {
        let dir = tempfile::tempdir().unwrap();
        search::rows(dir.path(), quick, 3);
        return;
    }
    // `--extensions-only`: only the extension rows.
    if args.iter().any(|a| a == "--extensions-only") {
        extensions::rows(quick);
        host::rows(quick);
        return;
    }
    if !listing_only {
        wire_rows(quick);
        agent_rows(quick);
        extensions::rows(quick);
        host::rows(quick);
    }
    // About 750 bytes per entry: 170,000 entries make a 128 MB file.
    let (resume_sizes, listing_count, reps): (&[usize], usize, usize) = if listing_only {
        (&[305_000], 1_000, 3)
    } else if quick {
        (&[2_500, 10_000], 100, 3)
    } else {
        (&[20_000, 80_000, 100_000, 170_000], 1_000, 3)
    };
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for &n in resume_sizes {
        let path = session(dir.path(), n);
        row(
            "session resume in process (open + context + convert), CPU",
            &format!("{n} entries, {}", mib(&path)),
            n as u64,
            in_child("--child-resume", &path, reps),
        );
        files.push(path);
    }
    // Listing: the large file is the first and then the last of the
    // resume sessions (4x apart at least), so the listing time must not
    // follow it.
    for big in [&files[0], &files[files.len() - 1]] {
        let list = listing_dir(dir.path(), listing_count, big);
        row(
            "session listing, CPU",
            &format!("{listing_count} sessions incl. one of {}", mib(big)),
            std::fs::metadata(big).unwrap().len(),
            in_child("--child-list", &list, reps),
        );
        row(
            "session picker first paint (list + render)",
            &format!("{listing_count} sessions incl. one of {}", mib(big)),
            std::fs::metadata(big).unwrap().len(),
            in_child("--child-picker", &list, reps),
        );
        std::fs::remove_dir_all(&list).unwrap();
    }
    search::rows(dir.path(), quick, reps);
}
