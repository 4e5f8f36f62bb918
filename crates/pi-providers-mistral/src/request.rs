//! The pure encoder: `Context` + options -> Mistral chat request body.

use std::borrow::Cow;

use pi_ai::{
    AssistantContent, ContextRef, InputModality, Message, Model, ToolResultMessage,
    TransformedMessage, UserBlock, UserContent, transform_messages_iter,
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
) -> ChatRequest<'c> {
    let context = context.into();
    let supports_images = model.input.contains(&InputModality::Image);
    let ids = MistralToolCallIds::new();
    let normalize = |id: &str, _: &Model, _: &pi_ai::AssistantMessage| ids.normalize(id);
    // One message at a time: a rewritten message is dropped once converted.
    let transformed = transform_messages_iter(context.messages, model, Some(&normalize));
    let mut messages = Vec::with_capacity(context.messages.len() + 1);
    if let Some(prompt) = context.system_prompt.filter(|p| !p.is_empty()) {
        messages.push(ChatMessage::System {
            content: Cow::Borrowed(prompt),
        });
    }
    // Texts the context holds as they go out are borrowed; only messages
    // the rewrite changed are copied.
    for message in transformed {
        match message {
            TransformedMessage::Borrowed(message) => {
                messages.extend(convert_message(message, supports_images));
            }
            TransformedMessage::Owned(message) => {
                messages.extend(
                    convert_message(&message, supports_images).map(ChatMessage::into_owned),
                );
            }
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

/// One transcript message as a request message; `None` when pi skips it.
fn convert_message(message: &Message, supports_images: bool) -> Option<ChatMessage<'_>> {
    match message {
        Message::User(user) => user_message(&user.content, supports_images),
        Message::Assistant(assistant) => assistant_message(&assistant.content),
        Message::ToolResult(result) => Some(tool_message(result, supports_images)),
    }
}

fn image_url(mime_type: &str, data: &str) -> ContentPart<'static> {
    ContentPart::ImageUrl {
        image_url: format!("data:{mime_type};base64,{data}"),
    }
}

