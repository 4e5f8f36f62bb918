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
mod extension_ui;
pub mod line;
mod protocol;
mod state;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use pi_agent_core::AgentEvent;
use pi_ai::ImageContent;
use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt};
use tokio::task::JoinHandle;

use super::{SharedWriter, json::stream_events, write_json_line};
use crate::app::{App, AppEvent};
use commands::{Reply, execute};
use line::Line;
pub use protocol::{ResponseKind, RpcCommand, RpcError, RpcResponse, StreamingBehavior};

/// Writes the response to `command` in pi's key order; `id` is left out
/// when the command had none.
fn respond(out: &SharedWriter, id: Option<&Value>, command: &str, reply: Reply) {
    write_json_line(out, &RpcResponse::new(id.cloned(), command, reply));
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
    let ui = Arc::new(extension_ui::RpcUi::new(Arc::clone(&out)));
    extension_ui::report_errors(&app, &out);
    app.bind_extensions(Arc::clone(&ui) as _, crate::app::InputSource::Rpc)
        .await;
    let mut buffer = Vec::new();
    // The command being answered: the next one waits for it (commands are
    // answered in order), but the answers to its dialogs are read meanwhile
    // (an extension's `session_before_switch` handler may ask the user).
    let mut current: Option<JoinHandle<()>> = None;
    loop {
        let read = match current.as_mut() {
            Some(task) => tokio::select! {
                _ = task => {
                    current = None;
                    // An extension's `ctx.shutdown()` takes effect once
                    // idle, after the command's response, as in pi.
                    if app.extensions.shutdown_requested() && !tasks.busy(&app) {
                        break;
                    }
                    // A line partly read stays in the buffer.
                    continue;
                }
                read = input.read_until(b'\n', &mut buffer) => read,
            },
            None => input.read_until(b'\n', &mut buffer).await,
        };
        match read {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                respond(&out, None, "parse", Err(RpcError::ReadInput(e)));
                break;
            }
        }
        let raw = std::mem::take(&mut buffer);
        let line = line::decode_line(&raw);
        match line {
            Line::Blank => {}
            Line::UiResponse(response) => ui.answer(&response),
            line => {
                if let Some(task) = current.take() {
                    let _ = task.await;
                }
                match line {
                    // Unlike pi, which answers these without the request's id.
                    Line::Invalid(id, error) => respond(&out, id.as_ref(), "parse", Err(error)),
                    // A command of an extension's own (not one of pi's):
                    // answered by its handler, as a task.
                    Line::Command {
                        id,
                        kind,
                        command: Err(RpcError::UnknownCommand(_)),
                    } if app.extensions.rpc_command(&kind).is_some() => {
                        let (app, out) = (Arc::clone(&app), Arc::clone(&out));
                        tasks.spawn(async move {
                            let line = serde_json::from_slice(&raw).unwrap_or(Value::Null);
                            if let Some(reply) = app.extensions.run_rpc_command(&kind, line).await {
                                respond(&out, id.as_ref(), &kind, reply.map_err(RpcError::from));
                            }
                        });
                    }
                    Line::Command {
                        id,
                        kind,
                        command: Err(error),
                    } => respond(&out, id.as_ref(), &kind, Err(error)),
                    Line::Command {
                        id,
                        kind,
                        command: Ok(command),
                    } => current = dispatch(&app, id, &kind, command, &out, &mut tasks),
                    Line::Blank | Line::UiResponse(_) => {}
                }
            }
        }
        if current.is_none() && app.extensions.shutdown_requested() && !tasks.busy(&app) {
            break;
        }
    }
    if let Some(task) = current.take() {
        let _ = task.await;
    }
    tasks.finish().await;
    0
}

