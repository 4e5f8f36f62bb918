use std::time::Duration;

use futures::StreamExt;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::{Api, AssistantContent, AssistantMessage, CancellationToken, StopReason};

fn empty() -> AssistantMessage {
    AssistantMessage::empty(Api::ANTHROPIC_MESSAGES, "anthropic".into(), "m", 1)
}

async fn collect(stream: AssistantMessageEventStream) -> Vec<AssistantMessageEvent> {
    stream.collect().await
}

fn kinds(events: &[AssistantMessageEvent]) -> Vec<&'static str> {
    events.iter().map(AssistantMessageEvent::kind).collect()
}

#[tokio::test]
async fn a_complete_stream_yields_pi_events_and_one_done() {
    let stream = AssistantMessageEventStream::new(
        empty(),
        CancellationToken::new(),
        |mut sink| async move {
            sink.start();
            let t = sink.thinking_start();
            sink.thinking_delta(t, "hmm");
            sink.append_thinking_signature(t, "sig");
            sink.thinking_end(t);
            let i = sink.text_start();
            sink.text_delta(i, "Hel");
            sink.text_delta(i, "lo");
            sink.text_end(i);
            let c = sink.tool_call_start("call_1", "read");
            sink.tool_call_delta(c, "{\"pa");
            sink.tool_call_delta(c, "th\":\"a.txt\"}");
            sink.tool_call_end(c);
            sink.done(DoneReason::ToolUse);
        },
    );
    let events = collect(stream).await;
    assert_eq!(
        kinds(&events),
        [
            "start",
            "thinking_start",
            "thinking_delta",
            "thinking_end",
            "text_start",
            "text_delta",
            "text_delta",
            "text_end",
            "toolcall_start",
            "toolcall_delta",
            "toolcall_delta",
            "toolcall_end",
            "done"
        ]
    );
    let AssistantMessageEvent::Done { reason, message } = events.last().unwrap() else {
        panic!()
    };
    assert_eq!(*reason, DoneReason::ToolUse);
    assert_eq!(message.stop_reason, StopReason::ToolUse);
    assert_eq!(message.text(), "Hello");
    let call = message.tool_calls().next().unwrap();
    assert_eq!(call.arguments, json!({"path": "a.txt"}));
    let AssistantContent::Thinking(thinking) = &message.content[0] else {
        panic!()
    };
    assert_eq!(
        (
            thinking.thinking.as_str(),
            thinking.thinking_signature.as_deref()
        ),
        ("hmm", Some("sig"))
    );
}