/// A user turn: a string stays a string; images are dropped for text-only
/// models (a note replaces a turn that had only images).
fn user_message(content: &UserContent, supports_images: bool) -> Option<ChatMessage<'_>> {
    let blocks = match content {
        UserContent::Text(text) => {
            return Some(ChatMessage::User {
                content: UserContentWire::Text(Cow::Borrowed(text)),
            });
        }
        UserContent::Blocks(blocks) => blocks,
    };
    let parts: Vec<ContentPart<'_>> = blocks
        .iter()
        .filter_map(|block| match block {
            UserBlock::Text(t) => Some(ContentPart::Text {
                text: Cow::Borrowed(&t.text),
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
    (had_images && !supports_images).then_some(ChatMessage::User {
        content: UserContentWire::Text(Cow::Borrowed(IMAGE_OMITTED)),
    })
}

/// An assistant turn: non-blank text and thinking as parts, tool calls with
/// JSON-string arguments; nothing when both are empty.
fn assistant_message(content: &[AssistantContent]) -> Option<ChatMessage<'_>> {
    let mut parts = Vec::new();
    let mut calls = Vec::new();
    for block in content {
        match block {
            AssistantContent::Text(t) if !t.text.trim().is_empty() => {
                parts.push(ContentPart::Text {
                    text: Cow::Borrowed(&t.text),
                });
            }
            AssistantContent::Thinking(t) if !t.thinking.trim().is_empty() => {
                parts.push(ContentPart::Thinking {
                    thinking: vec![ThinkingPart {
                        kind: "text",
                        text: Cow::Borrowed(&t.thinking),
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
                    id: Cow::Borrowed(&call.id),
                    kind: "function",
                    function: FunctionCallWire {
                        name: Cow::Borrowed(&call.name),
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
fn tool_message(result: &ToolResultMessage, supports_images: bool) -> ChatMessage<'_> {
    let text = result.text_ref();
    let has_images = result
        .content
        .iter()
        .any(|b| matches!(b, UserBlock::Image(_)));
    let mut content = vec![ContentPart::Text {
        text: tool_result_text(text, has_images, supports_images, result.is_error),
    }];
    if supports_images {
        content.extend(result.content.iter().filter_map(|b| match b {
            UserBlock::Image(i) => Some(image_url(&i.mime_type, &i.data)),
            UserBlock::Text(_) => None,
        }));
    }
    ChatMessage::Tool {
        content,
        tool_call_id: Cow::Borrowed(&result.tool_call_id),
        name: Cow::Borrowed(&result.tool_name),
    }
}

/// pi's `buildToolResultText` (`text` trimmed, borrowed when that is all).
fn tool_result_text(
    text: Cow<'_, str>,
    has_images: bool,
    supports_images: bool,
    is_error: bool,
) -> Cow<'_, str> {
    let prefix = if is_error { "[tool error] " } else { "" };
    let trimmed = text.trim();
    if !trimmed.is_empty() {
        let suffix = if has_images && !supports_images {
            "\n[tool image omitted: model does not support images]"
        } else {
            ""
        };
        if prefix.is_empty() && suffix.is_empty() {
            return match text {
                Cow::Borrowed(text) => Cow::Borrowed(text.trim()),
                Cow::Owned(text) if text.trim().len() == text.len() => Cow::Owned(text),
                Cow::Owned(text) => Cow::Owned(text.trim().to_owned()),
            };
        }
        return Cow::Owned(format!("{prefix}{trimmed}{suffix}"));
    }
    let note = match (has_images, supports_images) {
        (true, true) => "(see attached image)",
        (true, false) => IMAGE_OMITTED,
        (false, _) => "(no tool output)",
    };
    Cow::Owned(format!("{prefix}{note}"))
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use pi_test_support::captures::Captures;
    use pi_test_support::contexts::{first_user_text, handoff_context, points_into};

    use super::*;

    #[test]
    fn the_request_borrows_the_texts_it_sends_unchanged() {
        let model = Captures::new("pi-0.73.1-mistral").model("mock-mis", "mock-pixtral");
        // Its own tool turn, then the same turn by another model: replayed
        // rewritten, so owned.
        let context = handoff_context(
            [
                "mistral-conversations",
                "mock-mis",
                "mock-pixtral",
                "abcDEF123",
            ],
            ["anthropic-messages", "anthropic", "claude", "toolu_01"],
        );
        let options = MistralOptions::default();
        let request = build_request_body(&model, &context, &options);

        assert!(matches!(
            &request.messages[0],
            ChatMessage::System {
                content: Cow::Borrowed("Be brief.")
            }
        ));
        let first_text = first_user_text(&context);
        assert!(matches!(&request.messages[1],
            ChatMessage::User { content: UserContentWire::Text(Cow::Borrowed(text)) }
                if points_into(text, first_text)));
        let ChatMessage::Assistant {
            content: Some(parts),
            tool_calls: Some(calls),
            ..
        } = &request.messages[2]
        else {
            panic!("the assistant turn: {:?}", request.messages[2]);
        };
        assert!(matches!(
            &parts[1],
            ContentPart::Text {
                text: Cow::Borrowed("Reading.")
            }
        ));
        assert!(matches!(calls[0].id, Cow::Borrowed("abcDEF123")));
        assert!(matches!(calls[0].function.name, Cow::Borrowed("read")));
        let ChatMessage::Tool {
            content,
            tool_call_id: Cow::Borrowed("abcDEF123"),
            name: Cow::Borrowed("read"),
        } = &request.messages[3]
        else {
            panic!("the tool result: {:?}", request.messages[3]);
        };
        assert!(matches!(
            &content[0],
            ContentPart::Text {
                text: Cow::Borrowed("a picture")
            }
        ));

        // Messages the transform rewrote are owned, and encode the same as
        // a copy of the context would.
        let owned_calls = request
            .messages
            .iter()
            .filter_map(|message| match message {
                ChatMessage::Assistant { tool_calls, .. } => tool_calls.as_ref(),
                _ => None,
            })
            .flatten()
            .filter(|call| matches!(call.id, Cow::Owned(_)))
            .count();
        assert_eq!(owned_calls, 1);
        let copied = context.view().to_context();
        assert_eq!(
            serde_json::to_value(&request).unwrap(),
            serde_json::to_value(build_request_body(&model, &copied, &options)).unwrap()
        );
    }

    #[test]
    fn tool_result_texts_as_pi() {
        assert_eq!(
            tool_result_text("  ok \n".into(), false, false, false),
            "ok"
        );
        assert_eq!(
            tool_result_text("bad".into(), false, false, true),
            "[tool error] bad"
        );
        assert_eq!(
            tool_result_text("shot".into(), true, false, false),
            "shot\n[tool image omitted: model does not support images]"
        );
        assert_eq!(
            tool_result_text("".into(), true, true, true),
            "[tool error] (see attached image)"
        );
        assert_eq!(
            tool_result_text(" ".into(), true, false, false),
            "(image omitted: model does not support images)"
        );
        assert_eq!(
            tool_result_text("".into(), false, true, true),
            "[tool error] (no tool output)"
        );
    }
}
