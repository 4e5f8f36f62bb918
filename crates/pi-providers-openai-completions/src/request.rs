//! The pure encoder: `Context` + options -> Chat Completions request body.

use pi_ai::{
    AssistantContent, AssistantMessage, CacheRetention, ContextRef, Message, MessagesRef, Model,
    ThinkingLevel, ToolResultMessage, UserBlock, UserContent, normalize_tool_call_id_completions,
    transform_messages_borrowed,
};
use pi_http::is_truthy;
use serde_json::Value;

use crate::compat::{CacheControlFormat, MaxTokensField, ResolvedCompat, ThinkingFormat};
use crate::options::{OpenAiCompletionsOptions, effective_cache_retention};
use crate::wire::{
    AssistantMessageWire, CacheControl, ChatCompletionRequest, ChatMessage, ChatTemplateKwargs,
    ContentPart, FunctionCallWire, FunctionDefinition, GatewayOptions, ImageUrl, ReasoningObject,
    StreamOptionsWire, TextOrParts, ThinkingSwitch, ToolCallWire, ToolDefinition,
};

/// Text of the tool message when a result has no text (only images).
const IMAGE_ONLY_RESULT: &str = "(see attached image)";
/// Text of the user message that carries tool-result images.
const TOOL_IMAGES_INTRO: &str = "Attached image(s) from tool result:";
/// Assistant message inserted where a server needs one after tool results.
const BRIDGE_AFTER_TOOL_RESULTS: &str = "I have processed the tool results.";
/// Keys of an assistant message a replayed reasoning field must not overwrite.
const RESERVED_ASSISTANT_KEYS: [&str; 4] = ["role", "content", "tool_calls", "reasoning_details"];

/// Builds the typed request for `model` from `context` and `options`, with
/// the model's compat switches merged over auto-detection.
pub fn build_request_body<'c>(
    model: &Model,
    context: impl Into<ContextRef<'c>>,
    options: &OpenAiCompletionsOptions,
) -> ChatCompletionRequest {
    let context = context.into();
    let compat = ResolvedCompat::for_model(model);
    let retention = effective_cache_retention(&options.base);
    let long = retention == CacheRetention::Long && compat.supports_long_cache_retention;
    let mut messages = convert_messages(model, context, &compat);

    let mut request = ChatCompletionRequest {
        model: model.id.clone(),
        messages: Vec::new(),
        stream: true,
        prompt_cache_key: None,
        prompt_cache_retention: None,
        stream_options: compat
            .supports_usage_in_streaming
            .then_some(StreamOptionsWire {
                include_usage: true,
            }),
        store: compat.supports_store.then_some(false),
        max_completion_tokens: None,
        max_tokens: None,
        temperature: options.base.temperature,
        tools: None,
        tool_stream: None,
        tool_choice: options.tool_choice.clone(),
        enable_thinking: None,
        chat_template_kwargs: None,
        thinking: None,
        reasoning: None,
        reasoning_effort: None,
        provider: None,
        provider_options: None,
    };
    if (model.base_url.contains("api.openai.com") && retention != CacheRetention::None) || long {
        request.prompt_cache_key = options.base.session_id.clone();
    }
    if long {
        request.prompt_cache_retention = Some("24h".to_owned());
    }
    if let Some(max) = options.base.max_tokens.filter(|m| *m > 0) {
        match compat.max_tokens_field {
            MaxTokensField::MaxTokens => request.max_tokens = Some(max),
            MaxTokensField::MaxCompletionTokens => request.max_completion_tokens = Some(max),
        }
    }
    match context.tools {
        Some(tools) if !tools.is_empty() => {
            request.tools = Some(
                tools
                    .iter()
                    .map(|tool| ToolDefinition {
                        kind: "function",
                        function: FunctionDefinition {
                            name: tool.name.clone(),
                            description: tool.description.clone(),
                            parameters: tool.parameters.clone(),
                            strict: compat.supports_strict_mode.then_some(false),
                        },
                        cache_control: None,
                    })
                    .collect(),
            );
            if compat.zai_tool_stream {
                request.tool_stream = Some(true);
            }
        }
        // Proxies in front of Anthropic reject tool history without `tools`.
        Some(_) | None if has_tool_history(context.messages) => request.tools = Some(Vec::new()),
        Some(_) | None => {}
    }
    if compat.cache_control_format == Some(CacheControlFormat::Anthropic)
        && retention != CacheRetention::None
    {
        let marker = CacheControl {
            kind: "ephemeral",
            ttl: long.then_some("1h"),
        };
        add_cache_markers(&mut messages, request.tools.as_mut(), &marker);
    }
    request.messages = messages;
    apply_reasoning(&mut request, model, &compat, options.reasoning_effort);
    apply_routing(&mut request, model, &compat);
    request
}

