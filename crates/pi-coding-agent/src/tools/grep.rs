//! `grep {pattern, path?, glob?, ignoreCase?, literal?, context?, limit?}`:
//! searches file contents in-process with ripgrep's crates, honouring
//! `.gitignore` and including hidden files, in pi's output format.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use grep_regex::RegexMatcherBuilder;
use grep_searcher::sinks::Lossy;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;
use pi_agent_core::{AgentToolResult, ArgumentConversion, ToolError, ToolUpdateFn, TypedTool};
use pi_ai::{CancellationToken, UserBlock};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::path::resolve_to_cwd;
use super::truncate::{
    DEFAULT_MAX_BYTES, GREP_MAX_LINE_LENGTH, TruncationOptions, TruncationResult, format_size,
    truncate_head, truncate_line,
};
use super::{OPERATION_ABORTED, StopFlag, run_blocking, text_result, to_count};

/// Matches returned when `limit` is not given.
const DEFAULT_LIMIT: usize = 100;

/// The `grep` tool.
#[derive(Debug)]
pub struct GrepTool {
    cwd: PathBuf,
    parameters: Value,
}

/// The arguments of `grep`, as the model sends them (opaque: built from
/// that JSON).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GrepArgs {
    pattern: String,
    path: Option<String>,
    glob: Option<String>,
    ignore_case: Option<bool>,
    literal: Option<bool>,
    context: Option<f64>,
    limit: Option<f64>,
}

/// `details` when the output was limited, in pi's key order.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
struct GrepDetails {
    #[serde(skip_serializing_if = "Option::is_none")]
    match_limit_reached: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    truncation: Option<TruncationResult>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lines_truncated: Option<bool>,
}

impl GrepTool {
    /// A grep tool searching relative to `cwd`.
    pub fn new(cwd: &Path) -> Self {
        Self {
            cwd: cwd.to_path_buf(),
            parameters: json!({
                "type": "object",
                "required": ["pattern"],
                "properties": {
                    "pattern": {
                        "type": "string",
                        "description": "Regular expression to look for (or plain text with literal=true)"
                    },
                    "path": {
                        "type": "string",
                        "description": "File or directory to search; the working directory when left out"
                    },
                    "glob": {
                        "type": "string",
                        "description": "Only search files matching this glob, for example '*.rs' or 'src/**/*.test.ts'"
                    },
                    "ignoreCase": {
                        "type": "boolean",
                        "description": "Match regardless of letter case (default false)"
                    },
                    "literal": {
                        "type": "boolean",
                        "description": "Take the pattern as plain text, not a regular expression (default false)"
                    },
                    "context": {
                        "type": "number",
                        "description": "Lines of context to show before and after every match (default 0)"
                    },
                    "limit": {
                        "type": "number",
                        "description": "Stop after this many matches (default 100)"
                    }
                }
            }),
        }
    }
}

#[async_trait]
impl TypedTool for GrepTool {
    type Args = GrepArgs;

    fn name(&self) -> &str {
        "grep"
    }

