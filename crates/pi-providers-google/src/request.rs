//! The pure encoder: a `pi_ai::Context` to a `streamGenerateContent` body.
//!
//! Rules (pi 0.73.1's `google.ts` / `google-shared.ts`):
//! - The transcript first goes through [`transform_messages_iter`], which also
//!   turns images into text placeholders for a model without image input.
//! - User turns are `user` contents of text and `inlineData` parts.
//! - Assistant turns are `model` contents. Blank text and thinking are
//!   skipped. Thinking stays a `thought: true` part only for the same
//!   provider and model, else it becomes plain text. Signatures
//!   (`textSignature`, `thinkingSignature`, `thoughtSignature`) are replayed
//!   as `thoughtSignature` only for the same provider and model, and only
//!   when they are valid base64. An unsigned function call to a Gemini 3
//!   model carries the `skip_thought_signature_validator` sentinel.
//! - Tool results become `functionResponse` parts (`{output}` or `{error}`),
//!   merged into one `user` turn while they follow each other. Images go
//!   inside the response for Gemini 3 and non-Gemini models, else into a
//!   separate `user` turn after it.
//! - Call ids are sent only for models that need them (Claude, gpt-oss).

use std::borrow::Cow;

use pi_ai::{
    AssistantContent, AssistantMessage, ContextRef, Message, MessagesRef, Model, ToolResultMessage,
    TransformedMessage, UserBlock, UserContent, normalize_tool_call_id_anthropic,
    transform_messages_iter,
};
use serde_json::Value;

use crate::options::{
    GoogleOptions, is_gemini3_any, requires_tool_call_id, supports_multimodal_function_response,
    thinking_config,
};
use crate::wire::{
    Blob, Content, FunctionCall, FunctionCallingConfig, FunctionDeclaration, FunctionResponse,
    FunctionResponsePart, FunctionResult, GenerateContentRequest, GenerationConfig, RequestPart,
    Role, ToolConfig, ToolDeclarations,
};

/// Tells Gemini 3 to skip signature validation for a function call that has
/// no signature of its own (one replayed from another provider).
pub const SKIP_THOUGHT_SIGNATURE: &str = "skip_thought_signature_validator";

/// Builds the request body pi would send for `context` to `model`.
pub fn build_request_body<'c>(
    model: &Model,
    context: impl Into<ContextRef<'c>>,
    options: &GoogleOptions,
) -> GenerateContentRequest<'c> {
    let context = context.into();
    let system_instruction = context
        .system_prompt
        .filter(|prompt| !prompt.is_empty())
        .map(|prompt| Content {
            parts: vec![text_part(prompt)],
            role: Role::User,
        });
    let tools = context.tools.filter(|tools| !tools.is_empty());
    let tool_config = match (tools, options.tool_choice) {
        (Some(_), Some(mode)) => Some(ToolConfig {
            function_calling_config: FunctionCallingConfig { mode },
        }),
        _ => None,
    };
    let tools = tools.map(|tools| {
        vec![ToolDeclarations {
            function_declarations: tools
                .iter()
                .map(|tool| FunctionDeclaration {
                    name: tool.name.clone(),
                    description: tool.description.clone(),
                    parameters_json_schema: tool.parameters.clone(),
                })
                .collect(),
        }]
    });
    GenerateContentRequest {
        contents: convert_messages(model, context.messages),
        system_instruction,
        tools,
        tool_config,
        generation_config: GenerationConfig {
            temperature: options.base.temperature,
            max_output_tokens: options.base.max_tokens,
            thinking_config: thinking_config(model, options.thinking),
        },
    }
}