/// Sets the thinking fields for the model's thinking format.
fn apply_reasoning(
    request: &mut ChatCompletionRequest,
    model: &Model,
    compat: &ResolvedCompat,
    effort: Option<ThinkingLevel>,
) {
    if !model.reasoning {
        return;
    }
    let mapped = |level: ThinkingLevel| effort_value(model, compat, level);
    match compat.thinking_format {
        ThinkingFormat::Zai | ThinkingFormat::Qwen => {
            request.enable_thinking = Some(effort.is_some())
        }
        ThinkingFormat::QwenChatTemplate => {
            request.chat_template_kwargs = Some(ChatTemplateKwargs {
                enable_thinking: effort.is_some(),
                preserve_thinking: true,
            });
        }
        ThinkingFormat::Deepseek => {
            request.thinking = Some(ThinkingSwitch {
                kind: if effort.is_some() {
                    "enabled"
                } else {
                    "disabled"
                },
            });
            request.reasoning_effort = effort.map(mapped);
        }
        ThinkingFormat::Openrouter => match effort {
            Some(level) => {
                request.reasoning = Some(ReasoningObject {
                    effort: mapped(level),
                })
            }
            None => match level_map_entry(model, "off") {
                Some(Value::Null) => {}
                Some(Value::String(off)) => {
                    request.reasoning = Some(ReasoningObject {
                        effort: off.clone(),
                    });
                }
                Some(_) | None => {
                    request.reasoning = Some(ReasoningObject {
                        effort: "none".to_owned(),
                    });
                }
            },
        },
        ThinkingFormat::Openai | ThinkingFormat::Unknown if compat.supports_reasoning_effort => {
            request.reasoning_effort = match effort {
                Some(level) => Some(mapped(level)),
                None => match level_map_entry(model, "off") {
                    Some(Value::String(off)) => Some(off.clone()),
                    Some(_) | None => None,
                },
            };
        }
        ThinkingFormat::Openai | ThinkingFormat::Unknown => {}
    }
}

/// The `reasoning_effort` value for `level`: `compat.reasoningEffortMap`,
/// else a string in the model's `thinkingLevelMap`, else the level itself.
fn effort_value(model: &Model, compat: &ResolvedCompat, level: ThinkingLevel) -> String {
    if let Some(value) = compat.reasoning_effort_map.get(level.as_str()) {
        return value.clone();
    }
    match level_map_entry(model, level.as_str()) {
        Some(Value::String(value)) => value.clone(),
        Some(_) | None => level.as_str().to_owned(),
    }
}

/// An entry of the model's `thinkingLevelMap` (newer pi model metadata).
fn level_map_entry<'m>(model: &'m Model, key: &str) -> Option<&'m Value> {
    model.extra.get("thinkingLevelMap")?.get(key)
}

/// OpenRouter and Vercel AI Gateway routing preferences.
fn apply_routing(request: &mut ChatCompletionRequest, model: &Model, compat: &ResolvedCompat) {
    if model.base_url.contains("openrouter.ai") {
        request.provider.clone_from(&compat.open_router_routing);
    }
    if model.base_url.contains("ai-gateway.vercel.sh")
        && let Some(routing) = &compat.vercel_gateway_routing
        && (routing.only.is_some() || routing.order.is_some())
    {
        request.provider_options = Some(GatewayOptions {
            gateway: crate::compat::ProviderRouting {
                only: routing.only.clone(),
                order: routing.order.clone(),
                extra: serde_json::Map::new(),
            },
        });
    }
}

/// True when a message calls a tool or carries a tool result.
fn has_tool_history(messages: MessagesRef<'_>) -> bool {
    messages.iter().any(|message| match message {
        Message::ToolResult(_) => true,
        Message::Assistant(assistant) => assistant.tool_calls().next().is_some(),
        Message::User(_) => false,
    })
}

