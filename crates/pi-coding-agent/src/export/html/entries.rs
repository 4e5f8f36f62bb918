//! One `<section>` per session entry, in file order: its id, parent and kind as data
//! attributes (what the page's script builds the tree, the filters and the branch view
//! from), a role line with its time, and its body: user prompts and assistant text as
//! rendered markdown, thinking as collapsible blocks, tool calls as cards
//! ([`super::tools`]), tool results, `!cmd` runs, summaries, and one-line notices for
//! model, thinking-level, label and extension entries.

use std::collections::HashMap;
use std::fmt::Write as _;

use pi_agent_core::AgentMessage;
use pi_ai::{AssistantContent, AssistantMessage, Message, StopReason, UserBlock, UserContent};

use super::escape::{escape, push_escaped};
use super::highlight::Budget;
use super::markdown::push_markdown;
use super::stats::Stats;
use super::tools;
use crate::messages::CodingMessage;
use crate::session::SessionEntry;

/// How long a tree node's text is at most (characters).
const SNIPPET_CHARS: usize = 100;

/// What the page's tree knows of an entry.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Node {
    /// The entry id.
    #[serde(rename = "i")]
    pub id: String,
    /// Its parent's id.
    #[serde(rename = "p")]
    pub parent: Option<String>,
    /// Its kind (`user`, `assistant`, `tool`, ...: see the renderer).
    #[serde(rename = "k")]
    pub kind: &'static str,
    /// A line of its text.
    #[serde(rename = "t")]
    pub text: String,
}

/// Renders entries one at a time, keeping only what later entries need: the paths of
/// reads whose results are still to come, the highlighting budget, the statistics
/// and the labels.
#[derive(Debug, Default)]
pub struct Renderer {
    budget: Budget,
    /// Tool call id -> the path of a `read` call, until its result is drawn.
    pending_reads: HashMap<String, String>,
    /// Counts, tokens and cost.
    pub stats: Stats,
    /// Entry id -> its label (the last label entry wins; a cleared label is gone).
    pub labels: HashMap<String, String>,
}

fn snippet(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let mut out: String = line.chars().take(SNIPPET_CHARS).collect();
    if line.chars().count() > SNIPPET_CHARS {
        out.push('…');
    }
    out
}

