use super::*;
use serde_json::json;

fn map(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

#[test]
fn the_url_swaps_the_scheme() {
    assert_eq!(
        codex_websocket_url(""),
        "wss://chatgpt.com/backend-api/codex/responses"
    );
    assert_eq!(
        codex_websocket_url("http://127.0.0.1:9/x/codex/"),
        "ws://127.0.0.1:9/x/codex/responses"
    );
}

#[test]
fn the_handshake_drops_the_sse_headers_and_names_the_request() {
    let sse: Vec<(String, String)> = [
        ("authorization", "Bearer t"),
        ("chatgpt-account-id", "acc"),
        ("OpenAI-Beta", "responses=experimental"),
        ("accept", "text/event-stream"),
        ("content-type", "application/json"),
        ("session_id", "s"),
        ("x-client-request-id", "s"),
        ("x-extra", "1"),
    ]
    .iter()
    .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
    .collect();
    let headers = websocket_headers(&sse, "req-1");
    let names: Vec<&str> = headers.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "authorization",
            "chatgpt-account-id",
            "x-extra",
            "openai-beta",
            "x-client-request-id",
            "session_id"
        ]
    );
    assert_eq!(headers[3].1, OPENAI_BETA_RESPONSES_WEBSOCKETS);
    assert_eq!(headers[5].1, "req-1");
}

#[test]
fn the_message_puts_its_type_first() {
    let body = map(json!({"model": "m", "input": [], "type": "x"}));
    assert_eq!(
        response_create_message(&body),
        r#"{"type":"x","model":"m","input":[]}"#
    );
    let body = map(json!({"model": "m"}));
    assert_eq!(
        response_create_message(&body),
        r#"{"type":"response.create","model":"m"}"#
    );
}

fn continuation() -> Continuation {
    Continuation {
        last_request_body: map(
            json!({"model": "m", "input": [{"role": "user", "content": "a"}], "tools": []}),
        ),
        last_response_id: "resp_1".to_owned(),
        last_response_items: vec![json!({"type": "message", "id": "msg_1"})],
    }
}

#[test]
fn a_continued_body_sends_only_the_new_input() {
    let body = map(json!({
        "model": "m",
        "input": [
            {"role": "user", "content": "a"},
            {"type": "message", "id": "msg_1"},
            {"role": "user", "content": "b"}
        ],
        "tools": []
    }));
    let continued = continuation().request_body(&body).unwrap();
    assert_eq!(
        Value::Object(continued).to_string(),
        r#"{"model":"m","input":[{"role":"user","content":"b"}],"tools":[],"previous_response_id":"resp_1"}"#
    );
}

#[test]
fn a_body_that_does_not_continue_is_sent_whole() {
    let other_field = map(
        json!({"model": "n", "input": [{"role": "user", "content": "a"}, {"type": "message", "id": "msg_1"}], "tools": []}),
    );
    let edited = map(
        json!({"model": "m", "input": [{"role": "user", "content": "z"}, {"type": "message", "id": "msg_1"}], "tools": []}),
    );
    let shorter =
        map(json!({"model": "m", "input": [{"role": "user", "content": "a"}], "tools": []}));
    // pi compares the JSON texts: the same fields in another order differ.
    let reordered = map(
        json!({"tools": [], "input": [{"role": "user", "content": "a"}, {"type": "message", "id": "msg_1"}], "model": "m"}),
    );
    for body in [other_field, edited, shorter, reordered] {
        assert_eq!(continuation().request_body(&body), None, "{body:?}");
    }
}
