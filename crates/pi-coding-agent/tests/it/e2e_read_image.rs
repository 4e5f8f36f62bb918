//! `read` of an image for a model without image input adds pi's note, and
//! the binary tells the tool which model is current: a text-only model gets
//! the note in the tool result it sends back.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;

use e2e_common::{Scenario, capture_answer};
use pi_test_support::mock_server::MockResponse;

/// A 1x1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
    0x42, 0x60, 0x82,
];

const NOTE: &str =
    "[Current model does not support images. The image will be omitted from this request.]";

/// An openai-completions answer that calls `read` on `path`.
fn read_call(path: &str) -> MockResponse {
    let chunk = |choices: serde_json::Value| {
        let body = serde_json::json!({"id": "chatcmpl-img", "object": "chat.completion.chunk",
                                      "created": 1_767_225_601, "model": "mock", "choices": choices});
        format!("data: {body}\n\n")
    };
    let args = serde_json::json!({ "path": path }).to_string();
    MockResponse::sse([
        chunk(
            serde_json::json!([{"index": 0, "delta": {"role": "assistant", "tool_calls": [
            {"index": 0, "id": "call_img1", "type": "function",
             "function": {"name": "read", "arguments": args}}]}, "finish_reason": null}]),
        ),
        chunk(serde_json::json!([{"index": 0, "delta": {}, "finish_reason": "tool_calls"}])),
        "data: [DONE]\n\n".to_owned(),
    ])
}

#[tokio::test(flavor = "multi_thread")]
async fn a_text_only_model_is_told_the_image_is_omitted() {
    let s = Scenario::start(vec![read_call("pic.png"), capture_answer("A picture.")]).await;
    std::fs::write(s.work.path().join("pic.png"), PNG).unwrap();
    let out = s
        .run(&["-p", "--model", "mock-oai/mock-gpt", "Look at pic.png"])
        .await;
    assert!(out.status.success(), "{out:?}");
    let requests = s.requests();
    assert_eq!(requests.len(), 2);
    let second = String::from_utf8_lossy(&requests[1].body).into_owned();
    assert!(second.contains(NOTE), "no image note in {second}");
}
