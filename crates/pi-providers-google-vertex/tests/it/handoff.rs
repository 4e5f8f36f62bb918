//! Cross-provider handoff: conversations pi 0.73.1 had on anthropic
//! (thinking with signatures, redacted thinking, `toolu_` tool calls)
//! continue on Vertex as pi transforms them: another model's thinking is
//! plain text, its signatures are never replayed, redacted thinking is
//! dropped, calls and results keep their pairing by name (no ids for Gemini
//! models). The real pi capture of one such handoff is compared value for
//! value in `parity.rs` (`x-handoff-vtx`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use pi_ai::{AssistantContent, Context, Message, SimpleStreamOptions};
use pi_http::WireOptions;
use pi_providers_google::SKIP_THOUGHT_SIGNATURE;
use pi_providers_google_vertex::{VertexOptions, build_request_body};
use pi_test_support::parity::CapturedSession;
use pretty_assertions::assert_eq;
use serde_json::Value;

fn encode_for(model_id: &str, messages: Vec<Message>) -> Value {
    let model = common::CAPTURES.model("mock-vtx", model_id);
    let context = Context {
        messages,
        ..Context::default()
    };
    let options = VertexOptions::from_simple(&model, SimpleStreamOptions::default());
    serde_json::to_value(build_request_body(&model, &context, &options)).unwrap()
}

fn parts(body: &Value) -> impl Iterator<Item = &Value> {
    body["contents"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["parts"].as_array().unwrap())
}

#[test]
fn anthropic_sessions_continue_on_vertex() {
    for folder in ["f-continue-ant", "h-json-thinking-ant", "c-read-edit-ant"] {
        let session = CapturedSession::load(folder);
        let calls: Vec<String> = session
            .messages
            .iter()
            .filter_map(|m| match m {
                Message::Assistant(a) => {
                    Some(a.tool_calls().map(|c| c.name.clone()).collect::<Vec<_>>())
                }
                _ => None,
            })
            .flatten()
            .collect();
        assert!(!calls.is_empty(), "{folder}");
        for model_id in ["mock-vertex", "gemini-3-flash-preview"] {
            let body = encode_for(model_id, session.messages.clone());
            let text = body.to_string();
            assert!(
                !text.contains("toolu_"),
                "{folder} {model_id}: no anthropic ids"
            );
            assert!(
                !text.contains("\"thought\":true"),
                "{folder} {model_id}: no thought parts"
            );
            let sent_calls: Vec<String> = parts(&body)
                .filter_map(|p| p.get("functionCall"))
                .map(|c| {
                    assert!(c.get("id").is_none(), "Gemini models get no call ids");
                    c["name"].as_str().unwrap().to_owned()
                })
                .collect();
            assert_eq!(sent_calls, calls, "{folder} {model_id}");
            let answered: Vec<&str> = parts(&body)
                .filter_map(|p| p.get("functionResponse"))
                .map(|r| r["name"].as_str().unwrap())
                .collect();
            assert_eq!(
                answered, calls,
                "{folder} {model_id}: each call is answered"
            );
            // Only Gemini 3 gets the skip sentinel, and no anthropic
            // signature is ever replayed.
            for part in parts(&body) {
                if let Some(signature) = part.get("thoughtSignature") {
                    assert_eq!(signature, SKIP_THOUGHT_SIGNATURE, "{folder} {model_id}");
                    assert_eq!(model_id, "gemini-3-flash-preview");
                }
            }
        }
    }
}

#[test]
fn anthropic_thinking_becomes_text_and_redacted_thinking_is_dropped() {
    let session = CapturedSession::load("h-json-thinking-ant");
    let Message::Assistant(original) = session
        .messages
        .iter()
        .find(|m| matches!(m, Message::Assistant(_)))
        .unwrap()
    else {
        unreachable!()
    };
    let thinking = original
        .content
        .iter()
        .find_map(|b| match b {
            AssistantContent::Thinking(t) if !t.redacted.unwrap_or(false) => {
                Some(t.thinking.clone())
            }
            _ => None,
        })
        .unwrap();
    let body = encode_for("gemini-3-flash-preview", session.messages.clone());
    let first_answer = body["contents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["role"] == "model")
        .unwrap();
    assert_eq!(
        first_answer["parts"][0],
        serde_json::json!({"text": thinking})
    );
    let redacted = original
        .content
        .iter()
        .find_map(|b| match b {
            AssistantContent::Thinking(t) if t.redacted == Some(true) => Some(t),
            _ => None,
        })
        .unwrap();
    let text = body.to_string();
    assert!(
        !text.contains(&redacted.thinking),
        "redacted thinking is dropped"
    );
    assert!(!text.contains(redacted.thinking_signature.as_deref().unwrap()));
    insta::assert_json_snapshot!("h_json_thinking_ant_on_gemini_3", body);
}
