//! The footer, as pi's: line 1 is the cwd (`~` for home), ` (<branch>)`
//! and ` • <session name>`, dim and cut with `...`; line 2 is the session's
//! cumulative `↑in ↓out R<cache read> W<cache write> $<cost>` (each part
//! only when non-zero), the context use `12.3%/128k (auto)` (warning colour
//! above 70%, error above 90%, `?` right after a compaction), and on the
//! right the model id with ` • <thinking level>` for reasoning models,
//! prefixed with `(<provider>) ` when several providers have models.

use std::path::Path;

use pi_agent_core::AgentMessage;
use pi_ai::{Message, Usage};
use pi_tui::text::{truncate_to_width, visible_width};
use pi_tui::theme::{Theme, Token};

use crate::app::App;
use crate::modes::interactive::format::{fixed, format_tokens, shorten_home};

/// Token and cost sums over every assistant message of the session.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct UsageTotals {
    /// Input tokens.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Cache reads.
    pub cache_read: u64,
    /// Cache writes.
    pub cache_write: u64,
    /// Cost in dollars.
    pub cost: f64,
}

impl UsageTotals {
    /// Adds one message's usage.
    pub fn add(&mut self, usage: &Usage) {
        self.input += usage.input;
        self.output += usage.output;
        self.cache_read += usage.cache_read;
        self.cache_write += usage.cache_write;
        self.cost += usage.cost.total;
    }
}

/// What the footer shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FooterInfo {
    /// The cwd, `~` for home.
    pub cwd: String,
    /// The git branch.
    pub branch: Option<String>,
    /// The session's name.
    pub session_name: Option<String>,
    /// Session totals.
    pub totals: UsageTotals,
    /// Context use in percent (`None`: unknown after a compaction).
    pub context_percent: Option<f64>,
    /// The model's context window.
    pub context_window: u64,
    /// Auto-compaction on.
    pub auto_compact: bool,
    /// Model id (`None`: no model).
    pub model: Option<String>,
    /// Model provider.
    pub provider: String,
    /// The model reasons.
    pub reasoning: bool,
    /// `off`, `minimal`, ... `xhigh`.
    pub thinking: String,
    /// More than one provider has available models.
    pub several_providers: bool,
}

impl FooterInfo {
    /// The footer of `app`'s session: its totals over every assistant
    /// entry, its name, cwd (`~` for `home`) and git branch.
    pub fn for_session(app: &App, home: Option<&Path>) -> Self {
        let mut totals = UsageTotals::default();
        let (name, cwd) = {
            let session = app.session();
            // One entry at a time: a long resumed session is not read
            // into memory whole for its totals.
            session.for_each_entry(|entry| {
                if let Some(AgentMessage::Standard(Message::Assistant(a))) = entry.as_message() {
                    totals.add(&a.usage);
                }
            });
            (
                session.session_name().map(str::to_owned),
                session.cwd().to_owned(),
            )
        };
        let providers: std::collections::BTreeSet<String> = app
            .registry()
            .available_models(app.cli_api_key.as_deref(), &app.auth)
            .iter()
            .map(|m| m.provider.as_str().to_owned())
            .collect();
        Self {
            cwd: shorten_home(&cwd, home),
            branch: crate::modes::interactive::git::current_branch(&app.cwd),
            session_name: name,
            totals,
            auto_compact: app.auto_compaction(),
            several_providers: providers.len() > 1,
            ..Self::default()
        }
    }

    /// Takes the model and thinking level from `app` only (cheap: no
    /// transcript walk); true when either changed.
    pub fn refresh_model(&mut self, app: &App) -> bool {
        let model = app.agent.model();
        let level = app.agent.with_state(|s| s.thinking_level);
        let thinking = pi_ai::ThinkingLevel::setting_name(level);
        let changed = self.model.as_deref() != Some(model.id.as_str())
            || self.provider != model.provider.as_str()
            || self.thinking != thinking;
        if changed {
            self.model = Some(model.id.clone());
            self.provider = model.provider.as_str().to_owned();
            self.reasoning = model.reasoning;
            self.thinking = thinking.to_owned();
            self.context_window = model.context_window;
        }
        changed
    }

    /// Model, thinking level, context use (unknown right after a
    /// compaction), auto-compaction and session name, read again.
    pub fn refresh(&mut self, app: &App, context_unknown: bool) {
        let model = app.agent.model();
        let (level, tokens) = app.agent.with_state(|s| {
            (
                s.thinking_level,
                crate::compaction::estimate_context_tokens(&s.messages).tokens,
            )
        });
        let window = model.context_window;
        self.context_window = window;
        // Token counts are far below 2^52.
        let percent = (window > 0).then(|| tokens as f64 / window as f64 * 100.0);
        self.context_percent = if context_unknown { None } else { percent };
        self.model = Some(model.id.clone());
        self.provider = model.provider.as_str().to_owned();
        self.reasoning = model.reasoning;
        self.thinking = pi_ai::ThinkingLevel::setting_name(level).to_owned();
        self.auto_compact = app.auto_compaction();
        self.session_name = app.session().session_name().map(str::to_owned);
    }
}

