//! RPC mode (`--mode rpc`): one JSON command per line on the input, one
//! `{"type":"response","command":...,"success":...}` per command (echoing
//! its `id`), and every agent and app event streamed as it happens.
//! Malformed input gets an error response; nothing crashes the loop.

use std::sync::Arc;

use pi_agent_core::{AgentMessage, PromptInput, QueueMode};
use pi_ai::{ImageContent, Message};
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt};

use super::{SharedWriter, json::stream_events, write_json_line};
use crate::app::{App, thinking_level_name};
use crate::config::parse_thinking_level;
use crate::messages::CodingMessage;

const THINKING_CYCLE: [&str; 6] = ["off", "minimal", "low", "medium", "high", "xhigh"];

/// The result of one command: `Ok(data)` or `Err(message)`.
type Reply = Result<Option<Value>, String>;

fn respond(out: &SharedWriter, id: Option<&Value>, command: &str, reply: Reply) {
    let mut response = json!({"type": "response", "command": command});
    if let Some(id) = id {
        response["id"] = id.clone();
    }
    match reply {
        Ok(data) => {
            response["success"] = json!(true);
            if let Some(data) = data {
                response["data"] = data;
            }
        }
        Err(error) => {
            response["success"] = json!(false);
            response["error"] = json!(error);
        }
    }
    write_json_line(out, &response);
}

fn str_field<'a>(command: &'a Value, name: &str) -> Result<&'a str, String> {
    command
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("Missing field: {name}"))
}

fn images(command: &Value) -> Result<Vec<ImageContent>, String> {
    match command.get("images") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(value) => {
            serde_json::from_value(value.clone()).map_err(|e| format!("Invalid images: {e}"))
        }
    }
}

fn user_message(text: &str, images: Vec<ImageContent>) -> AgentMessage<CodingMessage> {
    let mut content = vec![pi_ai::UserBlock::text(text)];
    content.extend(images.into_iter().map(pi_ai::UserBlock::Image));
    AgentMessage::Standard(Message::User(pi_ai::UserMessage {
        content: content.into(),
        timestamp: pi_ai::now_ms(),
        ..Default::default()
    }))
}

fn queue_mode(command: &Value) -> Result<QueueMode, String> {
    match str_field(command, "mode")? {
        "all" => Ok(QueueMode::All),
        "one-at-a-time" => Ok(QueueMode::OneAtATime),
        other => Err(format!("Invalid mode: {other} (all, one-at-a-time)")),
    }
}

fn model_json(model: &pi_ai::Model) -> Value {
    serde_json::to_value(model).unwrap_or(Value::Null)
}

fn state(app: &App) -> Value {
    let session = app.session();
    let (model, level, streaming, count) = app.agent.with_state(|s| {
        (
            model_json(&s.model),
            thinking_level_name(s.thinking_level),
            s.is_streaming,
            s.messages.len(),
        )
    });
    let mode = |m: QueueMode| {
        if m == QueueMode::All {
            "all"
        } else {
            "one-at-a-time"
        }
    };
    json!({
        "model": model,
        "thinkingLevel": level,
        "isStreaming": streaming,
        "isCompacting": false,
        "steeringMode": mode(app.agent.steering_mode()),
        "followUpMode": mode(app.agent.follow_up_mode()),
        "sessionFile": session.session_file().map(|p| p.display().to_string()),
        "sessionId": session.session_id(),
        "sessionName": session.session_name(),
        "autoCompactionEnabled": app.auto_compaction(),
        "messageCount": count,
        "pendingMessageCount": usize::from(app.agent.has_queued_messages()),
    })
}

fn session_stats(app: &App) -> Value {
    let messages = app.agent.messages();
    let (mut user, mut assistant, mut tool_results, mut tool_calls) = (0, 0, 0, 0);
    let mut usage = pi_ai::Usage::default();
    for message in &messages {
        match message {
            AgentMessage::Standard(Message::User(_)) => user += 1,
            AgentMessage::Standard(Message::Assistant(m)) => {
                assistant += 1;
                tool_calls += m.tool_calls().count();
                usage.input += m.usage.input;
                usage.output += m.usage.output;
                usage.cache_read += m.usage.cache_read;
                usage.cache_write += m.usage.cache_write;
                usage.total_tokens += m.usage.total_tokens;
                usage.cost.total += m.usage.cost.total;
            }
            AgentMessage::Standard(Message::ToolResult(_)) => tool_results += 1,
            AgentMessage::Custom(_) => {}
        }
    }
    let session = app.session();
    json!({
        "sessionFile": session.session_file().map(|p| p.display().to_string()),
        "sessionId": session.session_id(),
        "userMessages": user,
        "assistantMessages": assistant,
        "toolCalls": tool_calls,
        "toolResults": tool_results,
        "totalMessages": messages.len(),
        "tokens": {"input": usage.input, "output": usage.output, "cacheRead": usage.cache_read, "cacheWrite": usage.cache_write, "total": usage.total_tokens},
        "cost": usage.cost.total,
    })
}

