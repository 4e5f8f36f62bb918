//! The session picker's search against pi 0.73.1's on the same corpus:
//! `fixtures/pi-0.73.1/session-search/` holds the session files and what
//! pi's `filterAndSortSessions` listed for each query, in both sort modes,
//! with pi's scores (made by `fixtures/capture/session_search.mjs`). With
//! node and pi's package at hand, pi is also run again on a fresh copy of
//! the corpus and must agree with the recording.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use pi_coding_agent::modes::interactive::selectors::session_searcher::search_now;
use pi_coding_agent::session::{SessionInfo, list_sessions_in};
use serde_json::Value;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pi-0.73.1/session-search")
}

fn ids(sessions: &[SessionInfo], order: &[usize]) -> Vec<String> {
    order.iter().map(|&i| sessions[i].id.clone()).collect()
}

/// Checks pi-rs against `results` (pi's) on the corpus in `corpus`.
fn compare(corpus: &Path, results: &Value) {
    let sessions = list_sessions_in(corpus).unwrap();
    let listed: Vec<String> = sessions.iter().map(|s| s.id.clone()).collect();
    assert_eq!(serde_json::json!(listed), results["listing"]);
    // pi counts UTF-16 units, pi-rs characters: scores differ in a session
    // with characters beyond the BMP before the match (the order is
    // checked everywhere).
    let astral: Vec<&str> = sessions
        .iter()
        .filter(|s| {
            std::fs::read_to_string(&s.path)
                .unwrap()
                .chars()
                .any(|c| c as u32 > 0xffff)
        })
        .map(|s| s.id.as_str())
        .collect();
    for case in results["queries"].as_array().unwrap() {
        let query = case["query"].as_str().unwrap();
        for (mode, recent) in [("relevance", false), ("recent", true)] {
            let found = ids(&sessions, &search_now(&sessions, query, recent));
            assert_eq!(serde_json::json!(found), case[mode], "{query:?} ({mode})");
        }
        let scores = case["scores"].as_object().unwrap();
        let query_parsed =
            pi_coding_agent::modes::interactive::selectors::session_search::parse_query(query);
        for session in &sessions {
            if astral.contains(&session.id.as_str()) {
                continue;
            }
            let Some(pi) = scores.get(&session.id).and_then(Value::as_f64) else {
                continue;
            };
            let ours = ours_score(session, &query_parsed);
            assert!(
                ours.is_some_and(|s| (s - pi).abs() < 1e-6),
                "{query:?} on {}: pi {pi}, pi-rs {ours:?}",
                session.id
            );
        }
    }
}

fn ours_score(
    session: &SessionInfo,
    query: &pi_coding_agent::modes::interactive::selectors::session_search::Query,
) -> Option<f64> {
    use pi_coding_agent::modes::interactive::selectors::session_scan::{ScanResult, scan_session};
    use pi_coding_agent::modes::interactive::selectors::session_searcher::target;
    match scan_session(
        &target(session),
        query,
        None,
        &std::sync::atomic::AtomicBool::new(false),
    ) {
        ScanResult::Match(score) => Some(score),
        _ => None,
    }
}

#[test]
fn search_lists_what_pi_lists() {
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture().join("results.json")).unwrap())
            .unwrap();
    compare(&fixture().join("corpus"), &results);
}

#[test]
fn pi_itself_still_agrees_with_the_recording() {
    let (Some(()), Some(pi)) = (
        pi_test_support::external::node(),
        pi_test_support::external::pi_package(),
    ) else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/capture/session_search.mjs");
    let status = std::process::Command::new("node")
        .arg(script)
        .arg(pi)
        .arg(out.path())
        .status()
        .unwrap();
    assert!(status.success());
    let fresh: Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("results.json")).unwrap())
            .unwrap();
    let recorded: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture().join("results.json")).unwrap())
            .unwrap();
    assert_eq!(fresh, recorded);
    compare(&out.path().join("corpus"), &fresh);
}
