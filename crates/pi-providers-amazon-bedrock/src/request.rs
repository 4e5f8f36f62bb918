//! The pure encoder: `Context` + options -> ConverseStream request body, as
//! pi's `convertMessages`, `buildSystemPrompt`, `convertToolConfig` and
//! `buildAdditionalModelRequestFields` build the SDK command input.

use std::borrow::Cow;

use pi_ai::{
    AssistantContent, AssistantMessage, CacheRetention, ContextRef, Message, Model, ThinkingLevel,
    Tool, ToolResultMessage, TransformedMessage, UserBlock, UserContent, transform_messages_iter,
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
) -> ConverseStreamRequest<'c> {
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

fn system<'c>(prompt: Option<&'c str>, cache: Option<&CachePoint>) -> Option<Vec<SystemBlock<'c>>> {
    let prompt = prompt.filter(|p| !p.is_empty())?;
    let mut blocks = vec![SystemBlock::Text(Cow::Borrowed(prompt))];
    if let Some(point) = cache {
        blocks.push(SystemBlock::CachePoint(point.clone()));
    }
    Some(blocks)
}

fn image<'x>(mime_type: &str, data: &'x str) -> ImageBlock<'x> {
    ImageBlock {
        format: ImageFormat::of(mime_type),
        source: ImageSource {
            bytes: Cow::Borrowed(data),
        },
    }
}

/// The transcript as Converse messages. Texts the context holds as they go
/// out are borrowed; only messages the rewrite changed are copied.
fn messages<'c>(
    model: &Model,
    context: ContextRef<'c>,
    cache: Option<&CachePoint>,
) -> Vec<WireMessage<'c>> {
    let normalize = |id: &str, _: &Model, _: &AssistantMessage| normalize_tool_call_id(id);
    // One message at a time: a rewritten message is dropped once converted.
    let transformed = transform_messages_iter(context.messages, model, Some(&normalize));
    let mut out: Vec<WireMessage<'c>> = Vec::with_capacity(context.messages.len());
    // Whether the last message read is a tool result: Bedrock wants every
    // consecutive tool result in one user message.
    let mut in_results = false;
    for message in transformed {
        let converted = match message {
            TransformedMessage::Borrowed(message) => convert_message(model, message),
            TransformedMessage::Owned(message) => convert_message(model, &message).into_owned(),
        };
        match converted {
            Converted::Turn(message) => {
                in_results = false;
                out.extend(message);
            }
            Converted::Result(result) => {
                let block = ContentBlock::ToolResult(result);
                match out.last_mut() {
                    Some(last) if in_results => last.content.push(block),
                    _ => {
                        in_results = true;
                        out.push(WireMessage {
                            role: Role::User,
                            content: vec![block],
                        });
                    }
                }
            }
        }
    }
    if let Some(point) = cache
        && let Some(last) = out.last_mut()
        && last.role == Role::User
    {
        last.content.push(ContentBlock::CachePoint(point.clone()));
    }
    out
}

/// One message converted: a message (`None` when pi skips it) or a tool
/// result that joins the results before it.
enum Converted<'x> {
    Turn(Option<WireMessage<'x>>),
    Result(ToolResult<'x>),
}

impl Converted<'_> {
    fn into_owned(self) -> Converted<'static> {
        match self {
            Self::Turn(message) => Converted::Turn(message.map(WireMessage::into_owned)),
            Self::Result(result) => Converted::Result(result.into_owned()),
        }
    }
}

/// One transcript message as a Converse message or a tool result.
fn convert_message<'x>(model: &Model, message: &'x Message) -> Converted<'x> {
    match message {
        Message::User(user) => Converted::Turn(Some(WireMessage {
            role: Role::User,
            content: user_content(&user.content),
        })),
        Message::Assistant(assistant) => {
            Converted::Turn(assistant_message(model, &assistant.content))
        }
        Message::ToolResult(result) => Converted::Result(tool_result(result)),
    }
}

fn user_content(content: &UserContent) -> Vec<ContentBlock<'_>> {
    match content {
        UserContent::Text(text) => vec![ContentBlock::Text(Cow::Borrowed(text))],
        UserContent::Blocks(blocks) => blocks
            .iter()
            .map(|block| match block {
                UserBlock::Text(text) => ContentBlock::Text(Cow::Borrowed(&text.text)),
                UserBlock::Image(img) => ContentBlock::Image(image(&img.mime_type, &img.data)),
            })
            .collect(),
    }
}

