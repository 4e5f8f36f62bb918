//! The pure encoder: `Context` + options -> Chat Completions request body.

use std::borrow::Cow;

use pi_ai::{
    AssistantContent, AssistantMessage, CacheRetention, ContextRef, Message, MessagesRef, Model,
    ThinkingLevel, ToolResultMessage, TransformedMessage, UserBlock, UserContent,
    normalize_tool_call_id_completions, transform_messages_iter,
};
use pi_http::is_truthy;
use serde_json::Value;

use crate::compat::{CacheControlFormat, MaxTokensField, ResolvedCompat, ThinkingFormat};
use crate::messages::ChatMessages;
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
    model: &'c Model,
    context: impl Into<ContextRef<'c>>,
    options: &OpenAiCompletionsOptions,
) -> ChatCompletionRequest<'c> {
    let context = context.into();
    let compat = ResolvedCompat::for_model(model);
    let retention = effective_cache_retention(&options.base);
    let long = retention == CacheRetention::Long && compat.supports_long_cache_retention;

    let mut request = ChatCompletionRequest {
        model: model.id.clone(),
        messages: ChatMessages::new(model, context, compat.clone()),
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
        if let Some(last) = request.tools.as_mut().and_then(|tools| tools.last_mut()) {
            last.cache_control = Some(marker.clone());
        }
        request.messages.mark_for_cache(marker);
    }
    apply_reasoning(&mut request, model, &compat, options.reasoning_effort);
    apply_routing(&mut request, model, &compat);
    request
}

/// Sets the thinking fields for the model's thinking format.
fn apply_reasoning(
    request: &mut ChatCompletionRequest<'_>,
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
fn apply_routing(request: &mut ChatCompletionRequest<'_>, model: &Model, compat: &ResolvedCompat) {
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
/// messages, system prompt first, handing each to `each` as it is
/// converted, none kept: the request's messages never all exist at once.
/// Texts the context holds as they go out are borrowed; only messages the
/// rewrite changed are copied.
pub(crate) fn convert_each<'c>(
    model: &Model,
    context: ContextRef<'c>,
    compat: &ResolvedCompat,
    each: &mut dyn FnMut(ChatMessage<'c>),
) {
    let normalize = |id: &str, target: &Model, _: &AssistantMessage| {
        normalize_tool_call_id_completions(id, target)
    };
    if let Some(prompt) = context.system_prompt.filter(|p| !p.is_empty()) {
        let content = TextOrParts::Text(Cow::Borrowed(prompt));
        each(if model.reasoning && compat.supports_developer_role {
            ChatMessage::Developer { content }
        } else {
            ChatMessage::System { content }
        });
    }
    let mut turn = Turn {
        model,
        compat,
        last_was_tool_result: false,
        in_results: false,
        images: Vec::new(),
    };
    // The one to three request messages of a transcript message pass
    // through `out`; a rewritten message is dropped once converted.
    let mut out = Vec::with_capacity(4);
    for message in transform_messages_iter(context.messages, model, Some(&normalize)) {
        match message {
            TransformedMessage::Borrowed(message) => {
                turn.push(message, &mut out);
                out.drain(..).for_each(&mut *each);
            }
            TransformedMessage::Owned(message) => {
                let mut own = Vec::with_capacity(2);
                turn.push(&message, &mut own);
                own.into_iter()
                    .for_each(|message| each(message.into_owned()));
            }
        }
    }
    turn.end_results(&mut out);
    out.drain(..).for_each(each);
}

/// Where [`convert_messages`] is in the transcript.
struct Turn<'m> {
    model: &'m Model,
    compat: &'m ResolvedCompat,
    /// Whether the last message sent is a tool result (for the bridge).
    last_was_tool_result: bool,
    /// Whether the last message read is a tool result.
    in_results: bool,
    /// Images of the consecutive tool results so far: they follow the
    /// results in one user message.
    images: Vec<ContentPart<'static>>,
}

impl Turn<'_> {
    /// Converts one message into `out`.
    fn push<'x>(&mut self, message: &'x Message, out: &mut Vec<ChatMessage<'x>>) {
        let compat = self.compat;
        if !matches!(message, Message::ToolResult(_)) {
            self.end_results(out);
        }
        match message {
            Message::User(user) => {
                if compat.requires_assistant_after_tool_result && self.last_was_tool_result {
                    out.push(bridge_message());
                }
                if let Some(content) = user_content(&user.content) {
                    out.push(ChatMessage::User { content });
                    self.last_was_tool_result = false;
                }
            }
            Message::Assistant(assistant) => {
                if let Some(wire) = assistant_message(self.model, compat, assistant) {
                    out.push(ChatMessage::Assistant(wire));
                    self.last_was_tool_result = false;
                }
            }
            Message::ToolResult(result) => {
                self.in_results = true;
                push_tool_result(compat, result, out, &mut self.images);
            }
        }
    }

    /// After consecutive tool results: their images in one user message.
    fn end_results<'x>(&mut self, out: &mut Vec<ChatMessage<'x>>) {
        if !std::mem::take(&mut self.in_results) {
            return;
        }
        self.last_was_tool_result = self.images.is_empty();
        if self.images.is_empty() {
            return;
        }
        if self.compat.requires_assistant_after_tool_result {
            out.push(bridge_message());
        }
        let mut parts = Vec::with_capacity(self.images.len() + 1);
        parts.push(text_part(Cow::Borrowed(TOOL_IMAGES_INTRO)));
        parts.append(&mut self.images);
        out.push(ChatMessage::User {
            content: TextOrParts::Parts(parts),
        });
    }
}

