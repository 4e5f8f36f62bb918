//! What the interactive mode is asked to do. Keys (through the key
//! bindings), slash commands, selectors and dialogs all answer an
//! [`Action`]; one dispatcher (`ui::dispatch`) carries every action out and
//! tells the terminal loop what is left for it to do ([`Effect`]).
//!
//! This is the mode's bottom layer with [`super::events`]: it names the
//! data of a request, never the state that carries it out.

use std::path::PathBuf;

/// What a [`Choice`](super::selectors::choice::Choice) decides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChoiceKind {
    /// "Summarize branch?" before moving to this tree entry.
    Summarize(String),
    /// "Import session": replace the current session with this file.
    Import(PathBuf),
}

/// What a [`TextPrompt`](super::selectors::choice::TextPrompt) asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextKind {
    /// Custom instructions for the summary before moving to this entry.
    SummaryInstructions(String),
}

/// One request to the interactive mode.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    // Prompts and the editor.
    /// Enter: a prompt, a `!cmd` or a slash command.
    Submit(String),
    /// Alt+Enter: a follow-up while streaming, else a submit.
    FollowUp(String),
    /// Esc on the editor: abort, cancel, leave bash mode, or double Esc.
    Interrupt,
    /// Ctrl+C: clear the editor; twice within 500 ms quits.
    Clear,
    /// Alt+Up: every queued message back into the editor.
    Dequeue,
    /// Ctrl+Z: suspend the process.
    Suspend,
    /// Ctrl+G: edit the prompt in `$VISUAL` / `$EDITOR`.
    ExternalEditor,
    /// Leave the interactive mode (`/quit`, Ctrl+D, the startup picker cancelled).
    Quit,

    // The view.
    /// Ctrl+O: expand or collapse every block.
    ToggleExpanded,
    /// Ctrl+T: hide or show thinking blocks.
    ToggleThinking,
    /// Ctrl+P / Shift+Ctrl+P: the next (previous) model.
    CycleModel {
        /// Shift+Ctrl+P.
        backward: bool,
    },
    /// Shift+Tab: the next thinking level.
    CycleThinking,

    // Slash commands.
    /// `/model [search]`: an exact match switches, else the selector opens.
    ModelCommand(Option<String>),
    /// `/compact [instructions]`.
    Compact(Option<String>),
    /// `/name [name]`.
    Name(Option<String>),
    /// `/session`.
    SessionInfo,
    /// `/copy`.
    Copy,
    /// Ctrl+V: the clipboard's image saved to a file whose path goes into the editor.
    PasteImage,
    /// `/new`.
    NewSession,
    /// `/clone`.
    CloneSession,
    /// `/export [path]`.
    Export(Option<String>),
    /// `/share`.
    Share,
    /// `/hotkeys`.
    Hotkeys,
    /// `/changelog`.
    Changelog,
    /// `/reload`.
    Reload,
    /// A line for the chat in the error colour (a command's usage).
    Error(String),

    // Opening a selector or dialog in the editor slot.
    /// `/resume`, `pi -r` (`startup`: Esc leaves pi).
    OpenSessions {
        /// Opened by `pi -r`.
        startup: bool,
    },
    /// `/tree`, double Esc.
    OpenTree,
    /// `/fork`.
    OpenFork,
    /// `/scoped-models`.
    OpenScopedModels,
    /// `/import <file>`: asks to confirm first.
    ConfirmImport(PathBuf),
    /// `/settings`.
    OpenSettings,
    /// `/login`.
    OpenLogin,
    /// `/logout`.
    OpenLogout,

    // Answers of selectors.
    /// Switch to this model (and save it as the default).
    Model(Box<pi_ai::Model>),
    /// Resume the session file.
    Resume(PathBuf),
    /// Move the leaf to this entry (asks about a summary first).
    TreeTarget(String),
    /// Fork into a new session at this user message.
    Fork(String),
    /// An answer to a [`Choice`](super::selectors::choice::Choice) (`None`: cancelled).
    Choice(ChoiceKind, Option<usize>),
    /// Text entered in a [`TextPrompt`](super::selectors::choice::TextPrompt) (`None`: cancelled).
    Text(TextKind, Option<String>),
    /// A message for the chat (status line).
    Status(String),

    // Answers of dialogs.
    /// A `/settings` row changed (row id, new value).
    Setting(&'static str, String),
    /// A `/settings` submenu moved over a value (only the theme is previewed).
    PreviewSetting(&'static str, String),
    /// `/login`: save this API key.
    SaveApiKey {
        /// Provider id.
        provider: String,
        /// The key as typed.
        key: String,
    },
    /// `/logout`: remove the provider's stored credentials.
    Logout(String),
    /// `/login` chose a subscription: start its OAuth flow.
    StartOauth(String),
}

/// What the terminal loop must do after an action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Nothing beyond a redraw.
    None,
    /// Leave the interactive mode.
    Quit,
    /// Ctrl+Z: suspend the process.
    Suspend,
    /// Ctrl+G: edit the prompt in `$VISUAL` / `$EDITOR`.
    ExternalEditor,
    /// Write this text to the clipboard (OSC 52 fallback).
    Copy(String),
}
