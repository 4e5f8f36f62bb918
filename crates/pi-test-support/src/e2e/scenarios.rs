//! The shared scenarios. Each takes the wire's [`WireAdapter`], serves
//! canned answers from a [`MockServer`], calls the wire through pi-ai's
//! global api registry, and checks the events, the settled message and the
//! requests the server received. Every event sequence is also checked
//! against the stream contract.

use std::collections::BTreeMap;
use std::time::Duration;

use futures::StreamExt;
use pi_ai::{
    ABORTED_MESSAGE, AssistantContent, AssistantMessageEvent, Context, ErrorClass, ErrorReason,
    Model, PayloadHook, Provider, SimpleStreamOptions, StopReason, StreamOptions, Tool,
    UserMessage,
};
use pi_http::{Wire, WireOptions};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::{CallId, ErrorText, WireAdapter};
use crate::contract::assert_stream_contract;
use crate::mock_server::{MockResponse, MockServer, RecordedRequest};
use crate::sse::sse_file_raw_frames;
use crate::summary::final_message;

/// The session id every scenario passes (wires derive cache headers from it).
pub const SESSION_ID: &str = "session-42";

/// The conversation every scenario sends: a system prompt, one user turn
/// and one tool.
pub fn context() -> Context {
    Context {
        system_prompt: Some("Be brief.".into()),
        messages: vec![
            UserMessage {
                content: "What is 2 + 2? Also say hello.".into(),
                timestamp: 1,
                ..UserMessage::default()
            }
            .into(),
        ],
        tools: Some(vec![Tool {
            name: "bash".into(),
            description: "Run a command.".into(),
            parameters: json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}),
        }]),
        ..Context::default()
    }
}

/// The body wire `W` sends for a simple call, before `on_payload`: its
/// options from `options` (`WireOptions::from_simple`), prepared as
/// `stream_wire` prepares them, encoded. For [`WireAdapter::encode`].
pub fn wire_body<W: Wire + Default>(
    model: &Model,
    context: &Context,
    options: &SimpleStreamOptions,
) -> Value {
    let mut options = W::Options::from_simple(model, options.clone());
    let wire = W::default()
        .resolve(model, &mut options)
        .expect("the wire resolves the call");
    serde_json::to_value(wire.body(model, context.view(), &options)).unwrap()
}

/// The options every scenario starts from: the wire's key and [`SESSION_ID`].
pub fn options(wire: &WireAdapter) -> SimpleStreamOptions {
    SimpleStreamOptions {
        base: StreamOptions {
            api_key: Some(wire.api_key.clone()),
            session_id: Some(SESSION_ID.into()),
            ..StreamOptions::default()
        },
        ..SimpleStreamOptions::default()
    }
}

pub(super) fn recorded(wire: &WireAdapter, file: &str) -> Vec<String> {
    sse_file_raw_frames(wire.sse_dir, file)
}

fn first_frames(wire: &WireAdapter, file: &str, count: usize) -> Vec<String> {
    let mut frames = recorded(wire, file);
    assert!(
        frames.len() > count,
        "{file} has only {} frames",
        frames.len()
    );
    frames.truncate(count);
    frames
}

pub(super) async fn serve(responses: impl IntoIterator<Item = MockResponse>) -> MockServer {
    MockServer::start(responses).await.unwrap()
}

/// Calls the wire through the registry and collects every event, checking
/// the stream contract.
pub(super) async fn run(
    wire: &WireAdapter,
    model: &Model,
    options: SimpleStreamOptions,
) -> Vec<AssistantMessageEvent> {
    (wire.register)();
    let events: Vec<_> = pi_ai::stream_simple(model, &context(), options)
        .collect()
        .await;
    assert_stream_contract(&events);
    events
}

fn kinds(events: &[AssistantMessageEvent]) -> Vec<&'static str> {
    events.iter().map(AssistantMessageEvent::kind).collect()
}

/// Method, path, auth, the wire's fixed headers, and a body equal to what
/// the wire encodes for `model` and `options`.
fn assert_request(
    wire: &WireAdapter,
    request: &RecordedRequest,
    model: &Model,
    options: &SimpleStreamOptions,
) {
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, wire.path);
    let auth = format!("{}{}", wire.auth_prefix, wire.api_key);
    assert_eq!(request.header(wire.auth_header), Some(auth.as_str()));
    for (name, value) in &wire.headers {
        assert_eq!(request.header(name), *value, "header {name}");
    }
    assert_eq!(request.json(), (wire.encode)(model, &context(), options));
}

