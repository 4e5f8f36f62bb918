//! The session tree's rows (pi's `TreeList` model): every entry described
//! once when the tree opens, then filtered (filter mode, search, folds) and
//! laid out with pi's indentation, `├─ └─` connectors and `│` gutters. The
//! walks are iterative: a session is often one chain of thousands of entries.

use std::collections::{HashMap, HashSet};

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
    kind: Kind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    User,
    /// An assistant message with neither text nor an error (tool calls only).
    SilentAssistant,
    ToolResult,
    Bookkeeping,
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

/// A `│` column of a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gutter {
    /// Indent level of the column.
    pub position: usize,
    /// `│` (true) or a blank (false).
    pub show: bool,
}

/// A visible row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Position of the item.
    pub item: usize,
    /// Indent level.
    pub indent: usize,
    /// Draws `├─` / `└─`.
    pub connector: bool,
    /// Last of its siblings.
    pub is_last: bool,
    /// Gutter columns.
    pub gutters: Vec<Gutter>,
    /// A root among several (no connector drawn).
    pub virtual_root_child: bool,
}

/// The tree's visible rows and the maps to move around them.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    /// Rows in display order.
    pub rows: Vec<Row>,
    /// True when several roots are visible.
    pub multiple_roots: bool,
    /// Visible parent of each visible item.
    pub parent: HashMap<usize, Option<usize>>,
    /// Visible children of each visible item (`None`: the roots).
    pub children: HashMap<Option<usize>, Vec<usize>>,
}

/// What decides the layout.
#[derive(Debug, Clone)]
pub struct View<'a> {
    /// The filter.
    pub filter: Filter,
    /// Lower-case search tokens (all must match).
    pub tokens: &'a [String],
    /// Folded items.
    pub folded: &'a HashSet<usize>,
    /// The current leaf.
    pub leaf: Option<usize>,
}

fn passes(item: &Item, at: usize, view: &View<'_>) -> bool {
    if item.kind == Kind::SilentAssistant && view.leaf != Some(at) {
        return false;
    }
    let ok = match view.filter {
        Filter::UserOnly => item.kind == Kind::User,
        Filter::NoTools => !matches!(item.kind, Kind::Bookkeeping | Kind::ToolResult),
        Filter::LabeledOnly => item.label.is_some(),
        Filter::All => true,
        Filter::Default => item.kind != Kind::Bookkeeping,
    };
    ok && view.tokens.iter().all(|t| item.search.contains(t.as_str()))
}

/// Items in display order: depth first, the branch holding the leaf first.
pub fn display_order(items: &[Item], leaf: Option<usize>) -> Vec<usize> {
    let mut holds_leaf = vec![false; items.len()];
    let mut at = leaf;
    while let Some(i) = at {
        if std::mem::replace(&mut holds_leaf[i], true) {
            break;
        }
        at = items[i].parent;
    }
    let ordered = |list: &[usize]| -> Vec<usize> {
        let (mut first, rest): (Vec<usize>, Vec<usize>) =
            list.iter().partition(|&&c| holds_leaf[c]);
        first.extend(rest);
        first
    };
    let roots: Vec<usize> = (0..items.len())
        .filter(|&i| items[i].parent.is_none())
        .collect();
    let mut order = Vec::with_capacity(items.len());
    let mut stack: Vec<usize> = ordered(&roots).into_iter().rev().collect();
    while let Some(i) = stack.pop() {
        order.push(i);
        stack.extend(ordered(&items[i].children).into_iter().rev());
    }
    order
}

