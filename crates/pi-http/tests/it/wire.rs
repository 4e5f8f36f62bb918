//! `stream_wire` and `WireProvider` with a toy wire against a real loopback
//! server: the steps every provider shares (key lookup, payload hook, header
//! layers, retry policy, error wording and classes).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use pi_ai::{
    Context, ContextRef, DoneReason, ErrorClass, EventSink, Model, PayloadHook, ResponseHook,
    SimpleStreamOptions, StopReason, StreamFunction, StreamOptions,
};
use pi_http::{
    DecodeError, Headers, HttpRequest, RetryPolicy, SseDecoder, SseFrameRef, StreamEnd, Wire,
    WireError, WireHeaders, WireOptions, WireProvider, stream_wire,
};
use pi_test_support::mock_server::{MockResponse, MockServer};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// Options of the toy wire: the base plus one flag of its own.
#[derive(Clone, Default)]
struct ToyOptions {
    base: StreamOptions,
    simple: bool,
}

impl WireOptions for ToyOptions {
    fn base(&self) -> &StreamOptions {
        &self.base
    }
    fn base_mut(&mut self) -> &mut StreamOptions {
        &mut self.base
    }
    fn from_simple(_model: &Model, options: SimpleStreamOptions) -> Self {
        Self {
            base: options.base,
            simple: true,
        }
    }
}

/// Each `data:` is a text delta; `[DONE]` stops; `fail` is a provider error.
struct ToyDecoder {
    text: Option<usize>,
}

impl SseDecoder for ToyDecoder {
    fn frame(
        &mut self,
        frame: SseFrameRef<'_>,
        sink: &mut EventSink,
    ) -> Result<Option<StreamEnd>, DecodeError> {
        match frame.data {
            "[DONE]" => {
                if let Some(index) = self.text {
                    sink.text_end(index);
                }
                Ok(Some(StreamEnd::Done(DoneReason::Stop)))
            }
            "fail" => Ok(Some(StreamEnd::Error("Overloaded".to_owned()))),
            data => {
                let index = *self.text.get_or_insert_with(|| sink.text_start());
                sink.text_delta(index, data);
                Ok(None)
            }
        }
    }

