//! `write {path, content}`: creates or overwrites a file, creating parent
//! directories, and reports the bytes written.

use std::path::{Path, PathBuf};

use async_trait::async_trait;
use pi_agent_core::{AgentToolResult, ArgumentConversion, ToolError, ToolUpdateFn, TypedTool};
use pi_ai::CancellationToken;
use serde::Deserialize;
use serde_json::{Value, json};

use super::mutation_queue::lock_file;
use super::path::resolve_to_cwd;
use super::{node_io_error, node_replace_error, run_blocking, text_result};
use crate::file_replace::{ReplaceOptions, replace_file};

/// The `write` tool.
#[derive(Debug)]
pub struct WriteTool {
    cwd: PathBuf,
    parameters: Value,
}

/// The arguments of `write`, as the model sends them (opaque: built from
/// that JSON).
#[derive(Debug, Deserialize)]
pub struct WriteArgs {
    path: String,
    content: String,
}

impl WriteTool {
    /// A write tool resolving paths against `cwd`.
    pub fn new(cwd: &Path) -> Self {
        Self {
            cwd: cwd.to_path_buf(),
            parameters: json!({
                "type": "object",
                "required": ["path", "content"],
                "properties": {
                    "path": {
                        "type": "string",
                        "description": "File to write, relative to the working directory or absolute"
                    },
                    "content": {
                        "type": "string",
                        "description": "The complete new content of the file"
                    }
                }
            }),
        }
    }
}

#[async_trait]
impl TypedTool for WriteTool {
    type Args = WriteArgs;

    fn name(&self) -> &str {
        "write"
    }

    fn description(&self) -> &str {
        "Write a file with the given content: a new file is created, an existing one is \
         replaced entirely. Missing parent directories are created."
    }

    fn parameters(&self) -> &Value {
        &self.parameters
    }

    fn argument_conversion(&self) -> ArgumentConversion {
        ArgumentConversion::TypeBox
    }

    async fn run(
        &self,
        _call_id: &str,
        args: WriteArgs,
        cancel: CancellationToken,
        _on_update: ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError> {
        let absolute = resolve_to_cwd(&args.path, &self.cwd);
        // Held until the file work ends, even if the call is cancelled first.
        let turn = lock_file(&absolute, &cancel).await?;
        run_blocking(&cancel, move |_| {
            let _turn = turn;
            if let Some(parent) = absolute.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| ToolError::new(node_io_error(&e, "mkdir", parent)))?;
            }
            // Atomically at its real path: a full disk or a kill leaves the old file.
            replace_file(
                &absolute,
                ReplaceOptions::USER_FILE,
                args.content.as_bytes(),
            )
            .map_err(|e| ToolError::new(node_replace_error(&e)))?;
            Ok(text_result(format!(
                "Successfully wrote {} bytes to {}",
                args.content.len(),
                args.path
            )))
        })
        .await
    }
}
