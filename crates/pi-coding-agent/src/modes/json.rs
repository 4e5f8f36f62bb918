//! JSON mode (`--mode json`): the session header, then every agent event
//! and app event as one JSON line, as pi writes them.

use std::sync::Arc;

use pi_agent_core::{AgentEvent, PromptInput};

use super::{SharedWriter, write_json_line};
use crate::app::App;
use crate::messages::CodingMessage;

/// Streams every event of `app` to `out` from now on.
pub fn stream_events(app: &App, out: &SharedWriter) {
    let events = Arc::clone(out);
    app.agent
        .subscribe(move |event: &AgentEvent<CodingMessage>| write_json_line(&events, event));
    let app_events = Arc::clone(out);
    app.subscribe_app_events(Arc::new(move |event| write_json_line(&app_events, event)));
}

/// Runs `prompts`, writing the header and every event; returns the exit
/// code: 0 once the prompts ran, whatever they ended with (pi reports errors
/// in the event stream only), 1 when a prompt was refused.
pub async fn run(app: &App, prompts: Vec<PromptInput<CodingMessage>>, out: SharedWriter) -> i32 {
    let header = app.session().header().clone();
    write_json_line(&out, &header);
    stream_events(app, &out);
    for prompt in prompts {
        if app.prompt(prompt).await.is_err() {
            return 1;
        }
    }
    0
}
