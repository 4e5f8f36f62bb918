#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `edit` of a large file keeps memory to a small multiple of the file:
//! the peak resident memory of this process (the test binary run again for
//! this one test, `e2e_common::alone`) is measured around each edit. `PI_EDIT_LARGE_MB` sets the file size
//! (default 50 MB); Linux only (the peak comes from `/proc/self/status`).

use crate::e2e_common;

use std::fs;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use pi_agent_core::{AgentTool, ignore_updates};
use pi_ai::CancellationToken;
use pi_coding_agent::tools::EditTool;
use serde_json::{Value, json};

/// The peak resident memory of this process so far, in bytes.
fn peak_rss() -> Option<u64> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Starts a new peak measurement (Linux: writing 5 to `clear_refs`).
fn reset_peak() -> bool {
    fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Writes `lines` lines of code-like text, streamed; `ending` ends every
/// line and `trailing` comes before it (trailing spaces force the fuzzy form).
fn write_big(path: &Path, lines: usize, trailing: &str, ending: &str) -> u64 {
    let mut out = std::io::BufWriter::new(fs::File::create(path).unwrap());
    for i in 0..lines {
        write!(
            out,
            "    let value_{i} = compute({i}, \"some text\");{trailing}{ending}"
        )
        .unwrap();
    }
    out.flush().unwrap();
    fs::metadata(path).unwrap().len()
}

struct Measured {
    details: Value,
    grown: u64,
    took: Duration,
}

async fn measured_edit(dir: &Path, edits: Value) -> Measured {
    let tool = EditTool::new(dir);
    assert!(reset_peak());
    let before = peak_rss().unwrap();
    let started = Instant::now();
    let result = tool
        .execute(
            "call_1",
            json!({"path": "big.txt", "edits": edits}),
            CancellationToken::new(),
            ignore_updates(),
        )
        .await
        .unwrap();
    let took = started.elapsed();
    let grown = peak_rss().unwrap().saturating_sub(before);
    Measured {
        details: result.details,
        grown,
        took,
    }
}

#[tokio::test]
async fn editing_a_large_file_uses_a_few_times_its_size() {
    if !e2e_common::alone(
        module_path!(),
        "editing_a_large_file_uses_a_few_times_its_size",
    ) {
        return;
    }
    if peak_rss().is_none() || !reset_peak() {
        eprintln!("skipped: no /proc/self/status peak memory here");
        return;
    }
    let megabytes: u64 = std::env::var("PI_EDIT_LARGE_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    // ~50 bytes a line.
    let lines = usize::try_from(megabytes * 1024 * 1024 / 50).unwrap();
    let mid = lines / 2;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.txt");

    // LF, matched exactly: the file is read once and written once.
    let size = write_big(&file, lines, "", "\n");
    let exact = measured_edit(
        dir.path(),
        json!([
            {"oldText": format!("value_{mid} = compute({mid},"), "newText": "changed = compute(0,"},
            {"oldText": format!("value_{} = compute", lines - 1), "newText": "last = compute"}
        ]),
    )
    .await;
    let width = lines.to_string().len();
    let line = |no: usize, i: usize| {
        format!(" {no:>width$}     let value_{i} = compute({i}, \"some text\");")
    };
    let mut expected = vec![format!(" {} ...", " ".repeat(width))];
    expected.extend((mid - 4..mid).map(|i| line(i + 1, i)));
    expected.push(format!(
        "-{:>width$}     let value_{mid} = compute({mid}, \"some text\");",
        mid + 1
    ));
    expected.push(format!(
        "+{:>width$}     let changed = compute(0, \"some text\");",
        mid + 1
    ));
    expected.extend((mid + 1..mid + 5).map(|i| line(i + 1, i)));
    expected.push(format!(" {} ...", " ".repeat(width)));
    expected.extend((lines - 5..lines - 1).map(|i| line(i + 1, i)));
    let last = lines - 1;
    expected.push(format!(
        "-{lines:>width$}     let value_{last} = compute({last}, \"some text\");"
    ));
    expected.push(format!(
        "+{lines:>width$}     let last = compute({last}, \"some text\");"
    ));
    assert_eq!(
        exact.details,
        json!({"diff": expected.join("\n"), "firstChangedLine": mid + 1})
    );
    let written = fs::read_to_string(&file).unwrap();
    assert!(written.contains("    let changed = compute(0, \"some text\");\n"));
    assert!(written.ends_with(&format!("    let last = compute({last}, \"some text\");\n")));
    drop(written);

    // CRLF with trailing spaces, matched only in the fuzzy form: the LF
    // form replaces the original, and one more copy for the fuzzy form.
    let crlf_size = write_big(&file, lines, "  ", "\r\n");
    let fuzzy = measured_edit(
        dir.path(),
        json!([{"oldText": format!("compute({mid}, \"some text\");\n    let"), "newText": "X\n    let"}]),
    )
    .await;
    let written = fs::read_to_string(&file).unwrap();
    assert!(written.contains(&format!("let value_{mid} = X\r\n    let value_{}", mid + 1)));
    assert!(
        !written.contains("  \r\n"),
        "the fuzzy form drops trailing spaces"
    );
    drop(written);

    eprintln!(
        "exact: {size} bytes, +{} MB peak, {:?}; fuzzy CRLF: {crlf_size} bytes, +{} MB peak, {:?}",
        exact.grown >> 20,
        exact.took,
        fuzzy.grown >> 20,
        fuzzy.took
    );
    assert!(
        exact.grown <= size * 7 / 2,
        "exact edit of {size} bytes grew the peak by {}",
        exact.grown
    );
    assert!(
        fuzzy.grown <= crlf_size * 4,
        "fuzzy edit of {crlf_size} bytes grew the peak by {}",
        fuzzy.grown
    );
    // Generous for unoptimized CI builds; the old code needed minutes here.
    assert!(exact.took < Duration::from_secs(60), "{:?}", exact.took);
    assert!(fuzzy.took < Duration::from_secs(120), "{:?}", fuzzy.took);
}
