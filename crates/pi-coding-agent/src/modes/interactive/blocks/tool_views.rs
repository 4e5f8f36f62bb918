//! What each built-in tool shows in its card (pi's `renderCall` /
//! `renderResult`): the header (`read path:1-20`, `$ command`, `edit path`,
//! `write path` with a content preview, `grep /p/ in dir`, `find p in dir`,
//! `ls dir`) and the collapsed result previews (read 10 lines, bash the
//! last 5 visual lines, write 10, grep 15, find and ls 20) with their
//! `... (N more lines, ctrl+o to expand)` hints and truncation warnings.

use std::path::Path;

use pi_tui::text::wrap;
use pi_tui::theme::{Theme, Token};
use serde_json::Value;

use crate::modes::interactive::format::shorten_home;

/// The text of a string argument: `Some("")` for a missing one, `None`
/// for one of another type (shown as `[invalid arg]`).
/// The text is sanitized: it comes from the model.
fn str_arg(args: &Value, keys: &[&str]) -> Option<String> {
    for key in keys {
        match args.get(key) {
            Some(Value::String(s)) => return Some(pi_tui::text::sanitize(s)),
            Some(Value::Null) | None => {}
            Some(_) => return None,
        }
    }
    Some(String::new())
}

fn invalid(theme: &Theme) -> String {
    theme.fg(Token::Error, "[invalid arg]")
}

/// A path argument as shown: `~` for home, `...` while still empty.
fn path_display(theme: &Theme, raw: Option<&str>, home: Option<&Path>, empty: &str) -> String {
    match raw {
        None => invalid(theme),
        Some("") if empty.is_empty() => theme.fg(Token::ToolOutput, "..."),
        Some("") => theme.fg(Token::Accent, empty),
        Some(p) => theme.fg(Token::Accent, &shorten_home(p, home)),
    }
}

fn number_arg(args: &Value, key: &str) -> Option<String> {
    match args.get(key) {
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        _ => None,
    }
}

fn title(theme: &Theme, text: &str) -> String {
    theme.fg(Token::ToolTitle, &theme.bold(text))
}

/// The `... (N more lines, ctrl+o to expand)` hint.
pub fn more_hint(theme: &Theme, text: &str) -> String {
    format!(
        "{} {}",
        theme.fg(Token::Muted, &format!("... ({text},")),
        format_args!(
            "{}{}",
            theme.fg(Token::Dim, "ctrl+o"),
            theme.fg(Token::Muted, " to expand)")
        )
    )
}