/// A text answer streams its events; the request is what the wire encodes.
pub async fn text_answer_and_the_request_sent(wire: &WireAdapter) {
    let case = &wire.text;
    let server = serve([MockResponse::sse(recorded(wire, case.file))]).await;
    let model = (wire.model)(&server.url());
    let events = run(wire, &model, options(wire)).await;
    match &case.kinds {
        Some(expected) => assert_eq!(kinds(&events), *expected),
        None => assert_eq!(events.last().map(AssistantMessageEvent::kind), Some("done")),
    }
    let message = final_message(&events);
    assert_eq!(message.stop_reason, StopReason::Stop);
    assert_eq!(message.text(), case.text);
    assert_eq!(message.error_message, None);
    assert_eq!(message.response_id.as_deref(), case.response_id);
    let usage = &message.usage;
    assert_eq!((usage.input, usage.output, usage.total_tokens), case.usage);
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_request(wire, &requests[0], &model, &options(wire));
    assert_body_holds(&requests[0], &case.body);
}

/// A 307 to another origin (another port) is followed with the same body,
/// but without the wire's key header; a 308 on the same origin keeps it.
pub async fn a_cross_origin_redirect_drops_the_key(wire: &WireAdapter) {
    let case = &wire.text;
    let target = serve([MockResponse::sse(recorded(wire, case.file))]).await;
    let moved = |status: u16, to: String| MockResponse::Body {
        status,
        headers: vec![("location".to_owned(), to)],
        body: String::new(),
    };
    let origin = serve([
        moved(308, format!("/moved{}", wire.path)),
        moved(307, format!("{}{}", target.url(), wire.path)),
    ])
    .await;
    let model = (wire.model)(&origin.url());
    let events = run(wire, &model, options(wire)).await;
    let message = final_message(&events);
    assert_eq!(
        message.stop_reason,
        StopReason::Stop,
        "{:?}",
        message.error_message
    );
    assert_eq!(message.text(), case.text);
    let asked = origin.requests();
    assert_eq!(asked.len(), 2, "the same-origin hop");
    let key = format!("{}{}", wire.auth_prefix, wire.api_key);
    for request in &asked {
        assert_eq!(request.header(wire.auth_header), Some(key.as_str()));
    }
    assert_eq!(asked[1].path, format!("/moved{}", wire.path));
    let sent = target.requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].method, "POST");
    assert_eq!(sent[0].header(wire.auth_header), None, "the key stays home");
    assert!(
        sent[0]
            .headers
            .iter()
            .all(|(name, _)| !name.contains("key") && name != "authorization"),
        "{:?}",
        sent[0].headers
    );
    assert_eq!(sent[0].body, asked[0].body, "a 307 keeps the body");
}

fn assert_body_holds(request: &RecordedRequest, values: &[(&str, Value)]) {
    let body = request.json();
    for (pointer, value) in values {
        assert_eq!(body.pointer(pointer), Some(value), "{pointer}");
    }
}

/// A tool call arrives once, with its id, name and parsed arguments.
pub async fn tool_call_answer(wire: &WireAdapter) {
    let case = &wire.tool_call;
    let server = serve([MockResponse::sse(recorded(wire, case.file))]).await;
    let model = (wire.model)(&server.url());
    let events = run(wire, &model, options(wire)).await;
    if let Some(expected) = &case.kinds {
        assert_eq!(kinds(&events), *expected);
    }
    let ends = events.iter().filter(|e| e.kind() == "toolcall_end").count();
    assert_eq!(ends, 1);
    let message = final_message(&events);
    assert_eq!(message.stop_reason, StopReason::ToolUse);
    let calls: Vec<_> = message.tool_calls().collect();
    assert_eq!(calls.len(), 1);
    match case.id {
        CallId::Exact(id) => assert_eq!(calls[0].id, id),
        CallId::Prefix(prefix) => assert!(calls[0].id.starts_with(prefix), "{}", calls[0].id),
    }
    assert_eq!(calls[0].name, case.name);
    assert_eq!(calls[0].arguments, case.arguments);
    assert_request(wire, &server.requests()[0], &model, &options(wire));
}

