//! The widget part (pi's `widgetContainerAbove` / `widgetContainerBelow`):
//! lines set under a key, shown above or below the editor. Above the
//! editor an empty set is one blank line (pi's `Spacer(1)`), and widgets
//! there come after a blank line. Extensions fill it (pi's `setWidget`,
//! which removes the key first, so a widget set again moves last); a
//! widget of text is cut to 10 lines, as pi does, and each line is
//! indented by one column and wrapped (pi's `Text(line, 1, 0)`); a widget
//! the extension draws (a component) shows its lines as drawn, each cut to
//! the width.

use std::sync::Arc;

use pi_tui::theme::Theme;

use crate::extensions::WidgetFn;
use crate::extensions::run_hook;
use crate::modes::interactive::layout::padded;

/// The most lines of a text widget.
const MAX_LINES: usize = 10;

/// Where a widget is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Between the status and the editor (pi's default).
    AboveEditor,
    /// Between the editor and the footer.
    BelowEditor,
}

/// What a widget shows.
enum Content {
    /// Text lines (indented and wrapped).
    Lines(Vec<String>),
    /// A component's lines for the width.
    Drawn(WidgetFn),
}

/// The widgets shown around the editor.
#[derive(Default)]
pub struct Widgets {
    entries: Vec<(String, Placement, Content)>,
}

impl std::fmt::Debug for Widgets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(
                self.entries
                    .iter()
                    .map(|(key, placement, _)| (key, placement)),
            )
            .finish()
    }
}

impl Widgets {
    /// Sets the widget `key` to `lines` (replacing its lines, keeping its place).
    pub fn set(&mut self, key: &str, placement: Placement, mut lines: Vec<String>) {
        if lines.len() > MAX_LINES {
            lines.truncate(MAX_LINES);
            lines.push("... (widget truncated)".to_owned());
        }
        self.put(key, placement, Content::Lines(lines));
    }

    /// Sets the widget `key` to a component that draws itself.
    pub fn set_drawn(&mut self, key: &str, placement: Placement, widget: WidgetFn) {
        self.put(key, placement, Content::Drawn(widget));
    }

    fn put(&mut self, key: &str, placement: Placement, content: Content) {
        match self.entries.iter_mut().find(|(k, _, _)| k == key) {
            Some(entry) => *entry = (key.to_owned(), placement, content),
            None => self.entries.push((key.to_owned(), placement, content)),
        }
    }

    /// Removes the widget `key`.
    pub fn remove(&mut self, key: &str) {
        self.entries.retain(|(k, _, _)| k != key);
    }

    /// The lines of the widgets at `placement`, each padded and wrapped to `width` (drawn
    /// ones with `theme`, a failing one left out); above the editor, no widget is one blank
    /// line.
    pub fn render(
        &self,
        placement: Placement,
        width: usize,
        theme: &Arc<Theme>,
        lines: &mut Vec<String>,
    ) {
        let before = lines.len();
        let mut shown = self
            .entries
            .iter()
            .filter(|(_, p, _)| *p == placement)
            .peekable();
        // Above the editor, a blank line comes first (pi's leading spacer).
        if placement == Placement::AboveEditor && shown.peek().is_some() {
            lines.push(String::new());
        }
        for (_, _, widget) in shown {
            match widget {
                Content::Lines(text) => {
                    for line in text {
                        lines.extend(padded(line, width, 1));
                    }
                }
                Content::Drawn(draw) => {
                    let drawn = run_hook(|| Ok(draw(width, theme.as_ref()))).unwrap_or_default();
                    lines.extend(
                        drawn
                            .iter()
                            .flat_map(|l| l.split('\n'))
                            .map(|l| pi_tui::text::truncate_to_width(l, width, "")),
                    );
                }
            }
        }
        if lines.len() == before && placement == Placement::AboveEditor {
            lines.push(String::new());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn theme() -> Arc<Theme> {
        Arc::new(Theme::dark(pi_tui::theme::ColorMode::NoColor))
    }

    #[test]
    fn drawn_widgets_show_their_lines_for_the_width() {
        let mut widgets = Widgets::default();
        widgets.set_drawn(
            "w",
            Placement::BelowEditor,
            Arc::new(|width, _| vec![format!("{width} wide, and more than that")]),
        );
        let mut lines = Vec::new();
        widgets.render(Placement::BelowEditor, 12, &theme(), &mut lines);
        assert_eq!(lines, ["12 wide, and"]);
        widgets.set("w", Placement::BelowEditor, vec!["text".into()]);
        let mut lines = Vec::new();
        widgets.render(Placement::BelowEditor, 12, &theme(), &mut lines);
        assert_eq!(lines, [" text"]);
    }

    #[test]
    fn widgets_are_cut_and_keep_their_place() {
        let theme = theme();
        let mut widgets = Widgets::default();
        let mut lines = Vec::new();
        widgets.render(Placement::AboveEditor, 10, &theme, &mut lines);
        widgets.render(Placement::BelowEditor, 10, &theme, &mut lines);
        assert_eq!(lines, [""], "no widget: one blank line above the editor");
        widgets.set("a", Placement::AboveEditor, vec!["first".into()]);
        widgets.set(
            "b",
            Placement::AboveEditor,
            (0..12).map(|i| i.to_string()).collect(),
        );
        widgets.set("a", Placement::AboveEditor, vec!["again, too long".into()]);
        let mut lines = Vec::new();
        widgets.render(Placement::AboveEditor, 10, &theme, &mut lines);
        assert_eq!(lines.len(), 17);
        assert_eq!(lines[0], "");
        assert_eq!(lines[1], " again,");
        assert_eq!(lines[2], " too long");
        assert_eq!(lines[3], " 0");
        assert_eq!(lines[13], " ...");
        assert_eq!(lines[14], " (widget");
        widgets.remove("a");
        widgets.remove("b");
        let mut lines = Vec::new();
        widgets.render(Placement::AboveEditor, 10, &theme, &mut lines);
        assert_eq!(lines, [""]);
    }
}
