//! Print mode (`-p`): run the prompts to completion and print every text
//! block of the last assistant message; on an error or abort print the
//! error to stderr and exit 1. A failure to save the session is an error
//! too (exit 1, after the answer).

use std::io::Write;

use pi_agent_core::PromptInput;
use pi_ai::StopReason;

use crate::app::App;
use crate::messages::CodingMessage;

/// Runs `prompts` and returns the process exit code.
pub async fn run(
    app: &App,
    prompts: Vec<PromptInput<CodingMessage>>,
    out: &mut (dyn Write + Send),
    err: &mut (dyn Write + Send),
) -> i32 {
    app.bind_extensions(
        std::sync::Arc::new(crate::extensions::NoUi),
        crate::app::InputSource::Interactive,
    )
    .await;
    for prompt in prompts {
        if let Err(e) = app.prompt(prompt).await {
            let _ = writeln!(err, "{e}");
            return 1;
        }
    }
    let code = print_answer(app, out, err);
    // Unlike pi, an answer that could not be saved is a failure.
    match app.take_save_error() {
        Some(error) => {
            let _ = writeln!(err, "Error: {error}");
            1
        }
        None => code,
    }
}

/// Prints the trailing answer (or its error); returns the exit code.
fn print_answer(app: &App, out: &mut (dyn Write + Send), err: &mut (dyn Write + Send)) -> i32 {
    // As pi: the answer is printed only when the transcript ends with it.
    let Some(last) = app.trailing_assistant() else {
        return 0;
    };
    match last.stop_reason {
        StopReason::Error | StopReason::Aborted => {
            let reason = if last.stop_reason == StopReason::Error {
                "error"
            } else {
                "aborted"
            };
            let text = last
                .error_message
                .unwrap_or_else(|| format!("Request {reason}"));
            let _ = writeln!(err, "{text}");
            1
        }
        StopReason::Stop
        | StopReason::Length
        | StopReason::ToolUse
        | StopReason::Pending
        | StopReason::Deferred => {
            for block in &last.content {
                if let pi_ai::AssistantContent::Text(text) = block {
                    let _ = writeln!(out, "{}", text.text);
                }
            }
            let _ = out.flush();
            0
        }
    }
}
