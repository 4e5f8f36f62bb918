//! `ls {path?, limit?}`: a directory's entries sorted case-insensitively in
//! Unicode collation order (as pi's `localeCompare` of lower-cased names),
//! dotfiles included, directories marked with a trailing `/`.

use std::path::{Path, PathBuf};

use async_trait::async_trait;
use icu_collator::Collator;
use icu_collator::options::CollatorOptions;
use pi_agent_core::{AgentToolResult, ArgumentConversion, ToolError, ToolUpdateFn, TypedTool};
use pi_ai::{CancellationToken, UserBlock};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::path::resolve_to_cwd;
use super::truncate::{
    DEFAULT_MAX_BYTES, TruncationOptions, TruncationResult, format_size, truncate_head,
};
use super::{run_blocking, text_result, to_count};

/// Entries returned when `limit` is not given.
const DEFAULT_LIMIT: usize = 500;

/// The `ls` tool.
#[derive(Debug)]
pub struct LsTool {
    cwd: PathBuf,
    parameters: Value,
}

/// The arguments of `ls`, as the model sends them (opaque: built from
/// that JSON).
#[derive(Debug, Deserialize)]
pub struct LsArgs {
    path: Option<String>,
    limit: Option<f64>,
}

/// `details` when the output was limited, in pi's key order.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
struct LsDetails {
    #[serde(skip_serializing_if = "Option::is_none")]
    entry_limit_reached: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    truncation: Option<TruncationResult>,
}

impl LsTool {
    /// An ls tool resolving paths against `cwd`.
    pub fn new(cwd: &Path) -> Self {
        Self {
            cwd: cwd.to_path_buf(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {
                        "type": "string",
                        "description": "Directory to list; the working directory when left out"
                    },
                    "limit": {
                        "type": "number",
                        "description": "Stop after this many entries (default 500)"
                    }
                }
            }),
        }
    }
}

#[async_trait]
impl TypedTool for LsTool {
    type Args = LsArgs;

    fn name(&self) -> &str {
        "ls"
    }

    fn description(&self) -> &str {
        "List a directory: entries in alphabetical order, dotfiles included, directories \
         ending in '/'. At most 500 entries (change with limit) or 50KB of output are \
         returned."
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
        args: LsArgs,
        cancel: CancellationToken,
        _on_update: ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError> {
        let dir = resolve_to_cwd(args.path.as_deref().unwrap_or("."), &self.cwd);
        let limit = args.limit.map_or(DEFAULT_LIMIT, to_count).max(1);
        run_blocking(&cancel, move |_| list(&dir, limit)).await
    }
}

fn list(dir: &Path, limit: usize) -> Result<AgentToolResult, ToolError> {
    let metadata = std::fs::metadata(dir)
        .map_err(|_| ToolError::new(format!("Path not found: {}", dir.display())))?;
    if !metadata.is_dir() {
        return Err(ToolError::new(format!(
            "Not a directory: {}",
            dir.display()
        )));
    }
    // Each name as the file system has it (to stat) and as shown: a name that
    // is not UTF-8 is shown with U+FFFD, never hidden.
    let mut shown: std::collections::HashMap<String, std::ffi::OsString> =
        std::collections::HashMap::new();
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| ToolError::new(format!("Cannot read directory: {e}")))?
        .filter_map(|entry| entry.ok())
        .map(|entry| {
            let raw = entry.file_name();
            let name = raw.to_string_lossy().into_owned();
            if raw.to_str().is_none() {
                shown.insert(name.clone(), raw);
            }
            name
        })
        .collect();
    sort_names(&mut names);

    let mut entries: Vec<String> = Vec::new();
    let mut limit_reached = false;
    for name in names {
        if entries.len() >= limit {
            limit_reached = true;
            break;
        }
        let on_disk = shown
            .get(&name)
            .map_or_else(|| dir.join(&name), |raw| dir.join(raw));
        // Entries that cannot be stat'ed (dangling links) are skipped, as pi does.
        let Ok(meta) = std::fs::metadata(on_disk) else {
            continue;
        };
        entries.push(if meta.is_dir() {
            format!("{name}/")
        } else {
            name
        });
    }
    if entries.is_empty() {
        return Ok(text_result("(empty directory)"));
    }

    let truncation = truncate_head(&entries.join("\n"), TruncationOptions::bytes_only());
    let mut text = truncation.content.clone();
    let mut details = LsDetails::default();
    let mut notices: Vec<String> = Vec::new();
    if limit_reached {
        notices.push(format!(
            "{limit} entries limit reached. Use limit={} for more",
            limit * 2
        ));
        details.entry_limit_reached = Some(limit);
    }
    if truncation.truncated {
        notices.push(format!("{} limit reached", format_size(DEFAULT_MAX_BYTES)));
        details.truncation = Some(truncation);
    }
    if notices.is_empty() {
        return Ok(text_result(text));
    }
    text.push_str(&format!("\n\n[{}]", notices.join(". ")));
    Ok(AgentToolResult::with_details(
        vec![UserBlock::text(text)],
        &details,
    ))
}

/// Sorts names as pi does (`a.toLowerCase().localeCompare(b.toLowerCase())`
/// under Node's ICU root collation): punctuation before digits before
/// letters, accents and case as secondary and tertiary differences. Names
/// whose lower-cased forms collate equal (pi keeps the directory's order)
/// are ordered by their bytes.
fn sort_names(names: &mut [String]) {
    let collator = Collator::try_new(Default::default(), CollatorOptions::default());
    let mut keyed: Vec<(String, String)> = names
        .iter_mut()
        .map(|name| (name.to_lowercase(), std::mem::take(name)))
        .collect();
    match &collator {
        Ok(collator) => {
            keyed.sort_by(|(la, a), (lb, b)| collator.compare(la, lb).then_with(|| a.cmp(b)))
        }
        Err(e) => {
            tracing::warn!("no collation data ({e}); sorting ls entries by code point");
            keyed.sort();
        }
    }
    for (slot, (_, name)) in names.iter_mut().zip(keyed) {
        *slot = name;
    }
}

#[cfg(test)]
mod tests {
    use super::{list, sort_names};

    #[test]
    fn a_name_that_is_not_utf8_is_listed_with_a_replacement_character() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let raw = std::ffi::OsStr::from_bytes(b"bad\xffname");
        std::fs::write(dir.path().join(raw), "x").unwrap();
        std::fs::create_dir(dir.path().join(std::ffi::OsStr::from_bytes(b"dir\xfe"))).unwrap();
        let result = list(dir.path(), 500).unwrap();
        let text = serde_json::to_value(&result.content).unwrap()[0]["text"].clone();
        assert_eq!(text, "bad\u{FFFD}name\ndir\u{FFFD}/");
    }

    #[test]
    fn names_sort_in_collation_order_ignoring_case() {
        let mut names: Vec<String> = [
            "b", "_x", "\u{e4}", "10", "B", "-y", "a", "9", ".hidden", "Z",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        sort_names(&mut names);
        assert_eq!(
            names,
            [
                "_x", "-y", ".hidden", "10", "9", "a", "\u{e4}", "B", "b", "Z"
            ]
        );
    }
}
