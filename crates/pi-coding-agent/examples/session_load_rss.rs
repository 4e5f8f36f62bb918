//! Peak memory of resuming large sessions (20,000 and 100,000 messages):
//! writes each file, then in a fresh child process (so the writer's memory
//! does not count) opens it, takes the context as a resume does and prints
//! the times and VmHWM from /proc/self/status.
//!
//! `cargo run --release -p pi-coding-agent --example session_load_rss`
//!
//! `... --example session_load_rss -- --write N FILE` only writes a session
//! of N messages to FILE (to time the `pi` binary resuming it);
//! `... -- --load FILE` only measures FILE.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    missing_docs
)]

#[path = "../benches/support/gen.rs"]
mod generator;

use std::path::Path;
use std::time::Instant;

use pi_coding_agent::session::SessionManager;

fn vm_hwm() -> String {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("VmHWM"))
        .map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".into())
}

fn load(path: &Path) {
    let before = vm_hwm();
    let start = Instant::now();
    let mut session = SessionManager::open(path, None).unwrap();
    let loaded = start.elapsed();
    let context = session.take_session_context();
    let total = start.elapsed();
    println!(
        "entries {}, context messages {}, open {loaded:?}, open+context {total:?}, VmHWM before {before}, after {}",
        session.entry_count(),
        context.messages.len(),
        vm_hwm()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag, path] if flag == "--load" => return load(Path::new(path)),
        [flag, count, path] if flag == "--write" => {
            generator::write_session(Path::new(path), count.parse().unwrap());
            return;
        }
        _ => {}
    }
    let dir = tempfile::tempdir().unwrap();
    for entries in [20_000, 100_000] {
        let path = dir.path().join(format!("session-{entries}.jsonl"));
        generator::write_session(&path, entries);
        let size = std::fs::metadata(&path).unwrap().len();
        println!("{entries} messages, file {size} bytes");
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .arg("--load")
            .arg(&path)
            .status()
            .unwrap();
        assert!(status.success());
    }
}
