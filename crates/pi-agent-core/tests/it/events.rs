//! `AgentEvent` JSON: pi's type names and field names for every variant,
//! and a lossless round trip.

use pi_agent_core::{AgentEvent, AgentMessage, AgentToolResult};
use pi_ai::scripted::{text_reply, tool_call_reply};
use pi_ai::{AssistantMessageEvent, Message, SharedMessage, ToolResultMessage, UserBlock};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn every_variant() -> Vec<AgentEvent> {
    let mut user = AgentMessage::user_text("list files");
    if let AgentMessage::Standard(Message::User(u)) = &mut user {
        u.timestamp = 1;
    }
    let mut assistant = tool_call_reply(&[("call_1", "bash", json!({"command": "ls"}))]);
    assistant.timestamp = 2;
    let partial = SharedMessage::new(assistant.clone());
    let result = ToolResultMessage {
        tool_call_id: "call_1".into(),
        tool_name: "bash".into(),
        content: vec![UserBlock::text("a.txt\n")],
        is_error: false,
        timestamp: 3,
        ..ToolResultMessage::default()
    };
    let mut answer = text_reply("one file");
    answer.timestamp = 4;
    vec![
        AgentEvent::AgentStart,
        AgentEvent::TurnStart,
        AgentEvent::MessageStart {
            message: user.clone(),
        },
        AgentEvent::MessageEnd {
            message: user.clone(),
        },
        AgentEvent::MessageUpdate {
            assistant_message_event: AssistantMessageEvent::ToolCallDelta {
                content_index: 0,
                delta: "{\"command\":".into(),
                partial: partial.clone(),
            },
            message: partial,
        },
        AgentEvent::ToolExecutionStart {
            tool_call_id: "call_1".into(),
            tool_name: "bash".into(),
            args: json!({"command": "ls"}),
        },
        AgentEvent::ToolExecutionUpdate {
            tool_call_id: "call_1".into(),
            tool_name: "bash".into(),
            args: json!({"command": "ls"}),
            partial_result: AgentToolResult::default(),
        },
        AgentEvent::ToolExecutionEnd {
            tool_call_id: "call_1".into(),
            tool_name: "bash".into(),
            result: AgentToolResult::text("a.txt\n"),
            is_error: false,
        },
        AgentEvent::TurnEnd {
            message: assistant.clone(),
            tool_results: vec![result.clone()],
        },
        AgentEvent::AgentEnd {
            messages: vec![
                user,
                assistant.into(),
                result.into(),
                AgentMessage::from(answer),
            ],
        },
    ]
}

#[test]
fn every_event_serializes_with_pi_names_and_fields() {
    let events = every_variant();
    insta::assert_json_snapshot!(events);
    let json = serde_json::to_value(&events).unwrap();
    let back: Vec<AgentEvent> = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(back, events);
    let kinds: Vec<&str> = events.iter().map(AgentEvent::kind).collect();
    let types: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, types);
}

#[test]
fn a_result_without_details_leaves_the_field_out() {
    let json = serde_json::to_value(AgentToolResult::text("x")).unwrap();
    assert_eq!(json, json!({"content": [{"type": "text", "text": "x"}]}));
    let json = serde_json::to_value(AgentToolResult::error("no")).unwrap();
    assert_eq!(json["details"], json!({}));
    let parsed: AgentToolResult = serde_json::from_value(json!({"content": []})).unwrap();
    assert_eq!(parsed.details, Value::Null);
}
