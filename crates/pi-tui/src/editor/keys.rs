//! The editor's keys, looked up in its [`Keybindings`](crate::keybindings::Keybindings)
//! (pi's `tui.editor.*` / `tui.input.*` actions).

use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::{Editor, EditorAction, Jump};

fn mods(key: &KeyEvent) -> KeyModifiers {
    // Kitty reports lock keys as modifiers on some terminals; only these four matter.
    key.modifiers
        & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT | KeyModifiers::SUPER)
}

/// Ctrl+J (a raw line feed) always inserts a newline, as pi's hard-coded `\n`.
fn is_raw_newline(key: &KeyEvent) -> bool {
    mods(key) == KeyModifiers::CONTROL && key.code == KeyCode::Char('j')
}

pub(super) fn dispatch(ed: &mut Editor, key: KeyEvent) -> EditorAction {
    if key.kind == KeyEventKind::Release {
        return EditorAction::Ignored;
    }
    let kb = Arc::clone(&ed.keys);
    let is = |id: &str| kb.matches(&key, id);
    if let Some(dir) = ed.jump.take() {
        if is("tui.editor.jumpForward") || is("tui.editor.jumpBackward") {
            return EditorAction::Handled;
        }
        if let KeyCode::Char(c) = key.code
            && (mods(&key).is_empty() || mods(&key) == KeyModifiers::SHIFT)
        {
            ed.jump_to_char(c, dir);
            return EditorAction::Handled;
        }
    }
    if is("tui.input.copy") {
        return EditorAction::Ignored;
    }
    if is("tui.editor.undo") {
        ed.undo();
        return EditorAction::Handled;
    }
    if ed.completion.is_some()
        && let Some(action) = ed.completion_key(&key)
    {
        return action;
    }
    if is("tui.input.tab") {
        ed.tab_completion();
        return EditorAction::Handled;
    }
    // Any other key ends the dropdown unless it edits the text it completes.
    edit_or_move(ed, &key, &is).unwrap_or(EditorAction::Ignored)
}

fn edit_or_move(
    ed: &mut Editor,
    key: &KeyEvent,
    is: &dyn Fn(&str) -> bool,
) -> Option<EditorAction> {
    let m = mods(key);
    let typed = matches!(key.code, KeyCode::Char(_)) && (m.is_empty() || m == KeyModifiers::SHIFT);
    let delete_forward = is("tui.editor.deleteCharForward");
    let refines = typed || is("tui.editor.deleteCharBackward") || delete_forward;
    if !refines {
        ed.close_completion();
    }
    if is("tui.editor.deleteToLineEnd") {
        ed.kill_to_line_end();
    } else if is("tui.editor.deleteToLineStart") {
        ed.kill_to_line_start();
    } else if is("tui.editor.deleteWordBackward") {
        ed.kill_word_backward();
    } else if is("tui.editor.deleteWordForward") {
        ed.kill_word_forward();
    } else if is("tui.editor.deleteCharBackward") {
        ed.backspace();
    } else if delete_forward {
        // On an empty editor the app's exit key may want it (Ctrl+D).
        if ed.is_empty() && m.contains(KeyModifiers::CONTROL) {
            return Some(EditorAction::Ignored);
        }
        ed.delete_forward();
    } else if is("tui.editor.yank") {
        ed.yank();
    } else if is("tui.editor.yankPop") {
        ed.yank_pop();
    } else if is("tui.editor.cursorLineStart") {
        ed.move_line_start();
    } else if is("tui.editor.cursorLineEnd") {
        ed.move_line_end();
    } else if is("tui.editor.cursorWordLeft") {
        ed.move_word_backward();
    } else if is("tui.editor.cursorWordRight") {
        ed.move_word_forward();
    } else if is("tui.input.newLine") || is_raw_newline(key) {
        ed.new_line();
    } else if is("app.message.followUp")
        || (!ed.keys.has("app.message.followUp")
            && key.code == KeyCode::Enter
            && m == KeyModifiers::ALT)
    {
        return Some(EditorAction::FollowUp(ed.take_submission()));
    } else if is("tui.input.submit") {
        if ed.cur_line()[..ed.buf.col].ends_with('\\') {
            ed.backspace();
            ed.new_line();
        } else {
            return Some(EditorAction::Submit(ed.take_submission()));
        }
    } else if is("tui.editor.cursorUp") {
        ed.key_up();
    } else if is("tui.editor.cursorDown") {
        ed.key_down();
    } else if is("tui.editor.cursorLeft") {
        ed.move_left();
    } else if is("tui.editor.cursorRight") {
        ed.move_right();
    } else if is("tui.editor.pageUp") {
        ed.page(-1);
    } else if is("tui.editor.pageDown") {
        ed.page(1);
    } else if is("tui.editor.jumpForward") {
        ed.jump = Some(Jump::Forward);
    } else if is("tui.editor.jumpBackward") {
        ed.jump = Some(Jump::Backward);
    } else if let KeyCode::Char(c) = key.code
        && typed
        && !c.is_control()
    {
        ed.insert_char(c);
    } else {
        return None;
    }
    Some(EditorAction::Handled)
}
