//! The transport against a real loopback server: SSE frames, retries,
//! error bodies, cut and stalled streams, cancellation.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use futures::StreamExt;
use pi_http::{HttpClient, HttpError, HttpRequest, RetryPolicy, SseFrame, sse_frames};
use pi_test_support::mock_server::{MockResponse, MockServer};
use pretty_assertions::assert_eq;
use tokio_util::sync::CancellationToken;

fn request(server: &MockServer) -> HttpRequest {
    HttpRequest {
        url: format!("{}/v1/chat/completions", server.url()),
        headers: vec![
            ("authorization".into(), "Bearer k".into()),
            ("content-type".into(), "application/json".into()),
        ],
        body: br#"{"model":"m"}"#.to_vec().into(),
    }
}

fn fast_policy() -> RetryPolicy {
    RetryPolicy {
        initial_delay: Duration::from_millis(10),
        ..RetryPolicy::default()
    }
}

async fn frames(
    server: &MockServer,
    policy: &RetryPolicy,
    idle: Duration,
) -> Result<Vec<Result<SseFrame, HttpError>>, HttpError> {
    let client = HttpClient::new().unwrap();
    let response = client
        .post(
            &request(server),
            policy,
            Duration::from_secs(10),
            &CancellationToken::new(),
        )
        .await?;
    Ok(sse_frames(response, idle).collect().await)
}

#[tokio::test]
async fn frames_arrive_in_order_and_the_request_is_sent_as_given() {
    let server = MockServer::start([MockResponse::sse([
        "data: {\"a\":1}\n\n",
        "event: message_stop\ndata: {\"b\":2}\n\n",
        "data: [DONE]\n\n",
    ])])
    .await
    .unwrap();
    let got = frames(&server, &fast_policy(), Duration::from_secs(5))
        .await
        .unwrap();
    let got: Vec<SseFrame> = got.into_iter().map(Result::unwrap).collect();
    assert_eq!(
        got,
        vec![
            SseFrame {
                event: "message".into(),
                data: "{\"a\":1}".into()
            },
            SseFrame {
                event: "message_stop".into(),
                data: "{\"b\":2}".into()
            },
            SseFrame {
                event: "message".into(),
                data: "[DONE]".into()
            },
        ]
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].method, "POST");
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(requests[0].header("authorization"), Some("Bearer k"));
    assert_eq!(requests[0].json(), serde_json::json!({"model": "m"}));
}

