//! MCP tools as agent tools: each server tool under its namespaced name,
//! with the server's schema and description, and one `read_resource` tool
//! per server that has resources.

use std::sync::Arc;

use pi_agent_core::{AgentTool, AgentToolResult, ToolError, ToolUpdateFn};
use pi_ai::CancellationToken;
use rmcp::model::{ResourceContents, Tool};
use serde_json::{Value, json};

use super::server::Server;

/// A server's tool.
pub struct McpTool {
    name: String,
    description: String,
    parameters: Value,
    /// Its name on the server.
    pub mcp_name: String,
    /// Its server.
    pub server: Arc<Server>,
}

/// A tool's input schema as pi sends it: an object schema (an empty one
/// when the server gave something else).
fn parameters(tool: &Tool) -> Value {
    let schema = Value::Object((*tool.input_schema).clone());
    if schema.get("type").and_then(Value::as_str) == Some("object") {
        schema
    } else {
        json!({"type": "object", "properties": {}})
    }
}

impl McpTool {
    /// `tool` of `server` under `name`.
    pub fn new(name: String, tool: &Tool, server: Arc<Server>) -> Self {
        let description = tool
            .description
            .as_deref()
            .or(tool.title.as_deref())
            .unwrap_or_default()
            .to_owned();
        Self {
            name,
            description,
            parameters: parameters(tool),
            mcp_name: tool.name.to_string(),
            server,
        }
    }
}

#[async_trait::async_trait]
impl AgentTool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn label(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> &Value {
        &self.parameters
    }

    async fn execute(
        &self,
        _call_id: &str,
        args: Value,
        cancel: CancellationToken,
        on_update: ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError> {
        self.server
            .call_tool(&self.mcp_name, args, cancel, on_update)
            .await
    }
}

/// Reads a server's resources by URI.
pub struct ResourceTool {
    name: String,
    description: String,
    parameters: Value,
    server: Arc<Server>,
}

/// Resources named in the tool's description, at most.
const LISTED_RESOURCES: usize = 50;

impl ResourceTool {
    /// The resource reader of `server` under `name`.
    pub fn new(name: String, server: Arc<Server>) -> Self {
        let resources = server.snapshot().offer.resources;
        let mut description = format!(
            "Reads a resource of the MCP server \"{}\" by its URI.",
            server.name()
        );
        if !resources.is_empty() {
            description.push_str(" Its resources:");
            for resource in resources.iter().take(LISTED_RESOURCES) {
                description.push_str(&format!("\n- {} ({})", resource.uri, resource.name));
                if let Some(mime) = &resource.mime_type {
                    description.push_str(&format!(" [{mime}]"));
                }
            }
            if resources.len() > LISTED_RESOURCES {
                description.push_str(&format!(
                    "\n- ... and {} more",
                    resources.len() - LISTED_RESOURCES
                ));
            }
        }
        Self {
            name,
            description,
            parameters: json!({
                "type": "object",
                "properties": {"uri": {"type": "string", "description": "The resource's URI"}},
                "required": ["uri"]
            }),
            server,
        }
    }
}

#[async_trait::async_trait]
impl AgentTool for ResourceTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn label(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> &Value {
        &self.parameters
    }

    async fn execute(
        &self,
        _call_id: &str,
        args: Value,
        cancel: CancellationToken,
        _on_update: ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError> {
        let uri = args["uri"].as_str().unwrap_or_default().to_owned();
        let read = async {
            let connection = self.server.connected().await?;
            connection
                .read_resource(&uri)
                .await
                .map_err(|e| ToolError::new(format!("MCP server {}: {e}", self.server.name())))
        };
        let result = tokio::select! {
            result = read => result?,
            () = cancel.cancelled() => return Err(ToolError::new("MCP resource read aborted")),
        };
        let mut text = String::new();
        let mut images = Vec::new();
        for contents in result.contents {
            match contents {
                ResourceContents::TextResourceContents { text: part, .. } => {
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    text.push_str(&part);
                }
                ResourceContents::BlobResourceContents {
                    mime_type, blob, ..
                } if mime_type
                    .as_deref()
                    .is_some_and(|m| m.starts_with("image/")) =>
                {
                    images.push(pi_ai::UserBlock::image(blob, mime_type.unwrap_or_default()));
                }
                ResourceContents::BlobResourceContents {
                    uri: at,
                    mime_type,
                    blob,
                    ..
                } => text.push_str(&format!(
                    "\n[binary resource {at} ({}, {} base64 bytes) not shown]",
                    mime_type.as_deref().unwrap_or("binary"),
                    blob.len()
                )),
                _ => text.push_str("\n[resource contents not shown]"),
            }
        }
        let (shown, truncation) = super::result::truncate(&text, "pi-mcp");
        let mut details = json!({"server": self.server.name(), "uri": uri});
        if let Some((_, path)) = truncation {
            details["fullOutputPath"] = json!(path);
        }
        let mut content = vec![pi_ai::UserBlock::text(shown)];
        content.extend(images);
        Ok(AgentToolResult {
            content,
            details,
            terminate: None,
        })
    }
}