/// Lays out the items of `order` that `view` shows.
pub fn layout(items: &[Item], order: &[usize], view: &View<'_>) -> Layout {
    let mut hidden_by_fold = vec![false; items.len()];
    let mut visible = vec![false; items.len()];
    let mut nearest: Vec<Option<usize>> = vec![None; items.len()];
    for &i in order {
        if let Some(p) = items[i].parent {
            hidden_by_fold[i] = hidden_by_fold[p] || view.folded.contains(&p);
            nearest[i] = if visible[p] { Some(p) } else { nearest[p] };
        }
        visible[i] = !hidden_by_fold[i] && passes(&items[i], i, view);
    }
    let mut out = Layout::default();
    for &i in order.iter().filter(|&&i| visible[i]) {
        out.parent.insert(i, nearest[i]);
        out.children.entry(nearest[i]).or_default().push(i);
    }
    let roots = out.children.get(&None).cloned().unwrap_or_default();
    let multiple = roots.len() > 1;
    out.multiple_roots = multiple;
    // (item, indent, just branched, connector, last, gutters, virtual root child)
    type Frame = (usize, usize, bool, bool, bool, Vec<Gutter>, bool);
    let mut stack: Vec<Frame> = roots
        .iter()
        .enumerate()
        .rev()
        .map(|(n, &r)| {
            (
                r,
                usize::from(multiple),
                multiple,
                multiple,
                n + 1 == roots.len(),
                Vec::new(),
                multiple,
            )
        })
        .collect();
    while let Some((i, indent, branched, connector, is_last, gutters, virtual_root)) = stack.pop() {
        let children = out.children.get(&Some(i)).cloned().unwrap_or_default();
        let several = children.len() > 1;
        let child_indent = if several || (branched && indent > 0) {
            indent + 1
        } else {
            indent
        };
        let shown = connector && !virtual_root;
        let display_indent = if multiple {
            indent.saturating_sub(1)
        } else {
            indent
        };
        let child_gutters = if shown {
            let mut g = gutters.clone();
            g.push(Gutter {
                position: display_indent.saturating_sub(1),
                show: !is_last,
            });
            g
        } else {
            gutters.clone()
        };
        for (n, &c) in children.iter().enumerate().rev() {
            stack.push((
                c,
                child_indent,
                several,
                several,
                n + 1 == children.len(),
                child_gutters.clone(),
                false,
            ));
        }
        out.rows.push(Row {
            item: i,
            indent,
            connector,
            is_last,
            gutters,
            virtual_root_child: virtual_root,
        });
    }
    out
}

impl Layout {
    /// True when the item can fold: it has visible children and is a root
    /// or the start of a branch.
    pub fn foldable(&self, item: usize) -> bool {
        if self.children.get(&Some(item)).is_none_or(Vec::is_empty) {
            return false;
        }
        match self.parent.get(&item).copied().flatten() {
            None => true,
            Some(p) => self.children.get(&Some(p)).is_some_and(|s| s.len() > 1),
        }
    }

    /// The row of the item, or of its nearest shown ancestor; else the last row.
    pub fn nearest_row(&self, items: &[Item], item: Option<usize>) -> usize {
        let rows: HashMap<usize, usize> = self
            .rows
            .iter()
            .enumerate()
            .map(|(n, r)| (r.item, n))
            .collect();
        let mut at = item;
        let mut steps = 0;
        while let Some(i) = at {
            if let Some(&row) = rows.get(&i) {
                return row;
            }
            at = items[i].parent;
            steps += 1;
            if steps > items.len() {
                break;
            }
        }
        self.rows.len().saturating_sub(1)
    }

    /// The row Ctrl+Left / Ctrl+Right jumps to from `row`: up to the start
    /// of the enclosing branch, or down to the next branch point.
    pub fn branch_jump(&self, row: usize, up: bool) -> usize {
        let Some(start) = self.rows.get(row).map(|r| r.item) else {
            return row;
        };
        let rows: HashMap<usize, usize> = self
            .rows
            .iter()
            .enumerate()
            .map(|(n, r)| (r.item, n))
            .collect();
        let row_of = |i: usize| rows.get(&i).copied().unwrap_or(row);
        let mut at = start;
        if !up {
            loop {
                let children = self.children.get(&Some(at)).map_or(&[][..], Vec::as_slice);
                match children {
                    [] => return row_of(at),
                    [only] => at = *only,
                    [first, ..] => return row_of(*first),
                }
            }
        }
        loop {
            let Some(parent) = self.parent.get(&at).copied().flatten() else {
                return row_of(at);
            };
            let siblings = self.children.get(&Some(parent)).map_or(0, Vec::len);
            if siblings > 1 && row_of(at) < row {
                return row_of(at);
            }
            at = parent;
        }
    }
}

#[cfg(test)]
#[path = "tree_rows_tests.rs"]
mod tests;