/// Handles one command that answers at once (everything but `prompt`).
async fn handle(app: &Arc<App>, kind: &str, command: &Value) -> Reply {
    match kind {
        "steer" => {
            app.agent.steer(user_message(
                &app.expand_input(str_field(command, "message")?),
                images(command)?,
            ));
            Ok(None)
        }
        "follow_up" => {
            app.agent.follow_up(user_message(
                &app.expand_input(str_field(command, "message")?),
                images(command)?,
            ));
            Ok(None)
        }
        "abort" => {
            app.agent.abort();
            app.abort_retry();
            Ok(None)
        }
        "get_state" => Ok(Some(state(app))),
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
            let Some(cycled) = app.cycle_model() else {
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
            let models: Vec<Value> = app.registry.models().iter().map(model_json).collect();
            Ok(Some(json!({"models": models})))
        }
        "set_thinking_level" => {
            let level = parse_thinking_level(str_field(command, "level")?)?;
            app.set_thinking_level(level);
            Ok(None)
        }
        "cycle_thinking_level" => {
            if !app.agent.model().reasoning {
                return Ok(Some(Value::Null));
            }
            let current = app
                .agent
                .with_state(|s| thinking_level_name(s.thinking_level));
            let at = THINKING_CYCLE
                .iter()
                .position(|l| *l == current)
                .unwrap_or(0);
            let supports_xhigh = pi_ai::supports_xhigh(&app.agent.model());
            let mut next = THINKING_CYCLE[(at + 1) % THINKING_CYCLE.len()];
            if next == "xhigh" && !supports_xhigh {
                next = "off";
            }
            app.set_thinking_level(parse_thinking_level(next)?);
            Ok(Some(json!({"level": next})))
        }
        "set_steering_mode" => {
            app.agent.set_steering_mode(queue_mode(command)?);
            Ok(None)
        }
        "set_follow_up_mode" => {
            app.agent.set_follow_up_mode(queue_mode(command)?);
            Ok(None)
        }
        "compact" => {
            let instructions = command.get("customInstructions").and_then(Value::as_str);
            let result = app.compact(instructions).await?;
            Ok(Some(
                json!({"summary": result.summary, "firstKeptEntryId": result.first_kept_entry_id, "tokensBefore": result.tokens_before, "details": result.details}),
            ))
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
        "bash" => {
            let result = app
                .run_user_bash(str_field(command, "command")?, false)
                .await?;
            Ok(Some(result))
        }
        "abort_bash" => {
            app.abort_user_bash();
            Ok(None)
        }
        "get_session_stats" => Ok(Some(session_stats(app))),
        "get_last_assistant_text" => Ok(Some(json!({"text": app.last_assistant_text()}))),
        "set_session_name" => {
            let name = str_field(command, "name")?.trim();
            if name.is_empty() {
                return Err("Session name cannot be empty".to_owned());
            }
            app.session()
                .append_session_info(name)
                .map_err(|e| e.to_string())?;
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

/// Runs the protocol until the input ends; returns the exit code.
pub async fn run(app: Arc<App>, input: impl AsyncBufRead + Unpin, out: SharedWriter) -> i32 {
    stream_events(&app, &out);
    let mut lines = input.lines();
    let mut runs = Vec::new();
    loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                respond(
                    &out,
                    None,
                    "parse",
                    Err(format!("Failed to read command: {e}")),
                );
                break;
            }
        };
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        let command: Value = match serde_json::from_str(line) {
            Ok(value @ Value::Object(_)) => value,
            Ok(_) => {
                respond(
                    &out,
                    None,
                    "parse",
                    Err("Failed to parse command: expected a JSON object".to_owned()),
                );
                continue;
            }
            Err(e) => {
                respond(
                    &out,
                    None,
                    "parse",
                    Err(format!("Failed to parse command: {e}")),
                );
                continue;
            }
        };
        let id = command.get("id").cloned();
        let Some(kind) = command
            .get("type")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            respond(
                &out,
                id.as_ref(),
                "parse",
                Err("Failed to parse command: missing \"type\"".to_owned()),
            );
            continue;
        };
        if kind == "prompt" {
            let reply = start_prompt(&app, &command, &out, &mut runs);
            respond(&out, id.as_ref(), "prompt", reply);
            continue;
        }
        let reply = handle(&app, &kind, &command).await;
        respond(&out, id.as_ref(), &kind, reply);
    }
    for run in runs {
        let _ = run.await;
    }
    0
}

fn start_prompt(
    app: &Arc<App>,
    command: &Value,
    out: &SharedWriter,
    runs: &mut Vec<tokio::task::JoinHandle<()>>,
) -> Reply {
    let text = str_field(command, "message")?.to_owned();
    let images = images(command)?;
    if app.agent.is_streaming() {
        return match command.get("streamingBehavior").and_then(Value::as_str) {
            Some("steer") => {
                app.agent
                    .steer(user_message(&app.expand_input(&text), images));
                Ok(None)
            }
            Some("followUp") => {
                app.agent
                    .follow_up(user_message(&app.expand_input(&text), images));
                Ok(None)
            }
            _ => Err(pi_agent_core::AgentError::AlreadyProcessingPrompt.to_string()),
        };
    }
    let app = Arc::clone(app);
    let out = Arc::clone(out);
    let id = command.get("id").cloned();
    runs.push(tokio::spawn(async move {
        if let Err(e) = app
            .prompt(PromptInput::text_with_images(text, images))
            .await
        {
            respond(&out, id.as_ref(), "prompt", Err(e.to_string()));
        }
    }));
    Ok(None)
}
