#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
//! Loads a 100,000-entry session file and builds the context of its leaf.
//! Allocation counts and bytes come from divan's allocation profiler; peak
//! RSS is measured by `cargo run --release --example session_load_rss`.

#[path = "support/gen.rs"]
mod generator;

use pi_coding_agent::session::{SessionManager, load_session_file};
use pi_coding_agent::{build_session_context, convert_to_llm};

#[global_allocator]
static ALLOC: divan::AllocProfiler = divan::AllocProfiler::system();

const ENTRIES: usize = 100_000;

fn main() {
    divan::main();
}

struct Fixture {
    _dir: tempfile::TempDir,
    path: std::path::PathBuf,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: std::sync::OnceLock<Fixture> = std::sync::OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.jsonl");
        generator::write_session(&path, ENTRIES);
        Fixture { _dir: dir, path }
    })
}

/// Parse every line, then rebuild the context of the last entry.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn load_and_build_context() -> usize {
    let loaded = load_session_file(&fixture().path).unwrap();
    let leaf = loaded.entries.last().map(|e| e.id().to_owned());
    let context = build_session_context(&loaded.entries, leaf.as_deref());
    assert_eq!(context.messages.len(), ENTRIES);
    context.messages.len()
}

/// The same through `SessionManager::open` (index + labels), plus convert_to_llm.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn open_build_and_convert() -> usize {
    let session = SessionManager::open(&fixture().path, None).unwrap();
    let context = session.build_session_context();
    convert_to_llm(&context.messages).len()
}
