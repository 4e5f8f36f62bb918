//! Small contexts the wires' request snapshot tests encode: messages from
//! JSON, pi's `read` tool, a tool-call turn with an image result, and the
//! options of a session.

use pi_ai::{Context, Message, SimpleStreamOptions, StreamOptions, Tool};
use serde_json::{Value, json};

/// A one-pixel-ish base64 PNG for image blocks.
pub const PNG: &str = "iVBORw0KGgo=";

/// Messages read from their pi JSON.
pub fn messages(value: Value) -> Vec<Message> {
    serde_json::from_value(value).expect("pi message JSON")
}

/// An assistant message's `usage` with every count zero.
pub fn zero_usage() -> Value {
    json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
           "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}})
}

/// pi's `read` tool, reduced to its `path` argument.
pub fn read_tool() -> Tool {
    Tool {
        name: "read".into(),
        description: "Read a file.".into(),
        parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
    }
}

/// A turn of `provider`/`model` (api `api`) with thinking, text and a
/// tool call `call_id`, its result (text and an image), and a user turn
/// with text and an image.
pub fn tool_conversation(api: &str, provider: &str, model: &str, call_id: &str) -> Vec<Message> {
    messages(json!([
        {"role": "user", "content": "Read it.", "timestamp": 1},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Need the file.", "thinkingSignature": "c2lnbmF0dXJl"},
            {"type": "text", "text": "Reading."},
            {"type": "toolCall", "id": call_id, "name": "read", "arguments": {"path": "a.png"}}
        ], "api": api, "provider": provider, "model": model, "usage": zero_usage(),
         "stopReason": "toolUse", "timestamp": 2},
        {"role": "toolResult", "toolCallId": call_id, "toolName": "read",
         "content": [{"type": "text", "text": "a picture"}, {"type": "image", "data": PNG, "mimeType": "image/png"}],
         "isError": false, "timestamp": 3},
        {"role": "user", "content": [{"type": "text", "text": "Thanks."}, {"type": "image", "data": PNG, "mimeType": "image/png"}], "timestamp": 4}
    ]))
}

/// `messages` with the system prompt "Be brief." and the [`read_tool`].
pub fn brief_context(messages: Vec<Message>) -> Context {
    Context {
        system_prompt: Some("Be brief.".into()),
        messages,
        tools: Some(vec![read_tool()]),
        ..Context::default()
    }
}

/// Options of a call in session `session-1` at temperature 1.
pub fn session_options() -> SimpleStreamOptions {
    SimpleStreamOptions {
        base: StreamOptions {
            session_id: Some("session-1".into()),
            temperature: Some(1.0),
            ..StreamOptions::default()
        },
        ..SimpleStreamOptions::default()
    }
}

/// A handoff for the request-borrowing tests: the [`tool_conversation`] of
/// `own` (api, provider, model, call id), then the same turn by `other`,
/// which the cross-provider transform rewrites, in the [`brief_context`].
pub fn handoff_context(own: [&str; 4], other: [&str; 4]) -> Context {
    let [api, provider, model, call_id] = own;
    let mut messages = tool_conversation(api, provider, model, call_id);
    let [api, provider, model, call_id] = other;
    messages.extend(tool_conversation(api, provider, model, call_id));
    brief_context(messages)
}

/// The text of the context's first message, a user's text prompt.
pub fn first_user_text(context: &Context) -> &str {
    match context.messages.first() {
        Some(Message::User(user)) => match &user.content {
            pi_ai::UserContent::Text(text) => text,
            pi_ai::UserContent::Blocks(_) => panic!("the first message is not a text prompt"),
        },
        other => panic!("the first message is not the user's: {other:?}"),
    }
}

/// True when `text` points into `source`: borrowed from it, not a copy.
pub fn points_into(text: &str, source: &str) -> bool {
    std::ptr::eq(text.as_ptr(), source.as_ptr()) && text.len() == source.len()
}