    fn end_of_stream(&mut self, _sink: &mut EventSink) -> StreamEnd {
        StreamEnd::Error("Stream ended without [DONE]".to_owned())
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct ToyWire;

impl Wire for ToyWire {
    type Options = ToyOptions;
    type Body<'a> = Value;
    type Decoder = ToyDecoder;

    fn resolve(&self, _model: &Model, options: &mut ToyOptions) -> Result<Self, WireError> {
        options
            .base
            .session_id
            .get_or_insert_with(|| "prepared".to_owned());
        Ok(*self)
    }

    /// A key `prep-ok` waits, then adds `x-prepared`; `prep-refused` fails
    /// as an auth error, `prep-aborted` as a cancelled call.
    async fn prepare(
        &self,
        _model: &Model,
        options: &ToyOptions,
        request: &mut HttpRequest,
    ) -> Result<(), WireError> {
        let refused = |class| Err(WireError::classed(std::io::Error::other("refused"), class));
        match options.base.api_key.as_deref() {
            Some("prep-ok") => {
                tokio::task::yield_now().await;
                request.headers.push(("x-prepared".into(), "yes".into()));
                Ok(())
            }
            Some("prep-refused") => refused(ErrorClass::Auth),
            Some("prep-aborted") => refused(ErrorClass::Aborted),
            _ => Ok(()),
        }
    }

    fn url(&self, model: &Model) -> String {
        format!("{}/toy", model.base_url)
    }

    fn headers(
        &self,
        _model: &Model,
        _context: ContextRef<'_>,
        options: &ToyOptions,
        api_key: &str,
    ) -> WireHeaders {
        let mut base = Headers::new();
        base.set("authorization", &format!("Bearer {api_key}"));
        base.set("x-layer", "base");
        let mut after_model = Headers::new();
        after_model.set(
            "x-session",
            options.base.session_id.as_deref().unwrap_or(""),
        );
        let mut fixed = Headers::new();
        fixed.set("content-type", "application/json");
        WireHeaders {
            base,
            after_model,
            fixed,
        }
    }

    fn body(&self, model: &Model, _context: ContextRef<'_>, options: &ToyOptions) -> Value {
        json!({"model": model.id, "simple": options.simple})
    }

    fn decoder(&self, _: &Model, _: ContextRef<'_>, _: &ToyOptions, _: &str) -> ToyDecoder {
        ToyDecoder { text: None }
    }

    fn retry_policy(&self, _options: &ToyOptions) -> RetryPolicy {
        RetryPolicy {
            initial_delay: Duration::from_millis(10),
            ..RetryPolicy::default()
        }
    }
}

fn model(server: &MockServer) -> Model {
    serde_json::from_value(json!({
        "id": "toy-1",
        "name": "Toy",
        "api": "toy-api",
        "provider": "toy-provider",
        "baseUrl": server.url(),
        "reasoning": false,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 1000,
        "maxTokens": 100,
        "headers": {"X-Layer": "model", "x-session": "model", "x-model": "m"}
    }))
    .unwrap()
}

fn keyed() -> StreamOptions {
    StreamOptions {
        api_key: Some("k".to_owned()),
        ..StreamOptions::default()
    }
}

fn options(base: StreamOptions) -> ToyOptions {
    ToyOptions {
        base,
        simple: false,
    }
}

fn sse(data: &[&str]) -> MockResponse {
    MockResponse::sse(data.iter().map(|d| format!("data: {d}\n\n")))
}

#[tokio::test]
async fn a_call_merges_header_layers_and_runs_the_payload_hook() {
    let server = MockServer::start([sse(&["Hel", "lo", "[DONE]"])])
        .await
        .unwrap();
    let mut base = keyed();
    base.headers
        .insert("X-Session".to_owned(), "call".to_owned());
    base.headers
        .insert("content-type".to_owned(), "text/plain".to_owned());
    base.on_payload = Some(PayloadHook::new(|mut body: Value, _: &Model| async move {
        tokio::task::yield_now().await;
        body["hooked"] = json!(true);
        Some(body)
    }));
    let message = stream_wire(
        &ToyWire,
        &model(&server),
        &Context::default(),
        options(base),
    )
    .result()
    .await;
    assert_eq!(message.stop_reason, StopReason::Stop);
    assert_eq!(message.text(), "Hello");
    let request = &server.requests()[0];
    assert_eq!(request.path, "/toy");
    assert_eq!(
        request.json(),
        json!({"model": "toy-1", "simple": false, "hooked": true})
    );
    let header = |name| request.header(name);
    assert_eq!(header("authorization"), Some("Bearer k"));
    assert_eq!(
        header("x-layer"),
        Some("model"),
        "the model overrides the base layer"
    );
    assert_eq!(header("x-model"), Some("m"));
    assert_eq!(
        header("x-session"),
        Some("call"),
        "the call overrides after_model"
    );
    assert_eq!(
        header("content-type"),
        Some("application/json"),
        "fixed wins"
    );
}

#[tokio::test]
async fn a_payload_hook_returning_none_keeps_the_body() {
    let server = MockServer::start([sse(&["[DONE]"])]).await.unwrap();
    let mut base = keyed();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    base.on_payload = Some(PayloadHook::sync(move |body, model| {
        record
            .lock()
            .unwrap()
            .push((body.clone(), model.id.clone()));
        None
    }));
    let model = model(&server);
    stream_wire(&ToyWire, &model, &Context::default(), options(base))
        .result()
        .await;
    let expected = json!({"model": "toy-1", "simple": false});
    assert_eq!(*seen.lock().unwrap(), [(expected.clone(), model.id)]);
    assert_eq!(server.requests()[0].json(), expected);
}

#[tokio::test]
async fn the_response_hook_sees_every_attempt_before_its_body() {
    let failing = MockResponse::Body {
        status: 503,
        headers: vec![
            ("X-Multi".into(), "a".into()),
            ("x-multi".into(), "b".into()),
        ],
        body: json!({"error": {"message": "busy"}}).to_string(),
    };
    let server = MockServer::start([failing, sse(&["Hi", "[DONE]"])])
        .await
        .unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let mut base = keyed();
    base.on_response = Some(ResponseHook::new(move |response| {
        let record = Arc::clone(&record);
        async move {
            tokio::time::sleep(Duration::from_millis(5)).await;
            record.lock().unwrap().push(response);
        }
    }));
    let message = stream_wire(
        &ToyWire,
        &model(&server),
        &Context::default(),
        options(base),
    )
    .result()
    .await;
    assert_eq!(message.text(), "Hi");
    let seen = seen.lock().unwrap();
    let statuses: Vec<u16> = seen.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [503, 200], "each attempt, the error status too");
    assert_eq!(seen[0].headers["x-multi"], "a, b", "joined as fetch joins");
    assert_eq!(seen[0].headers["content-type"], "application/json");
    assert_eq!(seen[1].headers["content-type"], "text/event-stream");
    assert_eq!(seen[1].headers["x-mock-header"], "yes");
}

#[tokio::test]
async fn resolve_runs_before_the_headers_are_built() {
    let server = MockServer::start([sse(&["[DONE]"])]).await.unwrap();
    let mut model = model(&server);
    model.headers = None;
    stream_wire(&ToyWire, &model, &Context::default(), options(keyed()))
        .result()
        .await;
    assert_eq!(server.requests()[0].header("x-session"), Some("prepared"));
}

fn with_key(key: &str) -> ToyOptions {
    options(StreamOptions {
        api_key: Some(key.to_owned()),
        ..StreamOptions::default()
    })
}

#[tokio::test]
async fn prepare_is_awaited_before_the_request_is_sent() {
    let server = MockServer::start([sse(&["[DONE]"])]).await.unwrap();
    let message = stream_wire(
        &ToyWire,
        &model(&server),
        &Context::default(),
        with_key("prep-ok"),
    )
    .result()
    .await;
    assert_eq!(message.stop_reason, StopReason::Stop);
    assert_eq!(server.requests()[0].header("x-prepared"), Some("yes"));
}

#[tokio::test]
async fn a_failed_prepare_ends_the_stream_with_its_class_and_sends_nothing() {
    let server = MockServer::start([sse(&["[DONE]"])]).await.unwrap();
    let model = model(&server);
    let refused = stream_wire(
        &ToyWire,
        &model,
        &Context::default(),
        with_key("prep-refused"),
    )
    .result()
    .await;
    assert_eq!(refused.stop_reason, StopReason::Error);
    assert_eq!(refused.error_message.as_deref(), Some("refused"));
    assert_eq!(refused.error_class, Some(ErrorClass::Auth));
    let aborted = stream_wire(
        &ToyWire,
        &model,
        &Context::default(),
        with_key("prep-aborted"),
    )
    .result()
    .await;
    assert_eq!(aborted.stop_reason, StopReason::Aborted);
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn a_missing_key_fails_without_a_request() {
    let server = MockServer::start([sse(&["[DONE]"])]).await.unwrap();
    let message = stream_wire(
        &ToyWire,
        &model(&server),
        &Context::default(),
        options(StreamOptions::default()),
    )
    .result()
    .await;
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some("No API key for provider: toy-provider")
    );
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn http_errors_carry_their_class_after_the_wire_s_retries() {
    let cases = [
        (500, ErrorClass::Server, 3),
        (429, ErrorClass::RateLimited, 3),
        (401, ErrorClass::Auth, 1),
        (400, ErrorClass::Client, 1),
    ];
    for (status, class, attempts) in cases {
        let body = json!({"error": {"message": "nope"}}).to_string();
        let server = MockServer::start((0..3).map(|_| MockResponse::json(status, body.clone())))
            .await
            .unwrap();
        let message = stream_wire(
            &ToyWire,
            &model(&server),
            &Context::default(),
            options(keyed()),
        )
        .result()
        .await;
        assert_eq!(message.stop_reason, StopReason::Error);
        assert_eq!(message.error_message, Some(format!("{status} nope")));
        assert_eq!(message.error_class, Some(class), "{status}");
        assert_eq!(server.requests().len(), attempts, "{status}");
    }
}

#[tokio::test]
async fn transport_errors_name_the_provider_and_carry_their_class() {
    let server = MockServer::start([MockResponse::StallHeaders])
        .await
        .unwrap();
    let mut base = keyed();
    base.timeout = Some(Duration::from_millis(200));
    let provider = WireProvider::of(ToyWire).with_retry_policy(RetryPolicy::NONE);
    let message = provider
        .stream_with(&model(&server), &Context::default(), options(base))
        .result()
        .await;
    assert_eq!(message.error_class, Some(ErrorClass::Timeout));
    assert_eq!(
        message.error_message.as_deref(),
        Some("toy-provider: Request timed out: no response from the server after 0.2 s")
    );
    assert_eq!(
        server.requests().len(),
        1,
        "the provider's policy replaced the wire's"
    );

    let server = MockServer::start([MockResponse::Raw {
        status: 200,
        content_type: "text/html".to_owned(),
        body: b"<html>login</html>".to_vec(),
    }])
    .await
    .unwrap();
    let message = stream_wire(
        &ToyWire,
        &model(&server),
        &Context::default(),
        options(keyed()),
    )
    .result()
    .await;
    assert_eq!(message.error_class, Some(ErrorClass::InvalidResponse));
    assert!(
        message
            .error_message
            .as_deref()
            .unwrap()
            .starts_with("toy-provider: Expected an event stream"),
        "{:?}",
        message.error_message
    );
}

#[tokio::test]
async fn errors_inside_the_stream_have_no_class() {
    let server = MockServer::start([sse(&["Hi", "fail"])]).await.unwrap();
    let message = stream_wire(
        &ToyWire,
        &model(&server),
        &Context::default(),
        options(keyed()),
    )
    .result()
    .await;
    assert_eq!(message.error_message.as_deref(), Some("Overloaded"));
    assert_eq!(message.error_class, None);
    assert_eq!(message.text(), "Hi");
}

#[tokio::test]
async fn the_provider_is_a_stream_function_with_both_option_mappings() {
    let server = MockServer::start([sse(&["[DONE]"]), sse(&["[DONE]"])])
        .await
        .unwrap();
    let provider: WireProvider<ToyWire> = WireProvider::new();
    let model = model(&server);
    provider
        .stream(&model, Context::default().view(), keyed())
        .result()
        .await;
    let simple = SimpleStreamOptions {
        base: keyed(),
        ..SimpleStreamOptions::default()
    };
    provider
        .stream_simple(&model, Context::default().view(), simple)
        .result()
        .await;
    let requests = server.requests();
    assert_eq!(requests[0].json()["simple"], false);
    assert_eq!(requests[1].json()["simple"], true);
}
