#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! What an export or a settings change writes to keeps being what it was:
//! a symlink stays a symlink (its real file is replaced), a FIFO, a device
//! or `/dev/stdout` is written to, never replaced by a regular file.

use crate::e2e_common;

use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use e2e_common::{RpcProcess, Scenario, capture_answer, text};
use serde_json::{Value, json};

/// A scenario with one finished session (a prompt and its answer).
async fn with_session() -> (Scenario, PathBuf) {
    let s = Scenario::start(vec![capture_answer("the answer")]).await;
    let session = s.work.path().join("s.jsonl");
    let mut command = s.on_session(&session, &["-p", "the question"]);
    let out = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    (s, session)
}

async fn export(s: &Scenario, session: &Path, output: &Path) -> std::process::Output {
    let mut command = s.command(&[
        "--export",
        session.to_str().unwrap(),
        output.to_str().unwrap(),
    ]);
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_export_through_a_symlink_replaces_the_real_file() {
    let (s, session) = with_session().await;
    let real_dir = s.work.path().join("site");
    std::fs::create_dir(&real_dir).unwrap();
    std::fs::write(real_dir.join("page.html"), "old page").unwrap();
    let link = s.work.path().join("page.html");
    std::os::unix::fs::symlink("site/page.html", &link).unwrap();
    let out = export(&s, &session, &link).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let page = std::fs::read_to_string(real_dir.join("page.html")).unwrap();
    assert!(page.contains("the question") && page.contains("the answer"));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_export_to_a_fifo_is_written_into_it() {
    let (s, session) = with_session().await;
    let fifo = s.work.path().join("page.fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut page = String::new();
            std::fs::File::open(fifo)
                .unwrap()
                .read_to_string(&mut page)
                .unwrap();
            page
        })
    };
    let out = export(&s, &session, &fifo).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(reader.join().unwrap().contains("the answer"));
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_export_to_dev_stdout_goes_to_the_pipe() {
    let (s, session) = with_session().await;
    let out = export(&s, &session, Path::new("/dev/stdout")).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("<!DOCTYPE html>") || stdout.starts_with("<!doctype html>"),
        "{}",
        &stdout[..stdout.len().min(200)]
    );
    assert!(stdout.contains("the answer"));
    assert!(
        std::fs::symlink_metadata("/dev/stdout")
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_export_to_a_full_device_fails_and_leaves_the_device() {
    let (s, session) = with_session().await;
    // A device node of the test's own, like /dev/full (char 1,7): root may
    // make one, as in CI.
    let device = s.work.path().join("full");
    let made = nix::sys::stat::mknod(
        &device,
        nix::sys::stat::SFlag::S_IFCHR,
        nix::sys::stat::Mode::from_bits_truncate(0o666),
        nix::sys::stat::makedev(1, 7),
    );
    if made.is_err() {
        assert!(
            std::env::var("CI").is_err(),
            "CI runs as root and can make a device node"
        );
        eprintln!("skipped: cannot make a device node here ({made:?})");
        return;
    }
    let mut rpc = RpcProcess::start(s.on_session(&session, &["--mode", "rpc"]));
    let lines = tokio::task::block_in_place(|| {
        let lines = rpc.send(json!({"type": "export_html", "outputPath": device}));
        rpc.finish();
        lines
    });
    let response: &Value = lines.last().unwrap();
    assert_eq!(response["success"], false, "{response}");
    let error = response["error"].as_str().unwrap();
    assert!(error.contains("No space left on device"), "{error}");
    assert!(
        std::fs::symlink_metadata(&device)
            .unwrap()
            .file_type()
            .is_char_device()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_symlinked_settings_file_keeps_its_symlink() {
    let (s, session) = with_session().await;
    let dotfiles = s.work.path().join("dotfiles");
    std::fs::create_dir(&dotfiles).unwrap();
    std::fs::write(
        dotfiles.join("settings.json"),
        "{\n  \"theme\": \"dark\"\n}",
    )
    .unwrap();
    std::os::unix::fs::symlink(
        dotfiles.join("settings.json"),
        s.agent_dir.path().join("settings.json"),
    )
    .unwrap();
    let mut rpc = RpcProcess::start(s.on_session(&session, &["--mode", "rpc"]));
    let lines = tokio::task::block_in_place(|| {
        let lines = rpc.send(
            json!({"type": "set_model", "provider": "mock-oai", "modelId": "mock-gpt-think"}),
        );
        rpc.finish();
        lines
    });
    assert_eq!(lines.last().unwrap()["success"], true, "{lines:?}");
    let link = s.agent_dir.path().join("settings.json");
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(dotfiles.join("settings.json")).unwrap())
            .unwrap();
    assert_eq!(settings["theme"], "dark");
    assert_eq!(settings["defaultModel"], "mock-gpt-think");
    let leftovers: Vec<_> = std::fs::read_dir(&dotfiles).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "no temporary file left");
}