/// The footer's lines for `width`.
pub fn render_footer(theme: &Theme, info: &FooterInfo, width: usize) -> Vec<String> {
    let mut location = info.cwd.clone();
    if let Some(branch) = &info.branch {
        location.push_str(&format!(" ({branch})"));
    }
    if let Some(name) = &info.session_name {
        location.push_str(&format!(" • {name}"));
    }
    let location = truncate_to_width(
        &theme.fg(Token::Dim, &location),
        width,
        &theme.fg(Token::Dim, "..."),
    );

    let t = &info.totals;
    let mut parts = Vec::new();
    if t.input > 0 {
        parts.push(format!("↑{}", format_tokens(t.input)));
    }
    if t.output > 0 {
        parts.push(format!("↓{}", format_tokens(t.output)));
    }
    if t.cache_read > 0 {
        parts.push(format!("R{}", format_tokens(t.cache_read)));
    }
    if t.cache_write > 0 {
        parts.push(format!("W{}", format_tokens(t.cache_write)));
    }
    if t.cost != 0.0 {
        parts.push(format!("${}", fixed(t.cost, 3)));
    }
    let auto = if info.auto_compact { " (auto)" } else { "" };
    let window = format_tokens(info.context_window);
    let percent = info.context_percent.unwrap_or(0.0);
    let context = match info.context_percent {
        Some(p) => format!("{}%/{window}{auto}", fixed(p, 1)),
        None => format!("?/{window}{auto}"),
    };
    let context_color = if percent > 90.0 {
        Some(Token::Error)
    } else if percent > 70.0 {
        Some(Token::Warning)
    } else {
        None
    };
    let plain_left = parts
        .iter()
        .map(String::as_str)
        .chain(std::iter::once(context.as_str()))
        .collect::<Vec<_>>()
        .join(" ");
    let mut left_width = visible_width(&plain_left);
    let left_plain = if left_width > width {
        let cut = truncate_to_width(&plain_left, width, "...");
        left_width = visible_width(&cut);
        cut
    } else {
        plain_left
    };
    // Colour the context part (when it survived the cut); the rest is dim.
    let left = match context_color {
        Some(color) if left_plain.ends_with(&context) => {
            let head = &left_plain[..left_plain.len() - context.len()];
            format!(
                "{}{}",
                theme.fg(Token::Dim, head),
                theme.fg(color, &context)
            )
        }
        _ => theme.fg(Token::Dim, &left_plain),
    };

    let model = info.model.as_deref().unwrap_or("no-model");
    let mut right = model.to_owned();
    if info.reasoning {
        right = if info.thinking == "off" {
            format!("{model} • thinking off")
        } else {
            format!("{model} • {}", info.thinking)
        };
    }
    if info.several_providers && info.model.is_some() {
        let with_provider = format!("({}) {right}", info.provider);
        if left_width + 2 + visible_width(&with_provider) <= width {
            right = with_provider;
        }
    }
    let right_width = visible_width(&right);
    let stats = if left_width + 2 + right_width <= width {
        let pad = " ".repeat(width - left_width - right_width);
        format!("{left}{}", theme.fg(Token::Dim, &format!("{pad}{right}")))
    } else if width > left_width + 2 {
        let cut = truncate_to_width(&right, width - left_width - 2, "");
        let pad = " ".repeat(width - left_width - visible_width(&cut));
        format!("{left}{}", theme.fg(Token::Dim, &format!("{pad}{cut}")))
    } else {
        left
    };
    vec![location, stats]
}

/// The extensions' statuses on one line under the footer, sorted by key,
/// each on one line (whitespace runs become one space), cut to `width`
/// with a dim `...` (none without statuses).
pub fn render_statuses(
    theme: &Theme,
    statuses: &std::collections::BTreeMap<String, String>,
    width: usize,
    lines: &mut Vec<String>,
) {
    if statuses.is_empty() {
        return;
    }
    let line = statuses
        .values()
        .map(|text| {
            text.replace(['\r', '\n', '\t'], " ")
                .split(' ')
                .filter(|part| !part.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join(" ");
    lines.push(truncate_to_width(
        &line,
        width,
        &theme.fg(Token::Dim, "..."),
    ));
}
