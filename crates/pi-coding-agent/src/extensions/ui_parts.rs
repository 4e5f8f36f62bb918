//! The types of the terminal-only parts of `ctx.ui` (pi 0.73.1's
//! `setHeader`, `setWorkingIndicator`, `addAutocompleteProvider`,
//! `onTerminalInput`, `setEditorComponent`, `setTheme`): what an
//! extension hands over, and what it gets back.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use super::render::{ExtensionComponent, ExtensionKey, RenderTheme};

/// Draws a header for a width (pi's `setHeader` component): the lines
/// replace the start-up header (`pi v…` and the key hints).
pub type HeaderFn = Arc<dyn Fn(usize, &dyn RenderTheme) -> Vec<String> + Send + Sync>;

/// Draws a widget for a width (pi's `setWidget` with a component factory):
/// its lines as drawn, not cut or indented as a widget of text is.
pub type WidgetFn = Arc<dyn Fn(usize, &dyn RenderTheme) -> Vec<String> + Send + Sync>;

/// Builds the component that replaces the editor (pi's `EditorFactory`).
pub type EditorComponentFn = Arc<dyn Fn() -> Box<dyn ExtensionComponent> + Send + Sync>;

/// The working indicator (pi's `WorkingIndicatorOptions`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkingIndicator {
    /// The frames, drawn verbatim (the extension adds its colours); one
    /// frame: a static indicator; none: no indicator, only the message.
    pub frames: Vec<String>,
    /// Time between frames (`None`: pi's 80 ms).
    pub interval: Option<Duration>,
}

/// Why a theme could not be set (pi's `setTheme` `{ success: false, error }`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetThemeError {
    /// There is no UI to theme (pi's rpc answer).
    #[error("Theme switching not supported in RPC mode")]
    Unsupported,
    /// The theme could not be found or loaded.
    #[error("{0}")]
    Load(String),
}

/// A completion an extension offers: what replaces the prefix, and what
/// the menu shows (pi's `AutocompleteItem` `value` and `label`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletionItem {
    /// The text that replaces the prefix.
    pub value: String,
    /// Shown in the menu.
    pub label: String,
}

impl CompletionItem {
    /// An item whose label is its value.
    pub fn new(value: impl Into<String>) -> Self {
        let value = value.into();
        Self {
            label: value.clone(),
            value,
        }
    }
}

/// An extension's completions for the editor: the text before the cursor
/// they replace, and the items (pi's `AutocompleteSuggestions`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completions {
    /// The end of the text before the cursor that an item replaces.
    pub prefix: String,
    /// The items.
    pub items: Vec<CompletionItem>,
}

/// Completes the editor's text (pi's `addAutocompleteProvider`): consulted
/// before the previously added providers and the built-in completion,
/// which are asked when it answers `None` (pi's wrapper delegating to the
/// provider it wraps).
pub trait AutocompleteProvider: Send + Sync {
    /// Completions for the cursor's `line`, the cursor at byte `cursor`.
    fn complete(&self, line: &str, cursor: usize) -> Option<Completions>;
}

/// The providers extensions added, newest first asked.
#[derive(Clone, Default)]
pub struct AutocompleteProviders(Arc<Mutex<Vec<Arc<dyn AutocompleteProvider>>>>);

impl std::fmt::Debug for AutocompleteProviders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let count = self.0.lock().unwrap_or_else(PoisonError::into_inner).len();
        write!(f, "AutocompleteProviders({count})")
    }
}

impl AutocompleteProviders {
    /// Adds `provider` (asked before the ones added earlier).
    pub fn add(&self, provider: Arc<dyn AutocompleteProvider>) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(provider);
    }

    /// The first completions of a provider, newest first; a panicking
    /// provider is skipped.
    pub fn complete(&self, line: &str, cursor: usize) -> Option<Completions> {
        let providers = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        providers
            .iter()
            .rev()
            .find_map(|p| super::render::run_hook(|| Ok(p.complete(line, cursor))).flatten())
    }

    /// True when no provider was added.
    pub fn is_empty(&self) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_empty()
    }
}

/// What a terminal input listener does with a key (pi's
/// `TerminalInputHandler` result).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum TerminalInput {
    /// Passes the key on (pi's `undefined`).
    #[default]
    Pass,
    /// Swallows the key (pi's `{ consume: true }`).
    Consume,
    /// Replaces the key with text, typed where the key would have gone
    /// (pi's `{ data }`, here as text rather than raw terminal bytes).
    Replace(String),
}

/// Listens to the keys before the editor (pi's `onTerminalInput`).
pub type TerminalInputFn = Arc<dyn Fn(&ExtensionKey) -> TerminalInput + Send + Sync>;

/// Removes a terminal input listener (pi's unsubscribe function).
pub struct TerminalInputHandle(Option<Box<dyn FnOnce() + Send + Sync>>);

impl TerminalInputHandle {
    /// A handle that runs `remove` when used.
    pub fn new(remove: impl FnOnce() + Send + Sync + 'static) -> Self {
        Self(Some(Box::new(remove)))
    }

    /// A handle that removes nothing (no terminal).
    pub fn none() -> Self {
        Self(None)
    }

    /// Removes the listener.
    pub fn remove(mut self) {
        if let Some(remove) = self.0.take() {
            remove();
        }
    }
}

impl std::fmt::Debug for TerminalInputHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TerminalInputHandle")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed(&'static str, Option<&'static str>);

    impl AutocompleteProvider for Fixed {
        fn complete(&self, line: &str, cursor: usize) -> Option<Completions> {
            let before = &line[..cursor];
            (before.ends_with(self.0)).then(|| Completions {
                prefix: self.0.to_owned(),
                items: self.1.map(CompletionItem::new).into_iter().collect(),
            })
        }
    }

    #[test]
    fn newest_provider_is_asked_first_and_none_falls_through() {
        let providers = AutocompleteProviders::default();
        assert!(providers.is_empty());
        assert_eq!(providers.complete("x", 1), None);
        providers.add(Arc::new(Fixed("#", Some("#old"))));
        providers.add(Arc::new(Fixed("#", Some("#new"))));
        providers.add(Arc::new(Fixed("$", None)));
        let got = providers.complete("a #", 3).expect("completions");
        assert_eq!(got.items, vec![CompletionItem::new("#new")]);
        assert_eq!(providers.complete("a b", 3), None);
    }

    #[test]
    fn handles_remove_once() {
        let removed = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = Arc::clone(&removed);
        TerminalInputHandle::new(move || flag.store(true, std::sync::atomic::Ordering::SeqCst))
            .remove();
        assert!(removed.load(std::sync::atomic::Ordering::SeqCst));
        TerminalInputHandle::none().remove();
        assert_eq!(
            SetThemeError::Unsupported.to_string(),
            "Theme switching not supported in RPC mode"
        );
    }
}