/// An assistant turn as pi replays it: empty or whitespace-only text and
/// thinking skipped; for Claude, thinking with its signature as reasoning
/// (as text when the signature is missing), for other models reasoning
/// without a signature. `None` when nothing is left.
fn assistant_message<'x>(
    model: &Model,
    content: &'x [AssistantContent],
) -> Option<WireMessage<'x>> {
    let claude = is_anthropic_claude(model);
    let blocks: Vec<ContentBlock<'_>> = content
        .iter()
        .filter_map(|block| match block {
            AssistantContent::Text(text) => (!text.text.trim().is_empty())
                .then_some(ContentBlock::Text(Cow::Borrowed(&text.text))),
            AssistantContent::ToolCall(call) => Some(ContentBlock::ToolUse(ToolUse {
                tool_use_id: Cow::Borrowed(&call.id),
                name: Cow::Borrowed(&call.name),
                input: Cow::Borrowed(&call.arguments),
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
                    (true, None) => ContentBlock::Text(Cow::Borrowed(&thinking.thinking)),
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

fn reasoning<'x>(text: &'x str, signature: Option<&'x str>) -> ContentBlock<'x> {
    ContentBlock::ReasoningContent(ReasoningContent {
        reasoning_text: ReasoningText {
            text: Cow::Borrowed(text),
            signature: signature.map(Cow::Borrowed),
        },
    })
}

fn tool_result(result: &ToolResultMessage) -> ToolResult<'_> {
    ToolResult {
        tool_use_id: Cow::Borrowed(&result.tool_call_id),
        content: result
            .content
            .iter()
            .map(|block| match block {
                UserBlock::Text(text) => ToolResultContent::Text(Cow::Borrowed(&text.text)),
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
    use pi_test_support::captures::Captures;
    use pi_test_support::contexts::{first_user_text, handoff_context, points_into};

    use super::*;

    #[test]
    fn the_request_borrows_the_texts_it_sends_unchanged() {
        let id = "us.anthropic.claude-sonnet-4-5-mock-v1:0";
        let model = Captures::new("pi-0.73.1-bedrock").model("mock-bed", id);
        // Its own tool turn, then the same turn by another model: replayed
        // rewritten, so owned.
        let context = handoff_context(
            ["bedrock-converse-stream", "mock-bed", id, "call_1"],
            ["openai-completions", "mock-oai", "mock-gpt", "call|2"],
        );
        let options = BedrockOptions::default();
        let request = build_request_body(&model, &context, &options);

        let system = request.system.as_deref().unwrap_or_default();
        assert!(matches!(
            system[0],
            SystemBlock::Text(Cow::Borrowed("Be brief."))
        ));
        let first_text = first_user_text(&context);
        assert!(matches!(&request.messages[0].content[0],
            ContentBlock::Text(Cow::Borrowed(text)) if points_into(text, first_text)));
        let assistant = &request.messages[1].content;
        let ContentBlock::ReasoningContent(reasoning) = &assistant[0] else {
            panic!("the reasoning: {assistant:?}");
        };
        assert!(matches!(
            reasoning.reasoning_text,
            ReasoningText {
                text: Cow::Borrowed("Need the file."),
                signature: Some(Cow::Borrowed("c2lnbmF0dXJl")),
            }
        ));
        assert!(matches!(
            &assistant[2],
            ContentBlock::ToolUse(ToolUse {
                tool_use_id: Cow::Borrowed("call_1"),
                name: Cow::Borrowed("read"),
                input: Cow::Borrowed(_),
            })
        ));
        let ContentBlock::ToolResult(result) = &request.messages[2].content[0] else {
            panic!("the tool result: {:?}", request.messages[2]);
        };
        assert!(matches!(result.tool_use_id, Cow::Borrowed("call_1")));
        assert!(matches!(
            &result.content[..],
            [
                ToolResultContent::Text(Cow::Borrowed("a picture")),
                ToolResultContent::Image(ImageBlock {
                    source: ImageSource {
                        bytes: Cow::Borrowed(_)
                    },
                    ..
                })
            ]
        ));

        // Messages the transform rewrote are owned, and encode the same as
        // a copy of the context would.
        let owned_calls = request
            .messages
            .iter()
            .flat_map(|message| &message.content)
            .filter(|block| {
                matches!(
                    block,
                    ContentBlock::ToolUse(ToolUse {
                        tool_use_id: Cow::Owned(_),
                        ..
                    })
                )
            })
            .count();
        assert_eq!(owned_calls, 1);
        let copied = context.view().to_context();
        assert_eq!(
            serde_json::to_value(&request).unwrap(),
            serde_json::to_value(build_request_body(&model, &copied, &options)).unwrap()
        );
    }

    #[test]
    fn tool_call_ids_keep_their_safe_characters() {
        assert_eq!(normalize_tool_call_id("call|a.b:c"), "call_a_b_c");
        assert_eq!(normalize_tool_call_id(&"x".repeat(80)).len(), 64);
        assert_eq!(normalize_tool_call_id("toolu_01-Ab"), "toolu_01-Ab");
    }
}
