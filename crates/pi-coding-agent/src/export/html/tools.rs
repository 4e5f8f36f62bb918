//! Tool calls and their results drawn as the terminal draws them: `$ command` for bash,
//! `read path:from-to`, `write path` with the content highlighted in the file's
//! language, `edit path` with its diff, `ls`/`find`/`grep` with their arguments, and
//! any other tool as its name and arguments. A result is a collapsible block of
//! output (open when short, red when it failed), a read's highlighted as its file.

use std::fmt::Write as _;

use pi_ai::{ToolCall, ToolResultMessage, UserBlock};
use serde_json::Value;
use similar::{ChangeTag, TextDiff};

use super::escape::{escape, push_escaped};
use super::highlight::Budget;

/// Output of more lines than this starts collapsed.
pub const OPEN_OUTPUT_LINES: usize = 12;

fn arg<'a>(call: &'a ToolCall, key: &str) -> Option<&'a str> {
    call.arguments.get(key).and_then(Value::as_str)
}

fn language(path: &str) -> Option<String> {
    pi_tui::highlight::language_for_path(path)
}

fn head(out: &mut String, verb: &str, rest: &str) {
    let _ = write!(
        out,
        "<div class=\"tool-head\"><span class=\"tool-name\">{}</span> {}</div>",
        escape(verb),
        rest
    );
}

fn path_html(path: &str) -> String {
    format!("<span class=\"path\">{}</span>", escape(path))
}

/// A block of lines, collapsed when long.
fn lines_block(out: &mut String, class: &str, summary: &str, body: &str, lines: usize) {
    let open = if lines <= OPEN_OUTPUT_LINES {
        " open"
    } else {
        ""
    };
    let _ = write!(
        out,
        "<details class=\"{class}\"{open}><summary>{} ({lines} line{})</summary><pre class=\"code\"><code>{body}</code></pre></details>",
        escape(summary),
        if lines == 1 { "" } else { "s" }
    );
}

/// The card of one tool call, drawn into `out`.
pub fn call_card(out: &mut String, call: &ToolCall, budget: &mut Budget) {
    let _ = write!(
        out,
        "<div class=\"tool-call\" data-tool=\"{}\" data-call=\"{}\">",
        escape(&call.name),
        escape(&call.id)
    );
    match call.name.as_str() {
        "bash" => {
            let command = arg(call, "command").unwrap_or("");
            let _ = write!(
                out,
                "<div class=\"tool-head bash\"><span class=\"prompt\">$</span> <code>{}</code>",
                escape(command)
            );
            if let Some(timeout) = call.arguments.get("timeout").and_then(Value::as_f64) {
                let _ = write!(out, " <span class=\"meta\">(timeout {timeout}s)</span>");
            }
            out.push_str("</div>");
        }
        "read" => {
            let mut rest = path_html(arg(call, "path").unwrap_or(""));
            let offset = call.arguments.get("offset").and_then(Value::as_u64);
            let limit = call.arguments.get("limit").and_then(Value::as_u64);
            if offset.is_some() || limit.is_some() {
                let from = offset.unwrap_or(1);
                let to = limit.map_or(String::new(), |l| (from + l.saturating_sub(1)).to_string());
                let _ = write!(rest, "<span class=\"meta\">:{from}-{to}</span>");
            }
            head(out, "read", &rest);
        }
        "write" => {
            let path = arg(call, "path").unwrap_or("");
            head(out, "write", &path_html(path));
            let content = arg(call, "content").unwrap_or("");
            let mut body = String::with_capacity(content.len() + 64);
            budget.code(&mut body, content, language(path).as_deref());
            let lines = content.lines().count();
            lines_block(out, "preview", "Content", &body, lines);
        }
        "edit" => {
            let path = arg(call, "path").unwrap_or("");
            head(out, "edit", &path_html(path));
            edit_diffs(out, &call.arguments);
        }
        "ls" => {
            head(out, "ls", &path_html(arg(call, "path").unwrap_or(".")));
        }
        "find" | "grep" => {
            let pattern = arg(call, "pattern").unwrap_or("");
            let mut rest = format!("<code>{}</code>", escape(pattern));
            if let Some(path) = arg(call, "path") {
                let _ = write!(rest, " <span class=\"meta\">in</span> {}", path_html(path));
            }
            if let Some(glob) = arg(call, "glob") {
                let _ = write!(rest, " <span class=\"meta\">({})</span>", escape(glob));
            }
            head(out, &call.name, &rest);
        }
        _ => {
            head(out, &call.name, "");
            let args = serde_json::to_string_pretty(&call.arguments).unwrap_or_default();
            if !args.is_empty() && args != "{}" && args != "null" {
                let mut body = String::new();
                budget.code(&mut body, &args, Some("json"));
                let _ = write!(out, "<pre class=\"code args\"><code>{body}</code></pre>");
            }
        }
    }
    out.push_str("</div>");
}

