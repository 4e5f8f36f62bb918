//! The settings that change how the terminal is driven, as pi 0.73.1 applies
//! them: `showHardwareCursor` (the cursor shown at the editor's cursor),
//! `terminal.clearOnShrink` (a full redraw when the content gets shorter) and
//! `terminal.showTerminalProgress` (OSC 9;4 while the agent works). Each is
//! read when it is used, so a change in `/settings` applies at once.

use super::{Frame, Ui};
use crate::modes::interactive::settings_rows;

/// pi-tui's environment default of `showHardwareCursor`.
const HARDWARE_CURSOR_ENV: &str = "PI_HARDWARE_CURSOR";
/// pi-tui's environment default of `terminal.clearOnShrink`.
const CLEAR_ON_SHRINK_ENV: &str = "PI_CLEAR_ON_SHRINK";

/// How many lines the frames drew since the last full redraw (pi's
/// `maxLinesRendered`): the scrollback written plus the live region.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct DrawnLines {
    /// Lines written into the scrollback since the last clear.
    committed: usize,
    /// The most lines (scrollback plus live region) drawn since the last clear.
    max: usize,
}

impl DrawnLines {
    /// Notes `frame`; true when it has fewer lines than were drawn before.
    fn shrank(&mut self, frame: &Frame) -> bool {
        if frame.clear {
            *self = Self::default();
        }
        self.committed += frame.commits.len();
        let total = self.committed + frame.live.len();
        let shrank = total < self.max;
        self.max = self.max.max(total);
        shrank
    }
}

fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| v == "1")
}

impl Ui {
    /// A `/settings` row's value now: changed in this run, else the
    /// settings files, else `default`.
    pub(crate) fn setting_value(&self, id: &str, default: &str) -> String {
        settings_rows::current(&self.look.values, &self.app.settings, id, default)
    }

    /// A boolean row's value now (see [`Ui::setting_value`]).
    pub(crate) fn setting_flag(&self, id: &str, default: bool) -> bool {
        self.setting_value(id, if default { "true" } else { "false" }) == "true"
    }

    /// `showHardwareCursor` (default: `PI_HARDWARE_CURSOR=1`).
    pub(crate) fn show_hardware_cursor(&self) -> bool {
        self.setting_flag("show-hardware-cursor", env_flag(HARDWARE_CURSOR_ENV))
    }

    /// `terminal.clearOnShrink` (default: `PI_CLEAR_ON_SHRINK=1`).
    pub(crate) fn clear_on_shrink(&self) -> bool {
        self.setting_flag("clear-on-shrink", env_flag(CLEAR_ON_SHRINK_ENV))
    }

    /// `terminal.showTerminalProgress` (default false).
    pub(crate) fn show_terminal_progress(&self) -> bool {
        self.setting_flag("terminal-progress", false)
    }

    /// Fills in the terminal parts of `frame` (cursor, progress) and says
    /// whether it must be drawn again as a full redraw: with
    /// `terminal.clearOnShrink`, when it has fewer lines than were drawn
    /// since the last full redraw and no overlay is shown (as pi-tui), so
    /// no empty rows stay below the content.
    pub(super) fn finish_frame(&mut self, frame: &mut Frame) -> bool {
        frame.show_cursor = self.show_hardware_cursor();
        let progress = self.show_terminal_progress();
        frame.progress = self.view.working && progress;
        frame.progress_started = std::mem::take(&mut self.view.work_started) && progress;
        let shrank = self.view.drawn.shrank(frame);
        shrank && !frame.clear && self.overlays.is_empty() && self.clear_on_shrink()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(clear: bool, commits: usize, live: usize) -> Frame {
        Frame {
            clear,
            commits: vec![String::new(); commits],
            live: vec![String::new(); live],
            ..Frame::default()
        }
    }

    #[test]
    fn lines_moving_into_the_scrollback_are_no_shrink_but_fewer_lines_are() {
        let mut drawn = DrawnLines::default();
        assert!(!drawn.shrank(&frame(false, 0, 10)));
        // A finished block goes from the live region to the scrollback.
        assert!(!drawn.shrank(&frame(false, 4, 6)));
        assert!(!drawn.shrank(&frame(false, 0, 8)));
        // A selector closes: two lines fewer than the most drawn.
        assert!(drawn.shrank(&frame(false, 0, 6)));
        // A full redraw starts the count again.
        assert!(!drawn.shrank(&frame(true, 4, 6)));
        assert!(!drawn.shrank(&frame(false, 0, 6)));
        assert!(drawn.shrank(&frame(false, 0, 5)));
    }
}
