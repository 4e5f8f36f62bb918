//! The pure encoder: `Context` + options -> ConverseStream request body, as
//! pi's `convertMessages`, `buildSystemPrompt`, `convertToolConfig` and
//! `buildAdditionalModelRequestFields` build the SDK command input.

use pi_ai::{
    AssistantContent, AssistantMessage, CacheRetention, ContextRef, Message, Model, ThinkingLevel,
    Tool, ToolResultMessage, UserBlock, UserContent, transform_messages,
};
use serde_json::{Value, json};

use crate::models::{
    is_anthropic_claude, is_gov_cloud, supports_adaptive_thinking, supports_native_xhigh,
    supports_prompt_caching,
};
use crate::options::{BedrockOptions, ToolChoice};
use crate::wire::{
    CachePoint, ContentBlock, ConverseStreamRequest, Empty, ImageBlock, ImageFormat, ImageSource,
    InferenceConfig, InputSchema, Message as WireMessage, NamedTool, ReasoningContent,
    ReasoningText, Role, SystemBlock, ToolChoiceWire, ToolConfig, ToolEntry, ToolResult,
    ToolResultContent, ToolResultStatus, ToolSpec, ToolUse,
};

/// pi's tool-call id rule for Bedrock: characters outside `[a-zA-Z0-9_-]`
/// become `_`, at most 64 characters.
pub fn normalize_tool_call_id(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect()
}

/// Builds the typed request for `model` from `context` and `options`
/// (after [`pi_http::Wire::prepare`] filled `options.resolved`).
pub fn build_request_body<'c>(
    model: &Model,
    context: impl Into<ContextRef<'c>>,
    options: &BedrockOptions,
) -> ConverseStreamRequest {
    let context = context.into();
    let resolved = &options.resolved;
    let retention = options
        .base
        .cache_retention
        .unwrap_or(resolved.cache_retention);
    let cache = (retention != CacheRetention::None
        && supports_prompt_caching(model, resolved.force_cache))
    .then(|| cache_point(retention));
    ConverseStreamRequest {
        messages: messages(model, context, cache.as_ref()),
        system: system(context.system_prompt, cache.as_ref()),
        inference_config: InferenceConfig {
            max_tokens: options.base.max_tokens,
            temperature: options.base.temperature,
        },
        tool_config: tool_config(context.tools, options.tool_choice.as_ref()),
        additional_model_request_fields: additional_fields(model, options),
        request_metadata: options.request_metadata.clone(),
    }
}

fn cache_point(retention: CacheRetention) -> CachePoint {
    CachePoint {
        kind: "default",
        ttl: (retention == CacheRetention::Long).then_some("1h"),
    }
}

fn system(prompt: Option<&str>, cache: Option<&CachePoint>) -> Option<Vec<SystemBlock>> {
    let prompt = prompt.filter(|p| !p.is_empty())?;
    let mut blocks = vec![SystemBlock::Text(prompt.to_owned())];
    if let Some(point) = cache {
        blocks.push(SystemBlock::CachePoint(point.clone()));
    }
    Some(blocks)
}

fn image(mime_type: &str, data: &str) -> ImageBlock {
    ImageBlock {
        format: ImageFormat::of(mime_type),
        source: ImageSource {
            bytes: data.to_owned(),
        },
    }
}

fn messages(
    model: &Model,
    context: ContextRef<'_>,
    cache: Option<&CachePoint>,
) -> Vec<WireMessage> {
    let normalize = |id: &str, _: &Model, _: &AssistantMessage| normalize_tool_call_id(id);
    let transformed = transform_messages(context.messages, model, Some(&normalize));
    let mut out: Vec<WireMessage> = Vec::with_capacity(transformed.len());
    let mut index = 0;
    while index < transformed.len() {
        match &transformed[index] {
            Message::User(user) => out.push(WireMessage {
                role: Role::User,
                content: user_content(&user.content),
            }),
            Message::Assistant(assistant) => {
                if let Some(message) = assistant_message(model, &assistant.content) {
                    out.push(message);
                }
            }
            Message::ToolResult(_) => {
                // Bedrock wants every consecutive tool result in one user message.
                let mut content = Vec::new();
                while let Some(Message::ToolResult(result)) = transformed.get(index) {
                    content.push(ContentBlock::ToolResult(tool_result(result)));
                    index += 1;
                }
                out.push(WireMessage {
                    role: Role::User,
                    content,
                });
                continue;
            }
        }
        index += 1;
    }
    if let Some(point) = cache
        && let Some(last) = out.last_mut()
        && last.role == Role::User
    {
        last.content.push(ContentBlock::CachePoint(point.clone()));
    }
    out
}

fn user_content(content: &UserContent) -> Vec<ContentBlock> {
    match content {
        UserContent::Text(text) => vec![ContentBlock::Text(text.clone())],
        UserContent::Blocks(blocks) => blocks
            .iter()
            .map(|block| match block {
                UserBlock::Text(text) => ContentBlock::Text(text.text.clone()),
                UserBlock::Image(img) => ContentBlock::Image(image(&img.mime_type, &img.data)),
            })
            .collect(),
    }
}

