//! pi's spinner: a blank line, then `<frame> <message>`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::component::Component;
use crate::text::truncate_to_width;
use crate::theme::{Theme, Token};

/// pi's spinner frames.
pub const FRAMES: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/// Time between frames.
pub const INTERVAL: Duration = Duration::from_millis(80);

/// An animated status line. It does not run a timer: the app calls [`Loader::tick`] from its
/// own tick and redraws when the frame changed.
#[derive(Debug, Clone)]
pub struct Loader {
    theme: Arc<Theme>,
    message: String,
    spinner: Token,
    message_token: Token,
    started: Instant,
    frame: usize,
}

impl Loader {
    /// A loader showing `message`, started now.
    pub fn new(theme: Arc<Theme>, message: impl Into<String>) -> Self {
        Self {
            theme,
            message: message.into(),
            spinner: Token::Accent,
            message_token: Token::Muted,
            started: Instant::now(),
            frame: 0,
        }
    }

    /// Replaces the message (the animation continues).
    pub fn set_message(&mut self, message: impl Into<String>) {
        self.message = message.into();
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The spinner colour (accent by default, warning for retries).
    pub fn set_spinner_token(&mut self, token: Token) {
        self.spinner = token;
    }

    /// The frame index shown.
    pub fn frame(&self) -> usize {
        self.frame
    }

    /// Advances the animation to `now`; true when the visible frame changed.
    pub fn tick(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.started);
        let frame = (elapsed.as_millis() / INTERVAL.as_millis()) as usize % FRAMES.len();
        let changed = frame != self.frame;
        self.frame = frame;
        changed
    }
}

impl Component for Loader {
    fn render(&mut self, width: usize) -> Vec<String> {
        let line = format!(
            " {} {}",
            self.theme
                .fg(self.spinner, FRAMES[self.frame % FRAMES.len()]),
            self.theme.fg(self.message_token, &self.message)
        );
        vec![String::new(), truncate_to_width(&line, width, "")]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theme::ColorMode;

    #[test]
    fn frames_advance_every_80ms() {
        let mut l = Loader::new(Arc::new(Theme::dark(ColorMode::NoColor)), "Working...");
        let t0 = l.started;
        assert!(!l.tick(t0 + Duration::from_millis(79)));
        assert!(l.tick(t0 + Duration::from_millis(80)));
        assert_eq!(
            l.render(40),
            vec!["".to_owned(), " ⠙ Working...".to_owned()]
        );
        l.tick(t0 + Duration::from_millis(800));
        assert_eq!(l.frame(), 0);
        assert_eq!(l.render(4), vec!["".to_owned(), " ⠋ W".to_owned()]);
    }

    #[test]
    fn retry_spinner_snapshot() {
        let mut l = Loader::new(
            Arc::new(Theme::dark(ColorMode::TrueColor)),
            "Retrying (1/3) in 2s... (escape to cancel)",
        );
        l.set_spinner_token(Token::Warning);
        l.tick(l.started + Duration::from_millis(250));
        let shown: Vec<String> = l
            .render(60)
            .iter()
            .map(|s| s.replace('\x1b', "␛"))
            .collect();
        insta::assert_snapshot!(shown.join("\n"));
    }
}
