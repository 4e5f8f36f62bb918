//! What a host asks of pi-rs on behalf of its extensions (the host → pi-rs
//! requests of `docs/extension-protocol.md`), carried out through the same
//! [`ExtensionHandle`] and [`ExtensionContext`] Rust extensions use.

use std::path::Path;
use std::sync::{PoisonError, RwLock};

use serde_json::{Value, json};

use super::connection::{Incoming, Notifier};
use super::protocol::RemoteError;
use crate::extensions::{
    CommandContext, Delivery, ExtensionContext, ExtensionHandle, NewCustomMessage,
};

/// What runs when the connection goes down (the host reports it).
pub(super) type DownFn = Box<dyn Fn(&str) + Send + Sync>;

/// The host → pi-rs side of one host.
#[derive(Default)]
pub(super) struct Calls {
    handle: RwLock<Option<ExtensionHandle>>,
    /// Tokens of the host's requests in progress (its `cancel`).
    cancels: super::streams::Cancels,
    /// The host these calls belong to (tools registered later call it).
    pub(super) host: RwLock<std::sync::Weak<super::Host>>,
    /// Called when the connection goes down.
    pub(super) on_down: RwLock<Option<DownFn>>,
    /// Compactions begun by `prepare`, by request id: their outcome.
    compactions: std::sync::Mutex<std::collections::HashMap<u64, Compaction>>,
}

/// The outcome of a compaction an extension asked for.
type Compaction = tokio::sync::oneshot::Receiver<Result<(), crate::extensions::ExtensionError>>;

/// A failure to answer with.
pub(super) fn error(message: impl std::fmt::Display) -> RemoteError {
    RemoteError {
        message: message.to_string(),
        stack: None,
    }
}

/// The string parameter `name`.
pub(super) fn str_arg<'a>(params: &'a Value, name: &str) -> Result<&'a str, RemoteError> {
    params
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| error(format!("missing string parameter `{name}`")))
}

fn delivery(options: &Value) -> Option<Delivery> {
    match options.get("deliverAs").and_then(Value::as_str) {
        Some("steer") => Some(Delivery::Steer),
        Some("followUp") => Some(Delivery::FollowUp),
        Some("nextTurn") => Some(Delivery::NextTurn),
        _ => None,
    }
}

fn opt_str(value: Option<&Value>) -> Option<&str> {
    value.and_then(Value::as_str)
}

impl Calls {
    /// Ties the calls to the runtime of the app (each load registers again;
    /// the last one is the app's).
    pub(super) fn bind(&self, handle: ExtensionHandle) {
        *self.handle.write().unwrap_or_else(PoisonError::into_inner) = Some(handle);
    }

    pub(super) fn handle(&self) -> Result<ExtensionHandle, RemoteError> {
        self.handle
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .ok_or_else(|| error("Extension runtime not initialized"))
    }