/// Starts the task that answers one command: one the next command must
/// wait for, or (long work: prompts, shell commands, compaction) one that
/// runs alongside (`None`).
fn dispatch(
    app: &Arc<App>,
    id: Option<Value>,
    kind: &str,
    command: RpcCommand,
    out: &SharedWriter,
    tasks: &mut Tasks,
) -> Option<JoinHandle<()>> {
    let kind = kind.to_owned();
    match command {
        RpcCommand::Prompt {
            message,
            images,
            streaming_behavior,
        } => start_prompt(app, id, message, images, streaming_behavior, out, tasks),
        // Long work runs as a task that answers when done.
        command @ (RpcCommand::Bash { .. } | RpcCommand::Compact { .. } | RpcCommand::Abort) => {
            let (app, out) = (Arc::clone(app), Arc::clone(out));
            tasks.spawn(async move {
                let reply = execute(&app, command, false).await;
                respond(&out, id.as_ref(), &kind, reply);
            });
        }
        // A run that sent its `agent_end` is over for the client, but the
        // agent may still be winding down: the session changes wait for it.
        command if command.changes_session() && !tasks.busy(app) && app.agent.is_streaming() => {
            let (app, out) = (Arc::clone(app), Arc::clone(out));
            tasks.spawn(async move {
                app.agent.wait_for_idle().await;
                let reply = execute(&app, command, false).await;
                respond(&out, id.as_ref(), &kind, reply);
            });
        }
        command => {
            let busy = tasks.busy(app);
            let (app, out) = (Arc::clone(app), Arc::clone(out));
            return Some(tokio::spawn(async move {
                let reply = execute(&app, command, busy).await;
                respond(&out, id.as_ref(), &kind, reply);
            }));
        }
    }
    None
}

/// Starts a prompt: answered once it is accepted (queued while the agent
/// works, when the command says how), then run as a task that answers
/// again only if it fails.
fn start_prompt(
    app: &Arc<App>,
    id: Option<Value>,
    message: String,
    images: Option<Vec<ImageContent>>,
    behavior: Option<StreamingBehavior>,
    out: &SharedWriter,
    tasks: &mut Tasks,
) {
    // An extension command runs at once, even during a run, and is
    // answered when its handler (with its dialogs) is done, as in pi.
    if app.extensions.is_command(&message) {
        let (app, out) = (Arc::clone(app), Arc::clone(out));
        tasks.spawn(async move {
            let answering = app.extensions.command_in_progress();
            app.extensions.run_command(&message).await;
            respond(&out, id.as_ref(), "prompt", Ok(None));
            drop(answering);
        });
        return;
    }
    if tasks.busy(app) {
        let images = images.unwrap_or_default();
        // `input` handlers see a queued prompt first (answered once queued).
        if let Some(behavior) = behavior
            && app.extensions.has_handlers("input")
        {
            let (app, out) = (Arc::clone(app), Arc::clone(out));
            let follow_up = behavior == StreamingBehavior::FollowUp;
            tasks.spawn(async move {
                app.queue_prompt(message, images, follow_up).await;
                respond(&out, id.as_ref(), "prompt", Ok(None));
            });
            return;
        }
        let reply = match behavior {
            Some(StreamingBehavior::Steer) => {
                app.steer(&message, images);
                Ok(None)
            }
            Some(StreamingBehavior::FollowUp) => {
                app.follow_up(&message, images);
                Ok(None)
            }
            None => Err(RpcError::AlreadyProcessing),
        };
        return respond(out, id.as_ref(), "prompt", reply);
    }
    tasks.prompts += 1;
    let number = tasks.prompts;
    tasks.starting.store(number, Ordering::SeqCst);
    let (app, out, starting) = (
        Arc::clone(app),
        Arc::clone(out),
        Arc::clone(&tasks.starting),
    );
    tasks.spawn(async move {
        // The previous run may still be winding down after its `agent_end`.
        app.agent.wait_for_idle().await;
        // Answered once accepted, after the `input` handlers (what they
        // show comes first, as in pi), before the run's events.
        let accepted = |runs: bool| {
            // Nothing to run: the agent is free before the answer is out.
            if !runs {
                let _ = starting.compare_exchange(number, 0, Ordering::SeqCst, Ordering::SeqCst);
            }
            respond(&out, id.as_ref(), "prompt", Ok(None));
        };
        let result = app
            .prompt_accepted(message, images.unwrap_or_default(), accepted)
            .await
            .map_err(RpcError::from)
            .and_then(|()| match app.take_save_error() {
                Some(error) => Err(error.into()),
                None => Ok(()),
            });
        // A run that failed before starting no longer holds the agent.
        let _ = starting.compare_exchange(number, 0, Ordering::SeqCst, Ordering::SeqCst);
        if let Err(error) = result {
            respond(&out, id.as_ref(), "prompt", Err(error));
        }
    });
}
