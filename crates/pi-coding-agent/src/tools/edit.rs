//! `edit {path, edits: [{oldText, newText}, ...]}`: exact-text replacements
//! matched against the original file, keeping its line endings and BOM;
//! `details` carry pi's numbered diff and the first changed line.

use std::path::{Path, PathBuf};

use async_trait::async_trait;
use pi_agent_core::{AgentTool, AgentToolResult, ToolError, ToolUpdateFn};
use pi_ai::{CancellationToken, UserBlock};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::edit_diff::{
    DIFF_CONTEXT_LINES, Edit, apply_edits_to_normalized_content, detect_line_ending,
    generate_diff_string, normalize_to_lf, restore_line_endings, strip_bom,
};
use super::path::resolve_to_cwd;
use super::{node_io_error, parse_args, run_blocking};

/// The `edit` tool.
#[derive(Debug)]
pub struct EditTool {
    cwd: PathBuf,
    parameters: Value,
}

/// The arguments; the single `oldText`/`newText` pair of older pi versions
/// is accepted too and appended to `edits`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct EditArgs {
    path: String,
    #[serde(default)]
    edits: Vec<Edit>,
    old_text: Option<String>,
    new_text: Option<String>,
}

/// `details` of a successful edit, as pi writes them.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct EditDetails {
    diff: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    first_changed_line: Option<usize>,
}

impl EditTool {
    /// An edit tool resolving paths against `cwd`.
    pub fn new(cwd: &Path) -> Self {
        Self {
            cwd: cwd.to_path_buf(),
            parameters: json!({
                "type": "object",
                "required": ["path", "edits"],
                "properties": {
                    "path": {
                        "type": "string",
                        "description": "File to change, relative to the working directory or absolute"
                    },
                    "edits": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["oldText", "newText"],
                            "properties": {
                                "oldText": {
                                    "type": "string",
                                    "description": "Text copied exactly from the current file; it must occur once and must not overlap the oldText of another edit in this call"
                                },
                                "newText": {
                                    "type": "string",
                                    "description": "The text that replaces oldText"
                                }
                            },
                            "additionalProperties": false
                        },
                        "description": "The replacements, each matched against the file as it is now (not after the other edits). Keep them disjoint; combine changes to neighbouring lines into one edit."
                    }
                },
                "additionalProperties": false
            }),
        }
    }
}

#[async_trait]
impl AgentTool for EditTool {
    fn name(&self) -> &str {
        "edit"
    }

    fn label(&self) -> &str {
        "edit"
    }

    fn description(&self) -> &str {
        "Change one file by exact text replacement. Each edits[].oldText has to match one \
         unique spot of the current file, and no two edits may overlap. Put changes that \
         touch the same or adjacent lines into a single edit, and leave out long unchanged \
         stretches between distant changes."
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
        let mut args: EditArgs = parse_args("edit", args)?;
        if let (Some(old_text), Some(new_text)) = (args.old_text.take(), args.new_text.take()) {
            args.edits.push(Edit { old_text, new_text });
        }
        if args.edits.is_empty() {
            return Err(ToolError::new(
                "Edit tool input is invalid. edits must contain at least one replacement.",
            ));
        }
        let absolute = resolve_to_cwd(&args.path, &self.cwd);
        run_blocking(&cancel, move |stop| {
            let result = edit_file(&absolute, &args.path, &args.edits)?;
            if stop.is_set() {
                return Err(ToolError::new(super::OPERATION_ABORTED));
            }
            Ok(result)
        })
        .await
    }
}

fn edit_file(absolute: &Path, path: &str, edits: &[Edit]) -> Result<AgentToolResult, ToolError> {
    let bytes = match std::fs::read(absolute) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ToolError::new(format!("File not found: {path}")));
        }
        Err(e) => return Err(ToolError::new(node_io_error(&e, "open", absolute))),
    };
    let raw = String::from_utf8(bytes).map_err(|_| {
        ToolError::new(format!(
            "Cannot edit {path}: the file is not valid UTF-8 text. Use write to replace it."
        ))
    })?;
    let (bom, content) = strip_bom(&raw);
    let ending = detect_line_ending(content);
    let normalized = normalize_to_lf(content);
    let applied = apply_edits_to_normalized_content(&normalized, edits, path)?;
    let output = format!(
        "{bom}{}",
        restore_line_endings(&applied.new_content, ending)
    );
    std::fs::write(absolute, output.as_bytes())
        .map_err(|e| ToolError::new(node_io_error(&e, "open", absolute)))?;

    let diff = generate_diff_string(
        &applied.base_content,
        &applied.new_content,
        DIFF_CONTEXT_LINES,
    );
    Ok(AgentToolResult::with_details(
        vec![UserBlock::text(format!(
            "Successfully replaced {} block(s) in {path}.",
            edits.len()
        ))],
        &EditDetails {
            diff: diff.diff,
            first_changed_line: diff.first_changed_line,
        },
    ))
}