/// The diff of each `{oldText, newText}` of an edit's arguments (or of the single
/// legacy pair), removed lines red, added green.
fn edit_diffs(out: &mut String, arguments: &Value) {
    let pairs: Vec<&Value> = match arguments.get("edits").and_then(Value::as_array) {
        Some(edits) => edits.iter().collect(),
        None => vec![arguments],
    };
    for pair in pairs {
        let old = pair.get("oldText").and_then(Value::as_str).unwrap_or("");
        let new = pair.get("newText").and_then(Value::as_str).unwrap_or("");
        if old.is_empty() && new.is_empty() {
            continue;
        }
        out.push_str("<pre class=\"diff\"><code>");
        let diff = TextDiff::from_lines(old, new);
        for change in diff.iter_all_changes() {
            let (class, sign) = match change.tag() {
                ChangeTag::Delete => ("del", '-'),
                ChangeTag::Insert => ("ins", '+'),
                ChangeTag::Equal => ("ctx", ' '),
            };
            let _ = write!(out, "<span class=\"{class}\">{sign}");
            push_escaped(out, change.value().trim_end_matches('\n'));
            out.push_str("</span>\n");
        }
        out.push_str("</code></pre>");
    }
}

/// An image block as an `<img>` of its data, when its type and data are plainly an
/// image's (anything else is shown as a placeholder).
pub fn image(out: &mut String, mime: &str, data: &str) {
    let safe_mime = mime.strip_prefix("image/").is_some_and(|sub| {
        !sub.is_empty()
            && sub
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
    }) && mime != "image/svg+xml";
    let safe_data = data
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "+/=\n\r".contains(c));
    if safe_mime && safe_data {
        let _ = write!(out, "<img alt=\"image\" src=\"data:{mime};base64,{data}\">");
    } else {
        out.push_str("<span class=\"meta\">[image]</span>");
    }
}

/// The body of a tool result: its text (highlighted as the file a read read, when
/// `read_path` says so) and its images.
pub fn result_body(
    out: &mut String,
    result: &ToolResultMessage,
    read_path: Option<&str>,
    budget: &mut Budget,
) {
    let mut text = String::new();
    let mut images = String::new();
    for block in &result.content {
        match block {
            UserBlock::Text(t) => {
                if !text.is_empty() && !t.text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&t.text);
            }
            UserBlock::Image(i) => image(&mut images, &i.mime_type, &i.data),
        }
    }
    if !text.is_empty() {
        let mut body = String::with_capacity(text.len() + 64);
        let lang = read_path.filter(|_| !result.is_error).and_then(language);
        budget.code(&mut body, text.trim_end_matches('\n'), lang.as_deref());
        let lines = text.lines().count();
        lines_block(out, "output", "Output", &body, lines);
    }
    if !images.is_empty() {
        let _ = write!(out, "<div class=\"images\">{images}</div>");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(name: &str, arguments: Value) -> ToolCall {
        ToolCall {
            id: "c1".to_owned(),
            name: name.to_owned(),
            arguments,
            ..Default::default()
        }
    }

    fn card(name: &str, arguments: Value) -> String {
        let mut out = String::new();
        call_card(&mut out, &call(name, arguments), &mut Budget::default());
        out
    }

    #[test]
    fn bash_read_write_edit_are_drawn_as_in_the_terminal() {
        let bash = card("bash", json!({"command": "ls </tmp>"}));
        assert!(bash.contains("<span class=\"prompt\">$</span> <code>ls &lt;/tmp&gt;</code>"));
        let read = card(
            "read",
            json!({"path": "src/a.rs", "offset": 10, "limit": 5}),
        );
        assert!(
            read.contains("src/a.rs</span><span class=\"meta\">:10-14</span>"),
            "{read}"
        );
        let write = card(
            "write",
            json!({"path": "a.rs", "content": "fn a() {}\nfn b() {}\n"}),
        );
        assert!(write.contains("<span class=\"hk\">fn</span>"), "{write}");
        assert!(write.contains("(2 lines)"));
        assert!(!write.contains("\\n"));
        let edit = card(
            "edit",
            json!({"path": "a.txt", "edits": [{"oldText": "one\ntwo\n", "newText": "one\n2\n"}]}),
        );
        assert!(edit.contains("<span class=\"ctx\"> one</span>"), "{edit}");
        assert!(edit.contains("<span class=\"del\">-two</span>"));
        assert!(edit.contains("<span class=\"ins\">+2</span>"));
        let other = card("mcp_tool", json!({"q": "<img src=x onerror=alert(1)>"}));
        assert!(!other.contains("<img"), "{other}");
    }

    #[test]
    fn images_need_an_image_type_and_base64_data() {
        let mut out = String::new();
        image(&mut out, "image/png", "iVBORw0KGgo=");
        assert!(out.starts_with("<img alt=\"image\" src=\"data:image/png;base64,"));
        for (mime, data) in [
            ("text/html", "PGI+"),
            ("image/svg+xml", "PHN2Zz4="),
            ("image/png", "\" onerror=\"alert(1)"),
        ] {
            let mut out = String::new();
            image(&mut out, mime, data);
            assert_eq!(out, "<span class=\"meta\">[image]</span>", "{mime}");
        }
    }
}
