//! The widget part (pi's `widgetContainerAbove` / `widgetContainerBelow`):
//! lines set under a key, shown above or below the editor. Above the
//! editor an empty set is one blank line (pi's `Spacer(1)`), and widgets
//! there come after a blank line. Extensions fill it (pi's `setWidget`,
//! which removes the key first, so a widget set again moves last); a
//! widget of text is cut to 10 lines, as pi does, and each line is
//! indented by one column and wrapped (pi's `Text(line, 1, 0)`).

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

/// The widgets shown around the editor.
#[derive(Debug, Default)]
pub struct Widgets {
    entries: Vec<(String, Placement, Vec<String>)>,
}

impl Widgets {
    /// Sets the widget `key` to `lines` (replacing its lines, keeping its place).
    pub fn set(&mut self, key: &str, placement: Placement, mut lines: Vec<String>) {
        if lines.len() > MAX_LINES {
            lines.truncate(MAX_LINES);
            lines.push("... (widget truncated)".to_owned());
        }
        match self.entries.iter_mut().find(|(k, _, _)| k == key) {
            Some(entry) => *entry = (key.to_owned(), placement, lines),
            None => self.entries.push((key.to_owned(), placement, lines)),
        }
    }

    /// Removes the widget `key`.
    pub fn remove(&mut self, key: &str) {
        self.entries.retain(|(k, _, _)| k != key);
    }

    /// The lines of the widgets at `placement`, each padded and wrapped to `width`; above
    /// the editor, no widget is one blank line.
    pub fn render(&self, placement: Placement, width: usize, lines: &mut Vec<String>) {
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
            for line in widget {
                lines.extend(padded(line, width, 1));
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

    #[test]
    fn widgets_are_cut_and_keep_their_place() {
        let mut widgets = Widgets::default();
        let mut lines = Vec::new();
        widgets.render(Placement::AboveEditor, 10, &mut lines);
        widgets.render(Placement::BelowEditor, 10, &mut lines);
        assert_eq!(lines, [""], "no widget: one blank line above the editor");
        widgets.set("a", Placement::AboveEditor, vec!["first".into()]);
        widgets.set(
            "b",
            Placement::AboveEditor,
            (0..12).map(|i| i.to_string()).collect(),
        );
        widgets.set("a", Placement::AboveEditor, vec!["again, too long".into()]);
        let mut lines = Vec::new();
        widgets.render(Placement::AboveEditor, 10, &mut lines);
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
        widgets.render(Placement::AboveEditor, 10, &mut lines);
        assert_eq!(lines, [""]);
    }
}
