//! The pure encoder: a [`Context`] and options become the Responses API
//! request body, following pi 0.73.1's `buildParams` and
//! `convertResponsesMessages`.

use std::borrow::Cow;

use pi_ai::{
    AssistantContent, AssistantMessage, CacheRetention, ContextRef, Message, Model, Tool,
    ToolResultMessage, TransformedMessage, UserBlock, UserContent,
    normalize_tool_call_id_responses, short_hash, transform_messages_iter,
};
use serde_json::Value;

use crate::options::{LevelMapping, OpenAiResponsesOptions, compat_flag, level_mapping};
use crate::wire::{
    FunctionOutput, FunctionTool, InputContent, InputItem, OutputText, Reasoning, RequestBody,
    RoleMessage, TextSignatureV1, TypedItem, js_integral,
};

/// Providers whose `call|item` tool-call ids are rewritten to the Responses
/// id rules when replayed from another model.
pub const OPENAI_TOOL_CALL_PROVIDERS: [&str; 3] = ["openai", "openai-codex", "opencode"];

/// Function output of a tool result that has images but no text.
const IMAGE_ONLY_OUTPUT: &str = "(see attached image)";
/// Longest message item id the API accepts.
const MAX_ITEM_ID_LEN: usize = 64;

/// Encodes the request body of one call. Pure: the caller resolves the
/// cache retention (`PI_CACHE_RETENTION`) into `options.base.cache_retention`.
///
/// - `input`: the system prompt (`developer` for reasoning models, else
///   `system`), then the transcript after `transform_messages_iter` (which also
///   replaces images by a placeholder for models without image input).
/// - `prompt_cache_key` is the session id unless retention is `none`;
///   `prompt_cache_retention` is `24h` for `long` unless the model's
///   `compat.supportsLongCacheRetention` is false.
/// - `reasoning`, for reasoning models only: `{effort, summary}` plus
///   `include: ["reasoning.encrypted_content"]` when an effort or summary is
///   asked for; otherwise `{effort: "none"}` (or the model's mapping of `off`),
///   except for `github-copilot` and models that map `off` to `null`.
pub fn build_request_body<'c>(
    model: &Model,
    context: impl Into<ContextRef<'c>>,
    options: &OpenAiResponsesOptions,
) -> RequestBody<'c> {
    let context = context.into();
    let retention = options.base.cache_retention.unwrap_or_default();
    let prompt_cache_key = match retention {
        CacheRetention::None => None,
        CacheRetention::Short | CacheRetention::Long => options.base.session_id.clone(),
    };
    let long_retention =
        retention == CacheRetention::Long && compat_flag(model, "supportsLongCacheRetention", true);
    let (reasoning, include) = reasoning_params(model, options);
    RequestBody {
        model: model.id.clone(),
        input: convert_messages(model, context, &OPENAI_TOOL_CALL_PROVIDERS, true),
        stream: true,
        prompt_cache_key,
        prompt_cache_retention: long_retention.then(|| "24h".to_owned()),
        store: false,
        max_output_tokens: options.base.max_tokens.filter(|&n| n > 0),
        temperature: options.base.temperature,
        service_tier: options.service_tier.clone(),
        tools: context
            .tools
            .filter(|tools| !tools.is_empty())
            .map(convert_tools),
        reasoning,
        include,
    }
}

/// `reasoning` and `include` for `model` and the requested effort.
pub fn reasoning_params(
    model: &Model,
    options: &OpenAiResponsesOptions,
) -> (Option<Reasoning>, Option<Vec<String>>) {
    if !model.reasoning {
        return (None, None);
    }
    if options.reasoning_effort.is_some() || options.reasoning_summary.is_some() {
        let effort = match options.reasoning_effort {
            Some(level) => match level_mapping(model, level.as_str()) {
                LevelMapping::Value(mapped) => mapped.to_owned(),
                LevelMapping::Default | LevelMapping::Unsupported => level.as_str().to_owned(),
            },
            None => "medium".to_owned(),
        };
        let summary = options
            .reasoning_summary
            .map_or("auto", |summary| summary.as_str());
        let reasoning = Reasoning {
            effort,
            summary: Some(summary.to_owned()),
        };
        return (
            Some(reasoning),
            Some(vec!["reasoning.encrypted_content".to_owned()]),
        );
    }
    if model.provider == "github-copilot" {
        return (None, None);
    }
    let effort = match level_mapping(model, "off") {
        LevelMapping::Unsupported => return (None, None),
        LevelMapping::Value(mapped) => mapped.to_owned(),
        LevelMapping::Default => "none".to_owned(),
    };
    (
        Some(Reasoning {
            effort,
            summary: None,
        }),
        None,
    )
}