/// The `contents` array for `messages`. Texts the context holds as they go
/// out are borrowed; only messages the rewrite changed are copied.
pub fn convert_messages<'c>(model: &Model, messages: MessagesRef<'c>) -> Vec<Content<'c>> {
    let normalize =
        |id: &str, _: &Model, _: &AssistantMessage| normalize_tool_call_id_anthropic(id);
    let normalizer: Option<pi_ai::ToolCallIdNormalizer<'_>> =
        requires_tool_call_id(model).then_some(&normalize);
    // One message at a time: a rewritten message is dropped once converted.
    let transformed = transform_messages_iter(messages, model, normalizer);

    let mut contents: Vec<Content<'c>> = Vec::with_capacity(messages.len());
    for message in transformed {
        match message {
            TransformedMessage::Borrowed(message) => {
                convert_message(model, message).push_to(&mut contents);
            }
            TransformedMessage::Owned(message) => {
                convert_message(model, &message)
                    .into_owned()
                    .push_to(&mut contents);
            }
        }
    }
    contents
}

/// One message converted: a turn (`None` when pi skips it), or a tool
/// result's `functionResponse` part and the image turn that follows it.
enum Converted<'x> {
    Turn(Option<Content<'x>>),
    Result(Box<RequestPart<'x>>, Option<Content<'x>>),
}

impl<'x> Converted<'x> {
    fn into_owned(self) -> Converted<'static> {
        match self {
            Self::Turn(content) => Converted::Turn(content.map(Content::into_owned)),
            Self::Result(part, images) => {
                Converted::Result(Box::new(part.into_owned()), images.map(Content::into_owned))
            }
        }
    }

    /// Appends to `contents`; a function response joins the previous turn
    /// when that turn already holds function responses.
    fn push_to(self, contents: &mut Vec<Content<'x>>) {
        match self {
            Self::Turn(content) => contents.extend(content),
            Self::Result(part, images) => {
                match contents.last_mut() {
                    Some(last)
                        if last.role == Role::User
                            && last.parts.iter().any(|p| p.function_response.is_some()) =>
                    {
                        last.parts.push(*part);
                    }
                    _ => contents.push(Content {
                        parts: vec![*part],
                        role: Role::User,
                    }),
                }
                contents.extend(images);
            }
        }
    }
}

/// One transcript message as a turn or a tool result.
fn convert_message<'x>(model: &Model, message: &'x Message) -> Converted<'x> {
    match message {
        Message::User(user) => {
            let parts: Vec<RequestPart<'_>> = match &user.content {
                UserContent::Text(text) => vec![text_part(text)],
                UserContent::Blocks(blocks) => blocks.iter().map(user_block_part).collect(),
            };
            Converted::Turn((!parts.is_empty()).then_some(Content {
                parts,
                role: Role::User,
            }))
        }
        Message::Assistant(assistant) => {
            let parts = assistant_parts(model, assistant);
            Converted::Turn((!parts.is_empty()).then_some(Content {
                parts,
                role: Role::Model,
            }))
        }
        Message::ToolResult(result) => tool_result(model, result),
    }
}

/// The parts of one replayed assistant message.
fn assistant_parts<'x>(model: &Model, message: &'x AssistantMessage) -> Vec<RequestPart<'x>> {
    let same = message.provider == model.provider && message.model == model.id;
    let signature = |signature: Option<&'x str>| {
        signature
            .filter(|s| same && is_valid_thought_signature(s))
            .map(Cow::Borrowed)
    };
    let mut parts = Vec::with_capacity(message.content.len());
    for block in &message.content {
        match block {
            AssistantContent::Text(text) => {
                if is_blank(&text.text) {
                    continue;
                }
                parts.push(RequestPart {
                    text: Some(Cow::Borrowed(&text.text)),
                    thought_signature: signature(text.text_signature.as_deref()),
                    ..RequestPart::default()
                });
            }
            AssistantContent::Thinking(thinking) => {
                if is_blank(&thinking.thinking) {
                    continue;
                }
                if same {
                    parts.push(RequestPart {
                        text: Some(Cow::Borrowed(&thinking.thinking)),
                        thought: Some(true),
                        thought_signature: signature(thinking.thinking_signature.as_deref()),
                        ..RequestPart::default()
                    });
                } else {
                    parts.push(text_part(&thinking.thinking));
                }
            }
            AssistantContent::ToolCall(call) => {
                let thought_signature =
                    signature(call.thought_signature.as_deref()).or_else(|| {
                        is_gemini3_any(model).then_some(Cow::Borrowed(SKIP_THOUGHT_SIGNATURE))
                    });
                let args = match &call.arguments {
                    Value::Null => Cow::Owned(Value::Object(serde_json::Map::new())),
                    args => Cow::Borrowed(args),
                };
                parts.push(RequestPart {
                    function_call: Some(FunctionCall {
                        id: requires_tool_call_id(model).then_some(Cow::Borrowed(&call.id)),
                        args,
                        name: Cow::Borrowed(&call.name),
                    }),
                    thought_signature,
                    ..RequestPart::default()
                });
            }
        }
    }
    parts
}

