//! This wire's test data: models, conversation builders and request-body
//! helpers (the shared SSE, replay and contract helpers are in `pi-test-support`).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use pi_ai::{
    Api, AssistantContent, AssistantMessage, InputModality, Model, ModelCost, Provider, StopReason,
    TextContent, ThinkingContent, ToolCall, ToolResultMessage, Usage, UserBlock, UserMessage,
};
use pi_ai::{Context, SimpleStreamOptions, ThinkingLevel};
use pi_providers_openai_completions::{OpenAiCompletionsOptions, build_request_body};
use serde_json::{Value, json};

/// An openai-completions model of provider `mock-oai`.
pub fn model(id: &str, reasoning: bool, images: bool) -> Model {
    let mut input = vec![InputModality::Text];
    if images {
        input.push(InputModality::Image);
    }
    Model {
        id: id.to_owned(),
        name: id.to_owned(),
        api: Api::OPENAI_COMPLETIONS,
        provider: Provider::new("mock-oai"),
        base_url: "http://127.0.0.1:18777/v1".to_owned(),
        reasoning,
        input,
        cost: ModelCost {
            input: 2.0,
            output: 8.0,
            cache_read: 0.5,
            cache_write: 2.5,
        },
        context_window: 128_000,
        max_tokens: 4096,
        headers: None,
        compat: None,
        extra: pi_ai::ExtraFields::new(),
    }
}

/// `model` served by `provider` at `base_url`.
pub fn model_at(provider: &str, base_url: &str, id: &str, reasoning: bool) -> Model {
    Model {
        provider: Provider::new(provider),
        base_url: base_url.to_owned(),
        ..model(id, reasoning, true)
    }
}

pub fn user(text: &str) -> pi_ai::Message {
    UserMessage {
        content: text.into(),
        timestamp: 1,
        ..UserMessage::default()
    }
    .into()
}

pub fn user_blocks(blocks: Vec<UserBlock>) -> pi_ai::Message {
    UserMessage {
        content: blocks.into(),
        timestamp: 1,
        ..UserMessage::default()
    }
    .into()
}

/// An assistant message produced by `model` (same provider and api).
pub fn assistant_from(
    model: &Model,
    content: Vec<AssistantContent>,
    stop: StopReason,
) -> pi_ai::Message {
    AssistantMessage {
        content,
        stop_reason: stop,
        usage: Usage::default(),
        ..AssistantMessage::empty(
            model.api.clone(),
            model.provider.clone(),
            model.id.clone(),
            2,
        )
    }
    .into()
}

/// An assistant message of another provider and wire.
pub fn foreign_assistant(
    api: Api,
    provider: &str,
    id: &str,
    content: Vec<AssistantContent>,
) -> pi_ai::Message {
    AssistantMessage {
        content,
        stop_reason: StopReason::ToolUse,
        ..AssistantMessage::empty(api, Provider::new(provider), id, 2)
    }
    .into()
}

pub fn text(t: &str) -> AssistantContent {
    AssistantContent::text(t)
}

pub fn signed_text(t: &str, signature: &str) -> AssistantContent {
    AssistantContent::Text(TextContent {
        text_signature: Some(signature.to_owned()),
        ..TextContent::new(t)
    })
}

pub fn thinking(t: &str, signature: Option<&str>) -> AssistantContent {
    AssistantContent::Thinking(ThinkingContent {
        thinking: t.to_owned(),
        thinking_signature: signature.map(str::to_owned),
        ..ThinkingContent::default()
    })
}

pub fn redacted(signature: &str) -> AssistantContent {
    AssistantContent::Thinking(ThinkingContent {
        thinking: "[Reasoning redacted]".to_owned(),
        thinking_signature: Some(signature.to_owned()),
        redacted: Some(true),
        ..ThinkingContent::default()
    })
}

pub fn call(id: &str, name: &str, arguments: Value) -> AssistantContent {
    AssistantContent::ToolCall(ToolCall {
        id: id.to_owned(),
        name: name.to_owned(),
        arguments,
        ..ToolCall::default()
    })
}

pub fn signed_call(id: &str, name: &str, arguments: Value, signature: &str) -> AssistantContent {
    AssistantContent::ToolCall(ToolCall {
        id: id.to_owned(),
        name: name.to_owned(),
        arguments,
        thought_signature: Some(signature.to_owned()),
        ..ToolCall::default()
    })
}

pub fn tool_result(
    id: &str,
    name: &str,
    content: Vec<UserBlock>,
    is_error: bool,
) -> pi_ai::Message {
    ToolResultMessage {
        tool_call_id: id.to_owned(),
        tool_name: name.to_owned(),
        content,
        is_error,
        timestamp: 3,
        ..ToolResultMessage::default()
    }
    .into()
}

pub fn tools() -> Vec<pi_ai::Tool> {
    vec![
        pi_ai::Tool {
            name: "read".into(),
            description: "Read a file.".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        },
        pi_ai::Tool {
            name: "bash".into(),
            description: "Run a command.".into(),
            parameters: json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}),
        },
    ]
}

// Request-body helpers.

pub const PNG: &str = "iVBORw0KGgo=";

pub fn ctx(messages: Vec<pi_ai::Message>) -> Context {
    Context {
        system_prompt: Some("You are terse.".into()),
        messages,
        ..Context::default()
    }
}

pub fn body(model: &Model, context: &Context) -> Value {
    body_with(model, context, OpenAiCompletionsOptions::default())
}

pub fn body_with(model: &Model, context: &Context, options: OpenAiCompletionsOptions) -> Value {
    serde_json::to_value(build_request_body(model, context, &options)).unwrap_or_default()
}

pub fn simple(model: &Model, context: &Context, reasoning: Option<ThinkingLevel>) -> Value {
    let options = SimpleStreamOptions {
        reasoning,
        ..SimpleStreamOptions::default()
    };
    body_with(
        model,
        context,
        OpenAiCompletionsOptions::from_simple(model, &options),
    )
}

pub fn messages(body: &Value) -> &Vec<Value> {
    body["messages"].as_array().unwrap()
}
