//! The commands of rpc mode, one function each; [`execute`] picks it. The
//! loop decides when a command runs (at once, as a task, after the agent
//! winds down); these functions only do it.

use std::path::Path;
use std::sync::Arc;

use pi_agent_core::{AgentMessage, PromptInput, QueueMode};
use pi_ai::{ImageContent, Message, ThinkingLevel};
use serde_json::{Value, json};

use super::protocol::{RpcCommand, RpcError};
use super::state::{model_json, session_stats, state};
use crate::app::App;
use crate::session::SessionEntry;

/// The result of one command: its `data` (none for some) or its error.
pub(super) type Reply = Result<Option<Value>, RpcError>;

/// Runs `command`; `busy`: the agent works for the client (from a prompt's
/// acceptance to its run's `agent_end`).
pub(super) async fn execute(app: &Arc<App>, command: RpcCommand, busy: bool) -> Reply {
    use RpcCommand as C;
    match command {
        C::Prompt {
            message, images, ..
        } => prompt(app, message, images).await,
        C::Steer { message, images } => steer(app, &message, images),
        C::FollowUp { message, images } => follow_up(app, &message, images),
        C::Abort => abort(app).await,
        C::Bash { command } => bash(app, &command).await,
        C::Compact {
            custom_instructions,
        } => compact(app, custom_instructions.as_deref()).await,
        C::GetState => Ok(Some(state(app, busy))),
        C::GetMessages => get_messages(app),
        // pi answers once the extensions heard the change (`model_select`,
        // `thinking_level_select`).
        C::SetModel { provider, model_id } => {
            let reply = set_model(app, &provider, &model_id);
            app.extensions.settle_notifications().await;
            reply
        }
        C::CycleModel => {
            let reply = cycle_model(app);
            app.extensions.settle_notifications().await;
            Ok(Some(reply))
        }
        C::GetAvailableModels => Ok(Some(get_available_models(app))),
        C::SetThinkingLevel { level } => {
            let reply = set_thinking_level(app, &level);
            app.extensions.settle_notifications().await;
            reply
        }
        C::CycleThinkingLevel => {
            let reply = cycle_thinking_level(app);
            app.extensions.settle_notifications().await;
            Ok(Some(reply))
        }
        C::SetSteeringMode { mode } => {
            app.set_steering_mode(queue_mode(&mode)?);
            Ok(None)
        }
        C::SetFollowUpMode { mode } => {
            app.set_follow_up_mode(queue_mode(&mode)?);
            Ok(None)
        }
        C::SetAutoCompaction { enabled } => {
            app.set_auto_compaction(enabled);
            Ok(None)
        }
        C::SetAutoRetry { enabled } => {
            app.set_auto_retry(enabled);
            Ok(None)
        }
        C::AbortRetry => {
            app.abort_retry();
            Ok(None)
        }
        C::AbortBash => {
            app.abort_user_bash();
            Ok(None)
        }
        C::GetSessionStats => Ok(Some(session_stats(app))),
        C::GetLastAssistantText => Ok(Some(last_assistant_text(app))),
        C::SetSessionName { name } => set_session_name(app, &name),
        C::GetForkMessages => Ok(Some(get_fork_messages(app))),
        C::GetCommands => {
            // As pi: extension commands, then prompt templates, then skills.
            let mut commands = app.extensions.command_infos();
            commands.extend(app.resources().commands());
            Ok(Some(json!({ "commands": commands })))
        }
        C::NewSession { parent_session } => {
            let started = app.new_session_with_extensions(parent_session).await?;
            Ok(Some(json!({"cancelled": !started})))
        }
        C::SwitchSession { session_path } => {
            let switched = app
                .switch_session_with_extensions(Path::new(&session_path))
                .await?;
            Ok(Some(json!({"cancelled": !switched})))
        }
        C::Clone => {
            let cloned = app.clone_with_extensions().await?;
            Ok(Some(json!({"cancelled": !cloned})))
        }
        C::Fork { entry_id } => match app.fork_with_extensions(&entry_id).await? {
            Some(text) => Ok(Some(json!({"text": text, "cancelled": false}))),
            None => Ok(Some(json!({"cancelled": true}))),
        },
        C::ExportHtml { output_path } => {
            let path = app.export_html(output_path.as_deref().map(Path::new))?;
            Ok(Some(json!({"path": path.display().to_string()})))
        }
        C::Share => {
            let shared = app.share().await?;
            Ok(Some(
                json!({"gistUrl": shared.gist_url, "viewerUrl": shared.viewer_url}),
            ))
        }
    }
}