fn bridge_message<'x>() -> ChatMessage<'x> {
    ChatMessage::Assistant(AssistantMessageWire {
        content: Some(TextOrParts::Text(Cow::Borrowed(BRIDGE_AFTER_TOOL_RESULTS))),
        reasoning_fields: serde_json::Map::new(),
        tool_calls: None,
        reasoning_details: None,
    })
}

fn text_part(text: Cow<'_, str>) -> ContentPart<'_> {
    ContentPart::Text {
        text,
        cache_control: None,
    }
}

fn image_part(data: &str, mime_type: &str) -> ContentPart<'static> {
    ContentPart::ImageUrl {
        image_url: ImageUrl {
            url: format!("data:{mime_type};base64,{data}"),
        },
    }
}

/// User content: a string stays a string; blocks become parts. `None` when
/// there are no blocks.
fn user_content(content: &UserContent) -> Option<TextOrParts<'_>> {
    match content {
        UserContent::Text(text) => Some(TextOrParts::Text(Cow::Borrowed(text))),
        UserContent::Blocks(blocks) => {
            let parts: Vec<ContentPart<'_>> = blocks
                .iter()
                .map(|block| match block {
                    UserBlock::Text(t) => text_part(Cow::Borrowed(&t.text)),
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
fn assistant_message<'x>(
    model: &Model,
    compat: &ResolvedCompat,
    message: &'x AssistantMessage,
) -> Option<AssistantMessageWire<'x>> {
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
    let mut wire = AssistantMessageWire {
        content: compat
            .requires_assistant_after_tool_result
            .then_some(TextOrParts::Text(Cow::Borrowed(""))),
        reasoning_fields: serde_json::Map::new(),
        tool_calls: None,
        reasoning_details: None,
    };
    if !thinking.is_empty() && compat.requires_thinking_as_text {
        let reasoning: Vec<&str> = thinking.iter().map(|t| t.thinking.as_str()).collect();
        let mut parts = Vec::with_capacity(texts.len() + 1);
        parts.push(text_part(Cow::Owned(reasoning.join("\n\n"))));
        parts.extend(texts.iter().map(|t| text_part(Cow::Borrowed(*t))));
        wire.content = Some(TextOrParts::Parts(parts));
    } else {
        match texts.as_slice() {
            [] => {}
            [text] => wire.content = Some(TextOrParts::Text(Cow::Borrowed(text))),
            several => wire.content = Some(TextOrParts::Text(Cow::Owned(several.concat()))),
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
                    id: Cow::Borrowed(&call.id),
                    kind: "function",
                    function: FunctionCallWire {
                        name: Cow::Borrowed(&call.name),
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
fn push_tool_result<'x>(
    compat: &ResolvedCompat,
    result: &'x ToolResultMessage,
    out: &mut Vec<ChatMessage<'x>>,
    images: &mut Vec<ContentPart<'static>>,
) {
    let text = result.text_ref();
    out.push(ChatMessage::Tool {
        content: if text.is_empty() {
            Cow::Borrowed(IMAGE_ONLY_RESULT)
        } else {
            text
        },
        tool_call_id: Cow::Borrowed(&result.tool_call_id),
        name: (compat.requires_tool_result_name && !result.tool_name.is_empty())
            .then_some(Cow::Borrowed(result.tool_name.as_str())),
    });
    images.extend(result.content.iter().filter_map(|block| match block {
        UserBlock::Image(image) => Some(image_part(&image.data, &image.mime_type)),
        UserBlock::Text(_) => None,
    }));
}

/// The content an Anthropic-style cache marker goes on in `message`: a
/// system prompt's, a user's or an assistant's (the request marks the
/// system prompt, the last tool and the last user or assistant message
/// whose content has text, [`ChatMessages::mark_for_cache`]).
pub(crate) fn markable_content<'m, 'c>(
    message: &'m mut ChatMessage<'c>,
) -> Option<&'m mut TextOrParts<'c>> {
    match message {
        ChatMessage::System { content }
        | ChatMessage::Developer { content }
        | ChatMessage::User { content }
        | ChatMessage::Assistant(AssistantMessageWire {
            content: Some(content),
            ..
        }) => Some(content),
        ChatMessage::Assistant(_) | ChatMessage::Tool { .. } => None,
    }
}

/// Whether [`mark_text`] would mark `content`: it has a text.
pub(crate) fn has_text(content: &TextOrParts<'_>) -> bool {
    match content {
        TextOrParts::Text(text) => !text.is_empty(),
        TextOrParts::Parts(parts) => parts
            .iter()
            .any(|part| matches!(part, ContentPart::Text { .. })),
    }
}

/// Puts `marker` on the last text of `content` (a non-empty string becomes
/// one text part); false when there is no text to mark.
pub(crate) fn mark_text(content: &mut TextOrParts<'_>, marker: &CacheControl) -> bool {
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
