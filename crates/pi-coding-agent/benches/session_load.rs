#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
//! Loads a session of 20,000 and of 100,000 messages and builds the context
//! of its leaf. Allocation counts and bytes come from divan's allocation
//! profiler; peak RSS is measured by
//! `cargo run --release --example session_load_rss`.

#[path = "support/gen.rs"]
mod generator;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use pi_coding_agent::session::{SessionManager, load_session_file};
use pi_coding_agent::{build_session_context, convert_to_llm};

#[global_allocator]
static ALLOC: divan::AllocProfiler = divan::AllocProfiler::system();

/// Session sizes, in messages (every entry of the generated files is one).
const SIZES: [usize; 2] = [20_000, 100_000];

fn main() {
    // Written before timing starts, not inside the first sample.
    fixture(SIZES[0]);
    divan::main();
}

/// The generated session with `entries` messages.
fn fixture(entries: usize) -> &'static Path {
    static FIXTURES: OnceLock<(tempfile::TempDir, Vec<PathBuf>)> = OnceLock::new();
    let (_dir, paths) = FIXTURES.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let paths = SIZES
            .iter()
            .map(|&n| {
                let path = dir.path().join(format!("session-{n}.jsonl"));
                generator::write_session(&path, n);
                path
            })
            .collect();
        (dir, paths)
    });
    let position = SIZES.iter().position(|&n| n == entries).unwrap();
    &paths[position]
}

/// Parse every line, then rebuild the context of the last entry.
#[divan::bench(args = SIZES, sample_count = 10, sample_size = 1)]
fn load_and_build_context(entries: usize) -> usize {
    let loaded = load_session_file(fixture(entries)).unwrap();
    let leaf = loaded.entries.last().map(|e| e.id().to_owned());
    let context = build_session_context(&loaded.entries, leaf.as_deref());
    assert_eq!(context.messages.len(), entries);
    context.messages.len()
}

/// What a resume does: `SessionManager::open` (index + labels) and the
/// context of the leaf taken from it, plus convert_to_llm.
#[divan::bench(args = SIZES, sample_count = 10, sample_size = 1)]
fn open_take_context_and_convert(entries: usize) -> usize {
    let mut session = SessionManager::open(fixture(entries), None).unwrap();
    let context = session.take_session_context();
    convert_to_llm(&context.messages).len()
}
