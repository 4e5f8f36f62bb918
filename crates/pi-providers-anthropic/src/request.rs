//! The pure request encoder: `Context` + options -> Messages API body.
//!
//! It follows pi 0.73.1's `buildParams`/`convertMessages`: the transcript is
//! first rewritten by [`pi_ai::transform_messages_iter`] (with Anthropic tool-call
//! ids; for models without image input it also turns images into text
//! placeholders), blank text is skipped, consecutive tool results share one
//! user turn, and cache breakpoints go on the system prompt, the last tool
//! and the last block of a trailing user turn.

use std::borrow::Cow;

use pi_ai::{
    AssistantContent, CacheRetention, ContextRef, Message, MessagesRef, Model, Tool,
    ToolResultMessage, TransformedMessage, UserBlock, UserContent,
    normalize_tool_call_id_anthropic, transform_messages_iter,
};
use serde_json::{Map, Value};

use crate::options::{
    AnthropicCompat, AnthropicOptions, DEFAULT_THINKING_BUDGET, ToolChoiceOption,
    uses_adaptive_thinking,
};
use crate::wire::{
    CacheControl, CacheControlKind, ContentBlock, ImageSource, ImageSourceKind, InputSchema,
    MessageContent, MessageParam, MessagesRequest, Metadata, OutputConfig, Role, TextBlock,
    ThinkingParam, ToolChoice, ToolParam,
};

/// Text put before a tool result made only of images.
pub const IMAGE_ONLY_RESULT_TEXT: &str = "(see attached image)";
/// The first system block of OAuth (Claude Code) requests.
pub const CLAUDE_CODE_IDENTITY: &str = "You are Claude Code, Anthropic's official CLI for Claude.";

/// Claude Code's tool names; OAuth requests use this casing for pi's tools.
const CLAUDE_CODE_TOOLS: [&str; 17] = [
    "Read",
    "Write",
    "Edit",
    "Bash",
    "Grep",
    "Glob",
    "AskUserQuestion",
    "EnterPlanMode",
    "ExitPlanMode",
    "KillShell",
    "NotebookEdit",
    "Skill",
    "Task",
    "TaskOutput",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
];

/// True for Anthropic OAuth tokens (`sk-ant-oat...`), which authenticate as
/// Claude Code.
pub fn is_oauth_token(api_key: &str) -> bool {
    api_key.contains("sk-ant-oat")
}

/// A tool name in Claude Code's casing when it is one of its tools.
pub fn to_claude_code_name(name: &str) -> &str {
    CLAUDE_CODE_TOOLS
        .iter()
        .find(|canonical| canonical.eq_ignore_ascii_case(name))
        .copied()
        .unwrap_or(name)
}

/// Encodes `context` for `model`. The call is an OAuth (Claude Code) call
/// when `options.base.api_key` is an OAuth token. A missing cache retention
/// means `short`; the provider resolves `PI_CACHE_RETENTION` before calling.
pub fn build_request_body<'c>(
    model: &Model,
    context: impl Into<ContextRef<'c>>,
    options: &AnthropicOptions,
) -> MessagesRequest<'c> {
    let context = context.into();
    let compat = AnthropicCompat::of(model);
    let oauth = options.base.api_key.as_deref().is_some_and(is_oauth_token);
    let cache_control = cache_control_for(
        &compat,
        options
            .base
            .cache_retention
            .unwrap_or(CacheRetention::Short),
    );
    let messages = convert_messages(
        context.messages,
        model,
        oauth,
        cache_control.as_ref(),
        compat.allow_empty_signature,
    );
    let system_block = |text: &'c str| TextBlock {
        text: Cow::Borrowed(text),
        cache_control: cache_control.clone(),
    };
    let prompt = context.system_prompt.filter(|p| !p.is_empty());
    let system = if oauth {
        let mut blocks = vec![system_block(CLAUDE_CODE_IDENTITY)];
        blocks.extend(prompt.map(system_block));
        Some(blocks)
    } else {
        prompt.map(|p| vec![system_block(p)])
    };
    let thinking_on = options.thinking_enabled == Some(true);
    let tools = context
        .tools
        .filter(|tools| !tools.is_empty())
        .map(|tools| {
            let tool_cache = cache_control
                .as_ref()
                .filter(|_| compat.supports_cache_control_on_tools);
            convert_tools(tools, oauth, &compat, tool_cache)
        });
    let (thinking, output_config) = thinking_params(model, options);
    MessagesRequest {
        model: model.id.clone(),
        messages,
        // pi: `options.maxTokens || model.maxTokens / 3` (simple calls always set it).
        max_tokens: options
            .base
            .max_tokens
            .filter(|max| *max > 0)
            .unwrap_or(model.max_tokens / 3),
        stream: true,
        system,
        temperature: options.base.temperature.filter(|_| !thinking_on),
        tools,
        thinking,
        output_config,
        metadata: options
            .base
            .metadata
            .as_ref()
            .and_then(|m| m.get("user_id"))
            .and_then(Value::as_str)
            .map(|user_id| Metadata {
                user_id: user_id.to_owned(),
            }),
        tool_choice: options.tool_choice.as_ref().map(|choice| match choice {
            ToolChoiceOption::Auto => ToolChoice::Auto,
            ToolChoiceOption::Any => ToolChoice::Any,
            ToolChoiceOption::None => ToolChoice::None,
            ToolChoiceOption::Tool(name) => ToolChoice::Tool { name: name.clone() },
        }),
    }
}

