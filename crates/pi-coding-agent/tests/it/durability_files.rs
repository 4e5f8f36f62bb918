#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `edit` and `write` never destroy the user's file: on a full disk it is
//! left as it was, with an error naming what failed; SIGKILLed at random
//! points while editing a large file, it is always the old file or the new
//! one, and the temporary files of killed runs are removed by the next edit.
//!
//! The full disk is a small tmpfs where the test may mount one (root, as
//! in CI), else a file size limit on the child (`pi_test_support::full_disk`).
//! `PI_EDIT_KILL_TRIALS` sets the number of kills (default 100).

use crate::e2e_common;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use e2e_common::{Rng, Scenario, capture_answer, text, tool_call_answer, use_server};
use pi_test_support::full_disk::FullDisk;
use pi_test_support::mock_server::MockServer;
use serde_json::json;

/// `lines` numbered lines of code-like text, with `MARKER-OLD` in the middle.
fn big_text(lines: usize) -> String {
    let mut text = String::with_capacity(lines * 48);
    for i in 0..lines {
        if i == lines / 2 {
            text.push_str("    let marker = \"MARKER-OLD\";\n");
        }
        text.push_str(&format!(
            "    let value_{i} = compute({i}, \"some text\");\n"
        ));
    }
    text
}

fn temp_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".pi-tmp-"))
        .collect()
}

/// What the edit puts in place of `MARKER-OLD`: 16 KB more than the room
/// left on the full disk, so that the old file's own space cannot hold it.
fn grown_marker() -> String {
    format!("MARKER-NEW {}", "x".repeat(16 * 1024))
}

fn edit_call(new_text: &str) -> serde_json::Value {
    json!({"path": "big.txt", "edits": [{"oldText": "MARKER-OLD", "newText": new_text}]})
}

/// Runs `pi -p` in `workdir` on a fresh server answering `responses`;
/// returns the output and the text the model got back (its last request).
async fn run_in(
    s: &Scenario,
    disk: &FullDisk,
    workdir: &Path,
    responses: Vec<pi_test_support::mock_server::MockResponse>,
) -> (std::process::Output, String) {
    let server = MockServer::start(responses).await.unwrap();
    use_server(s, &server);
    let mut command = s.command(&["--no-session", "-p", "--model", "mock-oai/mock-gpt", "go"]);
    command.current_dir(workdir);
    let mut command = disk.wrap(&command);
    command.stdin(Stdio::null());
    let out = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let last = server
        .requests()
        .last()
        .map(|r| r.json().to_string())
        .unwrap_or_default();
    (out, last)
}

fn the_failure_is_named(sent: &str, workdir: &Path, disk: &FullDisk) {
    let code = if disk.is_tmpfs() {
        "ENOSPC: no space left on device, write"
    } else {
        "EFBIG: file too large, write"
    };
    assert!(sent.contains(code), "{sent}");
    assert!(sent.contains(".big.txt.pi-tmp-"), "{sent}");
    let unchanged = format!("({} was not changed)", workdir.join("big.txt").display());
    assert!(sent.contains(&unchanged), "{sent}");
}

#[tokio::test(flavor = "multi_thread")]
async fn edit_on_a_full_disk_leaves_the_file_as_it_was() {
    let s = Scenario::start(Vec::new()).await;
    let mut disk = FullDisk::new();
    let original = big_text(20_000);
    std::fs::write(disk.path().join("big.txt"), &original).unwrap();
    disk.fill_leaving(4 * 1024);
    let responses = vec![
        tool_call_answer("call_1", "edit", &edit_call(&grown_marker())),
        capture_answer("done"),
    ];
    let (out, sent) = run_in(&s, &disk, disk.path(), responses).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    the_failure_is_named(&sent, disk.path(), &disk);
    assert!(
        std::fs::read_to_string(disk.path().join("big.txt")).unwrap() == original,
        "the file is whole"
    );
    assert_eq!(temp_files(disk.path()), Vec::<String>::new());
    // With room again, the same edit succeeds.
    disk.free();
    let responses = vec![
        tool_call_answer("call_1", "edit", &edit_call(&grown_marker())),
        capture_answer("done"),
    ];
    let (_, sent) = run_in(&s, &disk, disk.path(), responses).await;
    assert!(sent.contains("Successfully replaced 1 block(s)"), "{sent}");
    let now = std::fs::read_to_string(disk.path().join("big.txt")).unwrap();
    assert!(now == original.replacen("MARKER-OLD", &grown_marker(), 1));
}

