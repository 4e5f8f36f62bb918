//! The conversation written message by message is byte for byte what
//! converting the transcript for a model and serializing it gave (the
//! straightforward form of pi's `serializeConversation(convertToLlm(...))`,
//! kept here as the reference).

use pi_agent_core::AgentMessage;
use pi_ai::{
    AssistantContent, AssistantMessage, Message, StopReason, ThinkingContent, ToolCall,
    ToolResultMessage, UserBlock, UserContent, UserMessage,
};
use serde_json::{Value, json};

use super::{Conversation, TOOL_RESULT_MAX_CHARS, js_len, summary_request_text};
use crate::messages::{CodingAgentMessage, convert_to_llm};

fn reference_truncate(text: &str, max: usize) -> String {
    let total = js_len(text);
    if total <= max {
        return text.to_owned();
    }
    let mut units = 0;
    let mut end = 0;
    for (i, c) in text.char_indices() {
        if units + c.len_utf16() > max {
            break;
        }
        units += c.len_utf16();
        end = i + c.len_utf8();
    }
    format!(
        "{}\n\n[... {} more characters truncated]",
        &text[..end],
        total - units
    )
}

fn reference_serialize(messages: &[Message]) -> String {
    let texts =
        |blocks: &[UserBlock]| -> String { blocks.iter().filter_map(UserBlock::as_text).collect() };
    let mut parts: Vec<String> = Vec::new();
    for message in messages {
        match message {
            Message::User(user) => {
                let text = match &user.content {
                    UserContent::Text(text) => text.clone(),
                    UserContent::Blocks(blocks) => texts(blocks),
                };
                if !text.is_empty() {
                    parts.push(format!("[User]: {text}"));
                }
            }
            Message::Assistant(assistant) => {
                let (mut text, mut thinking, mut calls) = (Vec::new(), Vec::new(), Vec::new());
                for block in &assistant.content {
                    match block {
                        AssistantContent::Text(t) => text.push(t.text.as_str()),
                        AssistantContent::Thinking(t) => thinking.push(t.thinking.as_str()),
                        AssistantContent::ToolCall(call) => {
                            let args = match &call.arguments {
                                Value::Object(map) => map
                                    .iter()
                                    .map(|(k, v)| format!("{k}={v}"))
                                    .collect::<Vec<_>>()
                                    .join(", "),
                                _ => String::new(),
                            };
                            calls.push(format!("{}({args})", call.name));
                        }
                    }
                }
                if !thinking.is_empty() {
                    parts.push(format!("[Assistant thinking]: {}", thinking.join("\n")));
                }
                if !text.is_empty() {
                    parts.push(format!("[Assistant]: {}", text.join("\n")));
                }
                if !calls.is_empty() {
                    parts.push(format!("[Assistant tool calls]: {}", calls.join("; ")));
                }
            }
            Message::ToolResult(result) => {
                let text = texts(&result.content);
                if !text.is_empty() {
                    let cut = reference_truncate(&text, TOOL_RESULT_MAX_CHARS);
                    parts.push(format!("[Tool result]: {cut}"));
                }
            }
        }
    }
    parts.join("\n\n")
}

fn user(content: UserContent) -> CodingAgentMessage {
    AgentMessage::Standard(Message::User(UserMessage {
        content,
        timestamp: 1,
        ..UserMessage::default()
    }))
}

fn assistant(content: Vec<AssistantContent>) -> CodingAgentMessage {
    let mut m = AssistantMessage::empty("anthropic-messages".into(), "anthropic".into(), "m", 2);
    m.stop_reason = StopReason::ToolUse;
    m.content = content;
    AgentMessage::Standard(Message::Assistant(m))
}

fn call(name: &str, arguments: Value) -> AssistantContent {
    AssistantContent::ToolCall(ToolCall {
        id: "c".into(),
        name: name.into(),
        arguments,
        ..ToolCall::default()
    })
}

fn thinking(text: &str) -> AssistantContent {
    AssistantContent::Thinking(ThinkingContent {
        thinking: text.into(),
        ..ThinkingContent::default()
    })
}

fn tool_result(content: Vec<UserBlock>) -> CodingAgentMessage {
    AgentMessage::Standard(Message::ToolResult(ToolResultMessage {
        tool_call_id: "c".into(),
        tool_name: "read".into(),
        content,
        ..ToolResultMessage::default()
    }))
}

fn coding(value: Value) -> CodingAgentMessage {
    serde_json::from_value(value).unwrap()
}

