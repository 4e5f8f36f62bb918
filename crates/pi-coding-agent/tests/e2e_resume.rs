//! Resuming a session writes what pi 0.73.1 writes: each case of
//! `fixtures/pi-0.73.1/r-resume-oai` resumes pi's `session.before.jsonl`
//! with `-c` and the same flags; the entries we append, the request we send
//! and what we print equal pi's.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod e2e_common;

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
