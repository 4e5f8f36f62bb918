//! Key bindings of the editor (pi's `tui.editor.*` / `tui.input.*` defaults).

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::{Editor, EditorAction, Jump};

fn mods(key: &KeyEvent) -> KeyModifiers {
    // Kitty reports lock keys as modifiers on some terminals; only these four matter.
    key.modifiers
        & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT | KeyModifiers::SUPER)
}

fn ctrl(key: &KeyEvent, c: char) -> bool {
    mods(key) == KeyModifiers::CONTROL && key.code == KeyCode::Char(c)
}

fn alt(key: &KeyEvent, c: char) -> bool {
    mods(key) == KeyModifiers::ALT && key.code == KeyCode::Char(c)
}

fn plain(key: &KeyEvent, code: KeyCode) -> bool {
    key.code == code && (mods(key).is_empty() || mods(key) == KeyModifiers::SHIFT)
}

fn with(key: &KeyEvent, code: KeyCode, m: KeyModifiers) -> bool {
    key.code == code && mods(key) == m
}

/// Ctrl+- (legacy terminals send Ctrl+_ , which arrives as Ctrl+7).
fn is_undo(key: &KeyEvent) -> bool {
    ctrl(key, '-') || ctrl(key, '_') || ctrl(key, '7')
}

/// Ctrl+] (legacy terminals send 0x1d, which arrives as Ctrl+5).
fn is_jump_forward(key: &KeyEvent) -> bool {
    ctrl(key, ']') || ctrl(key, '5')
}

/// Ctrl+Alt+].
fn is_jump_backward(key: &KeyEvent) -> bool {
    let m = KeyModifiers::CONTROL | KeyModifiers::ALT;
    with(key, KeyCode::Char(']'), m) || with(key, KeyCode::Char('5'), m)
}

fn is_newline(key: &KeyEvent) -> bool {
    with(key, KeyCode::Enter, KeyModifiers::SHIFT) || ctrl(key, 'j')
}

pub(super) fn dispatch(ed: &mut Editor, key: KeyEvent) -> EditorAction {
    if key.kind == KeyEventKind::Release {
        return EditorAction::Ignored;
    }
    if let Some(dir) = ed.jump.take() {
        if is_jump_forward(&key) || is_jump_backward(&key) {
            return EditorAction::Handled;
        }
        if let KeyCode::Char(c) = key.code
            && (mods(&key).is_empty() || mods(&key) == KeyModifiers::SHIFT)
        {
            ed.jump_to_char(c, dir);
            return EditorAction::Handled;
        }
    }
    if ctrl(&key, 'c') {
        return EditorAction::Ignored;
    }
    if is_undo(&key) {
        ed.undo();
        return EditorAction::Handled;
    }
    if ed.completion.is_some()
        && let Some(action) = ed.completion_key(&key)
    {
        return action;
    }
    if plain(&key, KeyCode::Tab) {
        ed.tab_completion();
        return EditorAction::Handled;
    }
    // Any other key ends the dropdown unless it edits the text it completes.
    let handled = edit_or_move(ed, &key);
    match handled {
        Some(action) => action,
        None => EditorAction::Ignored,
    }
}

fn edit_or_move(ed: &mut Editor, key: &KeyEvent) -> Option<EditorAction> {
    let m = mods(key);
    let refines = matches!(
        key.code,
        KeyCode::Char(_) | KeyCode::Backspace | KeyCode::Delete
    ) && (m.is_empty() || m == KeyModifiers::SHIFT);
    if !refines && !ctrl(key, 'd') {
        ed.close_completion();
    }
    if ctrl(key, 'k') {
        ed.kill_to_line_end();
    } else if ctrl(key, 'u') {
        ed.kill_to_line_start();
    } else if ctrl(key, 'w') || with(key, KeyCode::Backspace, KeyModifiers::ALT) {
        ed.kill_word_backward();
    } else if alt(key, 'd') || with(key, KeyCode::Delete, KeyModifiers::ALT) {
        ed.kill_word_forward();
    } else if plain(key, KeyCode::Backspace) {
        ed.backspace();
    } else if plain(key, KeyCode::Delete) {
        ed.delete_forward();
    } else if ctrl(key, 'd') {
        if ed.is_empty() {
            return Some(EditorAction::Ignored);
        }
        ed.delete_forward();
    } else if ctrl(key, 'y') {
        ed.yank();
    } else if alt(key, 'y') {
        ed.yank_pop();
    } else if plain(key, KeyCode::Home) || ctrl(key, 'a') {
        ed.move_line_start();
    } else if plain(key, KeyCode::End) || ctrl(key, 'e') {
        ed.move_line_end();
    } else if with(key, KeyCode::Left, KeyModifiers::ALT)
        || with(key, KeyCode::Left, KeyModifiers::CONTROL)
        || alt(key, 'b')
    {
        ed.move_word_backward();
    } else if with(key, KeyCode::Right, KeyModifiers::ALT)
        || with(key, KeyCode::Right, KeyModifiers::CONTROL)
        || alt(key, 'f')
    {
        ed.move_word_forward();
    } else if is_newline(key) {
        ed.new_line();
    } else if with(key, KeyCode::Enter, KeyModifiers::ALT) {
        return Some(EditorAction::FollowUp(ed.take_submission()));
    } else if plain(key, KeyCode::Enter) {
        if ed.cur_line()[..ed.buf.col].ends_with('\\') {
            ed.backspace();
            ed.new_line();
        } else {
            return Some(EditorAction::Submit(ed.take_submission()));
        }
    } else if plain(key, KeyCode::Up) && m.is_empty() {
        ed.key_up();
    } else if plain(key, KeyCode::Down) && m.is_empty() {
        ed.key_down();
    } else if plain(key, KeyCode::Left) || ctrl(key, 'b') {
        ed.move_left();
    } else if plain(key, KeyCode::Right) || ctrl(key, 'f') {
        ed.move_right();
    } else if plain(key, KeyCode::PageUp) {
        ed.page(-1);
    } else if plain(key, KeyCode::PageDown) {
        ed.page(1);
    } else if is_jump_forward(key) {
        ed.jump = Some(Jump::Forward);
    } else if is_jump_backward(key) {
        ed.jump = Some(Jump::Backward);
    } else if let KeyCode::Char(c) = key.code
        && (m.is_empty() || m == KeyModifiers::SHIFT)
        && !c.is_control()
    {
        ed.insert_char(c);
    } else {
        return None;
    }
    Some(EditorAction::Handled)
}
