//! One HTML element per transcript message: user prompts and assistant text as rendered
//! markdown, thinking in a collapsed `<details>`, each tool call with its arguments and
//! its result (collapsible output, red when it failed), `!cmd` runs, summaries and
//! extension messages.

use std::collections::HashMap;
use std::fmt::Write as _;

use pi_agent_core::AgentMessage;
use pi_ai::{
    AssistantContent, AssistantMessage, Message, ToolResultMessage, UserBlock, UserContent,
};

use super::markdown::{escape, to_html};
use crate::messages::CodingMessage;

/// Tool output longer than this many lines starts collapsed.
const OPEN_OUTPUT_LINES: usize = 12;

/// Renders `messages` into `out`, tool results next to their calls.
pub fn render_messages(out: &mut String, messages: &[AgentMessage<CodingMessage>]) {
    let results: HashMap<&str, &ToolResultMessage> = messages
        .iter()
        .filter_map(|m| match m {
            AgentMessage::Standard(Message::ToolResult(r)) => Some((r.tool_call_id.as_str(), r)),
            _ => None,
        })
        .collect();
    let calls: std::collections::HashSet<&str> = messages
        .iter()
        .filter_map(AgentMessage::as_assistant)
        .flat_map(|a| a.content.iter())
        .filter_map(|c| match c {
            AssistantContent::ToolCall(call) => Some(call.id.as_str()),
            _ => None,
        })
        .collect();
    for message in messages {
        match message {
            AgentMessage::Standard(Message::User(user)) => {
                card(out, "user", "User", &content_html(&user.content));
            }
            AgentMessage::Standard(Message::Assistant(a)) => assistant(out, a, &results),
            AgentMessage::Standard(Message::ToolResult(r)) => {
                if !calls.contains(r.tool_call_id.as_str()) {
                    tool(out, &r.tool_name, None, Some(r));
                }
            }
            AgentMessage::Custom(custom) => coding(out, custom),
        }
    }
}

fn card(out: &mut String, class: &str, role: &str, body: &str) {
    let _ = writeln!(
        out,
        "<section class=\"msg {class}\"><div class=\"role\">{}</div>{body}</section>",
        escape(role)
    );
}

fn markdown(text: &str) -> String {
    format!("<div class=\"md\">{}</div>", to_html(text))
}

fn image(mime: &str, data: &str) -> String {
    let safe_mime = mime.starts_with("image/")
        && mime[6..]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c));
    let safe_data = data
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "+/=\n\r".contains(c));
    if safe_mime && safe_data {
        format!("<img alt=\"image\" src=\"data:{mime};base64,{data}\">")
    } else {
        "<span class=\"meta\">[image]</span>".to_owned()
    }
}

fn blocks_html(blocks: &[UserBlock]) -> String {
    let mut text = String::new();
    let mut images = String::new();
    for block in blocks {
        match block {
            UserBlock::Text(t) => text.push_str(&t.text),
            UserBlock::Image(i) => images.push_str(&image(&i.mime_type, &i.data)),
        }
    }
    let mut html = markdown(&text);
    if !images.is_empty() {
        let _ = write!(html, "<div class=\"images\">{images}</div>");
    }
    html
}

fn content_html(content: &UserContent) -> String {
    match content {
        UserContent::Text(text) => markdown(text),
        UserContent::Blocks(blocks) => blocks_html(blocks),
    }
}

fn assistant(out: &mut String, a: &AssistantMessage, results: &HashMap<&str, &ToolResultMessage>) {
    let mut body = String::new();
    for content in &a.content {
        match content {
            AssistantContent::Text(t) if !t.text.trim().is_empty() => {
                body.push_str(&markdown(&t.text));
            }
            AssistantContent::Thinking(t) if !t.thinking.trim().is_empty() => {
                let _ = write!(
                    body,
                    "<details class=\"thinking\"><summary>Thinking</summary>{}</details>",
                    markdown(&t.thinking)
                );
            }
            AssistantContent::ToolCall(call) => {
                let args = serde_json::to_string_pretty(&call.arguments).unwrap_or_default();
                let result = results.get(call.id.as_str()).copied();
                tool(&mut body, &call.name, Some(&args), result);
            }
            _ => {}
        }
    }
    if let Some(error) = a.error_message.as_deref().filter(|e| !e.is_empty()) {
        let _ = write!(body, "<p class=\"error-text\">Error: {}</p>", escape(error));
    }
    let model = format!("{} ({})", a.model, a.provider.as_str());
    let _ = write!(body, "<div class=\"meta\">{}</div>", escape(&model));
    card(out, "assistant", "Assistant", &body);
}

fn tool(out: &mut String, name: &str, args: Option<&str>, result: Option<&ToolResultMessage>) {
    let class = match result {
        None => "tool pending",
        Some(r) if r.is_error => "tool error",
        Some(_) => "tool",
    };
    let _ = write!(
        out,
        "<div class=\"{class}\"><div class=\"name\">{}</div>",
        escape(name)
    );
    if let Some(args) = args.filter(|a| *a != "{}" && !a.is_empty()) {
        let _ = write!(out, "<pre class=\"args\">{}</pre>", escape(args));
    }
    if let Some(result) = result {
        let mut text = String::new();
        let mut images = String::new();
        for block in &result.content {
            match block {
                UserBlock::Text(t) => text.push_str(&t.text),
                UserBlock::Image(i) => images.push_str(&image(&i.mime_type, &i.data)),
            }
        }
        let lines = text.lines().count();
        let open = if lines <= OPEN_OUTPUT_LINES {
            " open"
        } else {
            ""
        };
        let _ = write!(
            out,
            "<details class=\"output\"{open}><summary>Output ({lines} line{})</summary><pre class=\"output\">{}</pre>{images}</details>",
            if lines == 1 { "" } else { "s" },
            escape(&text)
        );
    }
    out.push_str("</div>");
}

fn coding(out: &mut String, message: &CodingMessage) {
    match message {
        CodingMessage::BashExecution(bash) => {
            let mut body = format!(
                "<div class=\"tool bash\"><div class=\"cmd\">$ {}</div>",
                escape(&bash.command)
            );
            let lines = bash.output.lines().count();
            let open = if lines <= OPEN_OUTPUT_LINES {
                " open"
            } else {
                ""
            };
            let _ = write!(
                body,
                "<details class=\"output\"{open}><summary>Output</summary><pre class=\"output\">{}</pre></details>",
                escape(&bash.output)
            );
            match (bash.cancelled, bash.exit_code) {
                (true, _) => body.push_str("<div class=\"meta\">(cancelled)</div>"),
                (false, Some(code)) if code != 0 => {
                    let _ = write!(body, "<div class=\"error-text\">(exit {code})</div>");
                }
                _ => {}
            }
            body.push_str("</div>");
            card(out, "bash", "Shell", &body);
        }
        CodingMessage::Custom(custom) => {
            if custom.display {
                let role = format!("[{}]", custom.custom_type);
                card(out, "custom", &role, &content_html(&custom.content));
            }
        }
        CodingMessage::BranchSummary(summary) => {
            card(
                out,
                "summary",
                "Branch summary",
                &markdown(&summary.summary),
            );
        }
        CodingMessage::CompactionSummary(summary) => {
            let role = format!(
                "Compaction summary ({} tokens before)",
                summary.tokens_before
            );
            card(out, "summary", &role, &markdown(&summary.summary));
        }
    }
}
