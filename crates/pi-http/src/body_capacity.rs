//! How much room to give a request body before encoding it.

use pi_ai::{AssistantContent, ContextRef, Message, UserBlock, UserContent};
use serde_json::Value;

/// Bytes every message and block adds around its strings (keys, roles,
/// ids, usage), generous: room never touched costs address space only.
const PER_MESSAGE: usize = 256;
/// See [`PER_MESSAGE`].
const PER_BLOCK: usize = 64;

/// An estimate, on the high side, of the JSON size of a request carrying
/// `context`: its strings plus a margin per message and block. The body is
/// encoded into a buffer of this capacity, so a long transcript's body is
/// not grown by doubling (each step a copy, and the old and new buffer
/// resident at once). Pages of the buffer never written are never touched.
pub(crate) fn body_capacity(context: ContextRef<'_>) -> usize {
    let user = |blocks: &[UserBlock]| -> usize {
        blocks
            .iter()
            .map(|block| {
                PER_BLOCK
                    + match block {
                        UserBlock::Text(text) => text.text.len(),
                        UserBlock::Image(image) => image.data.len() + image.mime_type.len(),
                    }
            })
            .sum()
    };
    let messages: usize = context
        .messages
        .iter()
        .map(|message| {
            PER_MESSAGE
                + match message {
                    Message::User(message) => match &message.content {
                        UserContent::Text(text) => text.len(),
                        UserContent::Blocks(blocks) => user(blocks),
                    },
                    Message::ToolResult(result) => user(&result.content),
                    Message::Assistant(message) => message
                        .content
                        .iter()
                        .map(|block| {
                            PER_BLOCK
                                + match block {
                                    AssistantContent::Text(text) => text.text.len(),
                                    AssistantContent::Thinking(thinking) => {
                                        thinking.thinking.len()
                                            + thinking
                                                .thinking_signature
                                                .as_ref()
                                                .map_or(0, String::len)
                                    }
                                    AssistantContent::ToolCall(call) => {
                                        PER_BLOCK
                                            + value_len(&call.arguments)
                                            + call.thought_signature.as_ref().map_or(0, String::len)
                                    }
                                }
                        })
                        .sum(),
                }
        })
        .sum();
    let prompt = context.system_prompt.map_or(0, str::len);
    let tools: usize = context
        .tools
        .into_iter()
        .flatten()
        .map(|tool| {
            PER_MESSAGE + tool.name.len() + tool.description.len() + value_len(&tool.parameters)
        })
        .sum();
    // JSON escapes lengthen text (newlines, quotes): an eighth more.
    let strings = messages + prompt + tools;
    strings + strings / 8 + 4096
}

/// The strings and keys of a JSON value, plus a few bytes per element.
fn value_len(value: &Value) -> usize {
    match value {
        Value::String(text) => text.len() + 2,
        Value::Array(items) => items.iter().map(|item| value_len(item) + 1).sum::<usize>() + 2,
        Value::Object(map) => {
            map.iter()
                .map(|(key, item)| key.len() + 4 + value_len(item))
                .sum::<usize>()
                + 2
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => 24,
    }
}

#[cfg(test)]
mod tests {
    use pi_ai::{
        Api, AssistantMessage, Context, Provider, ToolCall, ToolResultMessage, UserMessage,
    };
    use serde_json::json;

    use super::*;

    #[test]
    fn the_estimate_covers_the_json_of_a_transcript() {
        let mut assistant = AssistantMessage::empty(Api::default(), Provider::default(), "gpt", 1);
        assistant.content = vec![
            AssistantContent::text("some \"quoted\"\nanswer ".repeat(40)),
            AssistantContent::ToolCall(ToolCall {
                id: "call_1".into(),
                name: "write".into(),
                arguments: json!({"path": "a.txt", "content": "line\n".repeat(500)}),
                ..ToolCall::default()
            }),
        ];
        let context = Context {
            system_prompt: Some("You are helpful.".repeat(20)),
            messages: vec![
                Message::User(UserMessage {
                    content: "question ".repeat(100).into(),
                    ..UserMessage::default()
                }),
                Message::Assistant(assistant),
                Message::ToolResult(ToolResultMessage {
                    tool_call_id: "call_1".into(),
                    tool_name: "write".into(),
                    content: vec![UserBlock::text("ok ".repeat(300))],
                    ..ToolResultMessage::default()
                }),
            ],
            ..Context::default()
        };
        let json = serde_json::to_vec(&context).unwrap_or_default();
        let estimate = body_capacity(context.view());
        assert!(estimate >= json.len(), "{estimate} < {}", json.len());
        assert!(
            estimate < 2 * json.len() + 8192,
            "{estimate} too far above {}",
            json.len()
        );
    }
}
