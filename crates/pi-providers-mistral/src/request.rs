//! The pure encoder: `Context` + options -> Mistral chat request body.

use pi_ai::{
    AssistantContent, ContextRef, InputModality, Message, Model, ToolResultMessage, UserBlock,
    UserContent, transform_messages_borrowed,
};

use crate::ids::MistralToolCallIds;
use crate::options::{MistralOptions, PromptMode};
use crate::wire::{
    ChatMessage, ChatRequest, ContentPart, FunctionCallWire, FunctionDefinition, ThinkingPart,
    ToolCallWire, ToolDefinition, UserContentWire,
};

/// User message sent in place of images the model cannot see.
const IMAGE_OMITTED: &str = "(image omitted: model does not support images)";

/// Builds the typed request for `model` from `context` and `options`. Tool
/// calls of other models get Mistral ids (one mapping per request, so a
/// result follows its call).
pub fn build_request_body<'c>(
    model: &Model,
    context: impl Into<ContextRef<'c>>,
    options: &MistralOptions,
) -> ChatRequest {
    let context = context.into();
    let supports_images = model.input.contains(&InputModality::Image);
    let ids = MistralToolCallIds::new();
    let normalize = |id: &str, _: &Model, _: &pi_ai::AssistantMessage| ids.normalize(id);
    let transformed = transform_messages_borrowed(context.messages, model, Some(&normalize));
    let mut messages = Vec::with_capacity(transformed.len() + 1);
    if let Some(prompt) = context.system_prompt.filter(|p| !p.is_empty()) {
        messages.push(ChatMessage::System {
            content: prompt.to_owned(),
        });
    }
    for message in transformed.iter().map(|m| &**m) {
        match message {
            Message::User(user) => {
                if let Some(m) = user_message(&user.content, supports_images) {
                    messages.push(m);
                }
            }
            Message::Assistant(assistant) => {
                if let Some(m) = assistant_message(&assistant.content) {
                    messages.push(m);
                }
            }
            Message::ToolResult(result) => messages.push(tool_message(result, supports_images)),
        }
    }
    let tools = context
        .tools
        .filter(|tools| !tools.is_empty())
        .map(|tools| {
            tools
                .iter()
                .map(|tool| ToolDefinition {
                    kind: "function",
                    function: FunctionDefinition {
                        name: tool.name.clone(),
                        description: tool.description.clone(),
                        strict: false,
                        parameters: tool.parameters.clone(),
                    },
                })
                .collect()
        });
    ChatRequest {
        model: model.id.clone(),
        temperature: options.base.temperature,
        max_tokens: options.base.max_tokens,
        stream: true,
        messages,
        tools,
        tool_choice: options.tool_choice.clone(),
        prompt_mode: options
            .prompt_mode
            .map(|PromptMode::Reasoning| "reasoning".to_owned()),
        reasoning_effort: options.reasoning_effort.clone(),
    }
}

fn image_url(mime_type: &str, data: &str) -> ContentPart {
    ContentPart::ImageUrl {
        image_url: format!("data:{mime_type};base64,{data}"),
    }
}

/// A user turn: a string stays a string; images are dropped for text-only
/// models (a note replaces a turn that had only images).
fn user_message(content: &UserContent, supports_images: bool) -> Option<ChatMessage> {
    let blocks = match content {
        UserContent::Text(text) => {
            return Some(ChatMessage::User {
                content: UserContentWire::Text(text.clone()),
            });
        }
        UserContent::Blocks(blocks) => blocks,
    };
    let parts: Vec<ContentPart> = blocks
        .iter()
        .filter_map(|block| match block {
            UserBlock::Text(t) => Some(ContentPart::Text {
                text: t.text.clone(),
            }),
            UserBlock::Image(i) if supports_images => Some(image_url(&i.mime_type, &i.data)),
            UserBlock::Image(_) => None,
        })
        .collect();
    if !parts.is_empty() {
        return Some(ChatMessage::User {
            content: UserContentWire::Parts(parts),
        });
    }
    let had_images = blocks.iter().any(|b| matches!(b, UserBlock::Image(_)));
    (had_images && !supports_images).then(|| ChatMessage::User {
        content: UserContentWire::Text(IMAGE_OMITTED.to_owned()),
    })
}