#[tokio::test]
async fn server_errors_are_retried_then_succeed() {
    let error = r#"{"error":{"message":"The server had an error","type":"server_error"}}"#;
    let server = MockServer::start([
        MockResponse::json(500, error),
        MockResponse::json(503, error),
        MockResponse::sse(["data: ok\n\n"]),
    ])
    .await
    .unwrap();
    let got = frames(&server, &fast_policy(), Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn retries_give_up_with_the_status_and_provider_text() {
    let error = r#"{"error":{"message":"The server had an error","type":"server_error"}}"#;
    let server = MockServer::start([MockResponse::json(500, error)])
        .await
        .unwrap();
    let err = frames(&server, &fast_policy(), Duration::from_secs(5))
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "500 The server had an error");
    assert_eq!(server.requests().len(), 3, "one attempt plus two retries");
}

#[tokio::test]
async fn client_errors_are_not_retried() {
    let server = MockServer::start([MockResponse::json(
        400,
        r#"{"error":{"message":"bad request"}}"#,
    )])
    .await
    .unwrap();
    let err = frames(&server, &fast_policy(), Duration::from_secs(5))
        .await
        .unwrap_err();
    assert!(
        matches!(err, HttpError::Status { status: 400, .. }),
        "{err:?}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn rate_limits_honour_retry_after() {
    let limited = MockResponse::Body {
        status: 429,
        headers: vec![("retry-after-ms".into(), "300".into())],
        body: r#"{"error":{"message":"Rate limited"}}"#.into(),
    };
    let server = MockServer::start([limited, MockResponse::sse(["data: ok\n\n"])])
        .await
        .unwrap();
    let started = Instant::now();
    frames(&server, &fast_policy(), Duration::from_secs(5))
        .await
        .unwrap();
    assert!(
        started.elapsed() >= Duration::from_millis(300),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn a_retry_after_above_the_limit_fails_at_once() {
    let limited = MockResponse::Body {
        status: 429,
        headers: vec![("retry-after".into(), "120".into())],
        body: r#"{"error":{"message":"Rate limited"}}"#.into(),
    };
    let server = MockServer::start([limited]).await.unwrap();
    let policy = RetryPolicy {
        max_retry_delay: Some(Duration::from_secs(5)),
        ..fast_policy()
    };
    let err = frames(&server, &policy, Duration::from_secs(5))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "429 Rate limited (server requested a retry after 120 s, above the 5 s limit)"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_cut_stream_ends_with_a_stream_error_after_the_frames_received() {
    let server = MockServer::start([MockResponse::CutSse {
        frames: vec!["data: one\n\n".into()],
    }])
    .await
    .unwrap();
    let got = frames(&server, &fast_policy(), Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0].as_ref().unwrap().data, "one");
    assert!(matches!(&got[1], Err(HttpError::Stream(_))), "{:?}", got[1]);
}

#[tokio::test]
async fn a_silent_stream_hits_the_idle_timeout() {
    let server = MockServer::start([MockResponse::StallSse {
        frames: vec!["data: one\n\n".into()],
    }])
    .await
    .unwrap();
    let got = frames(&server, &fast_policy(), Duration::from_millis(200))
        .await
        .unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!(got[1], Err(HttpError::Idle(Duration::from_millis(200))));
}

#[tokio::test]
async fn cancellation_interrupts_a_backoff() {
    let server = MockServer::start([MockResponse::json(500, "{}")])
        .await
        .unwrap();
    let cancel = CancellationToken::new();
    let policy = RetryPolicy {
        initial_delay: Duration::from_secs(30),
        max_backoff: Duration::from_secs(30),
        ..RetryPolicy::default()
    };
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let err = HttpClient::new()
        .unwrap()
        .post(&request(&server), &policy, Duration::from_secs(10), &cancel)
        .await
        .unwrap_err();
    assert_eq!(err, HttpError::Aborted);
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn a_refused_connection_is_a_connection_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/x", listener.local_addr().unwrap());
    drop(listener);
    let request = HttpRequest {
        url,
        ..HttpRequest::default()
    };
    let err = HttpClient::new()
        .unwrap()
        .post(
            &request,
            &RetryPolicy::NONE,
            Duration::from_secs(10),
            &CancellationToken::new(),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, HttpError::Connection(_)), "{err:?}");
}

#[tokio::test]
async fn a_base_url_that_is_not_a_url_says_so_without_retrying() {
    let request = HttpRequest {
        url: "localhost:8080/v1/chat/completions".to_owned(),
        ..HttpRequest::default()
    };
    let err = HttpClient::new()
        .unwrap()
        .post(
            &request,
            &RetryPolicy::default(),
            Duration::from_secs(10),
            &CancellationToken::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Invalid request: the request URL \"localhost:8080/v1/chat/completions\" is not a valid URL (it must start with http:// or https://); check the provider's baseUrl"
    );
}

#[tokio::test]
async fn no_response_headers_time_out_after_the_first_byte_timeout() {
    let server = MockServer::start([MockResponse::StallHeaders])
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let err = HttpClient::new()
        .unwrap()
        .post(
            &request(&server),
            &RetryPolicy::NONE,
            Duration::from_millis(300),
            &CancellationToken::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(err, HttpError::Timeout(Duration::from_millis(300)));
    assert_eq!(
        err.to_string(),
        "Request timed out: no response from the server after 0.3 s"
    );
    assert!(started.elapsed() < Duration::from_secs(3));
}
