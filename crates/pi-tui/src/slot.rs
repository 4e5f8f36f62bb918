//! The editor slot: one component shown in the editor's place until it is
//! done (pi's selectors, dialogs and `custom()` without `overlay`).
//!
//! A [`SlotComponent`] gets every key and paste while it is shown and
//! answers with an [`Outcome`]: stay open, report an action and stay, or
//! close with or without an action. The screen that owns the slot carries the
//! action out; the component knows nothing about that screen. The
//! [`overlay`](crate::overlay) stack holds the same components.

use std::sync::Arc;

use crossterm::event::KeyEvent;

use crate::theme::Theme;

/// What a key did to a component in a slot or an overlay.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome<A> {
    /// It stays open (redraw).
    Stay,
    /// It stays open; the screen carries out the action (a setting changed,
    /// a theme previewed).
    Emit(A),
    /// It closes with nothing to do.
    Cancel,
    /// It closes; the screen carries out the action.
    Done(A),
}

impl<A> Outcome<A> {
    /// True when the component closes.
    pub fn closes(&self) -> bool {
        matches!(self, Self::Cancel | Self::Done(_))
    }

    /// The action to carry out, if any.
    pub fn into_action(self) -> Option<A> {
        match self {
            Self::Emit(action) | Self::Done(action) => Some(action),
            Self::Stay | Self::Cancel => None,
        }
    }

    /// The same outcome with its action turned into another type.
    pub fn map<B>(self, f: impl FnOnce(A) -> B) -> Outcome<B> {
        match self {
            Self::Stay => Outcome::Stay,
            Self::Emit(action) => Outcome::Emit(f(action)),
            Self::Cancel => Outcome::Cancel,
            Self::Done(action) => Outcome::Done(f(action)),
        }
    }
}

/// A component that takes input: shown in the editor slot or on the overlay
/// stack. `A` is the owning screen's action type.
pub trait SlotComponent<A> {
    /// Handles a key press.
    fn handle_key(&mut self, key: &KeyEvent) -> Outcome<A>;

    /// The lines for a terminal `width` x `rows` (every line at most `width`
    /// cells; `rows` bounds lists that scroll).
    fn render(&mut self, width: usize, rows: usize) -> Vec<String>;

    /// Pasted text (into the input field, when there is one).
    fn paste(&mut self, _text: &str) {}

    /// The screen switched to `theme` (a component that draws with the
    /// screen's theme takes the new one).
    fn set_theme(&mut self, _theme: &Arc<Theme>) {}

    /// Asked when the screen is told that something changed without a
    /// key (a component whose own code closes it, such as an extension's
    /// after a model call): an outcome that closes it closes it.
    fn poll(&mut self) -> Outcome<A> {
        Outcome::Stay
    }
}

/// The editor slot: at most one component shown instead of the editor.
pub struct EditorSlot<A> {
    current: Option<Box<dyn SlotComponent<A>>>,
}

impl<A> Default for EditorSlot<A> {
    fn default() -> Self {
        Self { current: None }
    }
}

impl<A> EditorSlot<A> {
    /// An empty slot (the editor is shown).
    pub fn new() -> Self {
        Self::default()
    }

    /// Shows `component` instead of the editor (replacing the one shown).
    pub fn show(&mut self, component: Box<dyn SlotComponent<A>>) {
        self.current = Some(component);
    }

    /// Closes the component shown (the editor comes back).
    pub fn close(&mut self) {
        self.current = None;
    }

    /// True while a component takes the editor's place.
    pub fn is_open(&self) -> bool {
        self.current.is_some()
    }

    /// Gives `key` to the component shown; `None` when the slot is empty.
    /// The component is closed before an outcome that closes it is
    /// returned, so that the action may open the next one.
    pub fn handle_key(&mut self, key: &KeyEvent) -> Option<Outcome<A>> {
        let outcome = self.current.as_mut()?.handle_key(key);
        if outcome.closes() {
            self.current = None;
        }
        Some(outcome)
    }

    /// Polls the component shown ([`SlotComponent::poll`]); `None` when
    /// the slot is empty. A closing outcome closes it first.
    pub fn poll(&mut self) -> Option<Outcome<A>> {
        let outcome = self.current.as_mut()?.poll();
        if outcome.closes() {
            self.current = None;
        }
        Some(outcome)
    }

    /// Gives pasted text to the component shown; false when the slot is empty.
    pub fn paste(&mut self, text: &str) -> bool {
        match &mut self.current {
            Some(component) => {
                component.paste(text);
                true
            }
            None => false,
        }
    }

    /// The lines of the component shown, if any.
    pub fn render(&mut self, width: usize, rows: usize) -> Option<Vec<String>> {
        self.current
            .as_mut()
            .map(|component| component.render(width, rows))
    }

    /// Passes a theme switch to the component shown.
    pub fn set_theme(&mut self, theme: &Arc<Theme>) {
        if let Some(component) = &mut self.current {
            component.set_theme(theme);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyModifiers};

    /// Counts keys; Enter reports the count and closes, `e` emits it, Esc cancels.
    struct Counter(usize);

    impl SlotComponent<usize> for Counter {
        fn handle_key(&mut self, key: &KeyEvent) -> Outcome<usize> {
            self.0 += 1;
            match key.code {
                KeyCode::Enter => Outcome::Done(self.0),
                KeyCode::Esc => Outcome::Cancel,
                KeyCode::Char('e') => Outcome::Emit(self.0),
                _ => Outcome::Stay,
            }
        }

        fn render(&mut self, width: usize, _rows: usize) -> Vec<String> {
            vec![format!("{:>width$}", self.0)]
        }
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn the_slot_routes_keys_and_closes_on_done_or_cancel() {
        let mut slot = EditorSlot::new();
        assert_eq!(slot.handle_key(&key(KeyCode::Enter)), None);
        assert!(!slot.paste("x"));
        slot.show(Box::new(Counter(0)));
        assert_eq!(
            slot.handle_key(&key(KeyCode::Char('a'))),
            Some(Outcome::Stay)
        );
        assert_eq!(
            slot.handle_key(&key(KeyCode::Char('e'))),
            Some(Outcome::Emit(2))
        );
        assert_eq!(slot.render(3, 10), Some(vec!["  2".to_owned()]));
        assert!(slot.paste("x"));
        assert_eq!(
            slot.handle_key(&key(KeyCode::Enter)),
            Some(Outcome::Done(3))
        );
        assert!(!slot.is_open());
        slot.show(Box::new(Counter(0)));
        assert_eq!(slot.handle_key(&key(KeyCode::Esc)), Some(Outcome::Cancel));
        assert_eq!(slot.render(3, 10), None);
    }

    #[test]
    fn outcomes_map_and_give_their_action() {
        assert_eq!(Outcome::Done(2).map(|n| n * 2), Outcome::Done(4));
        assert_eq!(Outcome::Emit(1).into_action(), Some(1));
        assert_eq!(Outcome::<u8>::Cancel.into_action(), None);
        assert!(!Outcome::Emit(1).closes());
    }
}
