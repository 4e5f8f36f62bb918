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
    /// Frames drawn verbatim instead of pi's spinner, and their interval.
    custom: Option<(Vec<String>, Duration)>,
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
            custom: None,
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

    /// Draws `frames` verbatim (no colour added), one per `interval`
    /// (`None`: 80 ms); no frames: only the message. `None` restores the
    /// spinner (pi's `setIndicator`).
    pub fn set_frames(&mut self, frames: Option<(Vec<String>, Option<Duration>)>) {
        self.custom = frames.map(|(f, i)| (f, i.unwrap_or(INTERVAL).max(Duration::from_millis(1))));
        self.frame = 0;
    }

    /// The frame index shown.
    pub fn frame(&self) -> usize {
        self.frame
    }

    /// Advances the animation to `now`; true when the visible frame changed.
    pub fn tick(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.started);
        let (count, interval) = match &self.custom {
            Some((frames, interval)) => (frames.len().max(1), *interval),
            None => (FRAMES.len(), INTERVAL),
        };
        let frame = (elapsed.as_millis() / interval.as_millis()) as usize % count;
        let changed = frame != self.frame;
        self.frame = frame;
        changed
    }
}

impl Component for Loader {
    fn render(&mut self, width: usize) -> Vec<String> {
        let message = self.theme.fg(self.message_token, &self.message);
        let line = match &self.custom {
            Some((frames, _)) if frames.is_empty() => format!(" {message}"),
            Some((frames, _)) => format!(" {} {message}", frames[self.frame % frames.len()]),
            None => format!(
                " {} {message}",
                self.theme
                    .fg(self.spinner, FRAMES[self.frame % FRAMES.len()])
            ),
        };
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
    fn custom_frames_are_drawn_verbatim_and_restored() {
        let mut l = Loader::new(Arc::new(Theme::dark(ColorMode::NoColor)), "Busy");
        let t0 = l.started;
        l.set_frames(Some((
            vec!["a".into(), "b".into()],
            Some(Duration::from_millis(10)),
        )));
        assert_eq!(l.render(20)[1], " a Busy");
        assert!(l.tick(t0 + Duration::from_millis(10)));
        assert_eq!(l.render(20)[1], " b Busy");
        l.set_frames(Some((Vec::new(), None)));
        assert_eq!(l.render(20)[1], " Busy");
        l.set_frames(None);
        assert_eq!(l.render(20)[1], " ⠋ Busy");
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
