//! Recorded SSE bodies (`fixtures/sse/openai-completions/*.sse`) decoded
//! through the pure decoder: every file's event sequence is snapshotted and
//! checked against the streaming contract, and the important outcomes are
//! asserted by value.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::model;
use futures::StreamExt;
use pi_ai::{
    AssistantContent, AssistantMessage, AssistantMessageEvent, Cost, Model, StopReason, Usage,
};
use pi_providers_openai_completions::OpenAiCompletionsDecoder;
use pi_test_support::assert_failed_keeping_text;
use pi_test_support::{
    assert_stream_contract, event_summary, replay_from, sse_file, sse_file_names,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn initial(model: &Model) -> AssistantMessage {
    AssistantMessage::empty(
        model.api.clone(),
        model.provider.clone(),
        model.id.clone(),
        0,
    )
}

async fn decode_with(model: &Model, file: &str) -> Vec<AssistantMessageEvent> {
    let frames = sse_file("openai-completions", file);
    replay_from(initial(model), frames, OpenAiCompletionsDecoder::new(model))
        .collect()
        .await
}

async fn decode(file: &str) -> Vec<AssistantMessageEvent> {
    decode_with(&model("mock-gpt", false, false), file).await
}

fn final_message(events: &[AssistantMessageEvent]) -> AssistantMessage {
    events.last().unwrap().final_message().unwrap().clone()
}

#[tokio::test]
async fn every_recording_decodes_to_its_snapshot() {
    let names = sse_file_names("openai-completions");
    assert!(names.len() >= 20, "{names:?}");
    for name in names {
        let events = decode(&name).await;
        assert_stream_contract(&events);
        let summary: Vec<Value> = events.iter().map(event_summary).collect();
        let stem = name.trim_end_matches(".sse");
        insta::assert_json_snapshot!(format!("sse__{stem}"), summary);
    }
}

#[tokio::test]
async fn pi_recording_text_answer() {
    let events = decode("a-text-oai-1.sse").await;
    let kinds: Vec<&str> = events.iter().map(AssistantMessageEvent::kind).collect();
    assert_eq!(
        kinds,
        [
            "start",
            "text_start",
            "text_delta",
            "text_delta",
            "text_delta",
            "text_end",
            "done"
        ]
    );
    let message = final_message(&events);
    assert_eq!(message.text(), "Hello! I am a mock model. 2 + 2 = 4.");
    assert_eq!(message.stop_reason, StopReason::Stop);
    assert_eq!(message.response_id.as_deref(), Some("chatcmpl-mock0001"));
    assert_eq!(message.response_model, None, "same model as requested");
    assert_eq!(
        (
            message.usage.input,
            message.usage.output,
            message.usage.total_tokens
        ),
        (1200, 14, 1214)
    );
}

#[tokio::test]
async fn pi_recording_tool_call_keeps_pi_event_order() {
    // pi 0.73.1 closes every block at the end of the stream: text_end comes
    // after the tool call's deltas (see h-json-bash-oai/events.jsonl).
    let events = decode("b-bash-oai-1.sse").await;
    let kinds: Vec<(String, Value)> = events
        .iter()
        .map(|e| {
            let v = event_summary(e);
            (
                e.kind().to_owned(),
                v.get("delta").cloned().unwrap_or(Value::Null),
            )
        })
        .collect();
    let expected: Vec<(String, Value)> = [
        ("start", Value::Null),
        ("text_start", Value::Null),
        ("text_delta", json!("I'll lis")),
        ("text_delta", json!("t the di")),
        ("text_delta", json!("rectory.")),
        ("toolcall_start", Value::Null),
        ("toolcall_delta", json!("")),
        ("toolcall_delta", json!("{\"comm")),
        ("toolcall_delta", json!("and\": ")),
        ("toolcall_delta", json!("\"ls\"}")),
        ("text_end", Value::Null),
        ("toolcall_end", Value::Null),
        ("done", Value::Null),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    assert_eq!(kinds, expected);
    let message = final_message(&events);
    assert_eq!(message.stop_reason, StopReason::ToolUse);
    let call = message.tool_calls().next().unwrap();
    assert_eq!(
        (call.id.as_str(), call.name.as_str()),
        ("call_Xk3mP9qR2sT7vW1yZ4aB6cD8", "bash")
    );
    assert_eq!(call.arguments, json!({"command": "ls"}));
}

#[tokio::test]
async fn reasoning_content_becomes_signed_thinking() {
    let message = final_message(&decode("thinking-reasoning-content.sse").await);
    let AssistantContent::Thinking(thinking) = &message.content[0] else {
        panic!("{message:?}")
    };
    assert_eq!(thinking.thinking, "The user wants a greeting.");
    assert_eq!(
        thinking.thinking_signature.as_deref(),
        Some("reasoning_content")
    );
    assert_eq!(message.text(), "Hello there!");
    // completion_tokens already includes the 25 reasoning tokens.
    assert_eq!((message.usage.input, message.usage.output), (50, 40));
}

#[tokio::test]
async fn openrouter_reasoning_details_sign_the_tool_call() {
    let m = model("openai/gpt-5-mini", true, false);
    let message = final_message(&decode_with(&m, "thinking-reasoning-field-tool-call.sse").await);
    let AssistantContent::Thinking(thinking) = &message.content[0] else {
        panic!()
    };
    assert_eq!(thinking.thinking, "Need to list files. Use bash.");
    assert_eq!(thinking.thinking_signature.as_deref(), Some("reasoning"));
    let call = message.tool_calls().next().unwrap();
    let signature: Value =
        serde_json::from_str(call.thought_signature.as_deref().unwrap()).unwrap();
    assert_eq!(
        signature,
        json!({"type": "reasoning.encrypted", "data": "gAAAAB-opaque==", "id": "call_or_1", "format": "openai-responses-v1", "index": 1})
    );
    assert_eq!(message.response_model, None);
    let other = model("mock-gpt", true, false);
    let message =
        final_message(&decode_with(&other, "thinking-reasoning-field-tool-call.sse").await);
    assert_eq!(message.response_model.as_deref(), Some("openai/gpt-5-mini"));
}

#[tokio::test]
async fn parallel_and_interleaved_tool_calls() {
    let message = final_message(&decode("parallel-tool-calls.sse").await);
    let calls: Vec<(String, Value)> = message
        .tool_calls()
        .map(|c| (c.id.clone(), c.arguments.clone()))
        .collect();
    assert_eq!(
        calls,
        vec![
            ("call_a".to_owned(), json!({"path": "a.txt"})),
            ("call_b".to_owned(), json!({"path": "b.txt"}))
        ]
    );
    let message = final_message(&decode("interleaved-text-and-tool-call.sse").await);
    assert_eq!(
        message.content.len(),
        2,
        "one text block, one tool call: {message:?}"
    );
    assert_eq!(message.text(), "Let me check. One moment.");
    assert_eq!(
        message.tool_calls().next().unwrap().arguments,
        json!({"command": "pwd"})
    );
}

#[tokio::test]
async fn late_and_mutated_tool_call_ids_stay_one_call() {
    let message = final_message(&decode("tool-call-late-id-and-mutated-id.sse").await);
    assert_eq!(message.content.len(), 1);
    let call = message.tool_calls().next().unwrap();
    assert_eq!(
        call.id, "functions.write:0",
        "the first id that arrived is kept"
    );
    assert_eq!(call.name, "write");
    assert_eq!(call.arguments, json!({"path": "x.md", "content": "# X\n"}));
}

#[tokio::test]
async fn usage_subtracts_cache_and_prices_it() {
    let m = model("mock-gpt", false, false);
    let message = final_message(&decode_with(&m, "usage-with-cache.sse").await);
    let expected_cost = Cost {
        input: 2.0 / 1e6 * 300.0,
        output: 8.0 / 1e6 * 300.0,
        cache_read: 0.5 / 1e6 * 1500.0,
        cache_write: 2.5 / 1e6 * 200.0,
        total: 2.0 / 1e6 * 300.0 + 8.0 / 1e6 * 300.0 + 0.5 / 1e6 * 1500.0 + 2.5 / 1e6 * 200.0,
    };
    assert_eq!(
        message.usage,
        Usage {
            input: 300,
            output: 300,
            cache_read: 1500,
            cache_write: 200,
            total_tokens: 2300,
            cost: expected_cost
        }
    );
    let deepseek = final_message(&decode_with(&m, "usage-deepseek-cache-hit.sse").await);
    assert_eq!(
        (
            deepseek.usage.input,
            deepseek.usage.cache_read,
            deepseek.usage.total_tokens
        ),
        (360, 640, 1005)
    );
    let moonshot = final_message(&decode_with(&m, "usage-in-choice-moonshot.sse").await);
    assert_eq!((moonshot.usage.input, moonshot.usage.output), (120, 4));
}

#[tokio::test]
async fn finish_reasons_map_like_pi() {
    let length = final_message(&decode("finish-length.sse").await);
    assert_eq!(length.stop_reason, StopReason::Length);
    let filtered = final_message(&decode("finish-content-filter.sse").await);
    assert_eq!(filtered.stop_reason, StopReason::Error);
    assert_eq!(
        filtered.error_message.as_deref(),
        Some("Provider finish_reason: content_filter")
    );
    assert_eq!(filtered.text(), "I can", "partial content is kept");
}

#[tokio::test]
async fn stream_endings() {
    let no_done = final_message(&decode("no-done-after-finish.sse").await);
    assert_eq!(
        no_done.stop_reason,
        StopReason::Stop,
        "[DONE] is optional after a finish_reason"
    );
    assert_eq!(no_done.usage.total_tokens, 17);
    let cut = decode("no-finish-reason.sse").await;
    let kinds: Vec<&str> = cut.iter().map(AssistantMessageEvent::kind).collect();
    assert_eq!(
        kinds,
        [
            "start",
            "text_start",
            "text_delta",
            "text_delta",
            "text_end",
            "error"
        ]
    );
    let cut = final_message(&cut);
    assert_eq!(cut.stop_reason, StopReason::Error);
    let expected = format!("{}: Stream ended without finish_reason", cut.provider);
    assert_eq!(cut.error_message, Some(expected));
    assert_eq!(cut.text(), "The body ends mid-answer");
}

/// `[DONE]` without any `finish_reason` (some OpenAI-compatible local
/// servers): a normal stop with the text and usage, as pi 0.73.1.
#[tokio::test]
async fn done_without_a_finish_reason_is_a_stop() {
    let events = decode("done-without-finish-reason.sse").await;
    assert_eq!(events.last().unwrap().kind(), "done");
    let message = final_message(&events);
    assert_eq!(message.stop_reason, StopReason::Stop);
    assert_eq!(message.error_message, None);
    assert_eq!(
        message.text(),
        "A local server that never says why it stopped."
    );
    assert_eq!(message.usage.total_tokens, 21);
}

#[tokio::test]
async fn errors_inside_the_stream_keep_the_partial_content() {
    let message = final_message(&decode("stream-error-object.sse").await);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some("Upstream provider overloaded\n{\"type\":\"overloaded_error\"}")
    );
    assert_eq!(message.text(), "Partial answer");
    let invalid = final_message(&decode("invalid-json.sse").await);
    assert_eq!(invalid.stop_reason, StopReason::Error);
    let error = invalid.error_message.clone().unwrap();
    assert!(
        error.starts_with(&format!(
            "{}: Could not parse stream chunk as JSON: ",
            invalid.provider
        )),
        "{error}"
    );
    assert_eq!(invalid.text(), "Before the bad chunk");
}

#[tokio::test]
async fn keepalives_and_null_deltas_are_ignored() {
    let message = final_message(&decode("keepalive-and-empty-frames.sse").await);
    assert_eq!(message.content.len(), 1);
    assert_eq!(message.text(), "ok");
    assert_eq!(message.stop_reason, StopReason::Stop);
}

/// pi's recorded text answer cut before the chunk with its `finish_reason`
/// (and the usage chunk and `[DONE]`): an error keeping the text, where pi
/// 0.73.1 would settle it as a stop.
#[tokio::test]
async fn eof_before_the_terminal_event_is_an_error() {
    let events = decode("eof-before-terminal-event.sse").await;
    assert_stream_contract(&events);
    let provider = &final_message(&events).provider;
    let expected = format!("{provider}: Stream ended without finish_reason");
    assert_failed_keeping_text(&events, &expected, "Hello! I am a mock model. 2 + 2 = 4.");
}