/// The cache breakpoint for `retention`: none for `none`; `ttl: "1h"` for
/// `long` unless the model's server cannot keep the cache that long.
fn cache_control_for(compat: &AnthropicCompat, retention: CacheRetention) -> Option<CacheControl> {
    let ttl = match retention {
        CacheRetention::None => return None,
        CacheRetention::Long if compat.supports_long_cache_retention => Some("1h".to_owned()),
        CacheRetention::Long | CacheRetention::Short => None,
    };
    Some(CacheControl {
        kind: CacheControlKind::Ephemeral,
        ttl,
    })
}

/// `thinking` and `output_config` for reasoning models: adaptive with an
/// effort, a budget (default 1024), or explicitly disabled.
fn thinking_params(
    model: &Model,
    options: &AnthropicOptions,
) -> (Option<ThinkingParam>, Option<OutputConfig>) {
    if !model.reasoning {
        return (None, None);
    }
    match options.thinking_enabled {
        Some(true) => {
            let display = options
                .thinking_display
                .unwrap_or_default()
                .as_str()
                .to_owned();
            if uses_adaptive_thinking(model) {
                let output_config = options.effort.as_ref().map(|effort| OutputConfig {
                    effort: effort.as_str().to_owned(),
                });
                (Some(ThinkingParam::Adaptive { display }), output_config)
            } else {
                let budget_tokens = options
                    .thinking_budget_tokens
                    .filter(|budget| *budget > 0)
                    .unwrap_or(DEFAULT_THINKING_BUDGET);
                let thinking = ThinkingParam::Enabled {
                    budget_tokens,
                    display,
                };
                (Some(thinking), None)
            }
        }
        Some(false) => (Some(ThinkingParam::Disabled), None),
        None => (None, None),
    }
}

/// Tool definitions; the schema keeps only `properties` and `required`.
fn convert_tools(
    tools: &[Tool],
    oauth: bool,
    compat: &AnthropicCompat,
    cache_control: Option<&CacheControl>,
) -> Vec<ToolParam> {
    let last = tools.len().saturating_sub(1);
    tools
        .iter()
        .enumerate()
        .map(|(at, tool)| {
            let field =
                |name: &str, empty: Value| tool.parameters.get(name).cloned().unwrap_or(empty);
            ToolParam {
                name: if oauth {
                    to_claude_code_name(&tool.name).to_owned()
                } else {
                    tool.name.clone()
                },
                description: tool.description.clone(),
                eager_input_streaming: compat.supports_eager_tool_input_streaming.then_some(true),
                input_schema: InputSchema {
                    kind: "object".to_owned(),
                    properties: field("properties", Value::Object(Map::new())),
                    required: field("required", Value::Array(Vec::new())),
                },
                cache_control: cache_control.filter(|_| at == last).cloned(),
            }
        })
        .collect()
}