    /// Registrations after load: tools (pi's `registerTool` from a handler
    /// or a command).
    fn register(&self, params: Value) -> Result<Value, RemoteError> {
        let pi = self.handle()?;
        let host = self
            .live_host()
            .ok_or_else(|| error("the extension host is gone"))?;
        let ext = params.get("ext").and_then(Value::as_u64).unwrap_or(0) as usize;
        let tools: Vec<super::protocol::ToolSpec> =
            serde_json::from_value(params.get("tools").cloned().unwrap_or(json!([])))
                .map_err(error)?;
        for spec in &tools {
            let tool = super::hosted::HostTool::new(std::sync::Arc::clone(&host), ext, spec);
            pi.register_tool(
                std::sync::Arc::new(tool),
                spec.prompt_snippet.clone(),
                &spec.prompt_guidelines,
            )
            .map_err(error)?;
        }
        for kind in [
            "commands",
            "shortcuts",
            "flags",
            "messageRenderers",
            "handlers",
            "providers",
        ] {
            if params
                .get(kind)
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty())
            {
                return Err(error(format!(
                    "registering {kind} after an extension loaded is not supported by pi-rs"
                )));
            }
        }
        Ok(Value::Null)
    }

    /// `ui` calls that show a component the host draws: `custom`, and
    /// `setFooter` / `setHeader` / `setWidget` with `{component}` (`None`:
    /// not one).
    async fn component_call(
        &self,
        ctx: &ExtensionContext,
        params: &Value,
    ) -> Option<Result<Value, RemoteError>> {
        let method = params.get("method").and_then(Value::as_str)?;
        let args = params.get("args").unwrap_or(&Value::Null);
        let first = args.get(0).unwrap_or(&Value::Null);
        let id = match method {
            "custom" => args.get("component").and_then(Value::as_u64),
            "setFooter" | "setHeader" | "setWidget" | "setEditorComponent" => {
                let slot = if method == "setWidget" {
                    args.get(1)
                } else {
                    Some(first)
                };
                match slot
                    .and_then(|s| s.get("component"))
                    .and_then(Value::as_u64)
                {
                    Some(id) => Some(id),
                    None => return None,
                }
            }
            _ => return None,
        };
        let host = self.live_host();
        let (Some(host), Some(id)) = (host, id) else {
            return Some(Err(error(format!("ctx.ui.{method}: no component"))));
        };
        let component = |kind| super::component::HostComponent {
            host: std::sync::Arc::clone(&host),
            id,
            kind,
        };
        let ui = ctx.ui();
        Some(match method {
            "custom" => {
                let overlay = args
                    .get("overlay")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                ui.custom(Box::new(component("component")), overlay).await;
                // Answered when the component is gone; its value went to the
                // host through its own `done`.
                Ok(Value::Null)
            }
            "setFooter" => {
                let shown = component("footer");
                ui.set_footer(Some(std::sync::Arc::new(move |width, theme| {
                    shown.lines(width, theme)
                })));
                Ok(Value::Null)
            }
            "setEditorComponent" => {
                let host = std::sync::Arc::clone(&host);
                ui.set_editor_component(Some(std::sync::Arc::new(move || {
                    Box::new(super::component::HostEditor(
                        super::component::HostComponent {
                            host: std::sync::Arc::clone(&host),
                            id,
                            kind: "editor",
                        },
                    ))
                })));
                Ok(Value::Null)
            }
            "setHeader" => {
                let shown = component("header");
                ui.set_header(Some(std::sync::Arc::new(move |width, theme| {
                    shown.lines(width, theme)
                })));
                Ok(Value::Null)
            }
            _ => {
                let shown = component("widget");
                let placement = args
                    .get(2)
                    .and_then(|o| o.get("placement"))
                    .and_then(|p| serde_json::from_value(p.clone()).ok());
                let key = first.as_str().unwrap_or_default();
                ui.set_widget_component(
                    key,
                    Some(std::sync::Arc::new(move |width, theme| {
                        shown.lines(width, theme)
                    })),
                    placement,
                );
                Ok(Value::Null)
            }
        })
    }

    /// The host these calls belong to, while it exists.
    pub(super) fn live_host(&self) -> Option<std::sync::Arc<super::Host>> {
        self.host
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .upgrade()
    }

    async fn call(&self, method: &str, params: Value) -> Result<Value, RemoteError> {
        let pi = self.handle()?;
        let ctx = pi.context();
        match method {
            "send_message" => {
                let message: NewCustomMessage =
                    serde_json::from_value(params.get("message").cloned().unwrap_or(Value::Null))
                        .map_err(error)?;
                let options = params.get("options").cloned().unwrap_or(Value::Null);
                let trigger = options
                    .get("triggerTurn")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                let delivery = delivery(&options);
                if trigger && delivery != Some(Delivery::NextTurn) && ctx.is_idle() {
                    // It starts a run, which pi does not wait for either.
                    tokio::spawn(async move {
                        pi.commands_answered().await;
                        if let Err(e) = pi.send_message(message, delivery, true).await {
                            tracing::warn!("sendMessage failed: {e}");
                        }
                    });
                } else {
                    pi.send_message(message, delivery, trigger)
                        .await
                        .map_err(error)?;
                }
            }
            "send_user_message" => {
                let content: pi_ai::UserContent =
                    serde_json::from_value(params.get("content").cloned().unwrap_or(Value::Null))
                        .map_err(error)?;
                let (text, images) = split_content(content);
                let options = params.get("options").cloned().unwrap_or(Value::Null);
                let delivery = delivery(&options);
                if ctx.is_idle() {
                    // It starts a run (after the `input` handlers).
                    tokio::spawn(async move {
                        pi.commands_answered().await;
                        if let Err(e) = pi.send_user_message(&text, images, delivery).await {
                            tracing::warn!("sendUserMessage failed: {e}");
                        }
                    });
                } else {
                    pi.send_user_message(&text, images, delivery)
                        .await
                        .map_err(error)?;
                }
            }
            "append_entry" => pi
                .append_entry(
                    str_arg(&params, "customType")?,
                    params.get("data").filter(|d| !d.is_null()).cloned(),
                )
                .map_err(error)?,
            "set_session_name" => pi
                .set_session_name(str_arg(&params, "name")?)
                .map_err(error)?,
            "set_label" => pi
                .set_label(str_arg(&params, "entryId")?, opt_str(params.get("label")))
                .map_err(error)?,
            "set_active_tools" => {
                let names: Vec<String> =
                    serde_json::from_value(params.get("names").cloned().unwrap_or(json!([])))
                        .map_err(error)?;
                pi.set_active_tools(&names).map_err(error)?;
            }
            "set_model" => {
                let provider = str_arg(&params, "provider")?;
                let id = str_arg(&params, "id")?;
                let model = ctx
                    .with_model_registry(|r| r.find(Some(provider), id))
                    .ok_or_else(|| error("Extension runtime not initialized"))?
                    .map_err(error)?;
                return pi.set_model(model).await.map(Value::Bool).map_err(error);
            }
            "set_thinking_level" => {
                let level = params
                    .get("level")
                    .filter(|l| l.as_str() != Some("off"))
                    .map(|l| serde_json::from_value(l.clone()))
                    .transpose()
                    .map_err(error)?;
                pi.set_thinking_level(level).map_err(error)?;
            }
            "bus_emit" => pi.emit_bus(
                str_arg(&params, "channel")?,
                params.get("data").unwrap_or(&Value::Null),
            ),
            "api_key" => {
                let provider = str_arg(&params, "provider")?;
                let key = ctx
                    .with_model_registry(|r| {
                        r.models().iter().find(|m| m.provider == provider).cloned()
                    })
                    .flatten()
                    .and_then(|m| ctx.api_key_for(&m));
                return Ok(json!(key));
            }
            "model_auth" => {
                let model = ctx
                    .with_model_registry(|r| {
                        r.find(
                            opt_str(params.get("provider")),
                            str_arg(&params, "id").unwrap_or(""),
                        )
                    })
                    .ok_or_else(|| error("Extension runtime not initialized"))?;
                return Ok(match model {
                    Ok(model) => match ctx.api_key_for(&model) {
                        Some(key) => json!({ "ok": true, "apiKey": key }),
                        None => json!({
                            "ok": false,
                            "error": format!("No API key for {}/{}", model.provider, model.id),
                        }),
                    },
                    Err(e) => json!({ "ok": false, "error": e.to_string() }),
                });
            }
            "unregister" => {
                return Err(error(
                    "unregistering a provider after the extension loaded is not supported by pi-rs",
                ));
            }
            "context" => {
                let result = context_call(&ctx, &params).await;
                // The host reads the new session as soon as it has the answer.
                let host = self.live_host();
                if let Some(host) = host {
                    host.sync_now(&ctx).await;
                }
                return result;
            }
            "ui" => {
                if let Some(answer) = self.terminal_input_call(&ctx, &params) {
                    return answer;
                }
                if let Some(answer) = self.component_call(&ctx, &params).await {
                    return answer;
                }
                return super::ui_calls::ui_call(&ctx, &params).await;
            }
            other => return Err(error(format!("unknown method: {other}"))),
        }
        Ok(Value::Null)
    }
}

