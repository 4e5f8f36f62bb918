//! The status part (pi's `statusContainer`): the spinner under the chat,
//! `Working...`, a compaction's or branch summary's message, or the
//! `Retrying (n/max) in Ns...` countdown.

use std::sync::Arc;
use std::time::Instant;

use pi_tui::Component;
use pi_tui::loader::Loader;
use pi_tui::theme::{Theme, Token};

/// What the spinner says.
pub enum Status {
    /// Nothing runs.
    Idle,
    /// `Working...` (a run) or a compaction's message.
    Busy(Loader),
    /// `Retrying (n/max) in Ns...`, counting down to `until`.
    Retry {
        /// The spinner.
        loader: Loader,
        /// Attempt number.
        attempt: u64,
        /// Attempts allowed.
        max: u64,
        /// When the retry starts.
        until: Instant,
    },
}

impl Status {
    /// A spinner with `message`.
    pub fn busy(theme: &Arc<Theme>, message: &str) -> Self {
        Self::Busy(Loader::new(Arc::clone(theme), message))
    }

    /// A spinner in `token`'s colour with `message`.
    pub fn busy_in(theme: &Arc<Theme>, message: &str, token: Token) -> Self {
        let mut loader = Loader::new(Arc::clone(theme), message);
        loader.set_spinner_token(token);
        Self::Busy(loader)
    }

    /// The countdown before retry `attempt` of `max`, at `until`.
    pub fn retry(theme: &Arc<Theme>, attempt: u64, max: u64, until: Instant) -> Self {
        let mut loader = Loader::new(Arc::clone(theme), "");
        loader.set_spinner_token(Token::Warning);
        Self::Retry {
            loader,
            attempt,
            max,
            until,
        }
    }

    /// True while the spinner is shown.
    pub fn is_shown(&self) -> bool {
        !matches!(self, Self::Idle)
    }

    /// True while a retry countdown is shown.
    pub fn is_retry(&self) -> bool {
        matches!(self, Self::Retry { .. })
    }

    /// Advances the spinner (and the countdown); true when its frame changed.
    /// `Idle` answers false.
    pub fn tick(&mut self, now: Instant) -> bool {
        match self {
            Self::Idle => false,
            Self::Busy(loader) => loader.tick(now),
            Self::Retry {
                loader,
                attempt,
                max,
                until,
            } => {
                let seconds = until.saturating_duration_since(now).as_secs_f64().ceil();
                loader.set_message(format!(
                    "Retrying ({attempt}/{max}) in {seconds}s... (escape to cancel)"
                ));
                loader.tick(now);
                true
            }
        }
    }

    /// The spinner's lines (none while idle).
    pub fn render(&mut self, width: usize, lines: &mut Vec<String>) {
        match self {
            Self::Idle => {}
            Self::Busy(loader) | Self::Retry { loader, .. } => lines.extend(loader.render(width)),
        }
    }
}
