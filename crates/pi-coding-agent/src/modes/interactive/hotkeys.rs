//! `/hotkeys`: pi's Navigation, Editing and Other tables, built from the effective
//! key bindings (a `keybindings.json` change shows here after `/reload`).

use pi_tui::keybindings::Keybindings;

/// The tables as markdown.
pub fn hotkeys_markdown(kb: &Keybindings) -> String {
    let k = |id: &str| format!("`{}`", kb.display(id));
    let rows = |rows: &[(String, &str)]| {
        let mut table = String::from("| Key | Action |\n|-----|--------|\n");
        for (key, action) in rows {
            table.push_str(&format!("| {key} | {action} |\n"));
        }
        table
    };
    let navigation = rows(&[
        (
            format!(
                "{} / {} / {} / {}",
                k("tui.editor.cursorUp"),
                k("tui.editor.cursorDown"),
                k("tui.editor.cursorLeft"),
                k("tui.editor.cursorRight")
            ),
            "Move cursor / browse history (Up when empty)",
        ),
        (
            format!(
                "{} / {}",
                k("tui.editor.cursorWordLeft"),
                k("tui.editor.cursorWordRight")
            ),
            "Move by word",
        ),
        (k("tui.editor.cursorLineStart"), "Start of line"),
        (k("tui.editor.cursorLineEnd"), "End of line"),
        (k("tui.editor.jumpForward"), "Jump forward to character"),
        (k("tui.editor.jumpBackward"), "Jump backward to character"),
        (
            format!("{} / {}", k("tui.editor.pageUp"), k("tui.editor.pageDown")),
            "Scroll by page",
        ),
    ]);
    let editing = rows(&[
        (k("tui.input.submit"), "Send message"),
        (k("tui.input.newLine"), "New line"),
        (k("tui.editor.deleteWordBackward"), "Delete word backwards"),
        (k("tui.editor.deleteWordForward"), "Delete word forwards"),
        (k("tui.editor.deleteToLineStart"), "Delete to start of line"),
        (k("tui.editor.deleteToLineEnd"), "Delete to end of line"),
        (k("tui.editor.yank"), "Paste the most-recently-deleted text"),
        (
            k("tui.editor.yankPop"),
            "Cycle through the deleted text after pasting",
        ),
        (k("tui.editor.undo"), "Undo"),
    ]);
    let other = rows(&[
        (k("tui.input.tab"), "Path completion / accept autocomplete"),
        (k("app.interrupt"), "Cancel autocomplete / abort streaming"),
        (k("app.clear"), "Clear editor (first) / exit (second)"),
        (k("app.exit"), "Exit (when editor is empty)"),
        (k("app.suspend"), "Suspend to background"),
        (k("app.thinking.cycle"), "Cycle thinking level"),
        (
            format!(
                "{} / {}",
                k("app.model.cycleForward"),
                k("app.model.cycleBackward")
            ),
            "Cycle models",
        ),
        (k("app.model.select"), "Open model selector"),
        (k("app.tools.expand"), "Toggle tool output expansion"),
        (k("app.thinking.toggle"), "Toggle thinking block visibility"),
        (k("app.editor.external"), "Edit message in external editor"),
        (k("app.message.followUp"), "Queue follow-up message"),
        (k("app.message.dequeue"), "Restore queued messages"),
        (k("app.clipboard.pasteImage"), "Paste image from clipboard"),
        ("`/`".to_owned(), "Slash commands"),
        ("`!`".to_owned(), "Run bash command"),
        (
            "`!!`".to_owned(),
            "Run bash command (excluded from context)",
        ),
    ]);
    format!(
        "**Navigation**\n{navigation}\n**Editing**\n{editing}\n**Other**\n{}",
        other.trim_end()
    )
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn the_table_follows_the_bindings() {
        let defaults = crate::keybindings::defaults();
        insta::assert_snapshot!("hotkeys_defaults", hotkeys_markdown(&defaults));
        let mut user = BTreeMap::new();
        user.insert("tui.input.submit".to_owned(), vec!["ctrl+s".to_owned()]);
        user.insert(
            "app.clear".to_owned(),
            vec!["ctrl+x".to_owned(), "f9".to_owned()],
        );
        let custom = hotkeys_markdown(&crate::keybindings::build(&user));
        assert!(custom.contains("| `Ctrl+S` | Send message |"));
        assert!(custom.contains("| `Ctrl+X/F9` | Clear editor (first) / exit (second) |"));
    }
}
