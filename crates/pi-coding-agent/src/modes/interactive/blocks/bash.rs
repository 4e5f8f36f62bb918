//! A user shell command (`!cmd`, or `!!cmd` kept out of the context):
//! rules in `bashMode` colour (`dim` for `!!`), the bold `$ cmd` header, the
//! output in muted colour (the last 20 visual lines when collapsed), then
//! `... N more lines (ctrl+o to expand)`, `(cancelled)`, `(exit N)` and
//! `Output truncated. Full output: <path>`. While it runs, a spinner with
//! `Running... (escape/ctrl+c to cancel)`.

use std::time::Instant;

use pi_tui::loader::{FRAMES, INTERVAL};
use pi_tui::text::wrap;
use pi_tui::theme::Token;

use super::RenderCtx;
use super::tool_views::last_visual_lines;
use crate::app::BashResult;
use crate::modes::interactive::layout::{clamp, padded, rule};

/// What a shell command block shows.
#[derive(Debug, Clone, Default)]
pub struct BashRecord {
    /// The command.
    pub command: String,
    /// `!!`: kept out of the model's context.
    pub exclude: bool,
    /// The (tail of the) output.
    pub output: String,
    /// Exit code (`None` when killed).
    pub exit_code: Option<i64>,
    /// Cancelled by the user.
    pub cancelled: bool,
    /// The output is only the tail.
    pub truncated: bool,
    /// The file with the whole output.
    pub full_output_path: Option<String>,
}

impl BashRecord {
    /// The record of a `bashExecution` message.
    pub fn from_message(m: &crate::messages::BashExecutionMessage) -> Self {
        Self {
            command: m.command.clone(),
            exclude: m.exclude_from_context == Some(true),
            output: m.output.clone(),
            exit_code: m.exit_code,
            cancelled: m.cancelled,
            truncated: m.truncated,
            full_output_path: m.full_output_path.clone(),
        }
    }
}

/// Visual lines of a collapsed block.
const PREVIEW_LINES: usize = 20;

/// A user shell command, running or done.
pub struct BashBlock {
    record: BashRecord,
    running_since: Option<Instant>,
    /// (width, expanded, output lines, hidden line count).
    cache: Option<(usize, bool, Vec<String>, usize)>,
}

impl BashBlock {
    /// A command that just started.
    pub fn running(command: &str, exclude: bool, now: Instant) -> Self {
        Self {
            record: BashRecord {
                command: command.to_owned(),
                exclude,
                ..BashRecord::default()
            },
            running_since: Some(now),
            cache: None,
        }
    }

    /// A finished command (from the transcript).
    pub fn done(record: BashRecord) -> Self {
        Self {
            record,
            running_since: None,
            cache: None,
        }
    }

    /// Completes a running command with what it gave (`None`: it could not run).
    pub fn complete(&mut self, result: Option<&BashResult>) {
        self.running_since = None;
        self.cache = None;
        match result {
            Some(r) => {
                self.record.output.clone_from(&r.output);
                self.record.exit_code = r.exit_code.map(i64::from);
                self.record.cancelled = r.cancelled;
                self.record.truncated = r.truncated;
                self.record.full_output_path.clone_from(&r.full_output_path);
            }
            None => self.record.exit_code = None,
        }
    }

    /// The output so far of a running command.
    pub fn set_output(&mut self, output: &str) {
        if self.running_since.is_some() && self.record.output != output {
            output.clone_into(&mut self.record.output);
            self.cache = None;
        }
    }

    /// True once the command ended.
    pub fn is_finished(&self) -> bool {
        self.running_since.is_none()
    }

    /// The lines for `width`.
    pub fn render(&mut self, ctx: &RenderCtx<'_>, width: usize) -> Vec<String> {
        let theme = ctx.theme;
        let color = if self.record.exclude {
            Token::Dim
        } else {
            Token::BashMode
        };
        let mut lines = vec![String::new(), rule(theme, color, width)];
        let header = theme.fg(color, &theme.bold(&format!("$ {}", self.record.command)));
        lines.extend(padded(&header, width, 1));
        let inner = width.saturating_sub(2).max(1);
        let output = pi_tui::text::sanitize(&self.record.output);
        let output = output.trim_end_matches('\n');
        let hidden = match &self.cache {
            Some((w, e, cached, hidden)) if *w == width && *e == ctx.expanded => {
                lines.extend(cached.iter().cloned());
                *hidden
            }
            _ => {
                let (body, hidden) = if output.is_empty() {
                    (Vec::new(), 0)
                } else if ctx.expanded {
                    let body = output
                        .split('\n')
                        .flat_map(|l| wrap(&theme.fg(Token::Muted, l), inner))
                        .collect::<Vec<_>>();
                    let count = output.split('\n').count();
                    (body, count.saturating_sub(PREVIEW_LINES))
                } else {
                    let logical: Vec<&str> = output.split('\n').collect();
                    let keep = logical.len().min(PREVIEW_LINES);
                    let tail = logical[logical.len() - keep..].join("\n");
                    let (body, _) = last_visual_lines(theme, &tail, PREVIEW_LINES, inner);
                    (body, logical.len() - keep)
                };
                let mut block = Vec::new();
                if !body.is_empty() {
                    block.push(String::new());
                    block.extend(body.into_iter().map(|l| clamp(&format!(" {l}"), width)));
                }
                lines.extend(block.iter().cloned());
                self.cache = Some((width, ctx.expanded, block, hidden));
                hidden
            }
        };
        if let Some(since) = self.running_since {
            let frame = (ctx.now.saturating_duration_since(since).as_millis()
                / INTERVAL.as_millis()) as usize
                % FRAMES.len();
            let spinner = theme.fg(color, FRAMES[frame]);
            let text = theme.fg(Token::Muted, "Running... (escape/ctrl+c to cancel)");
            lines.push(String::new());
            lines.extend(padded(&format!("{spinner} {text}"), width, 1));
        } else {
            let mut status = Vec::new();
            if hidden > 0 {
                if ctx.expanded {
                    status.push(format!("({} to collapse)", theme.fg(Token::Dim, "ctrl+o")));
                } else {
                    status.push(format!(
                        "{} ({} to expand)",
                        theme.fg(Token::Muted, &format!("... {hidden} more lines")),
                        theme.fg(Token::Dim, "ctrl+o")
                    ));
                }
            }
            if self.record.cancelled {
                status.push(theme.fg(Token::Warning, "(cancelled)"));
            } else if let Some(code) = self.record.exit_code.filter(|c| *c != 0) {
                status.push(theme.fg(Token::Error, &format!("(exit {code})")));
            }
            if self.record.truncated
                && let Some(path) = &self.record.full_output_path
            {
                let text = format!("Output truncated. Full output: {path}");
                status.push(theme.fg(Token::Warning, &text));
            }
            if !status.is_empty() {
                lines.push(String::new());
                for s in status {
                    lines.extend(padded(&s, width, 1));
                }
            }
        }
        lines.push(rule(theme, color, width));
        lines
    }
}
