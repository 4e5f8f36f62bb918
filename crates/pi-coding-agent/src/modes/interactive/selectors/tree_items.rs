//! The session tree's entries, described once when the tree opens: what
//! each row shows (pi's `getEntryDisplayText`), what search sees, its label,
//! and the parent/child links (a damaged file's parent cycles broken).

use std::collections::HashMap;

use pi_agent_core::AgentMessage;
use pi_ai::{AssistantContent, Message, StopReason, UserBlock, UserContent};
use serde_json::Value;

use crate::messages::CodingMessage;
use crate::session::SessionEntry;

/// Which entries the tree shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    /// Everything but bookkeeping entries (labels, custom, model and
    /// thinking changes, session info).
    Default,
    /// The default without tool results.
    NoTools,
    /// User messages only.
    UserOnly,
    /// Labeled entries only.
    LabeledOnly,
    /// Everything.
    All,
}

impl Filter {
    /// The filters in Ctrl+O order.
    pub const CYCLE: [Filter; 5] = [
        Filter::Default,
        Filter::NoTools,
        Filter::UserOnly,
        Filter::LabeledOnly,
        Filter::All,
    ];

    /// The settings' `treeFilterMode` value.
    pub fn from_setting(name: &str) -> Self {
        match name {
            "no-tools" => Self::NoTools,
            "user-only" => Self::UserOnly,
            "labeled-only" => Self::LabeledOnly,
            "all" => Self::All,
            _ => Self::Default,
        }
    }

    /// The tag after `(i/N)`.
    pub fn status(self) -> &'static str {
        match self {
            Filter::Default => "",
            Filter::NoTools => " [no-tools]",
            Filter::UserOnly => " [user]",
            Filter::LabeledOnly => " [labeled]",
            Filter::All => " [all]",
        }
    }
}

/// How an entry is shown (styled by the tree when drawn).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Display {
    /// `user: text`.
    User(String),
    /// `assistant: text`.
    Assistant(String),
    /// `assistant: (aborted)`.
    Aborted,
    /// `assistant: <error>`.
    Failed(String),
    /// `assistant: (no content)`.
    Empty,
    /// A tool result as its call (`[read: path]`).
    Tool(String),
    /// `[bash]: cmd`.
    Bash(String),
    /// A message of another role: `[role]`.
    Role(String),
    /// `[type]: text` of a custom message.
    CustomMessage(String, String),
    /// `[compaction: Nk tokens]`.
    Compaction(u64),
    /// `[branch summary]: text`.
    BranchSummary(String),
    /// A dim bookkeeping tag (`[model: id]`, `[label: x]`, ...).
    Tag(String),
    /// `[title: name]` (`None`: empty).
    Title(Option<String>),
}

/// One entry of the tree, described once.
#[derive(Debug, Clone)]
pub struct Item {
    /// Entry id.
    pub id: String,
    /// Position of the parent in the item list.
    pub parent: Option<usize>,
    /// Children positions, oldest first.
    pub children: Vec<usize>,
    /// What the row shows.
    pub display: Display,
    /// Lower-case text searched.
    pub search: String,
    /// Current label.
    pub label: Option<String>,
    /// When the label was set (ISO time).
    pub label_time: Option<String>,
    pub(crate) kind: Kind,
}

/// What the filters look at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A user message.
    User,
    /// An assistant message with neither text nor an error (tool calls only).
    SilentAssistant,
    /// A tool result.
    ToolResult,
    /// Labels, custom entries, model and thinking changes, session info.
    Bookkeeping,
    /// Anything else.
    Other,
}

fn text_of(content: &UserContent) -> String {
    match content {
        UserContent::Text(t) => t.clone(),
        UserContent::Blocks(blocks) => blocks.iter().filter_map(UserBlock::as_text).collect(),
    }
}

/// The first 200 characters, whitespace runs made single spaces.
fn short(text: &str) -> String {
    let cut: String = text.chars().take(200).collect();
    cut.replace(['\n', '\t'], " ").trim().to_owned()
}

fn shorten_home(path: &str, home: Option<&str>) -> String {
    match home
        .filter(|h| !h.is_empty())
        .and_then(|h| path.strip_prefix(h))
    {
        Some(rest) => format!("~{rest}"),
        None => path.to_owned(),
    }
}

