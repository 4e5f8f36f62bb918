//! `find {pattern, path?, limit?}`: lists files (and directories, with a
//! trailing `/`) whose name — or, for patterns containing `/`, whose path
//! relative to the search directory — matches a glob, honouring
//! `.gitignore` like pi's `fd` call.

use std::path::{Path, PathBuf};

use async_trait::async_trait;
use globset::{GlobBuilder, GlobMatcher};
use ignore::WalkBuilder;
use pi_agent_core::{AgentToolResult, ArgumentConversion, ToolError, ToolUpdateFn, TypedTool};
use pi_ai::{CancellationToken, UserBlock};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::grep::display_path;
use super::path::resolve_to_cwd;
use super::truncate::{
    DEFAULT_MAX_BYTES, TruncationOptions, TruncationResult, format_size, truncate_head,
};
use super::{OPERATION_ABORTED, StopFlag, run_blocking, text_result, to_count};

/// Results returned when `limit` is not given.
const DEFAULT_LIMIT: usize = 1000;

/// The `find` tool.
#[derive(Debug)]
pub struct FindTool {
    cwd: PathBuf,
    parameters: Value,
}

/// The arguments of `find`, as the model sends them (opaque: built from
/// that JSON).
#[derive(Debug, Deserialize)]
pub struct FindArgs {
    pattern: String,
    path: Option<String>,
    limit: Option<f64>,
}

/// `details` when the output was limited, in pi's key order.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
struct FindDetails {
    #[serde(skip_serializing_if = "Option::is_none")]
    result_limit_reached: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    truncation: Option<TruncationResult>,
}

impl FindTool {
    /// A find tool searching relative to `cwd`.
    pub fn new(cwd: &Path) -> Self {
        Self {
            cwd: cwd.to_path_buf(),
            parameters: json!({
                "type": "object",
                "required": ["pattern"],
                "properties": {
                    "pattern": {
                        "type": "string",
                        "description": "Glob to match, for example '*.rs', '**/*.toml' or 'src/**/mod.rs'"
                    },
                    "path": {
                        "type": "string",
                        "description": "Directory to search; the working directory when left out"
                    },
                    "limit": {
                        "type": "number",
                        "description": "Stop after this many results (default 1000)"
                    }
                }
            }),
        }
    }
}

#[async_trait]
impl TypedTool for FindTool {
    type Args = FindArgs;

    fn name(&self) -> &str {
        "find"
    }

    fn description(&self) -> &str {
        "Find files by glob and get their paths relative to the searched directory. Files \
         ignored by .gitignore are skipped. At most 1000 results (change with limit) or 50KB \
         of output are returned."
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
        args: FindArgs,
        cancel: CancellationToken,
        _on_update: ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError> {
        let search_path = resolve_to_cwd(args.path.as_deref().unwrap_or("."), &self.cwd);
        run_blocking(&cancel, move |stop| find(&search_path, &args, &stop)).await
    }
}

fn find(
    search_path: &Path,
    args: &FindArgs,
    stop: &StopFlag,
) -> Result<AgentToolResult, ToolError> {
    if !search_path.exists() {
        return Err(ToolError::new(format!(
            "Path not found: {}",
            search_path.display()
        )));
    }
    let limit = args.limit.map_or(DEFAULT_LIMIT, to_count).max(1);
    let full_path = args.pattern.contains('/');
    let glob: GlobMatcher = GlobBuilder::new(&args.pattern)
        .literal_separator(true)
        .build()
        .map_err(|e| ToolError::new(e.to_string()))?
        .compile_matcher();

    let walker = WalkBuilder::new(search_path)
        .hidden(false)
        .require_git(false)
        .filter_entry(|entry| entry.file_name() != ".git")
        .sort_by_file_name(|a, b| a.cmp(b))
        .build();
    let mut results: Vec<String> = Vec::new();
    for entry in walker {
        if stop.is_set() {
            return Err(ToolError::new(OPERATION_ABORTED));
        }
        let Ok(entry) = entry else { continue };
        if entry.depth() == 0 {
            continue;
        }
        let relative = display_path(search_path, true, entry.path());
        let matched = if full_path {
            glob.is_match(&relative)
        } else {
            glob.is_match(entry.file_name())
        };
        if !matched {
            continue;
        }
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        results.push(if is_dir {
            format!("{relative}/")
        } else {
            relative
        });
        if results.len() >= limit {
            break;
        }
    }
    if results.is_empty() {
        return Ok(text_result("No files found matching pattern"));
    }

    let truncation = truncate_head(&results.join("\n"), TruncationOptions::bytes_only());
    let mut text = truncation.content.clone();
    let mut details = FindDetails::default();
    let mut notices: Vec<String> = Vec::new();
    if results.len() >= limit {
        notices.push(format!(
            "{limit} results limit reached. Use limit={} for more, or refine pattern",
            limit * 2
        ));
        details.result_limit_reached = Some(limit);
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
