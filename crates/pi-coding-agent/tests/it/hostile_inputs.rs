#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `/dev/zero` and FIFOs where pi-rs reads configuration, context, input
//! and sessions: every run ends quickly with the file refused (or read
//! within its bound), never hangs and never reads without end. (Skipped
//! context and settings files are logged as warnings, not shown by default.)

use crate::e2e_common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use e2e_common::{Scenario, capture_answer, text};
use serde_json::json;

/// Runs `command`, killing it (and failing) after 20 s.
fn run_bounded(mut command: Command) -> (Output, Duration) {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = command.spawn().unwrap();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("the run hung: {command:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    (child.wait_with_output().unwrap(), started.elapsed())
}

fn fifo(path: &Path) -> PathBuf {
    nix::unistd::mkfifo(path, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    path.to_path_buf()
}

fn zero(link: &Path) -> PathBuf {
    std::os::unix::fs::symlink("/dev/zero", link).unwrap();
    link.to_path_buf()
}

/// `pi -p` in a scenario answering one prompt.
async fn answered(setup: impl FnOnce(&Scenario)) -> (Output, String) {
    let s = Scenario::start(vec![capture_answer("fine")]).await;
    setup(&s);
    let command = s.command(&["--no-session", "-p", "--model", "mock-oai/mock-gpt", "hi"]);
    let (out, _) = tokio::task::block_in_place(|| run_bounded(command));
    (out.clone(), text(&out.stderr))
}

#[tokio::test(flavor = "multi_thread")]
async fn context_files_that_are_devices_or_fifos_are_skipped_with_a_warning() {
    for make in [zero as fn(&Path) -> PathBuf, fifo] {
        let (out, stderr) = answered(|s| {
            make(&s.work.path().join("AGENTS.md"));
        })
        .await;
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        assert_eq!(text(&out.stdout), "fine\n");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn settings_and_auth_that_are_devices_or_fifos_do_not_stop_a_run() {
    for make in [zero as fn(&Path) -> PathBuf, fifo] {
        let (out, stderr) = answered(|s| {
            make(&s.agent_dir.path().join("settings.json"));
            make(&s.agent_dir.path().join("keybindings.json"));
            make(&s.work.path().join(".pi-settings-unused"));
        })
        .await;
        assert_eq!(out.status.code(), Some(0), "{stderr}");
    }
    // auth.json: the key is needed elsewhere (the mock model has one), so
    // the file's failure is reported and the run ends without a hang.
    let (out, stderr) = answered(|s| {
        zero(&s.agent_dir.path().join("auth.json"));
    })
    .await;
    assert!(
        out.status.success() || stderr.contains("not a regular file"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_models_file_that_is_a_device_is_refused_at_once() {
    let s = Scenario::start(Vec::new()).await;
    let models = s.agent_dir.path().join("models.json");
    std::fs::remove_file(&models).unwrap();
    zero(&models);
    let command = s.command(&["--no-session", "-p", "hi"]);
    let (out, took) = tokio::task::block_in_place(|| run_bounded(command));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("not a regular file (a character device)"),
        "{stderr}"
    );
    assert!(took < Duration::from_secs(10));
}

#[tokio::test(flavor = "multi_thread")]
async fn explicit_inputs_are_read_within_their_bound() {
    // `@/dev/zero`: read up to 64 MiB, then refused.
    let s = Scenario::start(vec![capture_answer("fine")]).await;
    let command = s.command(&[
        "--no-session",
        "-p",
        "--model",
        "mock-oai/mock-gpt",
        "@/dev/zero",
        "hi",
    ]);
    let (out, _) = tokio::task::block_in_place(|| run_bounded(command));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("larger than 64 MiB"), "{stderr}");
    assert!(s.requests().is_empty());
    // A FIFO nobody writes to reads as empty; `--system-prompt /dev/zero`
    // is refused (a warning) and taken as text, as pi takes a missing file.
    let pipe = fifo(&s.work.path().join("pipe"));
    let command = s.command(&[
        "--no-session",
        "-p",
        "--model",
        "mock-oai/mock-gpt",
        "--system-prompt",
        "/dev/zero",
        &format!("@{}", pipe.display()),
        "hi",
    ]);
    let (out, _) = tokio::task::block_in_place(|| run_bounded(command));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let body = s.requests()[0].json();
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(system.starts_with("/dev/zero\nCurrent date:"), "{system}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_that_is_a_device_or_fifo_is_refused() {
    let s = Scenario::start(Vec::new()).await;
    let pipe = fifo(&s.work.path().join("s.jsonl"));
    for session in [Path::new("/dev/zero"), pipe.as_path()] {
        let mut command = s.command(&["-p", "--model", "mock-oai/mock-gpt", "--session"]);
        command.arg(session).arg("hi");
        let (out, _) = tokio::task::block_in_place(|| run_bounded(command));
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("is not a regular file"), "{stderr}");
    }
    // A FIFO among the session files: `-c` passes it by.
    let dir = s.sessions_dir();
    std::fs::create_dir_all(&dir).unwrap();
    fifo(&dir.join("2026-01-01T00-00-00-000Z_fifo.jsonl"));
    let mut command = s.command(&["-c", "-p", "--model", "mock-oai/mock-gpt", "--session-dir"]);
    command.arg(&dir).arg("hi");
    let server = pi_test_support::mock_server::MockServer::start(vec![capture_answer("fine")])
        .await
        .unwrap();
    e2e_common::use_server(&s, &server);
    let (out, _) = tokio::task::block_in_place(|| run_bounded(command));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // rpc: switch_session to /dev/zero fails, and later commands are answered.
    let mut rpc = e2e_common::RpcProcess::start(s.command(&[
        "--mode",
        "rpc",
        "--no-session",
        "--model",
        "mock-oai/mock-gpt",
    ]));
    let (switched, state) = tokio::task::block_in_place(|| {
        let switched = rpc.send(json!({"type": "switch_session", "sessionPath": "/dev/zero"}));
        let state = rpc.send(json!({"type": "get_state"}));
        rpc.finish();
        (switched, state)
    });
    let response = switched.last().unwrap();
    assert_eq!(response["success"], false, "{response}");
    assert!(
        response["error"]
            .as_str()
            .unwrap()
            .contains("not a regular file"),
        "{response}"
    );
    assert_eq!(state.last().unwrap()["success"], true);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_png_of_60000_by_60000_pixels_is_never_decoded() {
    if !e2e_common::alone(
        module_path!(),
        "a_png_of_60000_by_60000_pixels_is_never_decoded",
    ) {
        return;
    }
    let s = Scenario::start(vec![capture_answer("seen")]).await;
    // 437 KB of deflated 1-bit rows (fixtures/images): decoding it reached
    // 5.4 GB in 39 s (11.7 GB in the probe).
    let bomb = e2e_common::fixtures().join("../images/bomb-60000x60000.png");
    std::fs::copy(bomb, s.work.path().join("bomb.png")).unwrap();
    let command = s.command(&[
        "--no-session",
        "-p",
        "--model",
        "mock-oai/mock-gpt",
        "@bomb.png",
        "what is this?",
    ]);
    let (out, took) = tokio::task::block_in_place(|| run_bounded(command));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let body = s.requests()[0].json().to_string();
    assert!(body.contains("Image omitted"), "{body}");
    // This test runs alone in its process: its one child is the `pi` run.
    let usage =
        nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN).unwrap();
    let peak_mib = usage.max_rss() / 1024;
    assert!(peak_mib < 300, "peak {peak_mib} MiB");
    assert!(took < Duration::from_secs(10), "{took:?}");
}
