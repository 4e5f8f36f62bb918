use super::*;
use crossterm::event::{KeyCode, KeyModifiers};
use pretty_assertions::assert_eq;

/// A box of `#` that closes on Enter with its letter.
struct Panel(char, usize);

impl SlotComponent<char> for Panel {
    fn handle_key(&mut self, key: &KeyEvent) -> Outcome<char> {
        match key.code {
            KeyCode::Enter => Outcome::Done(self.0),
            _ => Outcome::Stay,
        }
    }

    fn render(&mut self, width: usize, _rows: usize) -> Vec<String> {
        vec![self.0.to_string().repeat(width); self.1]
    }
}

fn base(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("line {i} ........")).collect()
}

fn options(anchor: Anchor, width: usize) -> OverlayOptions {
    OverlayOptions {
        anchor,
        width: Some(Size::Cells(width)),
        ..OverlayOptions::default()
    }
}

#[test]
fn overlays_are_drawn_at_their_anchor_on_top_of_each_other() {
    let mut stack = OverlayStack::new();
    stack.show(Box::new(Panel('a', 2)), options(Anchor::Center, 4));
    stack.show(Box::new(Panel('b', 1)), options(Anchor::BottomRight, 3));
    let mut lines = base(4);
    stack.composite(&mut lines, 16, 10);
    assert_eq!(
        lines,
        [
            "line 0 ........",
            "line 1aaaa.....",
            "line 2aaaa.....",
            "line 3 ......bbb",
        ]
    );
}

#[test]
fn a_short_region_grows_to_hold_the_overlay_up_to_the_rows() {
    let mut stack = OverlayStack::new();
    let mut lines = vec!["x".to_owned()];
    stack.show(
        Box::new(Panel('c', 5)),
        OverlayOptions {
            margin: 1,
            ..options(Anchor::TopLeft, 2)
        },
    );
    stack.composite(&mut lines, 6, 4);
    assert_eq!(lines, ["", " cc", " cc", "x"]);
}

#[test]
fn keys_go_to_the_topmost_capturing_overlay_which_closes() {
    let mut stack = OverlayStack::new();
    let a = stack.show(Box::new(Panel('a', 1)), OverlayOptions::default());
    let b = stack.show(
        Box::new(Panel('b', 1)),
        OverlayOptions {
            non_capturing: true,
            ..OverlayOptions::default()
        },
    );
    let enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
    assert!(stack.captures_input());
    assert_eq!(stack.handle_key(&enter), Some(Outcome::Done('a')));
    assert!(!stack.hide(a), "closed by its outcome");
    assert!(!stack.captures_input());
    assert_eq!(stack.handle_key(&enter), None);
    stack.set_hidden(b, true);
    let mut lines = base(1);
    stack.composite(&mut lines, 16, 5);
    assert_eq!(lines, base(1), "hidden overlays are not drawn");
    assert!(stack.hide_top());
    assert!(stack.is_empty());
}

#[test]
fn splices_keep_the_styles_around_the_overlay() {
    let styled = "\x1b[31mred text here\x1b[39m";
    let out = splice(styled, 2, 3, "OV");
    assert_eq!(
        out,
        "\x1b[31mre\x1b[0m\x1b[0mOV \x1b[0m\x1b[31mext here\x1b[39m"
    );
    assert_eq!(crate::text::visible_width(&out), 13);
    assert_eq!(
        skip_columns("a界b", 2),
        " b",
        "a wide character cut in half"
    );
    assert_eq!(splice("ab", 4, 2, "x"), "ab  x ");
}
