//! `edit {path, edits: [{oldText, newText}, ...]}`: exact-text replacements
//! matched against the original file, keeping its line endings and BOM;
//! `details` carry pi's numbered diff and the first changed line.

use std::path::{Path, PathBuf};

use async_trait::async_trait;
use pi_agent_core::{AgentToolResult, ArgumentConversion, ToolError, ToolUpdateFn, TypedTool};
use pi_ai::{CancellationToken, UserBlock};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::edit_diff::{
    DIFF_CONTEXT_LINES, Edit, LineEnding, apply_edits_to_normalized_content, detect_line_ending,
    generate_diff_string, normalize_to_lf, strip_bom, write_with_line_endings,
};
use nix::unistd::{AccessFlags, access};

use super::mutation_queue::lock_file;
use super::path::resolve_to_cwd;
use super::{node_io_error, node_replace_error, run_blocking};
use crate::file_replace::{ReplaceError, ReplaceOptions, replace_file_with};

/// The `edit` tool.
#[derive(Debug)]
pub struct EditTool {
    cwd: PathBuf,
    parameters: Value,
}

/// The arguments of `edit`, after its argument preparation (an `edits`
/// string parsed, the older single-edit shape taken); `edits` that are not
/// an array count as none, as in pi. Opaque: built from the JSON the model
/// sends.
#[derive(Debug, Deserialize)]
pub struct EditArgs {
    path: String,
    #[serde(default, deserialize_with = "edits_or_none")]
    edits: Vec<Edit>,
}

fn edits_or_none<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<Edit>, D::Error> {
    match Value::deserialize(deserializer)? {
        edits @ Value::Array(_) => serde_json::from_value(edits).map_err(serde::de::Error::custom),
        _ => Ok(Vec::new()),
    }
}