/// An assistant turn: non-blank text and thinking as parts, tool calls with
/// JSON-string arguments; nothing when both are empty.
fn assistant_message(content: &[AssistantContent]) -> Option<ChatMessage> {
    let mut parts = Vec::new();
    let mut calls = Vec::new();
    for block in content {
        match block {
            AssistantContent::Text(t) if !t.text.trim().is_empty() => {
                parts.push(ContentPart::Text {
                    text: t.text.clone(),
                });
            }
            AssistantContent::Thinking(t) if !t.thinking.trim().is_empty() => {
                parts.push(ContentPart::Thinking {
                    thinking: vec![ThinkingPart {
                        kind: "text",
                        text: t.thinking.clone(),
                    }],
                });
            }
            AssistantContent::Text(_) | AssistantContent::Thinking(_) => {}
            AssistantContent::ToolCall(call) => {
                let arguments = if call.arguments.is_null() {
                    "{}".to_owned()
                } else {
                    call.arguments.to_string()
                };
                calls.push(ToolCallWire {
                    id: call.id.clone(),
                    kind: "function",
                    function: FunctionCallWire {
                        name: call.name.clone(),
                        arguments,
                    },
                    index: 0,
                });
            }
        }
    }
    if parts.is_empty() && calls.is_empty() {
        return None;
    }
    Some(ChatMessage::Assistant {
        content: (!parts.is_empty()).then_some(parts),
        tool_calls: (!calls.is_empty()).then_some(calls),
        prefix: false,
    })
}

/// A tool result: one text part (error-prefixed, with notes for missing
/// output or omitted images), then the images the model can see.
fn tool_message(result: &ToolResultMessage, supports_images: bool) -> ChatMessage {
    let text = result
        .content
        .iter()
        .filter_map(|b| match b {
            UserBlock::Text(t) => Some(t.text.as_str()),
            UserBlock::Image(_) => None,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let has_images = result
        .content
        .iter()
        .any(|b| matches!(b, UserBlock::Image(_)));
    let mut content = vec![ContentPart::Text {
        text: tool_result_text(&text, has_images, supports_images, result.is_error),
    }];
    if supports_images {
        content.extend(result.content.iter().filter_map(|b| match b {
            UserBlock::Image(i) => Some(image_url(&i.mime_type, &i.data)),
            UserBlock::Text(_) => None,
        }));
    }
    ChatMessage::Tool {
        content,
        tool_call_id: result.tool_call_id.clone(),
        name: result.tool_name.clone(),
    }
}

/// pi's `buildToolResultText`.
fn tool_result_text(text: &str, has_images: bool, supports_images: bool, is_error: bool) -> String {
    let prefix = if is_error { "[tool error] " } else { "" };
    let trimmed = text.trim();
    if !trimmed.is_empty() {
        let suffix = if has_images && !supports_images {
            "\n[tool image omitted: model does not support images]"
        } else {
            ""
        };
        return format!("{prefix}{trimmed}{suffix}");
    }
    let note = match (has_images, supports_images) {
        (true, true) => "(see attached image)",
        (true, false) => IMAGE_OMITTED,
        (false, _) => "(no tool output)",
    };
    format!("{prefix}{note}")
}

#[cfg(test)]
mod tests {
    use super::tool_result_text;

    #[test]
    fn tool_result_texts_as_pi() {
        assert_eq!(tool_result_text("  ok \n", false, false, false), "ok");
        assert_eq!(
            tool_result_text("bad", false, false, true),
            "[tool error] bad"
        );
        assert_eq!(
            tool_result_text("shot", true, false, false),
            "shot\n[tool image omitted: model does not support images]"
        );
        assert_eq!(
            tool_result_text("", true, true, true),
            "[tool error] (see attached image)"
        );
        assert_eq!(
            tool_result_text(" ", true, false, false),
            "(image omitted: model does not support images)"
        );
        assert_eq!(
            tool_result_text("", false, true, true),
            "[tool error] (no tool output)"
        );
    }
}