    fn description(&self) -> &str {
        "Search the contents of files for a pattern and get the matching lines as \
         path:line: text. Files ignored by .gitignore are skipped. At most 100 matches \
         (change with limit) or 50KB of output are returned, and lines longer than 500 \
         characters are cut."
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
        args: GrepArgs,
        cancel: CancellationToken,
        _on_update: ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError> {
        let search_path = resolve_to_cwd(args.path.as_deref().unwrap_or("."), &self.cwd);
        run_blocking(&cancel, move |stop| grep(&search_path, &args, &stop)).await
    }
}

/// A match: the file and its 1-based line number.
struct Hit {
    file: PathBuf,
    line: usize,
}

fn grep(
    search_path: &Path,
    args: &GrepArgs,
    stop: &StopFlag,
) -> Result<AgentToolResult, ToolError> {
    let metadata = std::fs::metadata(search_path)
        .map_err(|_| ToolError::new(format!("Path not found: {}", search_path.display())))?;
    let is_dir = metadata.is_dir();
    let limit = args.limit.map_or(DEFAULT_LIMIT, to_count).max(1);
    let context = args.context.map_or(0, to_count);

    let matcher = RegexMatcherBuilder::new()
        .case_insensitive(args.ignore_case.unwrap_or(false))
        .fixed_strings(args.literal.unwrap_or(false))
        .line_terminator(Some(b'\n'))
        .build(&args.pattern)
        .map_err(|e| ToolError::new(e.to_string()))?;
    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        .binary_detection(BinaryDetection::quit(0))
        .build();

    let files: Box<dyn Iterator<Item = Result<PathBuf, ToolError>>> = if is_dir {
        Box::new(walk_files(search_path, args.glob.as_deref())?)
    } else {
        Box::new(std::iter::once(Ok(search_path.to_path_buf())))
    };
    let mut hits: Vec<Hit> = Vec::new();
    for file in files {
        if stop.is_set() {
            return Err(ToolError::new(OPERATION_ABORTED));
        }
        let file = file?;
        let mut found: Vec<usize> = Vec::new();
        let remaining = limit - hits.len();
        let sink = Lossy(|line_number, _line| {
            found.push(usize::try_from(line_number).unwrap_or(usize::MAX));
            Ok(found.len() < remaining)
        });
        // Unreadable files are skipped, as ripgrep does.
        if searcher.search_path(&matcher, &file, sink).is_err() {
            continue;
        }
        hits.extend(found.into_iter().map(|line| Hit {
            file: file.clone(),
            line,
        }));
        if hits.len() >= limit {
            break;
        }
    }
    if hits.is_empty() {
        return Ok(text_result("No matches found"));
    }
    Ok(format_hits(search_path, is_dir, &hits, context, limit))
}

/// The files under `root` that ripgrep would search: hidden files included,
/// `.gitignore` / `.ignore` honoured (also outside git repositories), `.git`
/// skipped, sorted by path, optionally filtered by a ripgrep-style glob.
fn walk_files(
    root: &Path,
    glob: Option<&str>,
) -> Result<impl Iterator<Item = Result<PathBuf, ToolError>>, ToolError> {
    let mut builder = WalkBuilder::new(root);
    builder
        .hidden(false)
        .require_git(false)
        .filter_entry(|entry| entry.file_name() != ".git")
        .sort_by_file_name(|a, b| a.cmp(b));
    if let Some(glob) = glob {
        let overrides = OverrideBuilder::new(root)
            .add(glob)
            .and_then(|b| b.build())
            .map_err(|e| ToolError::new(e.to_string()))?;
        builder.overrides(overrides);
    }
    Ok(builder.build().filter_map(|entry| match entry {
        Ok(entry) if entry.file_type().is_some_and(|t| t.is_file()) => Some(Ok(entry.into_path())),
        Ok(_) | Err(_) => None,
    }))
}

fn format_hits(
    search_path: &Path,
    is_dir: bool,
    hits: &[Hit],
    context: usize,
    limit: usize,
) -> AgentToolResult {
    let mut cache: HashMap<&Path, Vec<String>> = HashMap::new();
    let mut lines_truncated = false;
    let mut out: Vec<String> = Vec::new();
    for hit in hits {
        let shown = display_path(search_path, is_dir, &hit.file);
        let file_lines = cache
            .entry(&hit.file)
            .or_insert_with(|| read_lines(&hit.file));
        if file_lines.is_empty() {
            out.push(format!("{shown}:{}: (unable to read file)", hit.line));
            continue;
        }
        let first = hit.line.saturating_sub(context).max(1);
        let last = (hit.line + context).min(file_lines.len()).max(hit.line);
        for n in first..=last {
            let raw = file_lines
                .get(n - 1)
                .map_or("", String::as_str)
                .replace('\r', "");
            let (text, cut) = truncate_line(&raw, GREP_MAX_LINE_LENGTH);
            lines_truncated |= cut;
            let sep = if n == hit.line { ':' } else { '-' };
            out.push(format!("{shown}{sep}{n}{sep} {text}"));
        }
    }

    let truncation = truncate_head(&out.join("\n"), TruncationOptions::bytes_only());
    let mut text = truncation.content.clone();
    let mut details = GrepDetails::default();
    let mut notices: Vec<String> = Vec::new();
    if hits.len() >= limit {
        notices.push(format!(
            "{limit} matches limit reached. Use limit={} for more, or refine pattern",
            limit * 2
        ));
        details.match_limit_reached = Some(limit);
    }
    if truncation.truncated {
        notices.push(format!("{} limit reached", format_size(DEFAULT_MAX_BYTES)));
        details.truncation = Some(truncation);
    }
    if lines_truncated {
        notices.push(format!(
            "Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines"
        ));
        details.lines_truncated = Some(true);
    }
    if notices.is_empty() {
        return text_result(text);
    }
    text.push_str(&format!("\n\n[{}]", notices.join(". ")));
    AgentToolResult::with_details(vec![UserBlock::text(text)], &details)
}

/// A file's lines with line endings normalized; empty when unreadable.
fn read_lines(path: &Path) -> Vec<String> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes)
            .replace("\r\n", "\n")
            .replace('\r', "\n")
            .split('\n')
            .map(str::to_owned)
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// A path as pi shows it: relative to the searched directory with `/`
/// separators, or the file name when a single file was searched.
pub(crate) fn display_path(search_path: &Path, is_dir: bool, file: &Path) -> String {
    if is_dir
        && let Ok(relative) = file.strip_prefix(search_path)
        && !relative.as_os_str().is_empty()
    {
        return relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
    }
    file.file_name().map_or_else(
        || file.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}