/// A 500 is retried as the wire's client does, then reported in its
/// wording; as in pi, a refused request never starts the stream.
pub async fn server_error_is_retried_as_the_wire_does_then_reported(wire: &WireAdapter) {
    let case = &wire.server_error;
    let server = serve([MockResponse::json(500, case.body)]).await;
    let model = (wire.model)(&server.url());
    let events = run(wire, &model, options(wire)).await;
    assert_eq!(kinds(&events), ["error"]);
    let message = final_message(&events);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some(case.message.as_str())
    );
    assert_eq!(message.error_class, Some(ErrorClass::Server));
    assert!(message.content.is_empty());
    let requests = server.requests();
    assert_eq!(requests.len(), case.attempts, "1 attempt + the retries");
    assert!(requests.iter().all(|r| r.body == requests[0].body));
}

/// A 429 (with `retry-after-ms` or `retry-after`) is retried and the retry
/// resends the same body, on wires whose client retries; the others report
/// it at once (the app's auto-retry tries again).
pub async fn rate_limit_is_retried_as_the_wire_does(wire: &WireAdapter) {
    let retries = wire.server_error.attempts > 1;
    for (header, value) in [("retry-after-ms", "20"), ("retry-after", "0")] {
        let limited = MockResponse::Body {
            status: 429,
            headers: vec![(header.into(), value.into())],
            body: wire.rate_limit_body.into(),
        };
        let answer = MockResponse::sse(recorded(wire, wire.text.file));
        let server = serve([limited, answer]).await;
        let model = (wire.model)(&server.url());
        let message = final_message(&run(wire, &model, options(wire)).await);
        let requests = server.requests();
        if retries {
            assert_eq!(message.stop_reason, StopReason::Stop, "{header}");
            assert_eq!(message.text(), wire.text.text);
            assert_eq!(requests.len(), 2, "{header}");
            assert_eq!(
                requests[0].body, requests[1].body,
                "the retry resends the body"
            );
            assert_request(wire, &requests[1], &model, &options(wire));
        } else {
            assert_eq!(message.stop_reason, StopReason::Error);
            assert_eq!(message.error_class, Some(ErrorClass::RateLimited));
            let error = message.error_message.unwrap_or_default();
            assert!(error.contains("429"), "{error}");
            assert_eq!(requests.len(), 1);
        }
    }
}

/// A connection cut mid-stream is an error that keeps the text so far; a
/// stream that started is not retried.
pub async fn cut_stream_is_an_error_that_keeps_the_partial_text(wire: &WireAdapter) {
    let frames = first_frames(wire, wire.text.file, wire.partial.frames);
    let server = serve([MockResponse::CutSse { frames }]).await;
    let model = (wire.model)(&server.url());
    let message = final_message(&run(wire, &model, options(wire)).await);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(message.text(), wire.partial.text);
    assert_eq!(message.error_class, Some(ErrorClass::Connection));
    let error = message.error_message.unwrap_or_default();
    // Transport errors name the provider.
    let named = format!("{}: Stream error", message.provider);
    assert!(error.starts_with(&named), "{error}");
    assert_eq!(server.requests().len(), 1);
}

/// Cancelling a stalled stream ends it with `aborted` at once, keeping the
/// text; after the cancel only block ends and the error arrive.
pub async fn cancel_mid_stream_is_aborted_and_keeps_the_text(wire: &WireAdapter) {
    let frames = first_frames(wire, wire.text.file, wire.partial.frames);
    let server = serve([MockResponse::StallSse { frames }]).await;
    let model = (wire.model)(&server.url());
    let options = options(wire);
    let cancel = options.base.cancel.clone();
    (wire.register)();
    let mut stream = pi_ai::stream_simple(&model, &context(), options);
    let mut events = Vec::new();
    let mut text = String::new();
    let mut cancelled_at = None;
    loop {
        let next = tokio::time::timeout(Duration::from_secs(10), stream.next()).await;
        let Some(event) = next.unwrap_or_else(|_| panic!("stalled; text so far: {text:?}")) else {
            break;
        };
        if let AssistantMessageEvent::TextDelta { delta, .. } = &event {
            text.push_str(delta);
        }
        events.push(event);
        if cancelled_at.is_none() && text == wire.partial.text {
            cancel.cancel();
            cancelled_at = Some(events.len());
        }
    }
    assert_stream_contract(&events);
    let after = &events[cancelled_at.expect("the partial text arrived")..];
    let (last, ends) = after.split_last().unwrap();
    assert!(
        ends.iter().all(|e| e.kind().ends_with("_end")),
        "{:?}",
        kinds(after)
    );
    let AssistantMessageEvent::Error { reason, error } = last else {
        panic!("{last:?}");
    };
    assert_eq!(*reason, ErrorReason::Aborted);
    assert_eq!(error.stop_reason, StopReason::Aborted);
    assert_eq!(error.error_message.as_deref(), Some(ABORTED_MESSAGE));
    assert_eq!(error.text(), wire.partial.text);
}

