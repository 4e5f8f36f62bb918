//! The non-interactive modes behind the `pi` binary. Each writes to the
//! writers it is given (the binary passes stdout and stderr), so the modes
//! are testable in process.
//!
//! - [`mod@print`]: run the prompts, print the final answer.
//! - [`json`]: the same, with every event as one JSON line (pi's `--mode json`).
//! - [`rpc`]: JSON-lines commands in, responses and events out (pi's `--mode rpc`).

#[cfg(feature = "cli")]
pub mod interactive;
pub mod json;
pub mod print;
pub mod rpc;

use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

use pi_agent_core::PromptInput;
use serde::Serialize;

use crate::app::files::FileInputs;
use crate::messages::CodingMessage;

/// A line-oriented output shared by listeners.
pub type SharedWriter = Arc<Mutex<Box<dyn Write + Send>>>;

/// Wraps a writer for sharing.
pub fn shared_writer(writer: impl Write + Send + 'static) -> SharedWriter {
    Arc::new(Mutex::new(Box::new(writer)))
}

/// Writes `value` as one JSON line and flushes.
pub fn write_json_line(out: &SharedWriter, value: &impl Serialize) {
    let line = match serde_json::to_string(value) {
        Ok(line) => line,
        Err(e) => {
            tracing::error!("cannot serialize an output line: {e}");
            return;
        }
    };
    let mut out = out.lock().unwrap_or_else(PoisonError::into_inner);
    let written = out
        .write_all(line.as_bytes())
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    if let Err(e) = written {
        tracing::warn!("cannot write output: {e}");
    }
}

/// The prompts of a run, as pi builds them: the first is piped stdin, then
/// the `@file` texts, then the first message, joined without separator
/// (with the `@file` images attached); each further message is a prompt.
pub fn prompt_inputs(
    stdin: Option<String>,
    files: FileInputs,
    messages: Vec<String>,
) -> Vec<PromptInput<CodingMessage>> {
    let mut prompts = Vec::new();
    let mut messages = messages.into_iter();
    let first = messages.next();
    if stdin.is_some() || first.is_some() || !files.text.is_empty() || !files.images.is_empty() {
        let text = format!(
            "{}{}{}",
            stdin.unwrap_or_default(),
            files.text,
            first.unwrap_or_default()
        );
        prompts.push(PromptInput::text_with_images(text, files.images));
    }
    prompts.extend(messages.map(PromptInput::from));
    prompts
}