/// An assistant turn as pi replays it: empty or whitespace-only text and
/// thinking skipped; for Claude, thinking with its signature as reasoning
/// (as text when the signature is missing), for other models reasoning
/// without a signature. `None` when nothing is left.
fn assistant_message(model: &Model, content: &[AssistantContent]) -> Option<WireMessage> {
    let claude = is_anthropic_claude(model);
    let blocks: Vec<ContentBlock> = content
        .iter()
        .filter_map(|block| match block {
            AssistantContent::Text(text) => {
                (!text.text.trim().is_empty()).then(|| ContentBlock::Text(text.text.clone()))
            }
            AssistantContent::ToolCall(call) => Some(ContentBlock::ToolUse(ToolUse {
                tool_use_id: call.id.clone(),
                name: call.name.clone(),
                input: call.arguments.clone(),
            })),
            AssistantContent::Thinking(thinking) => {
                if thinking.thinking.trim().is_empty() {
                    return None;
                }
                let signature = thinking
                    .thinking_signature
                    .as_deref()
                    .filter(|s| !s.trim().is_empty());
                Some(match (claude, signature) {
                    (true, None) => ContentBlock::Text(thinking.thinking.clone()),
                    (true, Some(signature)) => reasoning(&thinking.thinking, Some(signature)),
                    (false, _) => reasoning(&thinking.thinking, None),
                })
            }
        })
        .collect();
    (!blocks.is_empty()).then_some(WireMessage {
        role: Role::Assistant,
        content: blocks,
    })
}

fn reasoning(text: &str, signature: Option<&str>) -> ContentBlock {
    ContentBlock::ReasoningContent(ReasoningContent {
        reasoning_text: ReasoningText {
            text: text.to_owned(),
            signature: signature.map(str::to_owned),
        },
    })
}

fn tool_result(result: &ToolResultMessage) -> ToolResult {
    ToolResult {
        tool_use_id: result.tool_call_id.clone(),
        content: result
            .content
            .iter()
            .map(|block| match block {
                UserBlock::Text(text) => ToolResultContent::Text(text.text.clone()),
                UserBlock::Image(img) => ToolResultContent::Image(image(&img.mime_type, &img.data)),
            })
            .collect(),
        status: if result.is_error {
            ToolResultStatus::Error
        } else {
            ToolResultStatus::Success
        },
    }
}

fn tool_config(tools: Option<&[Tool]>, choice: Option<&ToolChoice>) -> Option<ToolConfig> {
    let tools = tools.filter(|tools| !tools.is_empty())?;
    if choice == Some(&ToolChoice::None) {
        return None;
    }
    Some(ToolConfig {
        tools: tools
            .iter()
            .map(|tool| ToolEntry {
                tool_spec: ToolSpec {
                    name: tool.name.clone(),
                    description: tool.description.clone(),
                    input_schema: InputSchema {
                        json: tool.parameters.clone(),
                    },
                },
            })
            .collect(),
        tool_choice: match choice {
            Some(ToolChoice::Auto) => Some(ToolChoiceWire::Auto(Empty {})),
            Some(ToolChoice::Any) => Some(ToolChoiceWire::Any(Empty {})),
            Some(ToolChoice::Tool(name)) => {
                Some(ToolChoiceWire::Tool(NamedTool { name: name.clone() }))
            }
            Some(ToolChoice::None) | None => None,
        },
    })
}

/// Claude's thinking settings for a reasoning model asked to think:
/// adaptive thinking with an effort (Opus 4.6/4.7, Sonnet 4.6), else a
/// budget plus the interleaved-thinking beta; `display` everywhere but
/// GovCloud. Other models get nothing.
fn additional_fields(model: &Model, options: &BedrockOptions) -> Option<Value> {
    let level = options.reasoning.filter(|_| model.reasoning)?;
    if !is_anthropic_claude(model) {
        return None;
    }
    let display = (!is_gov_cloud(model, options.resolved.region.as_deref())).then(|| {
        options
            .thinking_display
            .clone()
            .unwrap_or_else(|| "summarized".to_owned())
    });
    let mut thinking = serde_json::Map::new();
    let adaptive = supports_adaptive_thinking(model);
    if adaptive {
        thinking.insert("type".into(), json!("adaptive"));
    } else {
        let budget = options.thinking_budgets.unwrap_or_default().budget(level);
        thinking.insert("type".into(), json!("enabled"));
        thinking.insert("budget_tokens".into(), json!(budget));
    }
    if let Some(display) = display {
        thinking.insert("display".into(), json!(display));
    }
    let mut fields = serde_json::Map::new();
    fields.insert("thinking".into(), Value::Object(thinking));
    if adaptive {
        fields.insert(
            "output_config".into(),
            json!({"effort": effort(model, level)}),
        );
    } else if options.interleaved_thinking.unwrap_or(true) {
        fields.insert(
            "anthropic_beta".into(),
            json!(["interleaved-thinking-2025-05-14"]),
        );
    }
    Some(Value::Object(fields))
}

/// pi's `mapThinkingLevelToEffort`: `xhigh` on Opus 4.7; else the model's
/// `thinkingLevelMap` entry; else minimal/low -> low, medium, high, and
/// xhigh -> high.
fn effort(model: &Model, level: ThinkingLevel) -> String {
    if level == ThinkingLevel::Xhigh && supports_native_xhigh(model) {
        return "xhigh".to_owned();
    }
    if let Some(mapped) = model
        .extra
        .get("thinkingLevelMap")
        .and_then(|map| map.get(level.as_str()))
        .and_then(Value::as_str)
    {
        return mapped.to_owned();
    }
    match level {
        ThinkingLevel::Minimal | ThinkingLevel::Low => "low",
        ThinkingLevel::Medium => "medium",
        ThinkingLevel::High | ThinkingLevel::Xhigh => "high",
    }
    .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_call_ids_keep_their_safe_characters() {
        assert_eq!(normalize_tool_call_id("call|a.b:c"), "call_a_b_c");
        assert_eq!(normalize_tool_call_id(&"x".repeat(80)).len(), 64);
        assert_eq!(normalize_tool_call_id("toolu_01-Ab"), "toolu_01-Ab");
    }
}
