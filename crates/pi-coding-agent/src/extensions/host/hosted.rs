//! One extension the host loaded, as an [`Extension`] of the runner: it
//! replays what the extension registered, with JSON handlers, tools,
//! commands and shortcuts that call into the host.

use std::sync::Arc;

use pi_agent_core::{AgentTool, AgentToolResult, ToolError, ToolExecutionMode, ToolUpdateFn};
use pi_ai::CancellationToken;
use serde_json::{Value, json};

use super::Host;
use super::protocol::{Loaded, ToolSpec};
use crate::extensions::{
    ContextEvent, Extension, ExtensionApi, ExtensionError, FlagKind, RegisteredTool, RenderShell,
    ToolRenderContext,
};

/// Extension number `index` of a host.
pub(super) struct HostedExtension {
    pub(super) host: Arc<Host>,
    pub(super) index: usize,
    pub(super) loaded: Loaded,
}

impl Extension for HostedExtension {
    fn path(&self) -> String {
        self.loaded.path.clone()
    }

    fn register(&self, api: &mut ExtensionApi<'_>) {
        self.host.calls.bind(api.handle());
        let ext = self.index;
        for (handler, event) in self.loaded.handlers.iter().enumerate() {
            if event == "context" {
                // The transcript crosses as a delta against the last one
                // sent (a long session would otherwise cross whole per turn).
                let host = Arc::clone(&self.host);
                api.on::<ContextEvent, _, _>(move |event, ctx| {
                    let host = Arc::clone(&host);
                    async move {
                        host.context_event(&ctx, ext, handler, event.messages)
                            .await
                            .map_err(|e| ExtensionError::new(e.to_string()))
                    }
                });
                continue;
            }
            let host = Arc::clone(&self.host);
            api.on_json(event, move |event, ctx| {
                let host = Arc::clone(&host);
                async move {
                    let signal = ctx.signal();
                    host.call(
                        &ctx,
                        "event",
                        json!({ "ext": ext, "handler": handler, "event": event }),
                        signal.as_ref(),
                    )
                    .await
                    .map(|answer| (!answer.is_null()).then_some(answer))
                    .map_err(|e| ExtensionError::new(e.to_string()))
                }
            });
        }
        for spec in &self.loaded.tools {
            let tool = HostTool::new(Arc::clone(&self.host), ext, spec);
            let registered = api.register_tool(Arc::new(tool));
            registered.prompt_snippet.clone_from(&spec.prompt_snippet);
            registered
                .prompt_guidelines
                .clone_from(&spec.prompt_guidelines);
            render_hooks(registered, &self.host, ext, spec);
        }
        for custom_type in &self.loaded.message_renderers {
            let host = Arc::clone(&self.host);
            let kind = custom_type.clone();
            api.register_message_renderer(custom_type, move |message, rctx| {
                let params = json!({
                    "kind": "message",
                    "ext": ext,
                    "customType": kind,
                    "message": message,
                    "expanded": rctx.expanded,
                    "width": rctx.width,
                });
                Ok(host.render(params, rctx.theme))
            });
        }
        for command in &self.loaded.commands {
            let host = Arc::clone(&self.host);
            let name = command.name.clone();
            api.register_command(
                &command.name,
                command.description.as_deref(),
                move |args, ctx| {
                    let host = Arc::clone(&host);
                    let name = name.clone();
                    async move {
                        let context = crate::extensions::ExtensionContext::clone(&ctx);
                        host.call(
                            &context,
                            "command",
                            json!({ "ext": ext, "name": name, "args": args }),
                            None,
                        )
                        .await
                        .map(|_| ())
                        .map_err(|e| ExtensionError::new(e.to_string()))
                    }
                },
            );
        }
        for shortcut in &self.loaded.shortcuts {
            let host = Arc::clone(&self.host);
            let key = shortcut.key.clone();
            api.register_shortcut(&shortcut.key, shortcut.description.as_deref(), move |ctx| {
                let host = Arc::clone(&host);
                let key = key.clone();
                async move {
                    host.call(&ctx, "shortcut", json!({ "ext": ext, "key": key }), None)
                        .await
                        .map(|_| ())
                        .map_err(|e| ExtensionError::new(e.to_string()))
                }
            });
        }
        for flag in &self.loaded.flags {
            let kind = if flag.kind == "string" {
                FlagKind::String
            } else {
                FlagKind::Boolean
            };
            api.register_flag(
                &flag.name,
                kind,
                flag.description.as_deref(),
                flag.default.clone(),
            );
        }
        for provider in &self.loaded.providers {
            api.register_provider(&provider.name, provider.config.clone());
        }
    }
}