/// The transcript as Messages API turns. Texts the context holds as they go
/// out are borrowed; only messages the rewrite changed are copied.
fn convert_messages<'c>(
    messages: MessagesRef<'c>,
    model: &Model,
    oauth: bool,
    cache_control: Option<&CacheControl>,
    allow_empty_signature: bool,
) -> Vec<MessageParam<'c>> {
    let normalize =
        |id: &str, _: &Model, _: &pi_ai::AssistantMessage| normalize_tool_call_id_anthropic(id);
    // One message at a time: a rewritten message is dropped once converted.
    let transformed = transform_messages_iter(messages, model, Some(&normalize));
    let mut params: Vec<MessageParam<'c>> = Vec::with_capacity(messages.len());
    // Whether the last message read is a tool result: consecutive results
    // share one user turn.
    let mut in_results = false;
    for message in transformed {
        let converted = match message {
            TransformedMessage::Borrowed(message) => {
                convert_message(message, oauth, allow_empty_signature)
            }
            TransformedMessage::Owned(message) => {
                convert_message(&message, oauth, allow_empty_signature).into_owned()
            }
        };
        match converted {
            Converted::Turn(param) => {
                in_results = false;
                params.extend(param);
            }
            Converted::Result(block) => match params.last_mut() {
                Some(MessageParam {
                    content: MessageContent::Blocks(blocks),
                    ..
                }) if in_results => blocks.push(block),
                _ => {
                    in_results = true;
                    params.push(MessageParam {
                        role: Role::User,
                        content: MessageContent::Blocks(vec![block]),
                    });
                }
            },
        }
    }
    if let Some(cache_control) = cache_control {
        mark_last_user_turn(&mut params, cache_control);
    }
    params
}

/// One message converted: a turn (`None` when pi skips it) or a tool result
/// block that joins the results before it.
enum Converted<'x> {
    Turn(Option<MessageParam<'x>>),
    Result(ContentBlock<'x>),
}

impl Converted<'_> {
    fn into_owned(self) -> Converted<'static> {
        match self {
            Self::Turn(param) => Converted::Turn(param.map(MessageParam::into_owned)),
            Self::Result(block) => Converted::Result(block.into_owned()),
        }
    }
}

/// One transcript message as a turn or a tool result block.
fn convert_message(message: &Message, oauth: bool, allow_empty_signature: bool) -> Converted<'_> {
    match message {
        Message::User(user) => {
            let content = match &user.content {
                UserContent::Text(text) => {
                    (!is_blank(text)).then_some(MessageContent::Text(Cow::Borrowed(text)))
                }
                UserContent::Blocks(blocks) => {
                    let blocks: Vec<ContentBlock<'_>> = blocks
                        .iter()
                        .filter_map(|block| match block {
                            UserBlock::Text(text) if is_blank(&text.text) => None,
                            block => Some(user_block(block)),
                        })
                        .collect();
                    (!blocks.is_empty()).then_some(MessageContent::Blocks(blocks))
                }
            };
            Converted::Turn(content.map(|content| MessageParam {
                role: Role::User,
                content,
            }))
        }
        Message::Assistant(assistant) => {
            let blocks: Vec<ContentBlock<'_>> = assistant
                .content
                .iter()
                .filter_map(|block| assistant_block(block, oauth, allow_empty_signature))
                .collect();
            Converted::Turn((!blocks.is_empty()).then_some(MessageParam {
                role: Role::Assistant,
                content: MessageContent::Blocks(blocks),
            }))
        }
        Message::ToolResult(result) => Converted::Result(tool_result_block(result)),
    }
}

