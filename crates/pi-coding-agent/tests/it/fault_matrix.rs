#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The fault matrix of docs/reliability.md: the `pi` binary in print mode
//! against a loopback server that fails in each way a provider or network
//! can. Every case asserts the error text, the exit code, a time bound, and
//! that the session file is valid JSONL holding the user message (and the
//! partial answer when one was streamed). Timeouts are set small with
//! `--http-timeout`; the app's auto-retry is off so each case is one turn.

use crate::e2e_common;

use std::time::{Duration, Instant};

use e2e_common::{Scenario, completion_chunk as chunk};
use pi_test_support::mock_server::MockResponse;
use serde_json::{Value, json};

const PROMPT: &str = "Say something.";

fn finish() -> Vec<String> {
    let data = json!({
        "id": "chatcmpl-f", "object": "chat.completion.chunk", "created": 1, "model": "mock-gpt",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]
    });
    vec![format!("data: {data}\n\n"), "data: [DONE]\n\n".to_owned()]
}

fn error_body(status: u16, message: &str) -> MockResponse {
    MockResponse::json(status, json!({"error": {"message": message}}).to_string())
}

struct Outcome {
    stdout: String,
    stderr: String,
    code: Option<i32>,
    elapsed: Duration,
    entries: Vec<Value>,
}

async fn run_case(responses: Vec<MockResponse>, dead_port: bool) -> Outcome {
    let s = Scenario::start(responses).await;
    std::fs::write(
        s.agent_dir.path().join("settings.json"),
        r#"{"retry": {"enabled": false}}"#,
    )
    .unwrap();
    if dead_port {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let closed = format!("http://{}", listener.local_addr().unwrap());
        drop(listener);
        let models = s.agent_dir.path().join("models.json");
        let text = std::fs::read_to_string(&models).unwrap();
        std::fs::write(&models, text.replace(&s.server.url(), &closed)).unwrap();
    }
    let started = Instant::now();
    let out = s
        .run(&[
            "-p",
            "--http-timeout",
            "1",
            "--model",
            "mock-oai/mock-gpt",
            PROMPT,
        ])
        .await;
    let elapsed = started.elapsed();
    let files = s.session_files();
    assert_eq!(files.len(), 1, "one session file");
    let entries = std::fs::read_to_string(&files[0])
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).expect("every session line is JSON"))
        .collect();
    Outcome {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code(),
        elapsed,
        entries,
    }
}

impl Outcome {
    fn messages(&self, role: &str) -> Vec<&Value> {
        self.entries
            .iter()
            .filter(|e| e["type"] == "message" && e["message"]["role"] == role)
            .map(|e| &e["message"])
            .collect()
    }