#[tokio::test]
async fn events_serialize_with_pi_names() {
    let stream = AssistantMessageEventStream::new(
        empty(),
        CancellationToken::new(),
        |mut sink| async move {
            sink.start();
            let i = sink.text_start();
            sink.text_delta(i, "Hi");
            sink.text_end(i);
            let c = sink.tool_call_start("c1", "bash");
            sink.tool_call_delta(c, "{\"command\":\"l");
            sink.tool_call_end(c);
            sink.done(DoneReason::Stop);
        },
    );
    let events: Vec<serde_json::Value> = collect(stream)
        .await
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    assert_eq!(events[2]["type"], "text_delta");
    assert_eq!(events[2]["contentIndex"], 0);
    assert_eq!(events[2]["delta"], "Hi");
    assert_eq!(events[2]["partial"]["role"], "assistant");
    assert_eq!(events[3]["content"], "Hi");
    assert_eq!(events[5]["type"], "toolcall_delta");
    assert_eq!(events[6]["type"], "toolcall_end");
    assert_eq!(
        events[6]["toolCall"],
        json!({"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "l"}})
    );
    assert_eq!(events[7]["type"], "done");
    assert_eq!(events[7]["reason"], "stop");
    assert_eq!(events[7]["message"]["role"], "assistant");
    assert_eq!(events[7]["message"]["stopReason"], "stop");
    // Events read back equal what was written.
    let back: AssistantMessageEvent = serde_json::from_value(events[2].clone()).unwrap();
    assert_eq!(serde_json::to_value(&back).unwrap(), events[2]);
}

#[tokio::test]
async fn partial_is_shared_not_rebuilt() {
    let stream = AssistantMessageEventStream::new(
        empty(),
        CancellationToken::new(),
        |mut sink| async move {
            sink.start();
            let i = sink.text_start();
            sink.text_delta(i, "a");
            sink.text_delta(i, "b");
            sink.done(DoneReason::Stop);
        },
    );
    let events = collect(stream).await;
    let first = events[0].partial().unwrap();
    let later = events[3].partial().unwrap();
    assert!(first.ptr_eq(later), "every event holds the same partial");
    assert_eq!(first.lock().text(), "ab");
}

#[tokio::test]
async fn a_producer_that_stops_early_ends_with_an_error_keeping_content() {
    let stream = AssistantMessageEventStream::new(
        empty(),
        CancellationToken::new(),
        |mut sink| async move {
            sink.start();
            let i = sink.text_start();
            sink.text_delta(i, "partial");
        },
    );
    let events = collect(stream).await;
    assert_eq!(
        kinds(&events),
        ["start", "text_start", "text_delta", "error"]
    );
    let AssistantMessageEvent::Error { reason, error } = events.last().unwrap() else {
        panic!()
    };
    assert_eq!(*reason, ErrorReason::Error);
    assert_eq!(error.stop_reason, StopReason::Error);
    assert_eq!(error.text(), "partial");
    assert_eq!(
        error.error_message.as_deref(),
        Some("provider stream ended without a done or error event")
    );
}

#[tokio::test]
async fn a_panicking_producer_becomes_an_error_event() {
    #[allow(clippy::panic)]
    let stream = AssistantMessageEventStream::new(
        empty(),
        CancellationToken::new(),
        |mut sink| async move {
            sink.start();
            panic!("boom");
        },
    );
    let result = stream.result().await;
    assert_eq!(result.stop_reason, StopReason::Error);
    assert_eq!(
        result.error_message.as_deref(),
        Some("provider panicked: boom")
    );
}

#[tokio::test]
async fn provider_errors_keep_partial_content() {
    let stream = AssistantMessageEventStream::new(
        empty(),
        CancellationToken::new(),
        |mut sink| async move {
            sink.start();
            let i = sink.text_start();
            sink.text_delta(i, "so far");
            let c = sink.tool_call_start("c", "x");
            sink.tool_call_delta(c, "{\"a\":1");
            sink.error(ErrorReason::Error, "500 Internal");
        },
    );
    let message = stream.result().await;
    assert_eq!(message.error_message.as_deref(), Some("500 Internal"));
    assert_eq!(
        message.content.len(),
        2,
        "an error keeps everything received"
    );
}

#[tokio::test]
async fn cancellation_ends_with_aborted_keeping_text_and_complete_tool_calls() {
    let cancel = CancellationToken::new();
    let stream = AssistantMessageEventStream::new(empty(), cancel.clone(), |mut sink| async move {
        sink.start();
        let i = sink.text_start();
        sink.text_delta(i, "working");
        sink.text_end(i);
        let done = sink.tool_call_start("c1", "read");
        sink.tool_call_delta(done, "{}");
        sink.tool_call_end(done);
        let open = sink.tool_call_start("c2", "bash");
        sink.tool_call_delta(open, "{\"comm");
        std::future::pending::<()>().await;
    });
    let mut stream = stream;
    let mut seen = Vec::new();
    while let Some(event) = stream.next().await {
        let is_last_delta = event.kind() == "toolcall_delta"
            && seen.iter().filter(|k| **k == "toolcall_delta").count() == 1;
        seen.push(event.kind());
        if is_last_delta {
            cancel.cancel();
        }
        if let AssistantMessageEvent::Error { reason, error } = &event {
            assert_eq!(*reason, ErrorReason::Aborted);
            assert_eq!(error.stop_reason, StopReason::Aborted);
            assert_eq!(error.error_message.as_deref(), Some(ABORTED_MESSAGE));
            assert_eq!(error.text(), "working");
            let calls: Vec<_> = error.tool_calls().map(|c| c.id.as_str()).collect();
            assert_eq!(calls, ["c1"], "the incomplete call is dropped");
        }
    }
    assert_eq!(seen.last(), Some(&"error"));
    assert_eq!(
        seen.iter()
            .filter(|k| **k == "error" || **k == "done")
            .count(),
        1
    );
}

#[tokio::test]
async fn cancellation_while_waiting_on_io_aborts() {
    let cancel = CancellationToken::new();
    let stream = AssistantMessageEventStream::new(empty(), cancel.clone(), |mut sink| async move {
        sink.start();
        tokio::time::sleep(Duration::from_secs(3600)).await;
        sink.done(DoneReason::Stop);
    });
    let canceller = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        canceller.cancel();
    });
    let started = std::time::Instant::now();
    let message = stream.result().await;
    assert_eq!(message.stop_reason, StopReason::Aborted);
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn result_after_consuming_returns_the_final_message() {
    let mut stream = AssistantMessageEventStream::new(
        empty(),
        CancellationToken::new(),
        |mut sink| async move {
            sink.start();
            sink.done(DoneReason::Length);
        },
    );
    while stream.next().await.is_some() {}
    assert!(
        stream.next().await.is_none(),
        "nothing after the terminal event"
    );
    assert_eq!(stream.result().await.stop_reason, StopReason::Length);
}

#[tokio::test]
async fn unregistered_api_names_the_api_and_the_registered_ones() {
    let registry = crate::ApiRegistry::new();
    let model: crate::Model = serde_json::from_value(json!({
        "id": "m", "name": "M", "api": "nope", "provider": "p", "baseUrl": "",
        "contextWindow": 1000, "maxTokens": 100
    }))
    .unwrap();
    let message = registry
        .stream(
            &model,
            &crate::Context::default(),
            crate::StreamOptions::default(),
        )
        .result()
        .await;
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some("No API provider registered for api: nope (registered: none)")
    );
}

