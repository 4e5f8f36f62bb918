//! Notices in the chat: status lines (dim; consecutive ones replace each
//! other), `Warning: ...`, `Error: ...`, the startup header with its key
//! hints (collapsed or, with Ctrl+O, one hint per line) and framed info
//! panels (`/session`, `/hotkeys`).

use pi_tui::theme::Token;

use super::RenderCtx;
use crate::modes::interactive::layout::{padded, rule};
use crate::modes::interactive::md::{Md, MdStyle};

/// A notice.
pub enum Notice {
    /// A dim status line.
    Status(String),
    /// `Warning: <text>` in the warning colour.
    Warning(String),
    /// `Error: <text>` in the error colour.
    Error(String),
    /// An error colour line without the `Error:` prefix.
    ErrorText(String),
    /// Pre-styled text, padded 1.
    Text(String),
    /// Pre-styled text, not padded (pi's `Text(..., 0, 0)`: load issues).
    Plain(String),
    /// An accent line with a blank line above and below (`✓ New session started`).
    Success(String),
    /// A panel between rules: a bold accent title, then markdown.
    Panel {
        /// The title.
        title: String,
        /// The markdown body.
        body: Box<Md>,
    },
    /// Markdown between rules, with an optional bold accent title (pi's
    /// start-up "What's New" and its collapsed form).
    Framed {
        /// The title, followed by a blank line.
        title: Option<String>,
        /// The markdown body.
        body: Box<Md>,
    },
    /// The startup header.
    Header {
        /// The version shown after `pi`.
        version: String,
        /// The key bindings its hints name.
        keys: std::sync::Arc<pi_tui::keybindings::Keybindings>,
    },
    /// An extension's header (pi's `setHeader`); the built-in one when it
    /// fails.
    CustomHeader(crate::extensions::HeaderFn),
    /// pi's loaded-resources listing (`[Context]`, `[Skills]`, `[Prompts]`).
    Resources(Vec<ResourceSection>),
}

/// One section of pi's loaded-resources listing (built by
/// `parts::resources`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceSection {
    /// The heading's name (`Context`, `Skills`, `Prompts`).
    pub name: &'static str,
    /// The collapsed body (without its two-space indent).
    pub compact: String,
    /// The expanded body: (scope heading, or `None` for a plain line; text).
    pub expanded: Vec<(Option<String>, String)>,
}

/// The startup hints, expanded form.
/// pi's expanded start-up hints: the keys bound to each action (`keyHint`),
/// or pi's fixed texts (`rawKeyHint`).
fn expanded_hints(k: &dyn Fn(&str) -> String) -> Vec<(String, &'static str)> {
    let raw = |text: &str| text.to_owned();
    vec![
        (k("app.interrupt"), "to interrupt"),
        (k("app.clear"), "to clear"),
        (format!("{} twice", k("app.clear")), "to exit"),
        (k("app.exit"), "to exit (empty)"),
        (k("app.suspend"), "to suspend"),
        (k("tui.editor.deleteToLineEnd"), "to delete to end"),
        (k("app.thinking.cycle"), "to cycle thinking level"),
        (
            format!(
                "{}/{}",
                k("app.model.cycleForward"),
                k("app.model.cycleBackward")
            ),
            "to cycle models",
        ),
        (k("app.model.select"), "to select model"),
        (k("app.tools.expand"), "to expand tools"),
        (k("app.thinking.toggle"), "to expand thinking"),
        (k("app.editor.external"), "for external editor"),
        (raw("/"), "for commands"),
        (raw("!"), "to run bash"),
        (raw("!!"), "to run bash (no context)"),
        (k("app.message.followUp"), "to queue follow-up"),
        (k("app.message.dequeue"), "to edit all queued messages"),
        (k("app.clipboard.pasteImage"), "to paste image"),
        (raw("drop files"), "to attach"),
    ]
}

impl Notice {
    /// A panel with a markdown body.
    pub fn panel(title: &str, markdown: &str) -> Self {
        Self::Panel {
            title: title.to_owned(),
            body: Box::new(Md::new(markdown, MdStyle::Plain)),
        }
    }

    /// True for a status line (the next status replaces it).
    pub fn is_status(&self) -> bool {
        matches!(self, Self::Status(_))
    }