/// Converts the transcript (after pi's cross-provider rewrite) to request
/// messages, system prompt first.
pub fn convert_messages<'c>(
    model: &Model,
    context: impl Into<ContextRef<'c>>,
    compat: &ResolvedCompat,
) -> Vec<ChatMessage> {
    let context = context.into();
    let normalize = |id: &str, target: &Model, _: &AssistantMessage| {
        normalize_tool_call_id_completions(id, target)
    };
    let messages = transform_messages_borrowed(context.messages, model, Some(&normalize));
    let mut out = Vec::with_capacity(messages.len() + 1);
    if let Some(prompt) = context.system_prompt.filter(|p| !p.is_empty()) {
        let content = TextOrParts::Text(prompt.to_owned());
        out.push(if model.reasoning && compat.supports_developer_role {
            ChatMessage::Developer { content }
        } else {
            ChatMessage::System { content }
        });
    }
    // Role of the last message sent, for the bridge after tool results.
    let mut last_was_tool_result = false;
    let mut i = 0;
    while i < messages.len() {
        let Some(message) = messages.get(i) else {
            break;
        };
        i += 1;
        match &**message {
            Message::User(user) => {
                if compat.requires_assistant_after_tool_result && last_was_tool_result {
                    out.push(bridge_message());
                }
                let Some(content) = user_content(&user.content) else {
                    continue;
                };
                out.push(ChatMessage::User { content });
                last_was_tool_result = false;
            }
            Message::Assistant(assistant) => {
                let Some(wire) = assistant_message(model, compat, assistant) else {
                    continue;
                };
                out.push(ChatMessage::Assistant(wire));
                last_was_tool_result = false;
            }
            Message::ToolResult(first) => {
                // Consecutive results are converted together so their images
                // can follow in a single user message.
                let mut images = Vec::new();
                push_tool_result(compat, first, &mut out, &mut images);
                while let Some(Message::ToolResult(next)) = messages.get(i).map(|m| &**m) {
                    push_tool_result(compat, next, &mut out, &mut images);
                    i += 1;
                }
                last_was_tool_result = images.is_empty();
                if !images.is_empty() {
                    if compat.requires_assistant_after_tool_result {
                        out.push(bridge_message());
                    }
                    let mut parts = Vec::with_capacity(images.len() + 1);
                    parts.push(text_part(TOOL_IMAGES_INTRO.to_owned()));
                    parts.extend(images);
                    out.push(ChatMessage::User {
                        content: TextOrParts::Parts(parts),
                    });
                }
            }
        }
    }
    out
}

fn bridge_message() -> ChatMessage {
    ChatMessage::Assistant(AssistantMessageWire {
        content: Some(TextOrParts::Text(BRIDGE_AFTER_TOOL_RESULTS.to_owned())),
        reasoning_fields: serde_json::Map::new(),
        tool_calls: None,
        reasoning_details: None,
    })
}

fn text_part(text: String) -> ContentPart {
    ContentPart::Text {
        text,
        cache_control: None,
    }
}

fn image_part(data: &str, mime_type: &str) -> ContentPart {
    ContentPart::ImageUrl {
        image_url: ImageUrl {
            url: format!("data:{mime_type};base64,{data}"),
        },
    }
}

/// User content: a string stays a string; blocks become parts. `None` when
/// there are no blocks.
fn user_content(content: &UserContent) -> Option<TextOrParts> {
    match content {
        UserContent::Text(text) => Some(TextOrParts::Text(text.clone())),
        UserContent::Blocks(blocks) => {
            let parts: Vec<ContentPart> = blocks
                .iter()
                .map(|block| match block {
                    UserBlock::Text(t) => text_part(t.text.clone()),
                    UserBlock::Image(image) => image_part(&image.data, &image.mime_type),
                })
                .collect();
            (!parts.is_empty()).then_some(TextOrParts::Parts(parts))
        }
    }
}

/// True when `text` is empty or whitespace only (JavaScript's `trim`).
fn is_blank(text: &str) -> bool {
    text.chars().all(|c| c.is_whitespace() || c == '\u{feff}')
}

