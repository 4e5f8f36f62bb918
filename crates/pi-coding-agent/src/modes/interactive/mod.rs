//! pi's interactive mode: a terminal UI rendered inline (no alternate
//! screen; the terminal's scrollback holds the transcript). Finished blocks
//! are written into the scrollback once; the live region (the streaming
//! answer, running tools, queued messages, spinner, editor and footer) is
//! redrawn by line diff, at most once per 16 ms.
//!
//! Layers, bottom up (a module imports only from the layers below it):
//!
//! 1. [`action`] (what the mode is asked to do) and [`events`] (what the app
//!    and started work report): data only.
//! 2. Components and parts that own their state and know nothing of the
//!    [`ui::Ui`]: [`transcript`] and [`blocks`] (the chat), [`parts`]
//!    (header, queue, status, widgets, footer), [`selectors`] and the
//!    dialogs (`settings_view`, `login_view`, `oauth_dialog`), which are
//!    `pi_tui::slot::SlotComponent`s answering [`action::Action`]s;
//!    [`commands`] reads slash commands into actions.
//! 3. [`ui`]: the `Ui` joining the parts, the editor slot and the overlay
//!    stack, with the one dispatcher of actions.
//! 4. [`mod@run`]: the terminal loop, which binds the extensions to the
//!    terminal ([`extension_ui::TerminalUi`]: their `ctx.ui()` calls reach
//!    the loop as [`events::UiEvent::Extension`]).
//!
//! When stdout is not a terminal the old line mode ([`mod@line`]) runs instead:
//! prompts are read line by line and answers streamed as plain text.

pub mod action;
pub mod blocks;
mod clipboard;
pub mod clipboard_image;
pub mod commands;
pub mod complete;
pub mod events;
pub mod extension_ui;
pub mod files;
pub mod format;
pub use crate::git;
mod hotkeys;
mod layout;
pub mod line;
mod login_view;
mod md;
mod oauth_dialog;
pub mod parts;
pub mod run;
pub mod selectors;
mod session_info;
mod settings_rows;
mod settings_view;
mod theme_watch;
mod tmux;
pub mod transcript;
pub mod ui;

pub use ui::LookOptions;

use std::io::IsTerminal;
use std::sync::Arc;

use pi_agent_core::PromptInput;

use crate::app::App;
use crate::messages::CodingMessage;

/// Runs the interactive mode: the terminal UI when stdin and stdout are
/// terminals, else the line mode on stdin/stdout. `prompts` are sent first.
/// Returns the exit code. With `pick_session` (`pi -r`), the session
/// picker opens first (Esc leaves).
pub async fn run(
    app: Arc<App>,
    prompts: Vec<PromptInput<CodingMessage>>,
    look: LookOptions,
    pick_session: bool,
) -> i32 {
    if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        if look.verbose || !app.settings.quiet_startup() {
            print_model_scope(&app);
        }
        return run::run_tui(app, prompts, look, pick_session).await;
    }
    for prompt in prompts {
        if let Err(e) = app.prompt(prompt).await {
            tracing::error!("{e}");
        }
    }
    let input = tokio::io::BufReader::new(tokio::io::stdin());
    line::run(app, input, super::shared_writer(std::io::stdout())).await
}

#[cfg(test)]
#[path = "layers_tests.rs"]
mod layers_tests;

/// As pi before its terminal UI starts: the scoped models (`--models`,
/// `enabledModels`), dimmed, unless the startup is quiet.
fn print_model_scope(app: &App) {
    use std::io::Write;
    let Some(line) = model_scope_line(&app.scoped_models()) else {
        return;
    };
    let mut out = std::io::stdout();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// `Model scope: a, b:high (Ctrl+P to cycle)` in pi's colours (dim, the
/// hint gray); `None` without a scope.
fn model_scope_line(scoped: &[crate::config::ScopedModel]) -> Option<String> {
    if scoped.is_empty() {
        return None;
    }
    let list = scoped
        .iter()
        .map(|s| match &s.thinking_level {
            Some(level) => format!("{}:{level}", s.model.id),
            None => s.model.id.clone(),
        })
        .collect::<Vec<_>>()
        .join(", ");
    Some(format!(
        "\x1b[2mModel scope: {list} \x1b[90m(Ctrl+P to cycle)\x1b[39m\x1b[22m"
    ))
}