/// Streams a thinking block (ended) and a text block (left open), then
/// waits; cancels after the text delta. Returns the event kinds and the
/// `text_end` content seen.
async fn cancel_with_an_open_text_block(end_blocks: bool) -> (Vec<&'static str>, Vec<String>) {
    let cancel = CancellationToken::new();
    let mut stream =
        AssistantMessageEventStream::new(empty(), cancel.clone(), move |mut sink| async move {
            if end_blocks {
                sink.end_blocks_on_abort();
            }
            sink.start();
            let t = sink.thinking_start();
            sink.thinking_delta(t, "hmm");
            sink.thinking_end(t);
            let i = sink.text_start();
            sink.text_delta(i, "word0 word1 ");
            std::future::pending::<()>().await;
        });
    let (mut kinds, mut ends) = (Vec::new(), Vec::new());
    while let Some(event) = stream.next().await {
        kinds.push(event.kind());
        match &event {
            AssistantMessageEvent::TextDelta { .. } => cancel.cancel(),
            AssistantMessageEvent::TextEnd { content, .. } => ends.push(content.clone()),
            _ => {}
        }
    }
    (kinds, ends)
}

#[tokio::test]
async fn an_aborted_stream_can_end_its_open_text_block_first() {
    let (kinds, ends) = cancel_with_an_open_text_block(true).await;
    assert_eq!(
        kinds,
        [
            "start",
            "thinking_start",
            "thinking_delta",
            "thinking_end",
            "text_start",
            "text_delta",
            "text_end",
            "error"
        ],
        "only the open block is ended, before the error"
    );
    assert_eq!(ends, ["word0 word1 "]);
}

/// The cancellation fires while the producer runs, after the stream
/// checked the token: the producer sees it first and ends the call with its
/// own `aborted` error (as the HTTP driver does). The open block is ended
/// all the same.
#[tokio::test]
async fn an_abort_the_producer_sees_first_ends_the_open_block_too() {
    let cancel = CancellationToken::new();
    let token = cancel.clone();
    let mut stream =
        AssistantMessageEventStream::new(empty(), cancel.clone(), move |mut sink| async move {
            sink.end_blocks_on_abort();
            sink.start();
            let i = sink.text_start();
            sink.text_delta(i, "word0 ");
            tokio::task::yield_now().await;
            token.cancel();
            sink.error(ErrorReason::Aborted, "Request was aborted");
        });
    let mut kinds = Vec::new();
    let mut ends = Vec::new();
    while let Some(event) = stream.next().await {
        kinds.push(event.kind());
        if let AssistantMessageEvent::TextEnd { content, .. } = &event {
            ends.push(content.clone());
        }
    }
    assert_eq!(
        kinds,
        ["start", "text_start", "text_delta", "text_end", "error"]
    );
    assert_eq!(ends, ["word0 "]);
}

#[tokio::test]
async fn by_default_an_aborted_stream_leaves_its_blocks_open() {
    let (kinds, ends) = cancel_with_an_open_text_block(false).await;
    assert_eq!(kinds.last(), Some(&"error"));
    assert!(!kinds.contains(&"text_end"), "{kinds:?}");
    assert!(ends.is_empty());
}
