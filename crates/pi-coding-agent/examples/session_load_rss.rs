//! Peak memory of loading a 100,000-entry session: writes the file, then in
//! a fresh child process (so the writer's memory does not count) opens it,
//! builds the context and prints the time and VmHWM from /proc/self/status.
//!
//! `cargo run --release -p pi-coding-agent --example session_load_rss`
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    missing_docs
)]

#[path = "../benches/support/gen.rs"]
mod generator;

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

fn main() {
    let mut args = std::env::args().skip(1);
    if let (Some(flag), Some(path)) = (args.next(), args.next())
        && flag == "--load"
    {
        let before = vm_hwm();
        let start = Instant::now();
        let session = SessionManager::open(std::path::Path::new(&path), None).unwrap();
        let loaded = start.elapsed();
        let context = session.build_session_context();
        let total = start.elapsed();
        println!(
            "entries {}, context messages {}, open {:?}, open+context {:?}, VmHWM before {before}, after {}",
            session.entries().len(),
            context.messages.len(),
            loaded,
            total,
            vm_hwm()
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    generator::write_session(&path, 100_000);
    let size = std::fs::metadata(&path).unwrap().len();
    println!("file {size} bytes");
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .arg("--load")
        .arg(&path)
        .status()
        .unwrap();
    assert!(status.success());
}
