//! One extension the host loaded, as an [`Extension`] of the runner: it
//! replays what the extension registered, with JSON handlers, tools,
//! commands and shortcuts that call into the host.

use std::sync::Arc;

use pi_agent_core::{AgentTool, AgentToolResult, ToolError, ToolExecutionMode, ToolUpdateFn};
use pi_ai::CancellationToken;
use serde_json::{Value, json};

use super::Host;
use super::protocol::{Loaded, ToolSpec};
use crate::extensions::{Extension, ExtensionApi, ExtensionError, FlagKind};

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

/// A tool whose `execute` runs in the host.
pub(super) struct HostTool {
    host: Arc<Host>,
    ext: usize,
    name: String,
    label: String,
    description: String,
    parameters: Value,
    mode: Option<ToolExecutionMode>,
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