/// Text and images of a user message (text parts joined by newlines, as
/// pi's `sendUserMessage` does).
fn split_content(content: pi_ai::UserContent) -> (String, Vec<pi_ai::ImageContent>) {
    match content {
        pi_ai::UserContent::Text(text) => (text, Vec::new()),
        pi_ai::UserContent::Blocks(blocks) => {
            let mut texts = Vec::new();
            let mut images = Vec::new();
            for block in blocks {
                match block {
                    pi_ai::UserBlock::Text(t) => texts.push(t.text),
                    pi_ai::UserBlock::Image(image) => images.push(image),
                }
            }
            (texts.join("\n"), images)
        }
    }
}

/// `ctx` actions (`ctx.abort()`, command-context session changes;
/// `ctx.compact()` begins in `prepare`).
async fn context_call(ctx: &ExtensionContext, params: &Value) -> Result<Value, RemoteError> {
    let method = str_arg(params, "method")?;
    let args = params.get("args").cloned().unwrap_or(Value::Null);
    let command = CommandContext::new(ctx.clone());
    let cancelled = |done: bool| json!({ "cancelled": !done });
    Ok(match method {
        "abort" => {
            ctx.abort();
            Value::Null
        }
        "shutdown" => {
            ctx.shutdown();
            Value::Null
        }
        "waitForIdle" => {
            command.wait_for_idle().await;
            Value::Null
        }
        "newSession" => cancelled(
            command
                .new_session(opt_str(args.get("parentSession")).map(str::to_owned))
                .await
                .map_err(error)?,
        ),
        "fork" => cancelled(
            command
                .fork(str_arg(&args, "entryId")?)
                .await
                .map_err(error)?,
        ),
        "navigateTree" => cancelled(
            command
                .navigate_tree(
                    str_arg(&args, "targetId")?,
                    args.get("summarize")
                        .and_then(Value::as_bool)
                        .unwrap_or(false),
                )
                .await
                .map_err(error)?,
        ),
        "switchSession" => cancelled(
            command
                .switch_session(Path::new(str_arg(&args, "sessionPath")?))
                .await
                .map_err(error)?,
        ),
        "reload" => {
            command.reload().await.map_err(error)?;
            Value::Null
        }
        other => return Err(error(format!("unknown context method: {other}"))),
    })
}