/// Every role and the edge cases of each: empty texts, images, several
/// blocks, empty thinking, non-object arguments, truncation at the limit
/// and past it (astral characters count two), excluded bash runs.
fn transcript() -> Vec<CodingAgentMessage> {
    let long = "é".repeat(TOOL_RESULT_MAX_CHARS - 1) + "\u{1F600}";
    vec![
        user(UserContent::Text("hello".into())),
        user(UserContent::Text(String::new())),
        user(UserContent::Blocks(vec![
            UserBlock::text("a"),
            UserBlock::image("AAAA", "image/png"),
            UserBlock::text("b"),
        ])),
        user(UserContent::Blocks(vec![UserBlock::image(
            "AAAA",
            "image/png",
        )])),
        assistant(vec![
            thinking("t1"),
            AssistantContent::text("x"),
            thinking(""),
            call(
                "bash",
                json!({"command": "ls \"q\"", "n": 5, "deep": {"a": [1, null]}}),
            ),
            AssistantContent::text("y"),
            call("noargs", json!("text")),
            call("empty", json!({})),
        ]),
        assistant(vec![]),
        assistant(vec![AssistantContent::text("")]),
        tool_result(vec![UserBlock::text("x".repeat(TOOL_RESULT_MAX_CHARS))]),
        tool_result(vec![UserBlock::text(long.clone())]),
        tool_result(vec![
            UserBlock::text("é".repeat(1500)),
            UserBlock::image("AAAA", "image/png"),
            UserBlock::text("z".repeat(1500)),
        ]),
        tool_result(vec![]),
        tool_result(vec![UserBlock::text(String::new())]),
        coding(
            json!({"role": "bashExecution", "command": "ls", "output": "a\nb",
            "exitCode": 2, "cancelled": false, "truncated": true,
            "fullOutputPath": "/tmp/o", "timestamp": 3}),
        ),
        coding(
            json!({"role": "bashExecution", "command": "rm", "output": "",
            "cancelled": true, "truncated": false, "timestamp": 3,
            "excludeFromContext": true}),
        ),
        coding(
            json!({"role": "custom", "customType": "note", "content": "custom text",
            "display": true, "timestamp": 4}),
        ),
        coding(
            json!({"role": "custom", "customType": "note", "content": "",
            "display": false, "timestamp": 4}),
        ),
        coding(json!({"role": "custom", "customType": "note",
            "content": [{"type": "text", "text": "p"}, {"type": "text", "text": "q"}],
            "display": true, "timestamp": 4})),
        coding(json!({"role": "branchSummary", "summary": "", "fromId": "r", "timestamp": 5})),
        coding(
            json!({"role": "compactionSummary", "summary": "s", "tokensBefore": 9,
            "timestamp": 6}),
        ),
        user(UserContent::Text(long)),
    ]
}

#[test]
fn the_conversation_is_the_reference_serialization_byte_for_byte() {
    let messages = transcript();
    let expected = reference_serialize(&convert_to_llm(&messages));
    let conversation = Conversation::of(&messages);
    assert_eq!(conversation.text(), expected);
    assert_eq!(conversation.len(), messages.len());
    // Every prefix, so that each message's joining is checked too.
    for n in 0..messages.len() {
        let expected = reference_serialize(&convert_to_llm(&messages[..n]));
        assert_eq!(Conversation::of(&messages[..n]).text(), expected, "{n}");
    }
    assert_eq!(
        super::serialize_conversation(&convert_to_llm(&messages)),
        reference_serialize(&convert_to_llm(&messages))
    );
}

#[test]
fn the_request_wraps_the_conversation_as_before() {
    let messages = transcript();
    let conversation = reference_serialize(&convert_to_llm(&messages));
    let cases = [
        (None, None),
        (Some("earlier"), None),
        (None, Some("focus")),
        (Some("earlier"), Some("focus")),
    ];
    for (previous, focus) in cases {
        let mut expected = format!("<conversation>\n{conversation}\n</conversation>\n\n");
        if let Some(previous) = previous {
            expected.push_str(&format!(
                "<previous-summary>\n{previous}\n</previous-summary>\n\n"
            ));
        }
        expected.push_str("DO IT");
        if let Some(focus) = focus {
            expected.push_str(&format!("\n\nAdditional focus: {focus}"));
        }
        assert_eq!(
            summary_request_text(&messages, previous, "DO IT", focus),
            expected
        );
    }
    assert_eq!(
        Conversation::default().into_request(None, "I", None),
        "<conversation>\n\n</conversation>\n\nI"
    );
}