/// The header of a call of `name` with `args` (may span several lines).
pub fn header(theme: &Theme, name: &str, args: &Value, home: Option<&Path>) -> String {
    match name {
        "read" => {
            let path = path_display(
                theme,
                str_arg(args, &["file_path", "path"]).as_deref(),
                home,
                "",
            );
            let offset = number_arg(args, "offset");
            let limit = args.get("limit").and_then(Value::as_u64);
            let range = match (offset.as_deref(), limit) {
                (None, None) => String::new(),
                (start, limit) => {
                    let start_line: u64 = start.and_then(|s| s.parse().ok()).unwrap_or(1);
                    let end = limit.map_or(String::new(), |l| format!("-{}", start_line + l - 1));
                    theme.fg(Token::Warning, &format!(":{}{end}", start.unwrap_or("1")))
                }
            };
            format!("{} {path}{range}", title(theme, "read"))
        }
        "bash" => {
            let command = match str_arg(args, &["command"]).as_deref() {
                None => invalid(theme),
                Some("") => theme.fg(Token::ToolOutput, "..."),
                Some(c) => c.to_owned(),
            };
            let timeout = number_arg(args, "timeout")
                .map(|t| theme.fg(Token::Muted, &format!(" (timeout {t}s)")))
                .unwrap_or_default();
            format!("{}{timeout}", title(theme, &format!("$ {command}")))
        }
        "edit" => {
            let path = path_display(
                theme,
                str_arg(args, &["file_path", "path"]).as_deref(),
                home,
                "",
            );
            format!("{} {path}", title(theme, "edit"))
        }
        "write" => {
            let path = path_display(
                theme,
                str_arg(args, &["file_path", "path"]).as_deref(),
                home,
                "",
            );
            format!("{} {path}", title(theme, "write"))
        }
        "grep" => {
            let pattern = match str_arg(args, &["pattern"]).as_deref() {
                None => invalid(theme),
                Some(p) => theme.fg(Token::Accent, &format!("/{p}/")),
            };
            let path = match str_arg(args, &["path"]).as_deref() {
                None => invalid(theme),
                Some(p) => shorten_home(if p.is_empty() { "." } else { p }, home),
            };
            let mut text = format!(
                "{} {pattern}{}",
                title(theme, "grep"),
                theme.fg(Token::ToolOutput, &format!(" in {path}"))
            );
            if let Some(glob) = str_arg(args, &["glob"])
                .as_deref()
                .filter(|g| !g.is_empty())
            {
                text.push_str(&theme.fg(Token::ToolOutput, &format!(" ({glob})")));
            }
            if let Some(limit) = number_arg(args, "limit") {
                text.push_str(&theme.fg(Token::ToolOutput, &format!(" limit {limit}")));
            }
            text
        }
        "find" => {
            let pattern = match str_arg(args, &["pattern"]).as_deref() {
                None => invalid(theme),
                Some(p) => theme.fg(Token::Accent, p),
            };
            let path = match str_arg(args, &["path"]).as_deref() {
                None => invalid(theme),
                Some(p) => shorten_home(if p.is_empty() { "." } else { p }, home),
            };
            let mut text = format!(
                "{} {pattern}{}",
                title(theme, "find"),
                theme.fg(Token::ToolOutput, &format!(" in {path}"))
            );
            if let Some(limit) = number_arg(args, "limit") {
                text.push_str(&theme.fg(Token::ToolOutput, &format!(" (limit {limit})")));
            }
            text
        }
        "ls" => {
            let path = path_display(theme, str_arg(args, &["path"]).as_deref(), home, ".");
            let mut text = format!("{} {path}", title(theme, "ls"));
            if let Some(limit) = number_arg(args, "limit") {
                text.push_str(&theme.fg(Token::ToolOutput, &format!(" (limit {limit})")));
            }
            text
        }
        other => title(theme, other),
    }
}

/// The `write` call's content preview (below its header).
pub fn write_preview(theme: &Theme, args: &Value, expanded: bool) -> Vec<String> {
    let content = match args.get("content") {
        Some(Value::String(s)) => s.replace('\r', ""),
        None | Some(Value::Null) => return Vec::new(),
        Some(_) => {
            return vec![
                String::new(),
                theme.fg(Token::Error, "[invalid content arg - expected string]"),
            ];
        }
    };
    if content.is_empty() {
        return Vec::new();
    }
    let content = pi_tui::text::sanitize(&content);
    let lines = trim_trailing_empty(content.split('\n').collect());
    let total = lines.len();
    let shown = if expanded { total } else { total.min(10) };
    let mut out = vec![String::new()];
    let path = str_arg(args, &["file_path", "path"]);
    match highlight(theme, path.as_deref(), &lines[..shown]) {
        Some(highlighted) => out.extend(highlighted),
        None => out.extend(
            lines[..shown]
                .iter()
                .map(|l| theme.fg(Token::ToolOutput, l)),
        ),
    }
    if total > shown {
        let more = format!("{} more lines, {total} total", total - shown);
        out.push(more_hint(theme, &more));
    }
    out
}

/// `lines` highlighted as the language of `path` (`None`: unknown or plain text).
fn highlight(theme: &Theme, path: Option<&str>, lines: &[&str]) -> Option<Vec<String>> {
    let lang = pi_tui::highlight::language_for_path(path?)?;
    if lang.eq_ignore_ascii_case("plain text") {
        return None;
    }
    let mut h = pi_tui::highlight::Highlighter::new(&lang)?;
    Some(lines.iter().map(|l| h.line(l, theme)).collect())
}

