//! The session page of `/export`, `pi --export` and rpc `export_html`: the transcript
//! body of every session of the corpus (`fixtures/session-corpus`) and of the export
//! fixtures (`fixtures/export`) as snapshots; the hostile session escaped; `pi --export`
//! writing it; and `/share` (`pi --share`, rpc `share`) against a `gh` stand-in on PATH
//! that records its arguments and the page it was given.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;
use crate::pty_common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use e2e_common::{RpcProcess, Scenario, capture_answer, text};
use pi_coding_agent::export::html::{PageOptions, render_page};
use pi_test_support::mock_server::MockResponse;
use pty_common::{Tui, text_answer};
use serde_json::json;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// The transcript of a page, with entry ids numbered in order of appearance (an
/// old-format file gets fresh random ids when it is migrated).
fn transcript(html: &str) -> String {
    let start = html.find("<div id=\"transcript\">").expect("a transcript");
    let end = html[start..].find("<footer id=\"stats\">").expect("stats") + start;
    let body = &html[start..end];
    let mut ids: HashMap<String, usize> = HashMap::new();
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    let attributes = ["id=\"e-", "data-id=\"", "data-parent=\""];
    loop {
        let next = attributes
            .iter()
            .filter_map(|a| rest.find(a).map(|i| (i, *a)))
            .min();
        let Some((at, attribute)) = next else {
            out.push_str(rest);
            break;
        };
        let value_start = at + attribute.len();
        let value_end = value_start + rest[value_start..].find('"').unwrap();
        out.push_str(&rest[..value_start]);
        let value = &rest[value_start..value_end];
        if !value.is_empty() {
            let n = ids.len() + 1;
            let n = *ids.entry(value.to_owned()).or_insert(n);
            out.push_str(&format!("#{n}"));
        }
        rest = &rest[value_end..];
    }
    out
}

fn page(path: &Path) -> String {
    render_page(path, &PageOptions::default()).unwrap()
}

#[test]
fn the_transcript_of_every_corpus_session_matches_its_snapshot() {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures().join("session-corpus"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("session.jsonl").is_file())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 15, "{dirs:?}");
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let html = page(&dir.join("session.jsonl"));
        insta::assert_snapshot!(format!("export_corpus_{name}"), transcript(&html));
    }
}

#[test]
fn the_export_fixtures_match_their_snapshots() {
    for name in ["typical", "hostile"] {
        let html = page(&fixtures().join(format!("export/{name}.jsonl")));
        insta::assert_snapshot!(format!("export_{name}"), transcript(&html));
    }
}

#[test]
fn nothing_in_the_hostile_session_becomes_markup() {
    let html = page(&fixtures().join("export/hostile.jsonl"));
    // The page's own two script elements and nothing else that can run.
    assert_eq!(html.matches("<script").count(), 2);
    for needle in [
        "<img src=x",
        "<svg",
        "<iframe",
        "<b onmouseover",
        "<a href=\"javascript:",
        "<a href=\"data:",
        "\u{1b}",
        "\u{7}",
        "data:text/html",
        "data:image/svg",
    ] {
        assert!(!html.contains(needle), "{needle}");
    }
    // Every `window.__pwned` is text: in an escaped element or in the JSON data.
    let start = html.find("<script type=\"application/json\"").unwrap();
    assert!(!html[start..].contains("</script><script>window"));
}

fn gh_stand_in(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = r#"#!/bin/sh
# A stand-in for the GitHub CLI: records its arguments (one line per run, tab-separated)
# and a copy of the file given to `gist create`.
log="$GH_STAND_IN_LOG"
printf '%s\t' "$@" >> "$log"
printf '\n' >> "$log"
case "$1 $2" in
  "auth status") exit "${GH_STAND_IN_AUTH_EXIT:-0}" ;;
  "gist create")
    for last in "$@"; do :; done
    cp "$last" "$log.upload"
    echo "- Creating gist $(basename "$last")" >&2
    echo "https://gist.github.com/tester/0f1e2d3c4b5a"
    ;;
esac
"#;
    let path = bin.join("gh");
    std::fs::write(&path, script).unwrap();
    std::process::Command::new("chmod")
        .args(["+x", path.to_str().unwrap()])
        .status()
        .unwrap();
    bin
}

