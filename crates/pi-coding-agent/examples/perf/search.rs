//! The session picker's full-text search: `count` sessions of about 1 MB
//! each (generated, then copied), one of which holds a phrase in its last
//! message; a query is searched over all of them as `/resume` does (worker
//! threads, the pre-filter, decoding of the candidates), warm page cache.
//! Timed in a child process (wall time of the search after the listing;
//! its CPU time of every thread and peak RSS are its own).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use pi_coding_agent::modes::interactive::selectors::session_searcher::search_now;
use pi_coding_agent::session::list_sessions_in;

use super::{in_child_args, process_cpu_seconds, row, vm_hwm_kib};

/// Entries of a generated session of about 1 MB (100 KB in quick runs).
const ENTRIES: usize = 1_400;
/// The phrase only one session holds.
const PHRASE: &str = "the zebra crossing protocol";

/// The queries measured: a phrase in one session only (every file read, the
/// pre-filter rejects the others), a regex (every file decoded) and fuzzy
/// tokens that match every session early.
const QUERIES: &[(&str, &str)] = &[
    ("phrase in one session", "\"zebra crossing\""),
    ("regex", "re:zebra\\s+crossing"),
    ("fuzzy tokens in every session", "fix test"),
];

/// Child: search `dir` for `query` (the listing is not timed): seconds of
/// wall time, CPU seconds, matches, peak RSS.
pub fn child(dir: &Path, query: &str) {
    let sessions = list_sessions_in(dir).unwrap();
    let cpu = process_cpu_seconds();
    let start = Instant::now();
    let found = search_now(&sessions, query, false);
    let seconds = start.elapsed().as_secs_f64();
    let cpu = process_cpu_seconds() - cpu;
    assert!(!found.is_empty(), "{query} found nothing");
    println!("{seconds}\t{}\t{cpu}\t{}", vm_hwm_kib(), found.len());
}

/// `count` sessions in a fresh directory under `root`; the last one holds
/// [`PHRASE`] in an assistant message at its end.
fn corpus(root: &Path, count: usize, entries: usize) -> PathBuf {
    let dir = root.join(format!("search-{count}"));
    std::fs::create_dir_all(&dir).unwrap();
    let first = dir.join("s-0000.jsonl");
    super::generator::write_session(&first, entries);
    for i in 1..count {
        std::fs::copy(&first, dir.join(format!("s-{i:04}.jsonl"))).unwrap();
    }
    let mut last = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join(format!("s-{:04}.jsonl", count - 1)))
        .unwrap();
    let line = serde_json::json!({"type": "message", "id": "zebra001", "parentId": null,
        "timestamp": "2026-01-01T00:00:00.000Z",
        "message": {"role": "assistant", "content": [{"type": "text",
            "text": format!("Deep answer: {PHRASE}.")}], "timestamp": 1}});
    writeln!(last, "{line}").unwrap();
    dir
}

/// The search rows: sizes 4x apart.
pub fn rows(root: &Path, quick: bool, reps: usize) {
    let counts: &[usize] = if quick { &[10, 40] } else { &[250, 1_000] };
    for &count in counts {
        let entries = if quick { ENTRIES / 10 } else { ENTRIES };
        let dir = corpus(root, count, entries);
        let bytes: u64 = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().metadata().unwrap().len())
            .sum();
        for (label, query) in QUERIES {
            let (seconds, rss, extra) =
                in_child_args(&["--child-search", dir.to_str().unwrap(), query], reps);
            let mut extra = extra.split('\t');
            let cpu: f64 = extra.next().unwrap().parse().unwrap();
            let matches = extra.next().unwrap();
            row(
                &format!("session search, {label}, wall"),
                &format!(
                    "{count} sessions, {:.0} MB, {matches} matching; CPU {cpu:.2} s",
                    bytes as f64 / 1e6
                ),
                count as u64,
                (seconds, rss),
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
