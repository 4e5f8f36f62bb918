//! The commands of rpc mode: [`handle`] answers those that are quick,
//! [`handle_long`] those the loop runs as tasks (`bash`, `compact`, `abort`).

use std::sync::Arc;

use pi_agent_core::AgentMessage;
use pi_agent_core::QueueMode;
use pi_ai::{ImageContent, Message};
use serde_json::{Value, json};

use super::Reply;
use super::state::{model_json, session_stats, state};
use crate::app::{App, thinking_level_name};
use crate::config::parse_thinking_level;

pub(super) fn str_field<'a>(command: &'a Value, name: &str) -> Result<&'a str, String> {
    command
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("Missing field: {name}"))
}

pub(super) fn images(command: &Value) -> Result<Vec<ImageContent>, String> {
    match command.get("images") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(value) => {
            serde_json::from_value(value.clone()).map_err(|e| format!("Invalid images: {e}"))
        }
    }
}

fn queue_mode(command: &Value) -> Result<QueueMode, String> {
    match str_field(command, "mode")? {
        "all" => Ok(QueueMode::All),
        "one-at-a-time" => Ok(QueueMode::OneAtATime),
        other => Err(format!("Invalid mode: {other} (all, one-at-a-time)")),
    }
}

/// The commands that wait for work to end: a user shell command, a
/// compaction, an abort (answered once the agent is idle, as pi does).
pub(super) async fn handle_long(app: &Arc<App>, kind: &str, command: &Value) -> Reply {
    match kind {
        "bash" => Ok(Some(
            app.run_user_bash(str_field(command, "command")?, false)
                .await?,
        )),
        "compact" => {
            let instructions = command.get("customInstructions").and_then(Value::as_str);
            let result = app.compact(instructions).await?;
            Ok(Some(
                json!({"summary": result.summary, "firstKeptEntryId": result.first_kept_entry_id, "tokensBefore": result.tokens_before, "details": result.details}),
            ))
        }
        _ => {
            app.abort_retry();
            app.agent.abort();
            app.agent.wait_for_idle().await;
            Ok(None)
        }
    }
}

/// Handles a command that answers at once; `busy`: the agent works for
/// the client (from a prompt's acceptance to its run's `agent_end`).
pub(super) fn handle(app: &Arc<App>, kind: &str, command: &Value, busy: bool) -> Reply {
    match kind {
        "steer" => {
            app.steer(str_field(command, "message")?, images(command)?);
            Ok(None)
        }
        "follow_up" => {
            app.follow_up(str_field(command, "message")?, images(command)?);
            Ok(None)
        }
        "get_state" => Ok(Some(state(app, busy))),
        "get_messages" => {
            let messages = serde_json::to_value(app.agent.messages()).map_err(|e| e.to_string())?;
            Ok(Some(json!({"messages": messages})))
        }
        "set_model" => {
            let provider = str_field(command, "provider")?;
            let id = str_field(command, "modelId")?;
            // pi matches provider and id exactly.
            let model = app
                .registry
                .models()
                .iter()
                .find(|m| m.provider.as_str() == provider && m.id == id)
                .cloned()
                .ok_or_else(|| format!("Model not found: {provider}/{id}"))?;
            app.set_model(model.clone());
            Ok(Some(model_json(&model)))
        }
        "cycle_model" => {
            let Some(cycled) = app.cycle_model(false) else {
                return Ok(Some(Value::Null));
            };
            let level = app
                .agent
                .with_state(|s| thinking_level_name(s.thinking_level));
            Ok(Some(json!({
                "model": model_json(&cycled.model),
                "thinkingLevel": level,
                "isScoped": cycled.is_scoped,
            })))
        }
        "get_available_models" => {
            // As pi: only the models whose provider has a key.
            let models: Vec<Value> = app
                .registry
                .available_models(app.cli_api_key.as_deref(), &app.auth)
                .into_iter()
                .map(model_json)
                .collect();
            Ok(Some(json!({"models": models})))
        }
        "set_thinking_level" => {
            let level = parse_thinking_level(str_field(command, "level")?)?;
            app.set_thinking_level(level);
            Ok(None)
        }
        "cycle_thinking_level" => Ok(Some(match app.cycle_thinking_level() {
            Some(level) => json!({"level": thinking_level_name(level)}),
            None => Value::Null,
        })),
        "set_steering_mode" => {
            app.set_steering_mode(queue_mode(command)?);
            Ok(None)
        }
        "set_follow_up_mode" => {
            app.set_follow_up_mode(queue_mode(command)?);
            Ok(None)
        }
        "set_auto_compaction" => {
            app.set_auto_compaction(
                command
                    .get("enabled")
                    .and_then(Value::as_bool)
                    .ok_or("Missing field: enabled")?,
            );
            Ok(None)
        }
        "set_auto_retry" => {
            app.set_auto_retry(
                command
                    .get("enabled")
                    .and_then(Value::as_bool)
                    .ok_or("Missing field: enabled")?,
            );
            Ok(None)
        }
        "abort_retry" => {
            app.abort_retry();
            Ok(None)
        }
        "abort_bash" => {
            app.abort_user_bash();
            Ok(None)
        }
        "get_session_stats" => Ok(Some(session_stats(app))),
        "get_last_assistant_text" => Ok(Some(match app.last_assistant_text() {
            Some(text) => json!({"text": text}),
            None => json!({}),
        })),
        "set_session_name" => {
            let name = str_field(command, "name")?.trim();
            if name.is_empty() {
                return Err("Session name cannot be empty".to_owned());
            }
            app.set_session_name(name)?;
            Ok(None)
        }
        "get_fork_messages" => {
            let session = app.session();
            let messages: Vec<Value> = session
                .branch_path(None)
                .iter()
                .filter_map(|entry| match entry {
                    crate::session::SessionEntry::Message(m) => match &m.message {
                        AgentMessage::Standard(Message::User(user)) => {
                            let text = match &user.content {
                                pi_ai::UserContent::Text(t) => t.clone(),
                                pi_ai::UserContent::Blocks(blocks) => blocks
                                    .iter()
                                    .filter_map(pi_ai::UserBlock::as_text)
                                    .collect::<Vec<_>>()
                                    .join(""),
                            };
                            Some(json!({"entryId": m.id, "text": text}))
                        }
                        _ => None,
                    },
                    _ => None,
                })
                .collect();
            Ok(Some(json!({"messages": messages})))
        }
        "get_commands" => Ok(Some(json!({"commands": app.resources.commands()}))),
        "new_session" => {
            let parent = command
                .get("parentSession")
                .and_then(Value::as_str)
                .map(str::to_owned);
            app.new_session(parent)?;
            Ok(Some(json!({"cancelled": false})))
        }
        "switch_session" => {
            app.switch_session(std::path::Path::new(str_field(command, "sessionPath")?))?;
            Ok(Some(json!({"cancelled": false})))
        }
        "clone" => {
            app.clone_session()?;
            Ok(Some(json!({"cancelled": false})))
        }
        "fork" => {
            let text = app.fork(str_field(command, "entryId")?)?;
            Ok(Some(json!({"text": text, "cancelled": false})))
        }
        "export_html" => {
            let output = command
                .get("outputPath")
                .and_then(Value::as_str)
                .map(std::path::Path::new);
            let path = app.export_html(output)?;
            Ok(Some(json!({"path": path.display().to_string()})))
        }
        other => Err(format!("Unknown command: {other}")),
    }
}