/// pi's argument preparation for `edit`, before validation: `edits` sent
/// as a JSON string is parsed in place when it holds an array (so the parsed
/// form is what the transcript replays), and the single `oldText`/`newText`
/// pair of older pi versions becomes a new value whose `edits` gain that
/// pair (the recorded call keeps the legacy shape).
fn prepare_edit_arguments(arguments: &mut Value) -> Option<Value> {
    let object = arguments.as_object_mut()?;
    if let Some(edits) = object.get_mut("edits")
        && let Some(text) = edits.as_str()
        && let Ok(parsed @ Value::Array(_)) = serde_json::from_str::<Value>(text)
    {
        *edits = parsed;
    }
    let (Some(Value::String(old_text)), Some(Value::String(new_text))) =
        (object.get("oldText"), object.get("newText"))
    else {
        return None;
    };
    let legacy = json!({"oldText": old_text, "newText": new_text});
    let mut prepared = object.clone();
    prepared.remove("oldText");
    prepared.remove("newText");
    let mut edits = match prepared.get("edits") {
        Some(Value::Array(edits)) => edits.clone(),
        _ => Vec::new(),
    };
    edits.push(legacy);
    prepared.insert("edits".to_owned(), Value::Array(edits));
    Some(Value::Object(prepared))
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
impl TypedTool for EditTool {
    type Args = EditArgs;

    fn name(&self) -> &str {
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

    fn argument_conversion(&self) -> ArgumentConversion {
        ArgumentConversion::TypeBox
    }

    fn prepare_arguments(&self, arguments: &mut Value) -> Option<Value> {
        prepare_edit_arguments(arguments)
    }

    async fn run(
        &self,
        _call_id: &str,
        args: EditArgs,
        cancel: CancellationToken,
        _on_update: ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError> {
        if args.edits.is_empty() {
            return Err(ToolError::new(
                "Edit tool input is invalid. edits must contain at least one replacement.",
            ));
        }
        let absolute = resolve_to_cwd(&args.path, &self.cwd);
        // Held until the file work ends, even if the call is cancelled first.
        let turn = lock_file(&absolute, &cancel).await?;
        run_blocking(&cancel, move |stop| {
            let _turn = turn;
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
    // pi checks read and write access first and names only the error code.
    if let Err(errno) = access(absolute, AccessFlags::R_OK | AccessFlags::W_OK) {
        return Err(ToolError::new(format!(
            "Could not edit file: {path}. Error code: {errno:?}."
        )));
    }
    if let Ok(metadata) = std::fs::metadata(absolute) {
        super::read::special_file_error(&metadata, path, "edit")?;
    }
    let bytes = std::fs::read(absolute).map_err(|e| ToolError::new(read_error(&e, absolute)))?;
    let raw = String::from_utf8(bytes).map_err(|_| {
        ToolError::new(format!(
            "Cannot edit {path}: the file is not valid UTF-8 text. Use write to replace it."
        ))
    })?;
    let (bom, content) = strip_bom(&raw);
    let ending = detect_line_ending(content);
    let bom = if bom.is_empty() { "" } else { "\u{FEFF}" };
    let mut content = raw;
    content.replace_range(..bom.len(), "");
    // One copy of the file at a time: the LF form replaces the original.
    let content = if content.contains('\r') {
        let normalized = normalize_to_lf(&content).into_owned();
        drop(content);
        normalized
    } else {
        content
    };
    let applied = apply_edits_to_normalized_content(&content, edits, path)?;
    write_file(absolute, bom, &applied.new_content, ending)
        .map_err(|e| ToolError::new(node_replace_error(&e)))?;

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

/// The largest file [`preview_diff`] reads.
const PREVIEW_MAX_BYTES: u64 = 4 * 1024 * 1024;

/// The diff the edit in `arguments` would make to its file now, for the
/// card's preview before the tool runs (pi computes it once the arguments
/// are complete): `None` when the arguments, the file or the match do not
/// allow it (the tool then reports why), or the file is large.
pub fn preview_diff(cwd: &Path, arguments: &Value) -> Option<String> {
    let mut arguments = arguments.clone();
    let arguments = prepare_edit_arguments(&mut arguments).unwrap_or(arguments);
    let args: EditArgs = serde_json::from_value(arguments).ok()?;
    if args.edits.is_empty() {
        return None;
    }
    let absolute = resolve_to_cwd(&args.path, cwd);
    if std::fs::metadata(&absolute).ok()?.len() > PREVIEW_MAX_BYTES {
        return None;
    }
    let raw = std::fs::read_to_string(&absolute).ok()?;
    let (_, content) = strip_bom(&raw);
    let content = normalize_to_lf(content);
    let applied = apply_edits_to_normalized_content(&content, &args.edits, &args.path).ok()?;
    let diff = generate_diff_string(
        &applied.base_content,
        &applied.new_content,
        DIFF_CONTEXT_LINES,
    );
    Some(diff.diff)
}

/// Writes the edited file (BOM, then the text in its line ending), streamed
/// into a temporary file beside it that replaces it atomically
/// ([`crate::file_replace`]): a full disk or a kill leaves the old file.
fn write_file(
    absolute: &Path,
    bom: &str,
    text: &str,
    ending: LineEnding,
) -> Result<(), ReplaceError> {
    replace_file_with(absolute, ReplaceOptions::USER_FILE, |mut out| {
        out.write_all(bom.as_bytes())?;
        write_with_line_endings(&mut out, text, ending)
    })?;
    Ok(())
}

/// A failed read of a file that passed the access check, worded as Node's
/// `readFile` (a directory fails at `read`, without the path).
fn read_error(error: &std::io::Error, absolute: &Path) -> String {
    if error.kind() == std::io::ErrorKind::IsADirectory {
        "EISDIR: illegal operation on a directory, read".to_owned()
    } else {
        node_io_error(error, "open", absolute)
    }
}

#[cfg(test)]
mod tests {
    use super::{prepare_edit_arguments, preview_diff};
    use serde_json::json;

    #[test]
    fn the_preview_is_the_diff_the_edit_would_make_and_touches_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("notes.txt");
        std::fs::write(&file, "alpha\nbeta\ngamma\n").unwrap();
        let args = json!({"path": "notes.txt", "edits": [{"oldText": "beta", "newText": "BETA"}]});
        let diff = preview_diff(dir.path(), &args).unwrap();
        assert!(
            diff.contains("-2 beta") && diff.contains("+2 BETA"),
            "{diff}"
        );
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "alpha\nbeta\ngamma\n"
        );
        // No match, no file, no edits: no preview (the tool says why).
        let missing = json!({"path": "notes.txt", "edits": [{"oldText": "zeta", "newText": "z"}]});
        assert_eq!(preview_diff(dir.path(), &missing), None);
        let nofile = json!({"path": "nope.txt", "edits": [{"oldText": "a", "newText": "b"}]});
        assert_eq!(preview_diff(dir.path(), &nofile), None);
        assert_eq!(
            preview_diff(dir.path(), &json!({"path": "notes.txt"})),
            None
        );
    }

    #[test]
    fn edits_sent_as_a_json_string_are_parsed_in_place() {
        let mut args = json!({"path": "f", "edits": "[{\"oldText\":\"a\",\"newText\":\"b\"}]"});
        assert_eq!(prepare_edit_arguments(&mut args), None);
        assert_eq!(
            args,
            json!({"path": "f", "edits": [{"oldText": "a", "newText": "b"}]})
        );
        // A string that is no JSON array is left for validation to reject.
        let mut args = json!({"path": "f", "edits": "{\"oldText\":\"a\"}"});
        assert_eq!(prepare_edit_arguments(&mut args), None);
        assert_eq!(args["edits"], "{\"oldText\":\"a\"}");
    }

    #[test]
    fn the_legacy_pair_joins_the_edits_in_a_new_value() {
        let mut args = json!({"oldText": "a", "path": "f", "newText": "b"});
        let prepared = prepare_edit_arguments(&mut args).unwrap();
        assert_eq!(args, json!({"oldText": "a", "path": "f", "newText": "b"}));
        assert_eq!(
            serde_json::to_string(&prepared).unwrap(),
            r#"{"path":"f","edits":[{"oldText":"a","newText":"b"}]}"#
        );
        // Only both texts as strings make the legacy shape.
        let mut args = json!({"path": "f", "oldText": "a"});
        assert_eq!(prepare_edit_arguments(&mut args), None);
    }
}