fn content_text(content: &UserContent) -> String {
    match content {
        UserContent::Text(t) => t.clone(),
        UserContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(|b| match b {
                UserBlock::Text(t) => Some(t.text.as_str()),
                UserBlock::Image(_) => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

impl Renderer {
    /// Renders `entry` into `out` and returns its tree node.
    ///
    /// Kinds: `user`, `assistant`, `assistant-tools` (only tool calls), `tool` (a tool
    /// result), `bash` (a `!cmd` run), `custom`, `summary`, `compaction`, `settings`
    /// (model, thinking level, label, extension data, hidden messages), `info`
    /// (session name) and `raw` (an entry this version cannot read).
    pub fn entry(&mut self, out: &mut String, entry: &SessionEntry) -> Node {
        self.stats.entry(entry);
        let mut body = String::new();
        let (kind, role, text, error) = match entry {
            SessionEntry::Message(m) => self.message(&mut body, &m.message),
            SessionEntry::ThinkingLevelChange(e) => {
                let text = format!("Thinking level: {}", e.thinking_level);
                notice(&mut body, &text);
                ("settings", "Settings".to_owned(), text, false)
            }
            SessionEntry::ModelChange(e) => {
                let text = format!("Model: {}/{}", e.provider, e.model_id);
                notice(&mut body, &text);
                ("settings", "Settings".to_owned(), text, false)
            }
            SessionEntry::Label(e) => {
                let text = match &e.label {
                    Some(label) => {
                        self.labels.insert(e.target_id.clone(), label.clone());
                        format!("Label “{label}” on {}", e.target_id)
                    }
                    None => {
                        self.labels.remove(&e.target_id);
                        format!("Label cleared on {}", e.target_id)
                    }
                };
                notice(&mut body, &text);
                ("settings", "Label".to_owned(), text, false)
            }
            SessionEntry::Custom(e) => {
                let text = format!("[{}] extension data", e.custom_type);
                notice(&mut body, &text);
                ("settings", "Extension".to_owned(), text, false)
            }
            SessionEntry::CustomMessage(e) => {
                let text = content_text(&e.content);
                self.user_content(&mut body, &e.content);
                let kind = if e.display { "custom" } else { "settings" };
                (kind, format!("[{}]", e.custom_type), text, false)
            }
            SessionEntry::Compaction(e) => {
                self.markdown(&mut body, &e.summary);
                let role = format!("Compaction ({} tokens before)", e.tokens_before);
                ("compaction", role, e.summary.clone(), false)
            }
            SessionEntry::BranchSummary(e) => {
                self.markdown(&mut body, &e.summary);
                (
                    "summary",
                    "Branch summary".to_owned(),
                    e.summary.clone(),
                    false,
                )
            }
            SessionEntry::SessionInfo(e) => {
                let text = match &e.name {
                    Some(name) => format!("Session named “{name}”"),
                    None => "Session info".to_owned(),
                };
                notice(&mut body, &text);
                ("info", "Session".to_owned(), text, false)
            }
            SessionEntry::Raw(e) => {
                let text = format!("Entry of type “{}” (not read by this version)", e.kind);
                notice(&mut body, &text);
                ("raw", "Unknown".to_owned(), text, false)
            }
        };
        let id = entry.id();
        let parent = entry.parent_id();
        let _ = write!(
            out,
            "<section class=\"entry {kind}{}\" id=\"e-{}\" data-id=\"{}\" data-parent=\"{}\" data-kind=\"{kind}\"><div class=\"role\"><span>{}</span>",
            if error { " error" } else { "" },
            escape(id),
            escape(id),
            escape(parent.unwrap_or("")),
            escape(&role)
        );
        let time = entry.timestamp();
        if !time.is_empty() {
            let _ = write!(
                out,
                "<time datetime=\"{}\">{}</time>",
                escape(time),
                escape(
                    &time
                        .replacen('T', " ", 1)
                        .chars()
                        .take(19)
                        .collect::<String>()
                )
            );
        }
        out.push_str("</div>");
        out.push_str(&body);
        out.push_str("</section>\n");
        Node {
            id: id.to_owned(),
            parent: parent.map(str::to_owned),
            kind,
            text: snippet(&text),
        }
    }

    fn markdown(&mut self, out: &mut String, text: &str) {
        out.push_str("<div class=\"md\">");
        push_markdown(out, text, &mut self.budget);
        out.push_str("</div>");
    }

    fn user_content(&mut self, out: &mut String, content: &UserContent) {
        match content {
            UserContent::Text(text) => self.markdown(out, text),
            UserContent::Blocks(blocks) => {
                self.markdown(out, &content_text(content));
                let mut images = String::new();
                for block in blocks {
                    if let UserBlock::Image(i) = block {
                        tools::image(&mut images, &i.mime_type, &i.data);
                    }
                }
                if !images.is_empty() {
                    let _ = write!(out, "<div class=\"images\">{images}</div>");
                }
            }
        }
    }

    /// Kind, role, text and error flag of a message entry, its body drawn into `out`.
    fn message(
        &mut self,
        out: &mut String,
        message: &AgentMessage<CodingMessage>,
    ) -> (&'static str, String, String, bool) {
        match message {
            AgentMessage::Standard(Message::User(user)) => {
                self.user_content(out, &user.content);
                (
                    "user",
                    "User".to_owned(),
                    content_text(&user.content),
                    false,
                )
            }
            AgentMessage::Standard(Message::Assistant(a)) => self.assistant(out, a),
            AgentMessage::Standard(Message::ToolResult(r)) => {
                let read_path = self.pending_reads.remove(&r.tool_call_id);
                tools::result_body(out, r, read_path.as_deref(), &mut self.budget);
                let first = r
                    .content
                    .iter()
                    .find_map(|b| match b {
                        UserBlock::Text(t) => Some(snippet(&t.text)),
                        UserBlock::Image(_) => None,
                    })
                    .unwrap_or_default();
                let role = format!(
                    "↳ {}{}",
                    r.tool_name,
                    if r.is_error { " (error)" } else { "" }
                );
                (
                    "tool",
                    role,
                    format!("{}: {first}", r.tool_name),
                    r.is_error,
                )
            }
            AgentMessage::Custom(CodingMessage::BashExecution(bash)) => {
                let _ = write!(
                    out,
                    "<div class=\"tool-call\" data-tool=\"bash\"><div class=\"tool-head bash\"><span class=\"prompt\">$</span> <code>{}</code></div></div>",
                    escape(&bash.command)
                );
                let lines = bash.output.lines().count();
                let mut body = String::with_capacity(bash.output.len() + 16);
                push_escaped(&mut body, bash.output.trim_end_matches('\n'));
                let open = if lines <= tools::OPEN_OUTPUT_LINES {
                    " open"
                } else {
                    ""
                };
                let _ = write!(
                    out,
                    "<details class=\"output\"{open}><summary>Output ({lines} line{})</summary><pre class=\"code\"><code>{body}</code></pre></details>",
                    if lines == 1 { "" } else { "s" }
                );
                let failed = match (bash.cancelled, bash.exit_code) {
                    (true, _) => {
                        out.push_str("<div class=\"meta\">(cancelled)</div>");
                        false
                    }
                    (false, Some(code)) if code != 0 => {
                        let _ = write!(out, "<div class=\"error-text\">(exit {code})</div>");
                        true
                    }
                    _ => false,
                };
                (
                    "bash",
                    "Shell".to_owned(),
                    format!("$ {}", bash.command),
                    failed,
                )
            }
            AgentMessage::Custom(CodingMessage::Custom(custom)) => {
                self.user_content(out, &custom.content);
                let kind = if custom.display { "custom" } else { "settings" };
                (
                    kind,
                    format!("[{}]", custom.custom_type),
                    content_text(&custom.content),
                    false,
                )
            }
            AgentMessage::Custom(CodingMessage::BranchSummary(s)) => {
                self.markdown(out, &s.summary);
                (
                    "summary",
                    "Branch summary".to_owned(),
                    s.summary.clone(),
                    false,
                )
            }
            AgentMessage::Custom(CodingMessage::CompactionSummary(s)) => {
                self.markdown(out, &s.summary);
                let role = format!("Compaction ({} tokens before)", s.tokens_before);
                ("compaction", role, s.summary.clone(), false)
            }
        }
    }

    fn assistant(
        &mut self,
        out: &mut String,
        a: &AssistantMessage,
    ) -> (&'static str, String, String, bool) {
        let mut text = String::new();
        let mut tool_names: Vec<&str> = Vec::new();
        for content in &a.content {
            match content {
                AssistantContent::Text(t) if !t.text.trim().is_empty() => {
                    if text.is_empty() {
                        text = t.text.clone();
                    }
                    self.markdown(out, &t.text);
                }
                AssistantContent::Thinking(t) if !t.thinking.trim().is_empty() => {
                    out.push_str("<details class=\"thinking\" open><summary>Thinking</summary>");
                    self.markdown(out, &t.thinking);
                    out.push_str("</details>");
                }
                AssistantContent::Thinking(t) if t.redacted == Some(true) => {
                    out.push_str("<div class=\"meta thinking\">[thinking redacted]</div>");
                }
                AssistantContent::ToolCall(call) => {
                    if call.name == "read"
                        && let Some(path) = call.arguments.get("path").and_then(|p| p.as_str())
                    {
                        self.pending_reads.insert(call.id.clone(), path.to_owned());
                    }
                    tool_names.push(&call.name);
                    tools::call_card(out, call, &mut self.budget);
                }
                _ => {}
            }
        }
        let failed = matches!(a.stop_reason, StopReason::Error | StopReason::Aborted);
        if let Some(error) = a.error_message.as_deref().filter(|e| !e.is_empty()) {
            let _ = write!(out, "<p class=\"error-text\">Error: {}</p>", escape(error));
        } else if a.stop_reason == StopReason::Aborted {
            out.push_str("<p class=\"error-text\">Aborted</p>");
        }
        let usage = &a.usage;
        let _ = write!(
            out,
            "<div class=\"meta\">{} ({}) · ↑{} ↓{}",
            escape(&a.model),
            escape(a.provider.as_str()),
            usage.input,
            usage.output
        );
        if usage.cache_read > 0 || usage.cache_write > 0 {
            let _ = write!(out, " · cache R{} W{}", usage.cache_read, usage.cache_write);
        }
        out.push_str("</div>");
        let kind = if text.is_empty() && !failed && !tool_names.is_empty() {
            if text.is_empty() {
                text = format!("({})", tool_names.join(", "));
            }
            "assistant-tools"
        } else {
            "assistant"
        };
        if text.is_empty() {
            text = a.error_message.clone().unwrap_or_default();
        }
        (kind, "Assistant".to_owned(), text, failed)
    }
}

fn notice(out: &mut String, text: &str) {
    let _ = write!(out, "<div class=\"notice\">{}</div>", escape(text));
}