fn runs(log: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            l.split('\t')
                .filter(|a| !a.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .collect()
}

fn with_stand_in(command: &mut std::process::Command, bin: &Path, log: &Path) {
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    command
        .env("PATH", path)
        .env("GH_STAND_IN_LOG", log)
        .env_remove("PI_SHARE_VIEWER_URL");
}

#[tokio::test(flavor = "multi_thread")]
async fn pi_share_uploads_the_page_as_a_secret_gist() {
    let s = Scenario::start(vec![]).await;
    let session = fixtures().join("export/typical.jsonl");
    let bin = gh_stand_in(s.work.path());
    let log = s.work.path().join("gh.log");
    let mut command = s.command(&["--share", session.to_str().unwrap()]);
    with_stand_in(&mut command, &bin, &log);
    let out = command.output().unwrap();
    assert_eq!(text(&out.stderr), "");
    assert_eq!(
        text(&out.stdout),
        "Gist: https://gist.github.com/tester/0f1e2d3c4b5a\n"
    );
    assert!(out.status.success());
    let runs = runs(&log);
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert_eq!(runs[0], ["auth", "status"]);
    assert_eq!(runs[1][..3], ["gist", "create", "--public=false"]);
    assert!(runs[1][3].ends_with("/session.html"), "{runs:?}");
    // The temporary page is gone, what was uploaded is the page.
    assert!(!Path::new(&runs[1][3]).exists());
    let uploaded = std::fs::read_to_string(log.with_extension("log.upload")).unwrap();
    assert_eq!(uploaded, page(&session));

    // With a viewer configured, its link comes first.
    let mut command = s.command(&["--share", session.to_str().unwrap()]);
    with_stand_in(&mut command, &bin, &log);
    command.env("PI_SHARE_VIEWER_URL", "https://viewer.test/session/#");
    let out = command.output().unwrap();
    assert_eq!(
        text(&out.stdout),
        "Share URL: https://viewer.test/session/#0f1e2d3c4b5a\nGist: https://gist.github.com/tester/0f1e2d3c4b5a\n"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn pi_share_uploads_nothing_without_a_logged_in_gh() {
    let s = Scenario::start(vec![]).await;
    let session = fixtures().join("export/typical.jsonl");
    let bin = gh_stand_in(s.work.path());
    let log = s.work.path().join("gh.log");
    let mut command = s.command(&["--share", session.to_str().unwrap()]);
    with_stand_in(&mut command, &bin, &log);
    command.env("GH_STAND_IN_AUTH_EXIT", "1");
    let out = command.output().unwrap();
    assert!(!out.status.success());
    assert_eq!(
        text(&out.stderr),
        "Error: GitHub CLI is not logged in. Run 'gh auth login' first.\n"
    );
    assert_eq!(runs(&log), [["auth", "status"]]);

    // No gh at all.
    let empty = s.work.path().join("empty-bin");
    std::fs::create_dir_all(&empty).unwrap();
    let mut command = s.command(&["--share", session.to_str().unwrap()]);
    command.env("PATH", &empty);
    let out = command.output().unwrap();
    assert!(!out.status.success());
    assert_eq!(
        text(&out.stderr),
        "Error: GitHub CLI (gh) is not installed. Install it from https://cli.github.com/\n"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn rpc_share_uploads_the_running_session() {
    let s = Scenario::start(vec![capture_answer("Hello from the mock")]).await;
    let bin = gh_stand_in(s.work.path());
    let log = s.work.path().join("gh.log");
    let mut command = s.rpc_command();
    with_stand_in(&mut command, &bin, &log);
    let mut rpc = RpcProcess::start(command);
    rpc.prompt("Say hello");
    let lines = rpc.send(json!({"type": "share"}));
    let response = lines.last().unwrap();
    assert_eq!(response["success"], true, "{response}");
    assert_eq!(
        response["data"],
        json!({"gistUrl": "https://gist.github.com/tester/0f1e2d3c4b5a", "viewerUrl": null})
    );
    rpc.finish();
    let runs = runs(&log);
    assert_eq!(runs[0], ["auth", "status"]);
    assert_eq!(runs[1][..3], ["gist", "create", "--public=false"]);
    let uploaded = std::fs::read_to_string(log.with_extension("log.upload")).unwrap();
    assert!(uploaded.contains("Hello from the mock"));
    assert!(uploaded.contains("data-kind=\"user\""));
    // The running session's system prompt and tools are in the page.
    assert!(uploaded.contains("<summary>System prompt</summary>"));
    assert!(uploaded.contains("<dt>bash</dt>"));
}

#[tokio::test(flavor = "multi_thread")]
async fn slash_share_in_the_terminal_prints_the_links() {
    let s = Scenario::start(vec![MockResponse::sse(text_answer(&["forty-two."], 20, 5))]).await;
    let bin = gh_stand_in(s.work.path());
    let log = s.work.path().join("gh.log");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let env = [
        ("PATH", path.as_str()),
        ("GH_STAND_IN_LOG", log.to_str().unwrap()),
        ("PI_SHARE_VIEWER_URL", "https://viewer.test/#"),
    ];
    let mut tui = Tui::start_program(env!("CARGO_BIN_EXE_pi"), &env, &s, &[], 100, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("What is the answer?");
    tui.wait_all(|s| s.contains("forty-two."), "the answer");
    tui.submit("/share");
    tui.wait_all(
        |s| {
            s.contains("Share URL: https://viewer.test/#0f1e2d3c4b5a")
                && s.contains("Gist: https://gist.github.com/tester/0f1e2d3c4b5a")
        },
        "the share links",
    );
    let runs = runs(&log);
    assert_eq!(runs[0], ["auth", "status"]);
    assert_eq!(runs[1][..3], ["gist", "create", "--public=false"]);
    let uploaded = std::fs::read_to_string(log.with_extension("log.upload")).unwrap();
    assert!(uploaded.contains("What is the answer?"));
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn slash_share_without_a_logged_in_gh_says_so_and_uploads_nothing() {
    let s = Scenario::start(vec![MockResponse::sse(text_answer(&["forty-two."], 20, 5))]).await;
    let bin = gh_stand_in(s.work.path());
    let log = s.work.path().join("gh.log");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let env = [
        ("PATH", path.as_str()),
        ("GH_STAND_IN_LOG", log.to_str().unwrap()),
        ("GH_STAND_IN_AUTH_EXIT", "1"),
    ];
    let mut tui = Tui::start_program(env!("CARGO_BIN_EXE_pi"), &env, &s, &[], 100, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("What is the answer?");
    tui.wait_all(|s| s.contains("forty-two."), "the answer");
    tui.submit("/share");
    tui.wait_all(
        |s| s.contains("GitHub CLI is not logged in. Run 'gh auth login' first."),
        "the error",
    );
    assert_eq!(runs(&log), [["auth", "status"]]);
    // The command went nowhere near the model: one request, the prompt's.
    assert_eq!(s.requests().len(), 1);
    assert!(tui.quit().success());
}