    /// Asserts a failed turn: exit 1, `error` on stderr, within `bound`, the
    /// user message saved, and the assistant message saved with `partial`.
    fn assert_failed(&self, error: &str, bound: Duration, partial: &str) {
        assert_eq!(self.code, Some(1), "stderr: {}", self.stderr);
        assert!(
            self.stderr.contains(error),
            "expected {error:?} in stderr {:?}",
            self.stderr
        );
        assert!(self.elapsed < bound, "took {:?}", self.elapsed);
        let users = self.messages("user");
        assert_eq!(users.len(), 1);
        assert_eq!(users[0]["content"][0]["text"], PROMPT);
        let assistant = self.messages("assistant");
        let last = assistant.last().expect("the failed turn is saved");
        assert_eq!(last["stopReason"], "error");
        let text: String = last["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect();
        assert_eq!(text, partial);
    }
}

const QUICK: Duration = Duration::from_secs(15);

#[tokio::test(flavor = "multi_thread")]
async fn client_errors_fail_at_once_with_the_providers_text() {
    for status in [400u16, 401, 403, 404] {
        let out = run_case(vec![error_body(status, "nope")], false).await;
        out.assert_failed(&format!("{status} nope"), Duration::from_secs(10), "");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn server_errors_are_retried_then_reported() {
    for status in [500u16, 503, 529] {
        let out = run_case(vec![error_body(status, "down")], false).await;
        out.assert_failed(&format!("{status} down"), QUICK, "");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_429_waits_for_retry_after_then_succeeds() {
    let limited = MockResponse::Body {
        status: 429,
        headers: vec![("retry-after".into(), "1".into())],
        body: json!({"error": {"message": "slow down"}}).to_string(),
    };
    let mut frames = vec![chunk("Recovered.")];
    frames.extend(finish());
    let out = run_case(vec![limited, MockResponse::sse(frames)], false).await;
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(out.stdout, "Recovered.\n");
    assert!(out.elapsed >= Duration::from_secs(1), "{:?}", out.elapsed);
    assert_eq!(out.messages("assistant").len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_retry_after_too_long_for_a_duration_is_over_the_cap() {
    let limited = MockResponse::Body {
        status: 429,
        headers: vec![("retry-after".into(), "99999999999999999999".into())],
        body: json!({"error": {"message": "slow down"}}).to_string(),
    };
    let out = run_case(vec![limited], false).await;
    // It panicked ("cannot convert float seconds to Duration").
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    out.assert_failed("429 slow down", QUICK, "");
    assert!(
        out.stderr.contains("server requested a retry after"),
        "{}",
        out.stderr
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn connection_refused_and_reset_are_reported() {
    let refused = run_case(vec![MockResponse::sse(finish())], true).await;
    refused.assert_failed("Connection error", QUICK, "");
    let reset = run_case(vec![MockResponse::Reset], false).await;
    reset.assert_failed("Connection error", QUICK, "");
}

#[tokio::test(flavor = "multi_thread")]
async fn no_response_headers_times_out() {
    let out = run_case(vec![MockResponse::StallHeaders], false).await;
    out.assert_failed(
        "Request timed out: no response from the server after 1 s",
        QUICK,
        "",
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stalled_stream_ends_with_an_idle_timeout_and_keeps_the_partial_text() {
    let out = run_case(
        vec![MockResponse::StallSse {
            frames: vec![chunk("Half an ans")],
        }],
        false,
    )
    .await;
    out.assert_failed(
        "Stream idle timeout: no data received for 1 s",
        Duration::from_secs(10),
        "Half an ans",
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cut_stream_keeps_the_partial_text() {
    let eof = run_case(
        vec![MockResponse::CutSse {
            frames: vec![chunk("Cut by EOF")],
        }],
        false,
    )
    .await;
    eof.assert_failed("Stream error", QUICK, "Cut by EOF");
    let abort = run_case(
        vec![MockResponse::ResetSse {
            frames: vec![chunk("Cut by reset")],
        }],
        false,
    )
    .await;
    abort.assert_failed("Stream error", QUICK, "Cut by reset");
}

/// A body that ends cleanly (no transport error) before the finish reason:
/// the answer is incomplete, not a stop as pi 0.73.1 would save it.
#[tokio::test(flavor = "multi_thread")]
async fn a_clean_end_of_body_before_the_finish_reason_is_an_error() {
    let out = run_case(vec![MockResponse::sse(vec![chunk("Ends cleanly")])], false).await;
    out.assert_failed("Stream ended without finish_reason", QUICK, "Ends cleanly");
}

#[tokio::test(flavor = "multi_thread")]
async fn invalid_utf8_in_the_stream_is_an_error() {
    let mut body = chunk("Before").into_bytes();
    body.extend_from_slice(b"data: {\"x\":\"\xff\xfe\"}\n\n");
    let out = run_case(
        vec![MockResponse::Raw {
            status: 200,
            content_type: "text/event-stream".into(),
            body,
        }],
        false,
    )
    .await;
    out.assert_failed("invalid UTF-8 in stream", QUICK, "Before");
}

#[tokio::test(flavor = "multi_thread")]
async fn html_and_empty_success_bodies_say_what_came_back() {
    let html = run_case(
        vec![MockResponse::Raw {
            status: 200,
            content_type: "text/html".into(),
            body: b"<html><body>Please log in</body></html>".to_vec(),
        }],
        false,
    )
    .await;
    html.assert_failed(
        "Expected an event stream, but the server answered 200 with text/html: <html><body>Please log in</body></html>",
        Duration::from_secs(10),
        "",
    );
    let empty = run_case(vec![MockResponse::sse(Vec::<String>::new())], false).await;
    empty.assert_failed(pi_http::EMPTY_STREAM_MESSAGE, Duration::from_secs(10), "");
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_events_are_skipped() {
    let mut frames = vec![
        "event: mystery\ndata: {\"unknown\": true}\n\n".to_owned(),
        ": keep-alive comment\n\n".to_owned(),
        chunk("Fine."),
    ];
    frames.extend(finish());
    let out = run_case(vec![MockResponse::sse(frames)], false).await;
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(out.stdout, "Fine.\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_20_mb_event_is_decoded() {
    let big = "y".repeat(20 * 1024 * 1024);
    let mut frames = vec![chunk(&big)];
    frames.extend(finish());
    let out = run_case(vec![MockResponse::sse(frames)], false).await;
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(out.stdout.len(), big.len() + 1);
    assert!(out.elapsed < Duration::from_secs(60), "{:?}", out.elapsed);
    let saved = out.messages("assistant");
    assert_eq!(
        saved[0]["content"][0]["text"].as_str().map(str::len),
        Some(big.len())
    );
}