/// Puts the cache breakpoint on the last block of a trailing user turn (a
/// plain string becomes one text block to carry it).
fn mark_last_user_turn(params: &mut [MessageParam<'_>], cache_control: &CacheControl) {
    let Some(last) = params.last_mut().filter(|p| p.role == Role::User) else {
        return;
    };
    match &mut last.content {
        MessageContent::Blocks(blocks) => {
            if let Some(block) = blocks.last_mut() {
                block.set_cache_control(cache_control.clone());
            }
        }
        MessageContent::Text(text) => {
            last.content = MessageContent::Blocks(vec![ContentBlock::Text {
                text: std::mem::take(text),
                cache_control: Some(cache_control.clone()),
            }]);
        }
    }
}

/// One replayed assistant block, `None` when pi skips it.
fn assistant_block(
    block: &AssistantContent,
    oauth: bool,
    allow_empty_signature: bool,
) -> Option<ContentBlock<'_>> {
    match block {
        AssistantContent::Text(text) => (!is_blank(&text.text)).then(|| ContentBlock::Text {
            text: Cow::Borrowed(&text.text),
            cache_control: None,
        }),
        AssistantContent::Thinking(thinking) => {
            if thinking.redacted == Some(true) {
                return Some(ContentBlock::RedactedThinking {
                    data: Cow::Borrowed(thinking.thinking_signature.as_deref().unwrap_or_default()),
                });
            }
            if is_blank(&thinking.thinking) {
                return None;
            }
            let signature = thinking
                .thinking_signature
                .as_deref()
                .filter(|s| !is_blank(s));
            Some(match (signature, allow_empty_signature) {
                (Some(signature), _) => ContentBlock::Thinking {
                    thinking: Cow::Borrowed(&thinking.thinking),
                    signature: Cow::Borrowed(signature),
                },
                (None, true) => ContentBlock::Thinking {
                    thinking: Cow::Borrowed(&thinking.thinking),
                    signature: Cow::Borrowed(""),
                },
                // An unsigned block (an aborted stream) is replayed as plain
                // text, which the API accepts.
                (None, false) => ContentBlock::Text {
                    text: Cow::Borrowed(&thinking.thinking),
                    cache_control: None,
                },
            })
        }
        AssistantContent::ToolCall(call) => Some(ContentBlock::ToolUse {
            id: Cow::Borrowed(&call.id),
            name: Cow::Borrowed(if oauth {
                to_claude_code_name(&call.name)
            } else {
                &call.name
            }),
            input: if call.arguments.is_null() {
                Cow::Owned(Value::Object(Map::new()))
            } else {
                Cow::Borrowed(&call.arguments)
            },
        }),
    }
}

/// A `tool_result` block: text only -> the texts joined by newlines;
/// with images -> blocks, led by a placeholder text when there is no text.
fn tool_result_block(result: &ToolResultMessage) -> ContentBlock<'_> {
    let is_image = |block: &UserBlock| matches!(block, UserBlock::Image(_));
    let content = if result.content.iter().any(is_image) {
        let mut blocks = Vec::with_capacity(result.content.len() + 1);
        if result.content.iter().all(is_image) {
            blocks.push(ContentBlock::Text {
                text: Cow::Borrowed(IMAGE_ONLY_RESULT_TEXT),
                cache_control: None,
            });
        }
        blocks.extend(result.content.iter().map(user_block));
        MessageContent::Blocks(blocks)
    } else {
        MessageContent::Text(result.text_ref())
    };
    ContentBlock::ToolResult {
        tool_use_id: Cow::Borrowed(&result.tool_call_id),
        content,
        is_error: result.is_error,
        cache_control: None,
    }
}

/// A user or tool-result block as a content block.
fn user_block(block: &UserBlock) -> ContentBlock<'_> {
    match block {
        UserBlock::Text(text) => ContentBlock::Text {
            text: Cow::Borrowed(&text.text),
            cache_control: None,
        },
        UserBlock::Image(image) => ContentBlock::Image {
            source: ImageSource {
                kind: ImageSourceKind::Base64,
                media_type: Cow::Borrowed(&image.mime_type),
                data: Cow::Borrowed(&image.data),
            },
            cache_control: None,
        },
    }
}

/// True when `text` is empty after JavaScript's `trim` (pi skips such text).
pub(crate) fn is_blank(text: &str) -> bool {
    // JavaScript's whitespace set: Rust's White_Space minus U+0085, plus U+FEFF.
    text.chars()
        .all(|c| c == '\u{feff}' || (c != '\u{85}' && c.is_whitespace()))
}

#[cfg(test)]
#[path = "request_tests.rs"]
mod tests;