/// Without a key (options, then the provider's environment variable) the
/// stream is a lone error and nothing is sent.
pub async fn missing_api_key_fails_without_a_request(wire: &WireAdapter) {
    let server = serve([MockResponse::sse(recorded(wire, wire.text.file))]).await;
    let mut model = (wire.model)(&server.url());
    model.provider = Provider::new("pi-test-no-key");
    let mut options = options(wire);
    options.base.api_key = None;
    let events = run(wire, &model, options).await;
    assert_eq!(kinds(&events), ["error"]);
    let message = final_message(&events);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some("No API key for provider: pi-test-no-key")
    );
    assert!(server.requests().is_empty());
}

/// Model headers, then call headers, override by name (case-insensitive,
/// sent once); `on_payload`'s body is the one sent.
pub async fn headers_merge_and_the_payload_hook_replaces_the_body(wire: &WireAdapter) {
    let server = serve([MockResponse::sse(recorded(wire, wire.text.file))]).await;
    let mut model = (wire.model)(&server.url());
    model.headers = Some(BTreeMap::from([
        ("X-Model".to_owned(), "m".to_owned()),
        ("X-Both".to_owned(), "model".to_owned()),
    ]));
    let mut options = options(wire);
    options.base.headers = BTreeMap::from([("x-both".to_owned(), "call".to_owned())]);
    // An asynchronous hook: the request waits for it.
    options.base.on_payload = Some(PayloadHook::new(|mut body: Value, _: &Model| async move {
        tokio::time::sleep(Duration::from_millis(5)).await;
        body["piTestHook"] = json!({"hooked": true});
        Some(body)
    }));
    let message = final_message(&run(wire, &model, options.clone()).await);
    assert_eq!(message.stop_reason, StopReason::Stop);
    let request = &server.requests()[0];
    assert_eq!(request.header("x-model"), Some("m"));
    assert_eq!(request.header("x-both"), Some("call"), "call headers win");
    let both = request
        .headers
        .iter()
        .filter(|(n, _)| n == "x-both")
        .count();
    assert_eq!(both, 1);
    let mut expected = (wire.encode)(&model, &context(), &options);
    expected["piTestHook"] = json!({"hooked": true});
    assert_eq!(request.json(), expected);
}

/// `register` puts the wire in pi-ai's global registry under its api.
pub async fn registered_in_the_global_registry(wire: &WireAdapter) {
    (wire.register)();
    assert!(pi_ai::get_api_provider(&wire.api).is_some());
    let server = serve([MockResponse::sse(recorded(wire, wire.text.file))]).await;
    let model = (wire.model)(&server.url());
    assert_eq!(model.api, wire.api);
    let message = pi_ai::complete_simple(&model, &context(), options(wire)).await;
    assert_eq!(message.text(), wire.text.text);
}

/// The request the wire sends for `model` (changed by the caller from
/// [`WireAdapter::model`] at the server's URL, given to `change`), after
/// checking that the text answer then settles as a stop: for wire-specific
/// header and body rules.
pub async fn request_for(wire: &WireAdapter, change: impl FnOnce(&mut Model)) -> RecordedRequest {
    let server = serve([MockResponse::sse(recorded(wire, wire.text.file))]).await;
    let mut model = (wire.model)(&server.url());
    change(&mut model);
    let message = final_message(&run(wire, &model, options(wire)).await);
    assert_eq!(message.stop_reason, StopReason::Stop);
    let mut requests = server.requests();
    assert_eq!(requests.len(), 1);
    requests.remove(0)
}