#[tokio::test(flavor = "multi_thread")]
async fn write_on_a_full_disk_leaves_the_file_as_it_was() {
    let s = Scenario::start(Vec::new()).await;
    let mut disk = FullDisk::new();
    let original = big_text(20_000);
    std::fs::write(disk.path().join("big.txt"), &original).unwrap();
    disk.fill_leaving(4 * 1024);
    let content = big_text(21_000);
    let responses = vec![
        tool_call_answer(
            "call_1",
            "write",
            &json!({"path": "big.txt", "content": content}),
        ),
        capture_answer("done"),
    ];
    let (out, sent) = run_in(&s, &disk, disk.path(), responses).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    the_failure_is_named(&sent, disk.path(), &disk);
    assert!(std::fs::read_to_string(disk.path().join("big.txt")).unwrap() == original);
    assert_eq!(temp_files(disk.path()), Vec::<String>::new());
}

/// What the killed edits put in place of `MARKER-OLD`.
const NEW_MARKER: &str = "MARKER-NEW, and a longer line than before";

/// Starts `pi -p` editing big.txt, kills it after `after` (or lets it end);
/// returns how long it ran.
async fn edit_killed_after(s: &Scenario, after: Option<Duration>) -> Duration {
    let server = MockServer::start(vec![
        tool_call_answer("call_1", "edit", &edit_call(NEW_MARKER)),
        capture_answer("done"),
    ])
    .await
    .unwrap();
    use_server(s, &server);
    let mut command = s.command(&["--no-session", "-p", "--model", "mock-oai/mock-gpt", "go"]);
    command.stdout(Stdio::null()).stderr(Stdio::null());
    tokio::task::spawn_blocking(move || {
        let started = Instant::now();
        let mut child = command.spawn().unwrap();
        if let Some(after) = after {
            while started.elapsed() < after {
                if child.try_wait().unwrap().is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_micros(500));
            }
            let _ = child.kill();
        }
        child.wait().unwrap();
        started.elapsed()
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_kill_during_edit_leaves_the_old_file_or_the_new_one() {
    let trials: u64 = std::env::var("PI_EDIT_KILL_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let s = Scenario::start(Vec::new()).await;
    let path = s.work.path().join("big.txt");
    // About 16 MB: the edit's write takes a while.
    let old = big_text(350_000);
    let new = old.replacen("MARKER-OLD", NEW_MARKER, 1);
    std::fs::write(&path, &old).unwrap();
    let whole = edit_killed_after(&s, None).await;
    assert!(
        std::fs::read_to_string(&path).unwrap() == new,
        "the edit works"
    );
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut olds, mut news) = (0, 0);
    for trial in 0..trials {
        std::fs::write(&path, &old).unwrap();
        let after = Duration::from_micros(rng.below(whole.as_micros() as u64 + 1));
        edit_killed_after(&s, Some(after)).await;
        let now = std::fs::read(&path).unwrap();
        if now == old.as_bytes() {
            olds += 1;
        } else if now == new.as_bytes() {
            news += 1;
        } else {
            panic!(
                "trial {trial} (killed after {after:?}): the file is neither old nor new ({} bytes)",
                now.len()
            );
        }
    }
    eprintln!(
        "{trials} kills: {olds} left the old file, {news} the new one (a whole run: {whole:?})"
    );
    // What killed runs left behind goes with the next edit of the file.
    std::fs::write(&path, &old).unwrap();
    edit_killed_after(&s, None).await;
    assert_eq!(temp_files(s.work.path()), Vec::<String>::new());
    assert!(std::fs::read_to_string(&path).unwrap() == new);
}