/// pi's tool call summary: `[read: path:1-10]`, `[bash: cmd…]`, ...
pub fn format_tool_call(name: &str, args: &Value, home: Option<&str>) -> String {
    let s = |key: &str| args.get(key).and_then(Value::as_str).unwrap_or_default();
    let path = || {
        let p = if s("path").is_empty() {
            s("file_path")
        } else {
            s("path")
        };
        shorten_home(p, home)
    };
    let path_or_dot = || shorten_home(if s("path").is_empty() { "." } else { s("path") }, home);
    match name {
        "read" => {
            let offset = args.get("offset").and_then(Value::as_i64);
            let limit = args.get("limit").and_then(Value::as_i64);
            let mut display = path();
            if offset.is_some() || limit.is_some() {
                let start = offset.unwrap_or(1);
                display.push_str(&format!(":{start}"));
                if let Some(limit) = limit {
                    display.push_str(&format!("-{}", start + limit - 1));
                }
            }
            format!("[read: {display}]")
        }
        "write" => format!("[write: {}]", path()),
        "edit" => format!("[edit: {}]", path()),
        "bash" => {
            let raw = s("command");
            let cmd: String = raw
                .replace(['\n', '\t'], " ")
                .trim()
                .chars()
                .take(50)
                .collect();
            let more = if raw.chars().count() > 50 { "..." } else { "" };
            format!("[bash: {cmd}{more}]")
        }
        "grep" => format!("[grep: /{}/ in {}]", s("pattern"), path_or_dot()),
        "find" => format!("[find: {} in {}]", s("pattern"), path_or_dot()),
        "ls" => format!("[ls: {}]", path_or_dot()),
        _ => {
            let json = args.to_string();
            let cut: String = json.chars().take(40).collect();
            let more = if json.chars().count() > 40 { "..." } else { "" };
            format!("[{name}: {cut}{more}]")
        }
    }
}

fn describe_message(
    message: &AgentMessage<CodingMessage>,
    calls: &HashMap<String, (String, Value)>,
    home: Option<&str>,
) -> (Display, Kind, String) {
    match message {
        AgentMessage::Standard(Message::User(u)) => {
            let text = short(&text_of(&u.content));
            (
                Display::User(text.clone()),
                Kind::User,
                format!("user {text}"),
            )
        }
        AgentMessage::Standard(Message::Assistant(a)) => {
            let text: String = a
                .content
                .iter()
                .filter_map(|c| match c {
                    AssistantContent::Text(t) => Some(t.text.as_str()),
                    _ => None,
                })
                .collect();
            let text = short(&text);
            let failed = !matches!(a.stop_reason, StopReason::Stop | StopReason::ToolUse);
            let display = if !text.is_empty() {
                Display::Assistant(text.clone())
            } else if a.stop_reason == StopReason::Aborted {
                Display::Aborted
            } else if let Some(error) = &a.error_message {
                Display::Failed(short(error).chars().take(80).collect())
            } else {
                Display::Empty
            };
            let kind = if text.is_empty() && !failed {
                Kind::SilentAssistant
            } else {
                Kind::Other
            };
            (display, kind, format!("assistant {text}"))
        }
        AgentMessage::Standard(Message::ToolResult(r)) => {
            let display = match calls.get(&r.tool_call_id) {
                Some((name, args)) => format_tool_call(name, args, home),
                None => format!(
                    "[{}]",
                    if r.tool_name.is_empty() {
                        "tool"
                    } else {
                        &r.tool_name
                    }
                ),
            };
            let text: String = r.content.iter().filter_map(UserBlock::as_text).collect();
            (
                Display::Tool(display),
                Kind::ToolResult,
                format!("toolResult {}", short(&text)),
            )
        }
        AgentMessage::Custom(CodingMessage::BashExecution(b)) => (
            Display::Bash(short(&b.command)),
            Kind::Other,
            format!("bashExecution {}", b.command),
        ),
        AgentMessage::Custom(other) => {
            let role = match other {
                CodingMessage::Custom(_) => "custom",
                CodingMessage::BranchSummary(_) => "branchSummary",
                CodingMessage::CompactionSummary(_) => "compactionSummary",
                CodingMessage::BashExecution(_) => "bashExecution",
            };
            (Display::Role(role.to_owned()), Kind::Other, role.to_owned())
        }
    }
}

