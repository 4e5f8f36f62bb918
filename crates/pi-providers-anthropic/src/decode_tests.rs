use futures::StreamExt;
use pi_ai::{
    AssistantMessage, AssistantMessageEvent, AssistantMessageEventStream, CancellationToken,
    ErrorReason,
};
use pi_http::SseFrame;
use serde_json::json;

use super::*;

#[test]
fn repair_escapes_control_characters_and_bad_backslashes() {
    assert_eq!(repair_json("{\"a\":\"x\ty\"}"), "{\"a\":\"x\\ty\"}");
    assert_eq!(
        repair_json("{\"a\":\"x\ny\u{1}\"}"),
        "{\"a\":\"x\\ny\\u0001\"}"
    );
    assert_eq!(
        repair_json(r#"{"a":"c:\dir \"q\" \u00e9"}"#),
        r#"{"a":"c:\\dir \"q\" \u00e9"}"#
    );
    // Outside strings nothing changes.
    assert_eq!(repair_json("{\n\"a\" : 1}"), "{\n\"a\" : 1}");
}

#[test]
fn stop_reasons_follow_pi() {
    assert_eq!(
        map_stop_reason("end_turn"),
        Ok(Stop::Done(DoneReason::Stop))
    );
    assert_eq!(
        map_stop_reason("pause_turn"),
        Ok(Stop::Done(DoneReason::Stop))
    );
    assert_eq!(
        map_stop_reason("stop_sequence"),
        Ok(Stop::Done(DoneReason::Stop))
    );
    assert_eq!(
        map_stop_reason("max_tokens"),
        Ok(Stop::Done(DoneReason::Length))
    );
    assert_eq!(
        map_stop_reason("tool_use"),
        Ok(Stop::Done(DoneReason::ToolUse))
    );
    assert_eq!(map_stop_reason("refusal"), Ok(Stop::Failed));
    assert_eq!(map_stop_reason("sensitive"), Ok(Stop::Failed));
    assert_eq!(
        map_stop_reason("model_context_window_exceeded"),
        Err(DecodeError::new(
            "Unhandled stop reason: model_context_window_exceeded"
        ))
    );
}

fn frame(event: &str, data: serde_json::Value) -> SseFrame {
    SseFrame {
        event: event.to_owned(),
        data: data.to_string(),
    }
}

#[tokio::test]
async fn oauth_calls_map_claude_code_tool_names_back() {
    let model: Model = serde_json::from_value(json!({
        "id": "claude-test", "name": "t", "api": "anthropic-messages", "provider": "anthropic",
        "baseUrl": "", "contextWindow": 1, "maxTokens": 1
    }))
    .unwrap();
    let frames = vec![
        frame(
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_1", "usage": {}}}),
        ),
        frame(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {}}}),
        ),
        frame(
            "content_block_start",
            json!({"type": "content_block_start", "index": 1,
            "content_block": {"type": "tool_use", "id": "toolu_2", "name": "Custom", "input": {}}}),
        ),
        frame(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        frame(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 1}),
        ),
        frame(
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}),
        ),
        frame("message_stop", json!({"type": "message_stop"})),
    ];
    let mut decoder =
        AnthropicDecoder::new(model.clone()).with_tool_names(vec!["bash".into(), "read".into()]);
    let initial =
        AssistantMessage::empty(model.api.clone(), model.provider.clone(), "claude-test", 0);
    let stream = AssistantMessageEventStream::new(
        initial,
        CancellationToken::new(),
        |mut sink| async move {
            for f in &frames {
                match decoder.frame(f.as_frame_ref(), &mut sink) {
                    Ok(None) => {}
                    Ok(Some(StreamEnd::Done(reason))) => return sink.done(reason),
                    Ok(Some(StreamEnd::Error(e))) => {
                        return sink.error(ErrorReason::Error, e);
                    }
                    Err(error) => {
                        return sink.error(ErrorReason::Error, error.into_message());
                    }
                }
            }
        },
    );
    let events: Vec<AssistantMessageEvent> = stream.collect().await;
    let message = events.last().unwrap().final_message().unwrap();
    let names: Vec<&str> = message.tool_calls().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["bash", "Custom"]);
    assert_eq!(
        message.usage.total_tokens, 0,
        "absent usage counts are zero"
    );
}