/// A model of the `github-copilot` provider gets Copilot's dynamic headers
/// (`x-initiator: user` for a prompt, `openai-intent: conversation-edits`)
/// when `sent` (pi sends them on the anthropic-messages, openai-completions
/// and openai-responses wires), and none otherwise.
pub async fn copilot_headers_follow_the_provider(wire: &WireAdapter, sent: bool) {
    let request = request_for(wire, |model| model.provider = "github-copilot".into()).await;
    let expected = |value| if sent { Some(value) } else { None };
    assert_eq!(request.header("x-initiator"), expected("user"));
    assert_eq!(
        request.header("openai-intent"),
        expected("conversation-edits")
    );
    let plain = request_for(wire, |_| {}).await;
    assert_eq!(plain.header("x-initiator"), None);
}

/// Each of the wire's [`super::Ending`]s, served over HTTP, settles as listed.
pub async fn streams_end_as_the_wire_says(wire: &WireAdapter) {
    assert!(!wire.endings.is_empty());
    for ending in &wire.endings {
        let file = ending.file;
        let frames = match ending.frames {
            Some(count) => first_frames(wire, file, count),
            None => recorded(wire, file),
        };
        let server = serve([MockResponse::sse(frames)]).await;
        let model = (wire.model)(&server.url());
        let message = final_message(&run(wire, &model, options(wire)).await);
        assert_eq!(message.stop_reason, ending.stop, "{file}");
        if let Some(text) = ending.text {
            assert_eq!(message.text(), text, "{file}");
        }
        let error = message.error_message.as_deref();
        match ending.error {
            ErrorText::None => assert_eq!(error, None, "{file}"),
            ErrorText::Exact(expected) => assert_eq!(error, Some(expected), "{file}"),
            ErrorText::Prefix(prefix) => {
                let error = error.unwrap_or_default();
                assert!(error.starts_with(prefix), "{file}: {error}");
            }
        }
        // Failures inside a successful stream carry no transport class.
        assert_eq!(message.error_class, None, "{file}");
        if let Some(total) = ending.total_tokens {
            assert_eq!(message.usage.total_tokens, total, "{file}");
        }
        assert_eq!(server.requests().len(), 1, "{file}");
    }
}

/// A body that ends cleanly before the wire's terminal event (a server or
/// proxy that died mid-answer and closed the connection) is no complete
/// answer: an `error` event with stop reason `error`, an `errorMessage`
/// matching pi's retryable `ended without` pattern (auto-retry retries it),
/// the content so far kept; the transport does not retry a started stream.
pub async fn eof_before_the_terminal_event_is_an_error(wire: &WireAdapter) {
    let case = &wire.eof;
    let server = serve([MockResponse::sse(recorded(wire, case.file))]).await;
    let model = (wire.model)(&server.url());
    let events = run(wire, &model, options(wire)).await;
    assert_eq!(
        kinds(&events).last(),
        Some(&"error"),
        "{:?}",
        kinds(&events)
    );
    let message = final_message(&events);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(message.error_message.as_deref(), Some(case.error));
    assert!(case.error.contains("ended without"), "{}", case.error);
    assert_eq!(message.text(), case.text);
    // Not a transport failure: the text decides whether it is retried.
    assert_eq!(message.error_class, None);
    assert_eq!(server.requests().len(), 1);
}

/// A reasoning level reaches the request as the wire maps it, and the
/// thinking comes back as a thinking block.
pub async fn reasoning_call_maps_the_level(wire: &WireAdapter) {
    let case = &wire.thinking;
    let server = serve([MockResponse::sse(recorded(wire, case.file))]).await;
    let mut model = (case.model)(&server.url());
    model.reasoning = true;
    let mut options = options(wire);
    options.reasoning = Some(case.reasoning);
    let events = run(wire, &model, options.clone()).await;
    for kind in ["thinking_start", "thinking_delta", "thinking_end"] {
        assert!(
            kinds(&events).contains(&kind),
            "{kind}: {:?}",
            kinds(&events)
        );
    }
    let message = final_message(&events);
    assert_eq!(message.error_message, None);
    let thought = message
        .content
        .iter()
        .any(|block| matches!(block, AssistantContent::Thinking(t) if !t.thinking.is_empty()));
    assert!(thought, "{:?}", message.content);
    let request = &server.requests()[0];
    assert_request(wire, request, &model, &options);
    assert_body_holds(request, &case.body);
    if let Some(check) = case.check {
        check(&events);
    }
}
