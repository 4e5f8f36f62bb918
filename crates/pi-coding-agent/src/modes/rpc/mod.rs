//! RPC mode (`--mode rpc`): one JSON command per line on the input, one
//! `{"id"?, "type":"response", "command", "success", "data"? | "error"?}`
//! per command, and every agent and app event streamed as it happens.
//!
//! The loop never waits for long work: a prompt, a user shell command, a
//! compaction and an abort run as tasks that answer when done, so every
//! other command (state, `abort_bash`, ...) is answered at once, and
//! responses interleave with events as pi's do. Malformed input gets an
//! error response; nothing crashes the loop.

mod commands;
pub mod line;
mod state;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use pi_agent_core::{AgentEvent, PromptInput};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt};
use tokio::task::JoinHandle;

use super::{SharedWriter, json::stream_events, write_json_line};
use crate::app::{App, AppEvent};
use line::{Command, Line};

/// The result of one command: `Ok(data)` or `Err(message)`.
type Reply = Result<Option<Value>, String>;

/// pi's answer to a prompt sent while the agent works without saying how to queue it.
const ALREADY_PROCESSING: &str = "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.";

/// Writes a response in pi's key order; `id` is left out when the command had none.
fn respond(out: &SharedWriter, id: Option<&Value>, command: &str, reply: Reply) {
    let mut response = Map::new();
    if let Some(id) = id {
        response.insert("id".to_owned(), id.clone());
    }
    response.insert("type".to_owned(), json!("response"));
    response.insert("command".to_owned(), json!(command));
    match reply {
        Ok(data) => {
            response.insert("success".to_owned(), json!(true));
            if let Some(data) = data {
                response.insert("data".to_owned(), data);
            }
        }
        Err(error) => {
            response.insert("success".to_owned(), json!(false));
            response.insert("error".to_owned(), json!(error));
        }
    }
    write_json_line(out, &Value::Object(response));
}

/// The tasks started by the loop, and whether the agent counts as busy
/// for a client: pi's is busy from a prompt's acceptance to its
/// `agent_end` (the agent itself still winds down after that event).
struct Tasks {
    /// The number of the prompt accepted whose agent run has not started
    /// yet (0: none).
    starting: Arc<AtomicU64>,
    /// The last run sent `agent_end` (or none ran yet).
    run_ended: Arc<AtomicBool>,
    prompts: u64,
    tasks: Vec<JoinHandle<()>>,
}

impl Tasks {
    fn new(app: &App) -> Self {
        let tasks = Self {
            starting: Arc::new(AtomicU64::new(0)),
            run_ended: Arc::new(AtomicBool::new(true)),
            prompts: 0,
            tasks: Vec::new(),
        };
        let (starting, ended) = (Arc::clone(&tasks.starting), Arc::clone(&tasks.run_ended));
        app.subscribe(Arc::new(move |event| match event {
            AppEvent::Agent(AgentEvent::AgentStart) => {
                starting.store(0, Ordering::SeqCst);
                ended.store(false, Ordering::SeqCst);
            }
            AppEvent::Agent(AgentEvent::AgentEnd { .. }) => ended.store(true, Ordering::SeqCst),
            _ => {}
        }));
        tasks
    }

    /// Whether the agent works for a client: a prompt accepted or a run
    /// before its `agent_end`.
    fn busy(&self, app: &App) -> bool {
        self.starting.load(Ordering::SeqCst) != 0
            || (app.agent.is_streaming() && !self.run_ended.load(Ordering::SeqCst))
    }

    fn spawn(&mut self, task: impl Future<Output = ()> + Send + 'static) {
        self.tasks.retain(|t| !t.is_finished());
        self.tasks.push(tokio::spawn(task));
    }

    async fn finish(self) {
        for task in self.tasks {
            let _ = task.await;
        }
    }
}