#[async_trait::async_trait]
impl Incoming for Calls {
    async fn request(
        &self,
        id: u64,
        method: String,
        params: Value,
        notifier: Notifier,
    ) -> Result<Value, RemoteError> {
        match method.as_str() {
            "model_stream" | "builtin_tool" => {
                let ctx = self.handle()?.context();
                let cancel = self.cancels.token(id);
                let result = if method == "model_stream" {
                    super::streams::model_stream(&ctx, id, params, &notifier, cancel).await
                } else {
                    super::streams::builtin_tool(&ctx, id, params, &notifier, cancel).await
                };
                self.cancels.done(id);
                result
            }
            "register" => self.register(params),
            "context" => {
                let compaction = self
                    .compactions
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .remove(&id);
                let Some(compaction) = compaction else {
                    return self.call(&method, params).await;
                };
                let result = compaction
                    .await
                    .map_err(|_| error("compaction was dropped"))
                    .and_then(|r| r.map_err(error));
                // The host reads the compacted session as soon as it has the answer.
                let host = self.live_host();
                if let (Some(host), Ok(pi)) = (host, self.handle()) {
                    host.sync_now(&pi.context()).await;
                }
                result.map(|()| Value::Null)
            }
            _ => self.call(&method, params).await,
        }
    }

    fn in_order(&self, method: &str, params: &Value) -> bool {
        match method {
            "append_entry" | "set_session_name" | "set_label" | "set_active_tools"
            | "set_thinking_level" | "bus_emit" | "register" | "unregister" => true,
            // Queued or added at once; one that starts a run starts it in a
            // task of its own.
            "send_message" | "send_user_message" => true,
            // Display calls; not dialogs (they wait for the user) nor
            // components (drawing them asks the host).
            "ui" => {
                let waits = matches!(
                    params.get("method").and_then(Value::as_str),
                    Some("select" | "confirm" | "input" | "editor" | "custom")
                );
                let component = params
                    .get("args")
                    .and_then(Value::as_array)
                    .is_some_and(|args| args.iter().any(|a| a.get("component").is_some()));
                !waits && !component
            }
            _ => false,
        }
    }

    fn prepare(&self, id: u64, method: &str, params: &Value) {
        let compact =
            method == "context" && params.get("method").and_then(Value::as_str) == Some("compact");
        let Ok(pi) = self.handle() else {
            return;
        };
        if !compact {
            return;
        }
        let instructions = params
            .get("args")
            .and_then(|a| opt_str(a.get("customInstructions")))
            .map(str::to_owned);
        let (tx, rx) = tokio::sync::oneshot::channel();
        pi.context().compact(instructions, move |result| {
            let _ = tx.send(result);
        });
        self.compactions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id, rx);
    }

    fn notify(&self, method: &str, params: Value) {
        match method {
            "log" => {
                let message = params.get("message").and_then(Value::as_str).unwrap_or("");
                match params.get("level").and_then(Value::as_str) {
                    Some("error") => tracing::error!(target: "pi::extension_host", "{message}"),
                    Some("warn") => tracing::warn!(target: "pi::extension_host", "{message}"),
                    _ => tracing::debug!(target: "pi::extension_host", "{message}"),
                }
            }
            "cancel" => {
                if let Some(id) = params.get("id").and_then(Value::as_u64) {
                    self.cancels.cancel(id);
                }
            }
            "component_done" => {
                let host = self.live_host();
                if let (Some(host), Some(id)) =
                    (host, params.get("component").and_then(Value::as_u64))
                {
                    host.component_done(id, params.get("value").cloned().unwrap_or(Value::Null));
                }
                if let Ok(pi) = self.handle() {
                    pi.context().ui().request_render();
                }
            }
            "redraw" => {
                if let Ok(pi) = self.handle() {
                    pi.context().ui().request_render();
                }
            }
            "hello" => {
                let protocol = params.get("protocol").and_then(Value::as_u64);
                if protocol != Some(super::protocol::PROTOCOL) {
                    tracing::error!(
                        "extension host speaks protocol {protocol:?}, pi-rs speaks {}",
                        super::protocol::PROTOCOL
                    );
                }
            }
            _ => tracing::debug!("extension host notification {method} ignored"),
        }
    }

    fn down(&self, reason: &str) {
        if let Some(on_down) = &*self.on_down.read().unwrap_or_else(PoisonError::into_inner) {
            on_down(reason);
        }
    }
}
