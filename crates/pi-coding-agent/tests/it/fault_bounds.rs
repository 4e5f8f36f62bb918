#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Bounded memory against a hostile provider, through the real binary: a
//! huge error body is read and stored only in part, an endless stream ends
//! at the response bound, and SIGINT ends an endless stream at once. Peak
//! memory is the children's `getrusage` maximum, in the test binary run
//! again for the one test (`e2e_common::alone`): every child of it is a
//! `pi` run; the mock server streams its bodies, so that process stays
//! small, and a child's size before its `exec` is small too.

use crate::e2e_common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use e2e_common::{Scenario, completion_chunk, text};
use pi_test_support::mock_server::MockResponse;

/// The largest resident size of any child waited for so far, in MiB.
fn children_peak_mib() -> i64 {
    let usage =
        nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN).unwrap();
    usage.max_rss() / 1024
}

fn endless() -> MockResponse {
    MockResponse::EndlessSse {
        frames: vec![completion_chunk("start ")],
        repeat: completion_chunk(&"x".repeat(200)),
    }
}

fn print_run(s: &Scenario) -> std::process::Command {
    std::fs::write(
        s.agent_dir.path().join("settings.json"),
        r#"{"retry": {"enabled": false}}"#,
    )
    .unwrap();
    let mut command = s.command(&["--no-session", "-p", "--model", "mock-oai/mock-gpt", "go"]);
    command.stdout(Stdio::null()).stderr(Stdio::piped());
    command
}

#[tokio::test(flavor = "multi_thread")]
async fn a_huge_error_body_is_read_and_kept_only_in_part() {
    if !e2e_common::alone(
        module_path!(),
        "a_huge_error_body_is_read_and_kept_only_in_part",
    ) {
        return;
    }
    let s = Scenario::start(vec![MockResponse::Filler {
        status: 400,
        content_type: "text/html".into(),
        len: 200 << 20,
    }])
    .await;
    let mut command = print_run(&s);
    let out = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr.contains("more bytes of the error cut"),
        "{}",
        &stderr[..stderr.len().min(300)]
    );
    assert!(
        stderr.len() < 20 * 1024,
        "the printed error is bounded: {} bytes",
        stderr.len()
    );
    let peak = children_peak_mib();
    assert!(peak < 300, "peak {peak} MiB for a 200 MB error body");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_endless_stream_ends_at_the_response_bound() {
    if !e2e_common::alone(
        module_path!(),
        "an_endless_stream_ends_at_the_response_bound",
    ) {
        return;
    }
    let s = Scenario::start(vec![endless()]).await;
    let mut command = print_run(&s);
    let started = Instant::now();
    let out = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        &stderr[..stderr.len().min(300)]
    );
    assert!(
        stderr.contains("the response is larger than 128 MiB"),
        "{}",
        &stderr[..stderr.len().min(300)]
    );
    let peak = children_peak_mib();
    eprintln!(
        "endless stream: ended after {:?}, peak {peak} MiB",
        started.elapsed()
    );
    assert!(peak < 1024, "peak {peak} MiB");
}

#[tokio::test(flavor = "multi_thread")]
async fn sigint_ends_an_endless_stream_at_once() {
    let s = Scenario::start(vec![endless()]).await;
    let mut command = print_run(&s);
    let (exit, took) = tokio::task::spawn_blocking(move || {
        let mut child = command.spawn().unwrap();
        std::thread::sleep(Duration::from_millis(700));
        let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
        let signalled = Instant::now();
        let status = child.wait().unwrap();
        (status, signalled.elapsed())
    })
    .await
    .unwrap();
    assert_eq!(exit.code(), Some(130));
    assert!(
        took < Duration::from_secs(1),
        "exited {took:?} after SIGINT"
    );
}
