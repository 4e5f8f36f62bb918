//! The autocomplete contract between the editor and the app.
//!
//! The editor asks its [`AutocompleteProvider`] for suggestions when the text before the
//! cursor may want completing (a `/` command at the start of the first line, an `@` file
//! token, an open dropdown being refined, or Tab). The provider answers with the `prefix` it
//! matched (the text right before the cursor that a completion replaces) and the items; the
//! editor shows them in a [`crate::select::SelectList`] and applies the chosen one.

/// Why the editor asks for suggestions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompletionTrigger {
    /// The text changed while typing (`/` commands, `@` files, a refining dropdown).
    Typing,
    /// Tab was pressed: complete commands, otherwise force path completion.
    Tab,
}

/// The editor state a provider completes against.
#[derive(Debug, Clone, Copy)]
pub struct CompletionRequest<'a> {
    /// The logical lines of the editor (paste markers unexpanded).
    pub lines: &'a [String],
    /// Index of the cursor's line.
    pub line: usize,
    /// Cursor position in that line, in bytes.
    pub col: usize,
    /// Why the request is made.
    pub trigger: CompletionTrigger,
}

impl CompletionRequest<'_> {
    /// The cursor line's text before the cursor.
    pub fn before_cursor(&self) -> &str {
        self.lines
            .get(self.line)
            .and_then(|l| l.get(..self.col))
            .unwrap_or("")
    }
}

/// One completion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletionItem {
    /// The text that replaces the prefix (a file gets a trailing space, a directory does not).
    pub value: String,
    /// What the dropdown shows (the value when empty).
    pub label: String,
    /// A muted second column.
    pub description: Option<String>,
}

impl CompletionItem {
    /// An item that inserts and shows `value`.
    pub fn new(value: impl Into<String>) -> Self {
        Self {
            value: value.into(),
            label: String::new(),
            description: None,
        }
    }

    /// Sets the shown label.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}

/// A provider's answer.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Suggestions {
    /// The text right before the cursor that a completion replaces (`/mo`, `@src/ma`, `./cr`).
    pub prefix: String,
    /// The candidates, best first.
    pub items: Vec<CompletionItem>,
}

/// Supplies completions to the editor (the app implements it: commands, files).
pub trait AutocompleteProvider {
    /// Suggestions for `request`, or `None` when nothing applies (the dropdown closes).
    fn suggest(&mut self, request: &CompletionRequest<'_>) -> Option<Suggestions>;
}