/// An assistant message; `None` when it has neither content nor tool calls.
fn assistant_message(
    model: &Model,
    compat: &ResolvedCompat,
    message: &AssistantMessage,
) -> Option<AssistantMessageWire> {
    let mut texts = Vec::new();
    let mut thinking = Vec::new();
    let mut calls = Vec::new();
    for block in &message.content {
        match block {
            AssistantContent::Text(t) if !is_blank(&t.text) => texts.push(t.text.as_str()),
            // Redacted reasoning is another wire's opaque payload: nothing to replay here.
            AssistantContent::Thinking(t) if t.redacted == Some(true) => {}
            AssistantContent::Thinking(t) if !is_blank(&t.thinking) => thinking.push(t),
            AssistantContent::ToolCall(call) => calls.push(call),
            AssistantContent::Text(_) | AssistantContent::Thinking(_) => {}
        }
    }
    let joined_text = texts.concat();
    let mut wire = AssistantMessageWire {
        content: compat
            .requires_assistant_after_tool_result
            .then(|| TextOrParts::Text(String::new())),
        reasoning_fields: serde_json::Map::new(),
        tool_calls: None,
        reasoning_details: None,
    };
    if !thinking.is_empty() && compat.requires_thinking_as_text {
        let reasoning: Vec<&str> = thinking.iter().map(|t| t.thinking.as_str()).collect();
        let mut parts = Vec::with_capacity(texts.len() + 1);
        parts.push(text_part(reasoning.join("\n\n")));
        parts.extend(texts.iter().map(|t| text_part((*t).to_owned())));
        wire.content = Some(TextOrParts::Parts(parts));
    } else {
        if !joined_text.is_empty() {
            wire.content = Some(TextOrParts::Text(joined_text));
        }
        // The first block's signature names the field the reasoning streamed
        // in (llama.cpp's `reasoning_content`, ...); it goes back the same way.
        if let Some(field) = thinking
            .first()
            .and_then(|t| t.thinking_signature.as_deref())
            .filter(|s| !s.is_empty() && !RESERVED_ASSISTANT_KEYS.contains(s))
        {
            let reasoning: Vec<&str> = thinking.iter().map(|t| t.thinking.as_str()).collect();
            wire.reasoning_fields
                .insert(field.to_owned(), Value::String(reasoning.join("\n")));
        }
    }
    if !calls.is_empty() {
        wire.tool_calls = Some(
            calls
                .iter()
                .map(|call| ToolCallWire {
                    id: call.id.clone(),
                    kind: "function",
                    function: FunctionCallWire {
                        name: call.name.clone(),
                        arguments: serde_json::to_string(&call.arguments)
                            .unwrap_or_else(|_| "{}".to_owned()),
                    },
                })
                .collect(),
        );
        let details: Vec<Value> = calls
            .iter()
            .filter_map(|call| call.thought_signature.as_deref())
            .filter(|s| !s.is_empty())
            .filter_map(|s| serde_json::from_str::<Value>(s).ok())
            .filter(is_truthy)
            .collect();
        if !details.is_empty() {
            wire.reasoning_details = Some(details);
        }
    }
    if compat.requires_reasoning_content_on_assistant_messages && model.reasoning {
        wire.reasoning_fields
            .entry("reasoning_content")
            .or_insert_with(|| Value::String(String::new()));
    }
    let has_content = match &wire.content {
        Some(TextOrParts::Text(text)) => !text.is_empty(),
        Some(TextOrParts::Parts(parts)) => !parts.is_empty(),
        None => false,
    };
    (has_content || wire.tool_calls.is_some()).then_some(wire)
}

/// Pushes one `tool` message and collects the result's images into `images`
/// (after `transform_messages`, only a model with image input still has any).
fn push_tool_result(
    compat: &ResolvedCompat,
    result: &ToolResultMessage,
    out: &mut Vec<ChatMessage>,
    images: &mut Vec<ContentPart>,
) {
    let text = result.text();
    out.push(ChatMessage::Tool {
        content: if text.is_empty() {
            IMAGE_ONLY_RESULT.to_owned()
        } else {
            text
        },
        tool_call_id: result.tool_call_id.clone(),
        name: (compat.requires_tool_result_name && !result.tool_name.is_empty())
            .then(|| result.tool_name.clone()),
    });
    images.extend(result.content.iter().filter_map(|block| match block {
        UserBlock::Image(image) => Some(image_part(&image.data, &image.mime_type)),
        UserBlock::Text(_) => None,
    }));
}

/// Anthropic-style cache markers: the system prompt, the last tool and the
/// last user/assistant message that has text.
fn add_cache_markers(
    messages: &mut [ChatMessage],
    tools: Option<&mut Vec<ToolDefinition>>,
    marker: &CacheControl,
) {
    if let Some(content) = messages.iter_mut().find_map(|m| match m {
        ChatMessage::System { content } | ChatMessage::Developer { content } => Some(content),
        ChatMessage::User { .. } | ChatMessage::Assistant(_) | ChatMessage::Tool { .. } => None,
    }) {
        mark_text(content, marker);
    }
    if let Some(last) = tools.and_then(|tools| tools.last_mut()) {
        last.cache_control = Some(marker.clone());
    }
    for message in messages.iter_mut().rev() {
        let content = match message {
            ChatMessage::User { content } => content,
            ChatMessage::Assistant(AssistantMessageWire {
                content: Some(content),
                ..
            }) => content,
            ChatMessage::Assistant(_)
            | ChatMessage::System { .. }
            | ChatMessage::Developer { .. }
            | ChatMessage::Tool { .. } => continue,
        };
        if mark_text(content, marker) {
            return;
        }
    }
}

/// Puts `marker` on the last text of `content` (a non-empty string becomes
/// one text part); false when there is no text to mark.
fn mark_text(content: &mut TextOrParts, marker: &CacheControl) -> bool {
    match content {
        TextOrParts::Text(text) if text.is_empty() => false,
        TextOrParts::Text(text) => {
            *content = TextOrParts::Parts(vec![ContentPart::Text {
                text: std::mem::take(text),
                cache_control: Some(marker.clone()),
            }]);
            true
        }
        TextOrParts::Parts(parts) => {
            for part in parts.iter_mut().rev() {
                if let ContentPart::Text { cache_control, .. } = part {
                    *cache_control = Some(marker.clone());
                    return true;
                }
            }
            false
        }
    }
}

#[cfg(test)]
#[path = "request_tests.rs"]
mod tests;
