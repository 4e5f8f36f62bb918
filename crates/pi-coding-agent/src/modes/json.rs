//! JSON mode (`--mode json`): the session header, then every agent event
//! and app event as one JSON line, as pi writes them.

use std::sync::Arc;

use pi_agent_core::PromptInput;

use super::{SharedWriter, write_json_line};
use crate::app::{App, AppEvent};
use crate::messages::CodingMessage;

/// Streams every event of `app` to `out` from now on.
pub fn stream_events(app: &App, out: &SharedWriter) {
    let out = Arc::clone(out);
    app.subscribe(Arc::new(move |event| match event {
        AppEvent::Agent(event) => write_json_line(&out, event),
        AppEvent::App(event) => write_json_line(&out, event),
    }));
}

/// Runs `prompts`, writing the header and every event; returns the exit
/// code: 0 once the prompts ran, whatever they ended with (pi reports errors
/// in the event stream only), 1 when a prompt was refused or the session
/// could not be saved (the error also goes to stderr and, as a
/// `session_save_error` event, to the stream).
pub async fn run(app: &App, prompts: Vec<PromptInput<CodingMessage>>, out: SharedWriter) -> i32 {
    let header = app.session().header().clone();
    write_json_line(&out, &header);
    stream_events(app, &out);
    app.bind_extensions(
        Arc::new(crate::extensions::NoUi),
        crate::app::InputSource::Interactive,
    )
    .await;
    for prompt in prompts {
        if let Err(error) = app.prompt(prompt).await {
            // As pi: a refused prompt is said on stderr.
            #[allow(clippy::print_stderr)]
            {
                eprintln!("{error}");
            }
            return 1;
        }
    }
    match app.take_save_error() {
        Some(error) => {
            #[allow(clippy::print_stderr)]
            {
                eprintln!("Error: {error}");
            }
            1
        }
        None => 0,
    }
}