/// Runs an accepted prompt once the previous run wound down; a prompt whose
/// messages could not be saved fails.
async fn prompt(app: &App, message: String, images: Option<Vec<ImageContent>>) -> Reply {
    // The previous run may still be winding down after its `agent_end`.
    app.agent.wait_for_idle().await;
    let input = PromptInput::text_with_images(message, images.unwrap_or_default());
    app.prompt(input).await?;
    match app.take_save_error() {
        Some(error) => Err(error.into()),
        None => Ok(None),
    }
}

fn steer(app: &App, message: &str, images: Option<Vec<ImageContent>>) -> Reply {
    app.steer(message, images.unwrap_or_default());
    Ok(None)
}

fn follow_up(app: &App, message: &str, images: Option<Vec<ImageContent>>) -> Reply {
    app.follow_up(message, images.unwrap_or_default());
    Ok(None)
}

/// Aborts the run and answers once the agent is idle, as pi does.
async fn abort(app: &App) -> Reply {
    app.abort_retry();
    app.agent.abort();
    app.agent.wait_for_idle().await;
    Ok(None)
}

/// A user shell command; answers pi's `BashResult`.
async fn bash(app: &App, command: &str) -> Reply {
    let result = app
        .run_user_bash(command, false, &pi_agent_core::ignore_updates())
        .await?;
    Ok(Some(serde_json::to_value(&result)?))
}

async fn compact(app: &App, custom_instructions: Option<&str>) -> Reply {
    let result = app.compact(custom_instructions).await?;
    Ok(Some(serde_json::to_value(&result)?))
}

fn get_messages(app: &App) -> Reply {
    let messages = app
        .agent
        .with_state(|state| serde_json::to_value(&state.messages))?;
    Ok(Some(json!({"messages": messages})))
}

/// Switches to the model named exactly by provider and id, as pi matches it.
fn set_model(app: &App, provider: &str, model_id: &str) -> Reply {
    let model = app
        .registry()
        .models()
        .iter()
        .find(|m| m.provider.as_str() == provider && m.id == model_id)
        .cloned()
        .ok_or_else(|| RpcError::ModelNotFound {
            provider: provider.to_owned(),
            model_id: model_id.to_owned(),
        })?;
    app.set_model(model.clone());
    Ok(Some(model_json(&model)))
}

fn cycle_model(app: &App) -> Value {
    let Some(cycled) = app.cycle_model(false) else {
        return Value::Null;
    };
    let level = app
        .agent
        .with_state(|s| ThinkingLevel::setting_name(s.thinking_level));
    json!({
        "model": model_json(&cycled.model),
        "thinkingLevel": level,
        "isScoped": cycled.is_scoped,
    })
}

/// As pi: only the models whose provider has a key.
fn get_available_models(app: &App) -> Value {
    let models: Vec<Value> = app
        .registry()
        .available_models(app.cli_api_key.as_deref(), &app.auth)
        .into_iter()
        .map(model_json)
        .collect();
    json!({"models": models})
}

fn set_thinking_level(app: &App, level: &str) -> Reply {
    app.set_thinking_level(ThinkingLevel::parse_setting(level)?);
    Ok(None)
}

fn cycle_thinking_level(app: &App) -> Value {
    match app.cycle_thinking_level() {
        Some(level) => json!({"level": ThinkingLevel::setting_name(level)}),
        None => Value::Null,
    }
}

fn queue_mode(mode: &str) -> Result<QueueMode, RpcError> {
    match mode {
        "all" => Ok(QueueMode::All),
        "one-at-a-time" => Ok(QueueMode::OneAtATime),
        other => Err(RpcError::InvalidMode(other.to_owned())),
    }
}

fn last_assistant_text(app: &App) -> Value {
    match app.last_assistant_text() {
        Some(text) => json!({"text": text}),
        None => json!({}),
    }
}

fn set_session_name(app: &App, name: &str) -> Reply {
    let name = name.trim();
    if name.is_empty() {
        return Err(RpcError::EmptySessionName);
    }
    app.set_session_name(name)?;
    Ok(None)
}

/// The user messages of the branch with their entry ids.
fn get_fork_messages(app: &App) -> Value {
    let session = app.session();
    let messages: Vec<Value> = session
        .branch_path(None)
        .iter()
        .filter_map(|entry| match entry {
            SessionEntry::Message(m) => match &m.message {
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
    json!({"messages": messages})
}