    /// The lines for `width`.
    pub fn render(&mut self, ctx: &RenderCtx<'_>, width: usize) -> Vec<String> {
        let t = ctx.theme;
        let mut lines = vec![String::new()];
        match self {
            Self::Status(text) => lines.extend(padded(&t.fg(Token::Dim, text), width, 1)),
            Self::Warning(text) => {
                lines.extend(padded(
                    &t.fg(Token::Warning, &format!("Warning: {text}")),
                    width,
                    1,
                ));
            }
            Self::Error(text) => {
                lines.extend(padded(
                    &t.fg(Token::Error, &format!("Error: {text}")),
                    width,
                    1,
                ));
            }
            Self::ErrorText(text) => lines.extend(padded(&t.fg(Token::Error, text), width, 1)),
            Self::Text(text) => lines.extend(padded(text, width, 1)),
            Self::Plain(text) => {
                for line in text.split('\n') {
                    lines.extend(padded(line, width, 0));
                }
            }
            Self::Success(text) => {
                lines.push(String::new());
                lines.extend(padded(&t.fg(Token::Accent, text), width, 1));
                lines.push(String::new());
            }
            Self::Panel { title, body } => {
                lines.push(rule(t, Token::Border, width));
                lines.extend(padded(&t.bold(&t.fg(Token::Accent, title)), width, 1));
                lines.push(String::new());
                lines.push(String::new());
                lines.extend(body.render(t, width, 1, &ctx.code_indent));
                lines.push(String::new());
                lines.push(rule(t, Token::Border, width));
            }
            Self::Framed { title, body } => {
                lines.push(rule(t, Token::Border, width));
                if let Some(title) = title {
                    lines.extend(padded(&t.bold(&t.fg(Token::Accent, title)), width, 1));
                    lines.push(String::new());
                }
                lines.extend(body.render(t, width, 1, &ctx.code_indent));
                if title.is_some() {
                    lines.push(String::new());
                }
                lines.push(rule(t, Token::Border, width));
            }
            Self::CustomHeader(header) => {
                let theme: &pi_tui::theme::Theme = t;
                match crate::extensions::run_hook(|| Ok(header(width, theme))) {
                    Some(custom) => lines.extend(
                        custom
                            .iter()
                            .flat_map(|l| l.split('\n'))
                            .map(|l| pi_tui::text::truncate_to_width(l, width, "")),
                    ),
                    None => {
                        let mut builtin = Self::Header {
                            version: crate::VERSION.to_owned(),
                            keys: std::sync::Arc::new(crate::keybindings::defaults()),
                        };
                        lines = builtin.render(ctx, width);
                    }
                }
            }
            Self::Header { version, keys } => {
                // pi's `keyText`: the bound keys joined with `/`.
                let k = |id: &str| keys.keys(id).join("/");
                let hint = |key: &str, text: &str| {
                    format!(
                        "{}{}",
                        t.fg(Token::Dim, key),
                        t.fg(Token::Muted, &format!(" {text}"))
                    )
                };
                let logo = format!(
                    "{}{}",
                    t.bold(&t.fg(Token::Accent, "pi")),
                    t.fg(Token::Dim, &format!(" v{version}"))
                );
                lines.extend(padded(&logo, width, 1));
                if ctx.expanded {
                    for (key, text) in expanded_hints(&k) {
                        lines.extend(padded(&hint(&key, text), width, 1));
                    }
                } else {
                    let compact = [
                        hint(&k("app.interrupt"), "interrupt"),
                        hint(
                            &format!("{}/{}", k("app.clear"), k("app.exit")),
                            "clear/exit",
                        ),
                        hint("/", "commands"),
                        hint("!", "bash"),
                        hint(&k("app.tools.expand"), "more"),
                    ]
                    .join(&t.fg(Token::Muted, " · "));
                    lines.extend(padded(&compact, width, 1));
                    let more = format!(
                        "Press {} to show full startup help and loaded resources.",
                        k("app.tools.expand")
                    );
                    lines.extend(padded(&t.fg(Token::Dim, &more), width, 1));
                }
                lines.push(String::new());
                let onboarding = "Pi can explain its own features and look up its docs. Ask it how to use or extend Pi.";
                lines.extend(padded(&t.fg(Token::Dim, onboarding), width, 1));
            }
            Self::Resources(sections) => {
                // pi: a spacer before `[Context]`, one after every section.
                if sections.first().is_some_and(|s| s.name == "Context") {
                    lines.push(String::new());
                }
                for section in sections {
                    let heading = t.fg(Token::MdHeading, &format!("[{}]", section.name));
                    lines.extend(padded(&heading, width, 0));
                    if ctx.expanded {
                        for (scope, text) in &section.expanded {
                            let line = match scope {
                                Some(scope) => format!("  {}", t.fg(Token::Accent, scope)),
                                None => t.fg(Token::Dim, &format!("  {text}")),
                            };
                            lines.extend(padded(&line, width, 0));
                        }
                    } else {
                        let line = t.fg(Token::Dim, &format!("  {}", section.compact));
                        lines.extend(padded(&line, width, 0));
                    }
                    lines.push(String::new());
                }
            }
        }
        lines
    }
}
