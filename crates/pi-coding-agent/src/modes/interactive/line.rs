//! The line-based interactive mode, used when stdout is not a terminal
//! (piped or redirected output): type a prompt, watch the answer stream
//! in, with tool calls shown as they run. `!cmd` runs a shell
//! command whose output the model sees on the next prompt, `!!cmd` one it
//! never sees; `/compact [focus]`, `/model provider/id`, `/thinking LEVEL`,
//! `/session` and `/quit` are commands. Ctrl-C aborts a running answer.

use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

use pi_agent_core::AgentEvent;
use pi_ai::{AssistantMessageEvent, StopReason};
use tokio::io::{AsyncBufRead, AsyncBufReadExt};

use crate::app::App;
use crate::messages::CodingMessage;

type Out = Arc<Mutex<Box<dyn Write + Send>>>;

fn say(out: &Out, text: &str) {
    let mut out = out.lock().unwrap_or_else(PoisonError::into_inner);
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

fn show_events(app: &App, out: &Out) {
    let out = Arc::clone(out);
    app.agent
        .subscribe(move |event: &AgentEvent<CodingMessage>| match event {
            AgentEvent::MessageUpdate {
                assistant_message_event,
                ..
            } => match assistant_message_event {
                AssistantMessageEvent::TextDelta { delta, .. } => say(&out, delta),
                AssistantMessageEvent::TextEnd { .. } => say(&out, "\n"),
                AssistantMessageEvent::ThinkingStart { .. } => say(&out, "(thinking...)\n"),
                _ => {}
            },
            AgentEvent::ToolExecutionStart {
                tool_name, args, ..
            } => say(&out, &format!("[{tool_name}] {args}\n")),
            AgentEvent::ToolExecutionEnd {
                tool_name,
                is_error,
                result,
                ..
            } => {
                let lines = result
                    .content
                    .iter()
                    .filter_map(pi_ai::UserBlock::as_text)
                    .map(str::lines)
                    .map(Iterator::count)
                    .sum::<usize>();
                let status = if *is_error { "failed" } else { "done" };
                say(&out, &format!("[{tool_name} {status}: {lines} lines]\n"));
            }
            AgentEvent::MessageEnd { message } => {
                if let Some(assistant) = message.as_assistant()
                    && matches!(
                        assistant.stop_reason,
                        StopReason::Error | StopReason::Aborted
                    )
                {
                    let text = assistant
                        .error_message
                        .clone()
                        .unwrap_or_else(|| "Request aborted".to_owned());
                    say(&out, &format!("[{text}]\n"));
                }
            }
            _ => {}
        });
}

async fn command(app: &App, out: &Out, line: &str) -> bool {
    let (name, rest) = line
        .split_once(' ')
        .map_or((line, ""), |(n, r)| (n, r.trim()));
    match name {
        "/quit" | "/exit" => return false,
        "/compact" => match app.compact(Some(rest).filter(|r| !r.is_empty())).await {
            Ok(result) => say(
                out,
                &format!("[compacted {} tokens]\n", result.tokens_before),
            ),
            Err(e) => say(out, &format!("[{e}]\n")),
        },
        "/model" => match app.registry().find(None, rest) {
            Ok(model) => {
                say(out, &format!("[model {}/{}]\n", model.provider, model.id));
                app.set_model(model);
            }
            Err(e) => say(out, &format!("[{e}]\n")),
        },
        "/thinking" => match pi_ai::ThinkingLevel::parse_setting(rest) {
            Ok(level) => app.set_thinking_level(level),
            Err(e) => say(out, &format!("[{e}]\n")),
        },
        "/session" => {
            let session = app.session();
            let file = session
                .session_file()
                .map_or_else(|| "(not saved)".to_owned(), |p| p.display().to_string());
            say(out, &format!("[session {} {file}]\n", session.session_id()));
        }
        other => say(
            out,
            &format!("[unknown command {other}: /compact, /model, /thinking, /session, /quit]\n"),
        ),
    }
    true
}

/// Reads prompts from `input` until it ends or `/quit`; returns the exit code.
pub async fn run(app: Arc<App>, input: impl AsyncBufRead + Unpin, out: Out) -> i32 {
    show_events(&app, &out);
    let model = app.agent.model();
    say(
        &out,
        &format!(
            "pi-rs {} — {}/{} (Ctrl-D to quit, Ctrl-C to abort an answer)\n",
            crate::VERSION,
            model.provider,
            model.id
        ),
    );
    let aborter = Arc::clone(&app);
    tokio::spawn(async move {
        while tokio::signal::ctrl_c().await.is_ok() {
            aborter.agent.abort();
            aborter.abort_user_bash();
        }
    });
    let mut lines = input.lines();
    loop {
        say(&out, "> ");
        let Ok(Some(line)) = lines.next_line().await else {
            break;
        };
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(cmd) = line.strip_prefix("!!").or_else(|| line.strip_prefix('!')) {
            let exclude = line.starts_with("!!");
            let updates = pi_agent_core::ignore_updates();
            match app.run_editor_bash(cmd.trim(), exclude, &updates).await {
                Ok(result) => say(&out, &result.output),
                Err(e) => say(&out, &format!("[{e}]\n")),
            }
            continue;
        }
        if line.starts_with('/') {
            if !command(&app, &out, line).await {
                break;
            }
            continue;
        }
        if let Err(e) = app.prompt(line).await {
            say(&out, &format!("[{e}]\n"));
        }
    }
    0
}