fn describe(
    entry: &SessionEntry,
    calls: &HashMap<String, (String, Value)>,
    home: Option<&str>,
) -> (Display, Kind, String) {
    match entry {
        SessionEntry::Message(m) => describe_message(&m.message, calls, home),
        SessionEntry::CustomMessage(c) => {
            let text = short(&text_of(&c.content));
            let search = format!("{} {text}", c.custom_type);
            (
                Display::CustomMessage(c.custom_type.clone(), text),
                Kind::Other,
                search,
            )
        }
        SessionEntry::Compaction(c) => (
            Display::Compaction((c.tokens_before + 500) / 1000),
            Kind::Other,
            "compaction".to_owned(),
        ),
        SessionEntry::BranchSummary(b) => (
            Display::BranchSummary(short(&b.summary)),
            Kind::Other,
            format!("branch summary {}", b.summary),
        ),
        SessionEntry::ModelChange(m) => (
            Display::Tag(format!("[model: {}]", m.model_id)),
            Kind::Bookkeeping,
            format!("model {}", m.model_id),
        ),
        SessionEntry::ThinkingLevelChange(t) => (
            Display::Tag(format!("[thinking: {}]", t.thinking_level)),
            Kind::Bookkeeping,
            format!("thinking {}", t.thinking_level),
        ),
        SessionEntry::Custom(c) => (
            Display::Tag(format!("[custom: {}]", c.custom_type)),
            Kind::Bookkeeping,
            format!("custom {}", c.custom_type),
        ),
        SessionEntry::Label(l) => {
            let label = l.label.as_deref().unwrap_or("(cleared)");
            (
                Display::Tag(format!("[label: {label}]")),
                Kind::Bookkeeping,
                format!("label {}", l.label.as_deref().unwrap_or_default()),
            )
        }
        SessionEntry::SessionInfo(s) => (
            Display::Title(s.name.clone().filter(|n| !n.is_empty())),
            Kind::Bookkeeping,
            format!("title {}", s.name.as_deref().unwrap_or_default()),
        ),
        SessionEntry::Raw(_) => (Display::Tag(String::new()), Kind::Other, String::new()),
    }
}

/// Describes every entry of `entries` (append order) with its label.
pub fn build_items(
    entries: &[&SessionEntry],
    labels: &dyn Fn(&str) -> Option<String>,
    home: Option<&str>,
) -> Vec<Item> {
    let index: HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id(), i))
        .collect();
    let mut calls: HashMap<String, (String, Value)> = HashMap::new();
    let mut label_times: HashMap<&str, &str> = HashMap::new();
    for entry in entries {
        if let Some(AgentMessage::Standard(Message::Assistant(a))) = entry.as_message() {
            for c in &a.content {
                if let AssistantContent::ToolCall(call) = c {
                    calls.insert(call.id.clone(), (call.name.clone(), call.arguments.clone()));
                }
            }
        }
        if let SessionEntry::Label(l) = entry {
            label_times.insert(&l.target_id, &l.timestamp);
        }
    }
    let mut items: Vec<Item> = entries
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            let (display, kind, text) = describe(entry, &calls, home);
            let label = labels(entry.id());
            let mut search = String::new();
            if let Some(label) = &label {
                search.push_str(label);
                search.push(' ');
            }
            search.push_str(&text);
            Item {
                id: entry.id().to_owned(),
                parent: entry
                    .parent_id()
                    .and_then(|p| index.get(p).copied())
                    .filter(|&p| p != i),
                children: Vec::new(),
                display,
                search: search.to_lowercase(),
                label_time: label
                    .as_ref()
                    .and_then(|_| label_times.get(entry.id()).map(|t| (*t).to_owned())),
                label,
                kind,
            }
        })
        .collect();
    // A parent cycle in a damaged file would loop the walks: break it
    // (each item is walked once: 0 new, 1 on the current walk, 2 done).
    let mut state = vec![0u8; items.len()];
    for start in 0..items.len() {
        let mut path = Vec::new();
        let mut at = Some(start);
        while let Some(i) = at {
            match state[i] {
                0 => {
                    state[i] = 1;
                    path.push(i);
                    at = items[i].parent;
                }
                1 => {
                    if let Some(&last) = path.last() {
                        items[last].parent = None;
                    }
                    break;
                }
                _ => break,
            }
        }
        for i in path {
            state[i] = 2;
        }
    }
    for i in 0..items.len() {
        if let Some(p) = items[i].parent {
            items[p].children.push(i);
        }
    }
    items
}