fn trim_trailing_empty(mut lines: Vec<&str>) -> Vec<&str> {
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// A tool's result as the card shows it.
#[derive(Debug, Clone, Default)]
pub struct ToolOutput {
    /// The text blocks joined by `\n`, sanitized; where images are not drawn, pi's
    /// placeholder of each (`[Image: [image/png] 800x600]`) on a line of its own.
    pub text: String,
    /// The result's `details`.
    pub details: Value,
    /// True for a failed call.
    pub is_error: bool,
}

fn head_preview(theme: &Theme, text: &str, max: usize, expanded: bool) -> Vec<String> {
    let text = text.trim();
    if text.is_empty() {
        return Vec::new();
    }
    let lines: Vec<&str> = text.split('\n').collect();
    let shown = if expanded {
        lines.len()
    } else {
        lines.len().min(max)
    };
    let mut out = vec![String::new()];
    out.extend(
        lines[..shown]
            .iter()
            .map(|l| theme.fg(Token::ToolOutput, l)),
    );
    if lines.len() > shown {
        out.push(more_hint(
            theme,
            &format!("{} more lines", lines.len() - shown),
        ));
    }
    out
}

fn format_size(bytes: u64) -> String {
    // Sizes are far below 2^52.
    let b = bytes as f64;
    if bytes < 1024 {
        format!("{bytes}B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1}KB", b / 1024.0)
    } else {
        format!("{:.1}MB", b / (1024.0 * 1024.0))
    }
}

fn limit_size(truncation: &Value) -> String {
    format_size(
        truncation
            .get("maxBytes")
            .and_then(Value::as_u64)
            .unwrap_or(50 * 1024),
    )
}

fn truncated(details: &Value) -> Option<&Value> {
    details
        .get("truncation")
        .filter(|t| t.get("truncated").and_then(Value::as_bool) == Some(true))
}

fn warning(theme: &Theme, text: &str) -> String {
    theme.fg(Token::Warning, text)
}

/// The result lines of `read`, highlighted as the file's language.
fn read_result(theme: &Theme, args: &Value, out: &ToolOutput, expanded: bool) -> Vec<String> {
    let text = out.text.replace('\t', "   ");
    let lines = trim_trailing_empty(text.split('\n').collect());
    let shown = if expanded {
        lines.len()
    } else {
        lines.len().min(10)
    };
    let mut result = vec![String::new()];
    let path = str_arg(args, &["file_path", "path"]).filter(|_| !out.is_error);
    match highlight(theme, path.as_deref(), &lines[..shown]) {
        Some(highlighted) => result.extend(highlighted),
        None => result.extend(
            lines[..shown]
                .iter()
                .map(|l| theme.fg(Token::ToolOutput, l)),
        ),
    }
    if lines.len() > shown {
        result.push(more_hint(
            theme,
            &format!("{} more lines", lines.len() - shown),
        ));
    }
    if let Some(t) = truncated(&out.details) {
        let get = |k: &str| t.get(k).and_then(Value::as_u64).unwrap_or(0);
        let text = if t.get("firstLineExceedsLimit").and_then(Value::as_bool) == Some(true) {
            format!("[First line exceeds {} limit]", limit_size(t))
        } else if t.get("truncatedBy").and_then(Value::as_str) == Some("lines") {
            let max = t.get("maxLines").and_then(Value::as_u64).unwrap_or(2000);
            format!(
                "[Truncated: showing {} of {} lines ({max} line limit)]",
                get("outputLines"),
                get("totalLines")
            )
        } else {
            format!(
                "[Truncated: {} lines shown ({} limit)]",
                get("outputLines"),
                limit_size(t)
            )
        };
        result.push(warning(theme, &text));
    }
    result
}

fn search_result(theme: &Theme, name: &str, out: &ToolOutput, expanded: bool) -> Vec<String> {
    let max = if name == "grep" { 15 } else { 20 };
    let mut lines = head_preview(theme, &out.text, max, expanded);
    let d = &out.details;
    let mut warnings = Vec::new();
    let limit_key = match name {
        "grep" => ("matchLimitReached", "matches limit"),
        "find" => ("resultLimitReached", "results limit"),
        _ => ("entryLimitReached", "entries limit"),
    };
    if let Some(n) = d
        .get(limit_key.0)
        .filter(|v| !v.is_null() && *v != &Value::Bool(false))
    {
        warnings.push(format!("{n} {}", limit_key.1));
    }
    if let Some(t) = truncated(d) {
        warnings.push(format!("{} limit", limit_size(t)));
    }
    if name == "grep" && d.get("linesTruncated").and_then(Value::as_bool) == Some(true) {
        warnings.push("some lines truncated".to_owned());
    }
    if !warnings.is_empty() {
        lines.push(warning(
            theme,
            &format!("[Truncated: {}]", warnings.join(", ")),
        ));
    }
    lines
}

/// The bash result: the last 5 visual lines (at `width`) with the count of
/// earlier ones, or everything when expanded; then the truncation warning.
pub fn bash_output(theme: &Theme, out: &ToolOutput, expanded: bool, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let text = out.text.trim();
    if !text.is_empty() {
        lines.push(String::new());
        if expanded {
            for line in text.split('\n') {
                lines.extend(wrap(&theme.fg(Token::ToolOutput, line), width));
            }
        } else {
            let (tail, skipped) = last_visual_lines(theme, text, 5, width);
            if skipped > 0 {
                let hint = more_hint(theme, &format!("{skipped} earlier lines"));
                lines.push(pi_tui::text::truncate_to_width(&hint, width, "..."));
            }
            lines.extend(tail);
        }
    }
    let full = out.details.get("fullOutputPath").and_then(Value::as_str);
    let trunc = truncated(&out.details);
    if full.is_some() || trunc.is_some() {
        let mut warnings = Vec::new();
        if let Some(path) = full {
            warnings.push(format!("Full output: {path}"));
        }
        if let Some(t) = trunc {
            let get = |k: &str| t.get(k).and_then(Value::as_u64).unwrap_or(0);
            if t.get("truncatedBy").and_then(Value::as_str) == Some("lines") {
                warnings.push(format!(
                    "Truncated: showing {} of {} lines",
                    get("outputLines"),
                    get("totalLines")
                ));
            } else {
                warnings.push(format!(
                    "Truncated: {} lines shown ({} limit)",
                    get("outputLines"),
                    limit_size(t)
                ));
            }
        }
        lines.push(String::new());
        lines.extend(wrap(
            &warning(theme, &format!("[{}]", warnings.join(". "))),
            width,
        ));
    }
    lines
}

/// The last `max` visual lines of `text` wrapped at `width`, and how many
/// visual lines come before them. Only the tail is wrapped twice; the
/// count of the rest is summed line by line.
pub fn last_visual_lines(
    theme: &Theme,
    text: &str,
    max: usize,
    width: usize,
) -> (Vec<String>, usize) {
    let mut tail: Vec<String> = Vec::new();
    let mut skipped = 0;
    let mut logical = text.rsplit('\n');
    for line in logical.by_ref() {
        let wrapped = wrap(&theme.fg(Token::ToolOutput, line), width);
        let room = max - tail.len();
        if wrapped.len() <= room {
            let mut rest = wrapped;
            rest.append(&mut tail);
            tail = rest;
            if tail.len() == max {
                break;
            }
        } else {
            let skip = wrapped.len() - room;
            skipped += skip;
            let mut rest: Vec<String> = wrapped.into_iter().skip(skip).collect();
            rest.append(&mut tail);
            tail = rest;
            break;
        }
    }
    for line in logical {
        skipped += visual_count(line, width);
    }
    (tail, skipped)
}

/// The number of lines `line` wraps to (at least 1).
fn visual_count(line: &str, width: usize) -> usize {
    let w = pi_tui::text::visible_width(line);
    if w <= width {
        1
    } else {
        wrap(line, width).len()
    }
}

/// The result lines of a tool (below the header), `width` being the
/// card's inner width.
pub fn result_lines(
    theme: &Theme,
    name: &str,
    args: &Value,
    out: &ToolOutput,
    expanded: bool,
    width: usize,
) -> Vec<String> {
    match name {
        "read" => read_result(theme, args, out, expanded),
        "bash" => bash_output(theme, out, expanded, width),
        "grep" | "find" | "ls" => search_result(theme, name, out, expanded),
        "write" | "edit" => {
            if out.is_error && !out.text.is_empty() {
                vec![String::new(), theme.fg(Token::Error, &out.text)]
            } else {
                Vec::new()
            }
        }
        _ => {
            let mut lines = Vec::new();
            if let Ok(json) = serde_json::to_string_pretty(args)
                && json != "{}"
                && json != "null"
            {
                lines.push(String::new());
                lines.extend(json.lines().map(str::to_owned));
            }
            if !out.text.is_empty() {
                lines.extend(out.text.split('\n').map(|l| theme.fg(Token::ToolOutput, l)));
            }
            lines
        }
    }
}
