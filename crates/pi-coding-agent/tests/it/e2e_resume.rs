//! Resuming a session writes what pi 0.73.1 writes: each case of
//! `fixtures/pi-0.73.1/r-resume-oai` resumes pi's `session.before.jsonl`
//! with `-c` and the same flags; the entries we append, the request we send
//! and what we print equal pi's.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;

use std::collections::HashSet;

use e2e_common::{Scenario, capture_answer, comparable_body, comparable_entry, jsonl, text};
use pretty_assertions::assert_eq;
use serde_json::Value;

/// The entries of `after` that `before` does not hold (by id), comparable.
fn added(before: &[Value], after: &[Value]) -> Vec<Value> {
    let known: HashSet<&str> = before.iter().filter_map(|e| e["id"].as_str()).collect();
    let mut seen = HashSet::new();
    after
        .iter()
        .filter(|e| e["type"] != "session")
        .filter(|e| {
            let id = e["id"].as_str().unwrap();
            // pi writes the entries of a session without messages a second
            // time when it first flushes; compare each entry once.
            !known.contains(id) && seen.insert(id.to_owned())
        })
        .map(comparable_entry)
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn resume_appends_what_pi_appends() {
    let root = e2e_common::fixtures().join("r-resume-oai");
    let mut cases: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    cases.sort();
    assert_eq!(cases.len(), 10);
    for case in cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let run: Value =
            serde_json::from_str(&std::fs::read_to_string(case.join("run.json")).unwrap()).unwrap();
        let stdout = run["stdout"].as_str().unwrap();
        let s = Scenario::start(vec![capture_answer(stdout.trim_end())]).await;
        let before = jsonl(&case.join("session.before.jsonl"));
        e2e_common::install_session(&s, &before);
        let args: Vec<&str> = run["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        let out = s.run(&args).await;
        assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), stdout, "{name}");

        let files = s.session_files();
        assert_eq!(files.len(), 1, "{name}: the resumed file is appended to");
        let ours = added(&before, &jsonl(&files[0]));
        let pis = added(&before, &jsonl(&case.join("session.jsonl")));
        assert_eq!(ours, pis, "{name}: appended entries");

        let ours: Vec<Value> = s
            .requests()
            .iter()
            .map(|r| comparable_body(&r.json()))
            .collect();
        let pis: Vec<Value> = jsonl(&case.join("requests.jsonl"))
            .iter()
            .map(comparable_body)
            .collect();
        assert_eq!(ours, pis, "{name}: request");
    }
}

/// A stored session whose `cwd` is gone: opened by path (print or rpc
/// mode) pi exits 1 with its message before any request; continued with
/// `-c` it runs in the current directory. Each case of
/// `fixtures/pi-0.73.1/m-missing-cwd-oai/runs.json`, compared.
#[tokio::test(flavor = "multi_thread")]
async fn a_missing_session_cwd_stops_before_any_request() {
    use std::io::Write as _;
    use std::process::Stdio;

    let folder = e2e_common::fixtures().join("m-missing-cwd-oai");
    let runs: Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("runs.json")).unwrap()).unwrap();
    let entries = jsonl(&folder.join("stored-session.jsonl"));
    assert!(
        !std::path::Path::new(entries[0]["cwd"].as_str().unwrap()).exists(),
        "the fixture's cwd must not exist"
    );
    for (name, run) in runs.as_object().unwrap() {
        let answer = if run["args"][2] == "json" {
            "Answer."
        } else {
            run["stdout"].as_str().unwrap().trim_end()
        };
        let s = Scenario::start(vec![capture_answer(answer)]).await;
        let dir = s.sessions_dir();
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("2026-01-01T00-00-00-000Z_00000000-0000-7000-8000-000000000000.jsonl");
        let lines: Vec<String> = entries.iter().map(Value::to_string).collect();
        std::fs::write(&file, lines.join("\n") + "\n").unwrap();
        let file_text = file.to_str().unwrap().to_owned();
        let mut args = vec!["--session-dir".to_owned(), dir.to_str().unwrap().to_owned()];
        args.extend(
            run["args"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap().replace("<session file>", &file_text)),
        );
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut command = s.command(&args);
        let rpc = args.contains(&"rpc");
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let out = tokio::task::spawn_blocking(move || {
            let mut child = command.spawn().unwrap();
            let mut stdin = child.stdin.take().unwrap();
            if rpc {
                stdin.write_all(b"{\"type\":\"get_state\"}\n").unwrap();
            }
            drop(stdin);
            child.wait_with_output().unwrap()
        })
        .await
        .unwrap();
        assert_eq!(
            out.status.code(),
            Some(i32::try_from(run["exit_code"].as_i64().unwrap()).unwrap()),
            "{name}: {}",
            text(&out.stderr)
        );
        let expected_stderr = run["stderr"]
            .as_str()
            .unwrap()
            .replace("<session file>", &file_text)
            .replace("<cwd>", s.work.path().to_str().unwrap());
        assert_eq!(text(&out.stderr), expected_stderr, "{name}");
        assert_eq!(
            s.requests().len(),
            usize::try_from(run["requests"].as_u64().unwrap()).unwrap(),
            "{name}: requests"
        );
        if run["exit_code"] != 0 {
            assert_eq!(text(&out.stdout), "", "{name}");
            assert_eq!(jsonl(&file), entries, "{name}: the file is untouched");
        }
    }
}