/// Tools as `{type:"function", name, description, parameters, strict:false}`.
pub fn convert_tools(tools: &[Tool]) -> Vec<FunctionTool> {
    tools
        .iter()
        .map(|tool| FunctionTool {
            name: tool.name.clone(),
            description: tool.description.clone(),
            parameters: tool.parameters.clone(),
            strict: false,
        })
        .collect()
}

/// The `input` items (pi's `convertResponsesMessages`): the system prompt
/// when `include_system_prompt`, then every replayable message. Tool-call
/// ids are rewritten to the Responses id rules when `model.provider` is one
/// of `tool_call_providers`. Texts the context holds as they go out are
/// borrowed; only messages the rewrite changed are copied.
pub fn convert_messages<'c>(
    model: &Model,
    context: impl Into<ContextRef<'c>>,
    tool_call_providers: &[&str],
    include_system_prompt: bool,
) -> Vec<InputItem<'c>> {
    let context = context.into();
    let normalize =
        |id: &str, _: &Model, _: &AssistantMessage| normalize_tool_call_id_responses(id);
    let normalizer: Option<pi_ai::ToolCallIdNormalizer<'_>> = tool_call_providers
        .contains(&model.provider.as_str())
        .then_some(&normalize);
    // One message at a time: a rewritten message is dropped once converted.
    let transformed = transform_messages_iter(context.messages, model, normalizer);

    let mut items = Vec::with_capacity(context.messages.len() + 1);
    if let Some(prompt) = context
        .system_prompt
        .filter(|p| include_system_prompt && !p.is_empty())
    {
        let content = Cow::Borrowed(prompt);
        items.push(InputItem::Role(if model.reasoning {
            RoleMessage::Developer { content }
        } else {
            RoleMessage::System { content }
        }));
    }
    // pi numbers replayed messages; an id-less text block becomes `msg_<n>`.
    // Skipped (empty) messages do not advance the counter.
    let mut msg_index = 0usize;
    for message in transformed {
        let pushed = match message {
            TransformedMessage::Borrowed(message) => {
                push_message(&mut items, message, model, msg_index)
            }
            TransformedMessage::Owned(message) => {
                let mut own = Vec::new();
                let pushed = push_message(&mut own, &message, model, msg_index);
                for item in own {
                    items.push(item.into_owned());
                }
                pushed
            }
        };
        if pushed {
            msg_index += 1;
        }
    }
    items
}

/// Appends the items of one message; false when it has none.
fn push_message<'x>(
    items: &mut Vec<InputItem<'x>>,
    message: &'x Message,
    model: &Model,
    msg_index: usize,
) -> bool {
    match message {
        Message::User(user) => {
            let content: Vec<InputContent<'_>> = match &user.content {
                UserContent::Text(text) => vec![InputContent::InputText {
                    text: Cow::Borrowed(text),
                }],
                UserContent::Blocks(blocks) => blocks.iter().map(input_content).collect(),
            };
            if content.is_empty() {
                return false;
            }
            items.push(InputItem::Role(RoleMessage::User { content }));
            true
        }
        Message::Assistant(assistant) => {
            let before = items.len();
            push_assistant(items, assistant, model, msg_index);
            items.len() != before
        }
        Message::ToolResult(result) => {
            items.push(tool_output(result));
            true
        }
    }
}

/// A user or tool-result block as an input part.
fn input_content(block: &UserBlock) -> InputContent<'_> {
    match block {
        UserBlock::Text(text) => InputContent::InputText {
            text: Cow::Borrowed(&text.text),
        },
        UserBlock::Image(image) => InputContent::InputImage {
            detail: "auto",
            image_url: format!("data:{};base64,{}", image.mime_type, image.data),
        },
    }
}