/// The `functionResponse` part of `result`, plus a separate image turn for
/// models that cannot nest images.
fn tool_result<'x>(model: &Model, result: &'x ToolResultMessage) -> Converted<'x> {
    // pi joins every text block (empty ones included) with "\n".
    let text = result.text_ref();
    let images: Vec<Blob<Cow<'_, str>>> = result
        .content
        .iter()
        .filter_map(|block| match block {
            UserBlock::Image(image) => Some(Blob {
                data: Cow::Borrowed(image.data.as_str()),
                mime_type: Cow::Borrowed(image.mime_type.as_str()),
            }),
            UserBlock::Text(_) => None,
        })
        .collect();
    let value = if !text.is_empty() {
        text
    } else if !images.is_empty() {
        Cow::Borrowed("(see attached image)")
    } else {
        Cow::Borrowed("")
    };
    let nested = supports_multimodal_function_response(model);
    let part = RequestPart {
        function_response: Some(FunctionResponse {
            name: Cow::Borrowed(&result.tool_name),
            response: if result.is_error {
                FunctionResult::Error(value)
            } else {
                FunctionResult::Output(value)
            },
            parts: (nested && !images.is_empty()).then(|| {
                images
                    .iter()
                    .map(|blob| FunctionResponsePart {
                        inline_data: blob.clone(),
                    })
                    .collect()
            }),
            id: requires_tool_call_id(model).then_some(Cow::Borrowed(&result.tool_call_id)),
        }),
        ..RequestPart::default()
    };
    let image_turn = (!nested && !images.is_empty()).then(|| {
        let mut parts = Vec::with_capacity(images.len() + 1);
        parts.push(text_part("Tool result image:"));
        parts.extend(images.into_iter().map(|blob| RequestPart {
            inline_data: Some(blob),
            ..RequestPart::default()
        }));
        Content {
            parts,
            role: Role::User,
        }
    });
    Converted::Result(Box::new(part), image_turn)
}

/// A text part.
fn text_part(text: &str) -> RequestPart<'_> {
    RequestPart {
        text: Some(Cow::Borrowed(text)),
        ..RequestPart::default()
    }
}

/// A user block as a part.
fn user_block_part(block: &UserBlock) -> RequestPart<'_> {
    match block {
        UserBlock::Text(text) => text_part(&text.text),
        UserBlock::Image(image) => RequestPart {
            inline_data: Some(Blob {
                data: Cow::Borrowed(image.data.as_str()),
                mime_type: Cow::Borrowed(image.mime_type.as_str()),
            }),
            ..RequestPart::default()
        },
    }
}

/// Thought signatures are bytes on the wire: only non-empty base64 of a
/// length divisible by four is replayed (`^[A-Za-z0-9+/]+={0,2}$`).
fn is_valid_thought_signature(signature: &str) -> bool {
    if signature.is_empty() || !signature.len().is_multiple_of(4) {
        return false;
    }
    let body = signature.trim_end_matches('=');
    let padding = signature.len() - body.len();
    padding <= 2
        && !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

/// True when `text` is empty or only whitespace as JavaScript's `trim` sees it.
fn is_blank(text: &str) -> bool {
    text.chars()
        .all(|c| c == '\u{feff}' || (c != '\u{85}' && c.is_whitespace()))
}

#[cfg(test)]
#[path = "request_tests.rs"]
mod tests;
