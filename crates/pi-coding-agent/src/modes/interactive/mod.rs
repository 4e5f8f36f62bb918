//! pi's interactive mode: a terminal UI rendered inline (no alternate
//! screen; the terminal's scrollback holds the transcript). Finished blocks
//! are written into the scrollback once; the live region (the streaming
//! answer, running tools, queued messages, spinner, editor and footer) is
//! redrawn by line diff, at most once per 16 ms.
//!
//! - [`ui`]: the state (transcript, editor, queue, spinner, footer) and the
//!   app events applied to it; [`input`] and `commands`: keys and slash
//!   commands; [`mod@run`]: the terminal loop.
//! - [`transcript`] and [`blocks`]: the chat's blocks, rendered from the
//!   app's rich messages into lines.
//!
//! When stdout is not a terminal the old line mode ([`mod@line`]) runs instead:
//! prompts are read line by line and answers streamed as plain text.

pub mod blocks;
mod clipboard;
mod commands;
pub mod complete;
pub mod events;
pub mod extras;
pub mod files;
pub mod footer;
pub mod format;
pub mod git;
mod hotkeys;
pub mod input;
mod layout;
pub mod line;
mod login_view;
mod md;
mod oauth_dialog;
pub mod run;
pub mod selectors;
mod settings_apply;
mod settings_view;
pub mod transcript;
pub mod ui;

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
    look: extras::LookOptions,
    pick_session: bool,
) -> i32 {
    if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
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
