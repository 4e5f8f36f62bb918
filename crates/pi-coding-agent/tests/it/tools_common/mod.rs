//! Running a tool directly (no agent, no model) and reading its result.

use pi_agent_core::{AgentTool, AgentToolResult, ToolError, ignore_updates};
use pi_ai::CancellationToken;
use serde_json::Value;

/// `tool` run once with `args`, no updates, never cancelled.
pub async fn run(tool: &dyn AgentTool, args: Value) -> Result<AgentToolResult, ToolError> {
    tool.execute("call_1", args, CancellationToken::new(), ignore_updates())
        .await
}

/// The text of the result's first block.
pub fn text(result: &AgentToolResult) -> &str {
    result.content[0].as_text().unwrap()
}