/// Appends the items of one assistant message: reasoning items from
/// thinking signatures, message items for text, function calls.
fn push_assistant<'x>(
    items: &mut Vec<InputItem<'x>>,
    assistant: &'x AssistantMessage,
    model: &Model,
    msg_index: usize,
) {
    let different_model = assistant.model != model.id
        && assistant.provider == model.provider
        && assistant.api == model.api;
    for block in &assistant.content {
        match block {
            AssistantContent::Thinking(thinking) => {
                let Some(signature) = thinking.thinking_signature.as_deref() else {
                    continue;
                };
                if signature.is_empty() {
                    continue;
                }
                match serde_json::from_str::<Value>(signature) {
                    Ok(item) => items.push(InputItem::Raw(item)),
                    Err(error) => tracing::warn!(
                        %error,
                        "thinking signature is not a Responses reasoning item; not replayed"
                    ),
                }
            }
            AssistantContent::Text(text) => {
                let (id, phase) = match parse_text_signature(text.text_signature.as_deref()) {
                    Some(sig) if !sig.id.is_empty() => (sig.id, sig.phase),
                    Some(sig) => (String::new(), sig.phase),
                    None => (String::new(), None),
                };
                let id = if id.is_empty() {
                    format!("msg_{msg_index}")
                } else if id.encode_utf16().count() > MAX_ITEM_ID_LEN {
                    format!("msg_{}", short_hash(&id))
                } else {
                    id
                };
                items.push(InputItem::Typed(TypedItem::Message {
                    role: "assistant",
                    content: vec![OutputText {
                        text: Cow::Borrowed(&text.text),
                        annotations: Vec::new(),
                    }],
                    status: "completed",
                    id,
                    phase,
                }));
            }
            AssistantContent::ToolCall(call) => {
                let mut parts = call.id.split('|');
                let call_id = Cow::Borrowed(parts.next().unwrap_or_default());
                // Another model of the same provider and api: OpenAI pairs
                // `fc_` item ids with that model's reasoning items, so the
                // id is left out.
                let id = parts
                    .next()
                    .filter(|item| !(different_model && item.starts_with("fc_")))
                    .map(Cow::Borrowed);
                items.push(InputItem::Typed(TypedItem::FunctionCall {
                    id,
                    call_id,
                    name: Cow::Borrowed(&call.name),
                    arguments: js_stringify(&call.arguments),
                }));
            }
        }
    }
}

/// A tool result as `function_call_output`: joined text, or text and image
/// parts when it has images (after `transform_messages_iter`, only a model with
/// image input still gets any).
fn tool_output(result: &ToolResultMessage) -> InputItem<'_> {
    let text = result.text_ref();
    let has_images = result
        .content
        .iter()
        .any(|block| matches!(block, UserBlock::Image(_)));
    let output = if has_images {
        let mut parts = Vec::with_capacity(result.content.len());
        if !text.is_empty() {
            parts.push(InputContent::InputText { text });
        }
        parts.extend(
            result
                .content
                .iter()
                .filter(|block| matches!(block, UserBlock::Image(_)))
                .map(input_content),
        );
        FunctionOutput::Parts(parts)
    } else if text.is_empty() {
        FunctionOutput::Text(Cow::Borrowed(IMAGE_ONLY_OUTPUT))
    } else {
        FunctionOutput::Text(text)
    };
    let call_id = Cow::Borrowed(result.tool_call_id.split('|').next().unwrap_or_default());
    InputItem::Typed(TypedItem::FunctionCallOutput { call_id, output })
}

/// pi's `parseTextSignature`: the `{v:1,id,phase?}` JSON, or a legacy plain
/// id. Only `commentary` and `final_answer` phases are kept.
pub(crate) fn parse_text_signature(signature: Option<&str>) -> Option<TextSignatureV1> {
    let signature = signature.filter(|s| !s.is_empty())?;
    if signature.starts_with('{')
        && let Ok(Value::Object(parsed)) = serde_json::from_str::<Value>(signature)
        && parsed.get("v").and_then(Value::as_f64) == Some(1.0)
        && let Some(Value::String(id)) = parsed.get("id")
    {
        let phase = parsed
            .get("phase")
            .and_then(Value::as_str)
            .filter(|p| matches!(*p, "commentary" | "final_answer"))
            .map(str::to_owned);
        return Some(TextSignatureV1 {
            v: 1,
            id: id.clone(),
            phase,
        });
    }
    Some(TextSignatureV1 {
        v: 1,
        id: signature.to_owned(),
        phase: None,
    })
}

/// `JSON.stringify` of a value: compact, keys in order, integral floats
/// written as integers.
fn js_stringify(value: &Value) -> String {
    fn has_integral_float(value: &Value) -> bool {
        match value {
            Value::Number(n) => n.is_f64() && n.as_f64().and_then(js_integral).is_some(),
            Value::Array(items) => items.iter().any(has_integral_float),
            Value::Object(map) => map.values().any(has_integral_float),
            Value::Null | Value::Bool(_) | Value::String(_) => false,
        }
    }
    fn normalize(value: &Value) -> Value {
        match value {
            Value::Number(n) if n.is_f64() => match n.as_f64().and_then(js_integral) {
                Some(i) => Value::from(i),
                None => value.clone(),
            },
            Value::Array(items) => Value::Array(items.iter().map(normalize).collect()),
            Value::Object(map) => {
                Value::Object(map.iter().map(|(k, v)| (k.clone(), normalize(v))).collect())
            }
            Value::Null | Value::Bool(_) | Value::String(_) | Value::Number(_) => value.clone(),
        }
    }
    if has_integral_float(value) {
        normalize(value).to_string()
    } else {
        value.to_string()
    }
}

#[cfg(test)]
#[path = "request_tests.rs"]
mod tests;