/// The tool's render hooks, drawn by the host.
fn render_hooks(registered: &mut RegisteredTool, host: &Arc<Host>, ext: usize, spec: &ToolSpec) {
    let fields = move |kind: &str, name: &str, rctx: &ToolRenderContext<'_>| {
        json!({
            "ext": ext,
            "kind": kind,
            "name": name,
            "toolCallId": rctx.tool_call_id,
            "args": rctx.args,
            "width": rctx.width,
            "expanded": rctx.expanded,
            "isPartial": rctx.is_partial,
            "isError": rctx.is_error,
            "executionStarted": rctx.execution_started,
            "argsComplete": rctx.args_complete,
        })
    };
    let no_lines = || ExtensionError::new("no lines from the extension host");
    if spec.render_call {
        let host = Arc::clone(host);
        let name = spec.name.clone();
        registered.set_render_call(move |_, rctx| {
            host.render(fields("call", &name, rctx), rctx.theme)
                .ok_or_else(no_lines)
        });
    }
    if spec.render_result {
        let host = Arc::clone(host);
        let name = spec.name.clone();
        registered.set_render_result(move |result, options, rctx| {
            let mut params = fields("result", &name, rctx);
            params["result"] = json!({
                "content": result.content,
                "details": result.details,
                "isError": rctx.is_error,
            });
            params["expanded"] = json!(options.expanded);
            params["isPartial"] = json!(options.is_partial);
            host.render(params, rctx.theme).ok_or_else(no_lines)
        });
    }
    if spec.render_shell.as_deref() == Some("self") {
        registered.set_render_shell(RenderShell::SelfDrawn);
    }
}

/// A tool whose `execute` runs in the host.
pub(super) struct HostTool {
    host: Arc<Host>,
    ext: usize,
    name: String,
    label: String,
    description: String,
    parameters: Value,
    mode: Option<ToolExecutionMode>,
    prepare: bool,
}

impl HostTool {
    pub(super) fn new(host: Arc<Host>, ext: usize, spec: &ToolSpec) -> Self {
        Self {
            host,
            ext,
            name: spec.name.clone(),
            label: spec.label.clone().unwrap_or_else(|| spec.name.clone()),
            description: spec.description.clone(),
            parameters: if spec.parameters.is_null() {
                json!({"type": "object", "properties": {}})
            } else {
                spec.parameters.clone()
            },
            mode: match spec.execution_mode.as_deref() {
                Some("sequential") => Some(ToolExecutionMode::Sequential),
                Some("parallel") => Some(ToolExecutionMode::Parallel),
                _ => None,
            },
            prepare: spec.prepare_arguments,
        }
    }
}

#[async_trait::async_trait]
impl AgentTool for HostTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> &Value {
        &self.parameters
    }

    fn execution_mode(&self) -> Option<ToolExecutionMode> {
        self.mode
    }

    fn prepare_arguments(&self, arguments: &mut Value) -> Option<Value> {
        if !self.prepare {
            return None;
        }
        self.host.prepare_arguments(self.ext, &self.name, arguments)
    }

    async fn execute(
        &self,
        call_id: &str,
        args: Value,
        cancel: CancellationToken,
        on_update: ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError> {
        let (updates, mut partials) = tokio::sync::mpsc::unbounded_channel::<Value>();
        let forward = tokio::spawn(async move {
            while let Some(partial) = partials.recv().await {
                if let Ok(result) = serde_json::from_value::<AgentToolResult>(partial) {
                    on_update(result);
                }
            }
        });
        let result = self
            .host
            .call_tool(
                json!({
                    "ext": self.ext,
                    "name": self.name,
                    "toolCallId": call_id,
                    "params": args,
                }),
                updates,
                &cancel,
            )
            .await;
        let _ = forward.await;
        let value = result.map_err(|e| ToolError::new(e.to_string()))?;
        serde_json::from_value(value)
            .map_err(|e| ToolError::new(format!("the extension's tool result is not valid: {e}")))
    }
}
