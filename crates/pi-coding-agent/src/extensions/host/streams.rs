//! Host requests that answer over time: a model call through pi-rs's
//! providers (`model_stream`, pi-ai's `stream` / `complete` in the host),
//! and a built-in tool run for the host's tool factories (`builtin_tool`,
//! pi's `createBashTool` and the others). Progress goes to the host as
//! notifications tagged with the request's id.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use futures::StreamExt;
use pi_ai::CancellationToken;
use serde_json::{Value, json};

use super::connection::Notifier;
use super::protocol::RemoteError;
use crate::extensions::ExtensionContext;

fn error(message: impl std::fmt::Display) -> RemoteError {
    RemoteError {
        message: message.to_string(),
        stack: None,
    }
}

/// The cancellation tokens of the host's requests in progress, by id.
#[derive(Default)]
pub(super) struct Cancels(Mutex<HashMap<u64, CancellationToken>>);

impl Cancels {
    /// A token for request `id`, until [`Cancels::done`].
    pub(super) fn token(&self, id: u64) -> CancellationToken {
        let token = CancellationToken::new();
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id, token.clone());
        token
    }

    /// Request `id` ended.
    pub(super) fn done(&self, id: u64) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id);
    }

    /// The host cancelled request `id`.
    pub(super) fn cancel(&self, id: u64) {
        if let Some(token) = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&id)
        {
            token.cancel();
        }
    }
}

/// The model a request names: pi's whole `Model` JSON, or `{provider, id}`
/// looked up in the registry.
fn model_of(ctx: &ExtensionContext, value: &Value) -> Result<pi_ai::Model, RemoteError> {
    if let Ok(model) = serde_json::from_value::<pi_ai::Model>(value.clone()) {
        return Ok(model);
    }
    let provider = value.get("provider").and_then(Value::as_str);
    let id = value
        .get("id")
        .and_then(Value::as_str)
        .ok_or_else(|| error("model_stream: `model` names no model"))?;
    ctx.with_model_registry(|r| r.find(provider, id))
        .ok_or_else(|| error("Extension runtime not initialized"))?
        .map_err(error)
}

/// `model_stream {model, context, options}`: the events as `model_event`
/// notifications, the final message as the result.
pub(super) async fn model_stream(
    ctx: &ExtensionContext,
    id: u64,
    params: Value,
    notifier: &Notifier,
    cancel: CancellationToken,
) -> Result<Value, RemoteError> {
    let model = model_of(ctx, params.get("model").unwrap_or(&Value::Null))?;
    let context: pi_ai::Context =
        serde_json::from_value(params.get("context").cloned().unwrap_or(json!({})))
            .map_err(|e| error(format!("model_stream: the context is not valid: {e}")))?;
    let options = params.get("options").cloned().unwrap_or(Value::Null);
    let mut base = pi_ai::StreamOptions {
        cancel,
        api_key: options
            .get("apiKey")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| ctx.api_key_for(&model)),
        max_tokens: options.get("maxTokens").and_then(Value::as_u64),
        temperature: options.get("temperature").and_then(Value::as_f64),
        session_id: options
            .get("sessionId")
            .and_then(Value::as_str)
            .map(str::to_owned),
        ..pi_ai::StreamOptions::default()
    };
    if let Some(headers) = options.get("headers").and_then(Value::as_object) {
        for (name, value) in headers {
            if let Some(value) = value.as_str() {
                base.headers.insert(name.clone(), value.to_owned());
            }
        }
    }
    let reasoning = options
        .get("reasoning")
        .and_then(|r| serde_json::from_value::<pi_ai::ThinkingLevel>(r.clone()).ok());
    let mut stream = match reasoning {
        Some(level) => pi_ai::stream_simple(
            &model,
            &context,
            pi_ai::SimpleStreamOptions {
                base,
                reasoning: Some(level),
                ..pi_ai::SimpleStreamOptions::default()
            },
        ),
        None => pi_ai::stream(&model, &context, base),
    };
    let mut last = Value::Null;
    while let Some(event) = stream.next().await {
        if let Some(message) = event.final_message() {
            last = serde_json::to_value(message).unwrap_or(Value::Null);
        }
        notifier.notify(
            "model_event",
            json!({ "id": id, "event": serde_json::to_value(&event).unwrap_or(Value::Null) }),
        );
    }
    Ok(last)
}

/// `builtin_tool {name, toolCallId, params, cwd?}`: one of pi-rs's tools,
/// its updates as `builtin_tool_update` notifications, its result as pi's.
pub(super) async fn builtin_tool(
    ctx: &ExtensionContext,
    id: u64,
    params: Value,
    notifier: &Notifier,
    cancel: CancellationToken,
) -> Result<Value, RemoteError> {
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| error("builtin_tool: missing `name`"))?;
    let cwd = params
        .get("cwd")
        .and_then(Value::as_str)
        .map_or_else(|| ctx.cwd().to_path_buf(), std::path::PathBuf::from);
    let tool = crate::tools::create_tool(&cwd, name).map_err(error)?;
    let call_id = params
        .get("toolCallId")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let updates = notifier.clone();
    let on_update: pi_agent_core::ToolUpdateFn = std::sync::Arc::new(move |partial| {
        updates.notify(
            "builtin_tool_update",
            json!({ "id": id, "partial": serde_json::to_value(partial).unwrap_or(Value::Null) }),
        );
    });
    let args = params.get("params").cloned().unwrap_or(json!({}));
    let result = tool
        .execute(&call_id, args, cancel, on_update)
        .await
        .map_err(|e| error(e.message()))?;
    serde_json::to_value(result).map_err(error)
}