/// Runs the protocol until the input ends; returns the exit code.
pub async fn run(app: Arc<App>, mut input: impl AsyncBufRead + Unpin, out: SharedWriter) -> i32 {
    // Before the output listener: a client that reads `agent_end` finds
    // the agent idle.
    let mut tasks = Tasks::new(&app);
    stream_events(&app, &out);
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        match input.read_until(b'\n', &mut buffer).await {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                respond(
                    &out,
                    None,
                    "parse",
                    Err(format!("Failed to read command: {e}")),
                );
                break;
            }
        }
        match line::decode_line(&buffer) {
            Line::Blank => {}
            Line::Invalid(error) => respond(&out, None, "parse", Err(error)),
            Line::Command(command) => dispatch(&app, command, &out, &mut tasks),
        }
    }
    tasks.finish().await;
    0
}

/// Answers one command, or starts the task that will.
fn dispatch(app: &Arc<App>, command: Command, out: &SharedWriter, tasks: &mut Tasks) {
    let Command {
        id,
        kind,
        value: command,
    } = command;
    match kind.as_str() {
        "prompt" => start_prompt(app, &command, out, tasks),
        "bash" | "compact" | "abort" => {
            let (app, out) = (Arc::clone(app), Arc::clone(out));
            tasks.spawn(async move {
                let reply = commands::handle_long(&app, &kind, &command).await;
                respond(&out, id.as_ref(), &kind, reply);
            });
        }
        // A run that sent its `agent_end` is over for the client, but the
        // agent may still be winding down: the session changes wait for it.
        "new_session" | "switch_session" | "fork" | "clone"
            if !tasks.busy(app) && app.agent.is_streaming() =>
        {
            let (app, out) = (Arc::clone(app), Arc::clone(out));
            tasks.spawn(async move {
                app.agent.wait_for_idle().await;
                let reply = commands::handle(&app, &kind, &command, false);
                respond(&out, id.as_ref(), &kind, reply);
            });
        }
        _ => match commands::handle(app, &kind, &command, tasks.busy(app)) {
            // pi answers an unknown command without its id.
            Err(error) if error.starts_with("Unknown command: ") => {
                respond(out, None, &kind, Err(error));
            }
            reply => respond(out, id.as_ref(), &kind, reply),
        },
    }
}

/// Starts a prompt: answered once it is accepted (queued while the agent
/// works, when the command says how), then run as a task.
fn start_prompt(app: &Arc<App>, command: &Value, out: &SharedWriter, tasks: &mut Tasks) {
    let id = command.get("id").cloned();
    let accepted = (|| {
        let text = commands::str_field(command, "message")?.to_owned();
        let images = commands::images(command)?;
        if tasks.busy(app) {
            match command.get("streamingBehavior").and_then(Value::as_str) {
                Some("steer") => app.steer(&text, images),
                Some("followUp") => app.follow_up(&text, images),
                _ => return Err(ALREADY_PROCESSING.to_owned()),
            }
            return Ok(None);
        }
        Ok(Some((text, images)))
    })();
    let (text, images) = match accepted {
        Ok(Some(input)) => input,
        Ok(None) => return respond(out, id.as_ref(), "prompt", Ok(None)),
        Err(error) => return respond(out, id.as_ref(), "prompt", Err(error)),
    };
    tasks.prompts += 1;
    let number = tasks.prompts;
    tasks.starting.store(number, Ordering::SeqCst);
    respond(out, id.as_ref(), "prompt", Ok(None));
    let (app, out, starting) = (
        Arc::clone(app),
        Arc::clone(out),
        Arc::clone(&tasks.starting),
    );
    tasks.spawn(async move {
        // The previous run may still be winding down after its `agent_end`.
        app.agent.wait_for_idle().await;
        let result = app
            .prompt(PromptInput::text_with_images(text, images))
            .await;
        // A run that failed before starting no longer holds the agent.
        let _ = starting.compare_exchange(number, 0, Ordering::SeqCst, Ordering::SeqCst);
        if let Err(e) = result {
            respond(&out, id.as_ref(), "prompt", Err(e.to_string()));
        } else if let Some(error) = app.take_save_error() {
            // The prompt was accepted, but its messages are not saved.
            respond(&out, id.as_ref(), "prompt", Err(error));
        }
    });
}
