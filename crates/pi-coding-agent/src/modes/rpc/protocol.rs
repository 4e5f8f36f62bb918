//! The rpc protocol's typed messages: [`RpcCommand`] (one JSON object per
//! input line, tagged by `type`), [`RpcResponse`] (pi's
//! `{"id"?, "type":"response", "command", "success", "data"? | "error"?}`)
//! and [`RpcError`], the failures a response reports.

use pi_agent_core::AgentError;
use pi_ai::{ImageContent, ParseThinkingLevelError};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::app::{AppError, SaveError};

/// How a prompt sent while the agent works is queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StreamingBehavior {
    /// Delivered at the next turn of the running prompt.
    Steer,
    /// Sent once the running prompt is done.
    FollowUp,
}

/// One command of pi's rpc protocol. Unknown keys (such as `id`, read
/// separately) are ignored; optional keys may be absent or `null`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RpcCommand {
    /// Sends a prompt (queued as `streamingBehavior` says while the agent works).
    #[serde(rename_all = "camelCase")]
    Prompt {
        /// The text.
        message: String,
        /// Attached images.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        images: Option<Vec<ImageContent>>,
        /// How to queue it while the agent works.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        streaming_behavior: Option<StreamingBehavior>,
    },
    /// Queues a steering message.
    Steer {
        /// The text.
        message: String,
        /// Attached images.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        images: Option<Vec<ImageContent>>,
    },
    /// Queues a follow-up message.
    FollowUp {
        /// The text.
        message: String,
        /// Attached images.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        images: Option<Vec<ImageContent>>,
    },
    /// Aborts the run (answered once the agent is idle).
    Abort,
    /// Runs a user shell command.
    Bash {
        /// The command line.
        command: String,
    },
    /// Compacts the session.
    #[serde(rename_all = "camelCase")]
    Compact {
        /// Extra instructions for the summary.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        custom_instructions: Option<String>,
    },
    /// The session's state.
    GetState,
    /// The transcript.
    GetMessages,
    /// Switches the model.
    #[serde(rename_all = "camelCase")]
    SetModel {
        /// Provider, matched exactly.
        provider: String,
        /// Model id, matched exactly.
        model_id: String,
    },
    /// Switches to the next scoped or available model.
    CycleModel,
    /// The models whose provider has a key.
    GetAvailableModels,
    /// Sets the thinking level (`off`, `minimal`, ... `xhigh`).
    SetThinkingLevel {
        /// The level's name.
        level: String,
    },
    /// Switches to the next supported thinking level.
    CycleThinkingLevel,
    /// How steering messages are delivered (`all`, `one-at-a-time`).
    SetSteeringMode {
        /// The mode's name.
        mode: String,
    },
    /// How follow-up messages are delivered (`all`, `one-at-a-time`).
    SetFollowUpMode {
        /// The mode's name.
        mode: String,
    },
    /// Turns auto-compaction on or off.
    SetAutoCompaction {
        /// On.
        enabled: bool,
    },
    /// Turns auto-retry on or off.
    SetAutoRetry {
        /// On.
        enabled: bool,
    },
    /// Stops a pending auto-retry wait.
    AbortRetry,
    /// Cancels the running user shell command.
    AbortBash,
    /// Message counts, tokens and cost.
    GetSessionStats,
    /// The text of the last assistant message.
    GetLastAssistantText,
    /// Names the session.
    SetSessionName {
        /// The name (trimmed; must not be empty).
        name: String,
    },
    /// The user messages of the branch, to fork at.
    GetForkMessages,
    /// The slash commands (skills, prompt templates).
    GetCommands,
    /// Starts a new session.
    #[serde(rename_all = "camelCase")]
    NewSession {
        /// The parent session's file, recorded in the header.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_session: Option<String>,
    },
    /// Switches to a session file.
    #[serde(rename_all = "camelCase")]
    SwitchSession {
        /// The session file.
        session_path: String,
    },
    /// Continues in a copy of the branch up to the leaf.
    Clone,
    /// Continues in a new session forked before a user message.
    #[serde(rename_all = "camelCase")]
    Fork {
        /// The user message's entry id.
        entry_id: String,
    },
    /// Writes the transcript as HTML.
    #[serde(rename_all = "camelCase")]
    ExportHtml {
        /// Where (default `pi-session-<file>.html`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        output_path: Option<String>,
    },
    /// Uploads the session page as a secret gist (`gh gist create`), as `/share`.
    Share,
}

impl RpcCommand {
    /// Every command's `type`.
    pub const NAMES: [&'static str; 30] = [
        "prompt",
        "steer",
        "follow_up",
        "abort",
        "bash",
        "compact",
        "get_state",
        "get_messages",
        "set_model",
        "cycle_model",
        "get_available_models",
        "set_thinking_level",
        "cycle_thinking_level",
        "set_steering_mode",
        "set_follow_up_mode",
        "set_auto_compaction",
        "set_auto_retry",
        "abort_retry",
        "abort_bash",
        "get_session_stats",
        "get_last_assistant_text",
        "set_session_name",
        "get_fork_messages",
        "get_commands",
        "new_session",
        "switch_session",
        "clone",
        "fork",
        "export_html",
        "share",
    ];

    /// Reads a command from a parsed input line: the `type` names it (its
    /// text is returned too, `undefined` when absent, as pi names it), its
    /// keys are its fields.
    pub fn from_json(line: &Value) -> (String, Result<Self, RpcError>) {
        let kind = line
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("undefined")
            .to_owned();
        if !Self::NAMES.contains(&kind.as_str()) {
            return (kind.clone(), Err(RpcError::UnknownCommand(kind)));
        }
        let command = Self::deserialize(line).map_err(|e| {
            // serde names a missing key `missing field `name``.
            let text = e.to_string();
            match text
                .strip_prefix("missing field `")
                .and_then(|rest| rest.split_once('`'))
            {
                Some((field, _)) => RpcError::MissingField(field.to_owned()),
                None => RpcError::InvalidCommand(e),
            }
        });
        (kind, command)
    }

    /// Whether the command replaces the session (it waits for a winding-down run).
    pub fn changes_session(&self) -> bool {
        matches!(
            self,
            Self::NewSession { .. } | Self::SwitchSession { .. } | Self::Fork { .. } | Self::Clone
        )
    }
}

/// The answer to one command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RpcResponse {
    /// The command's `id`, when it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Value>,
    /// Always `response`.
    #[serde(rename = "type")]
    pub kind: ResponseKind,
    /// The command's `type` (`parse` for an unreadable line).
    pub command: String,
    /// Whether it succeeded.
    pub success: bool,
    /// What it returned, on success (absent when it returns nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The `type` of every [`RpcResponse`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResponseKind {
    /// `response`.
    Response,
}

impl RpcResponse {
    /// The response to `command` (with `id`) for `reply`.
    pub fn new(
        id: Option<Value>,
        command: impl Into<String>,
        reply: Result<Option<Value>, RpcError>,
    ) -> Self {
        let (success, data, error) = match reply {
            Ok(data) => (true, data, None),
            Err(error) => (false, None, Some(error.to_string())),
        };
        Self {
            id,
            kind: ResponseKind::Response,
            command: command.into(),
            success,
            data,
            error,
        }
    }
}

/// Why a command failed (its text is the response's `error`).
#[derive(Debug, thiserror::Error)]
pub enum RpcError {
    /// The input could not be read.
    #[error("Failed to read command: {0}")]
    ReadInput(std::io::Error),
    /// A line that is not UTF-8.
    #[error("Failed to parse command: the line is not valid UTF-8")]
    NotUtf8,
    /// A line that is not JSON.
    #[error("Failed to parse command: {0}")]
    BadJson(serde_json::Error),
    /// A line that is JSON but not an object.
    #[error("Failed to parse command: expected a JSON object")]
    NotAnObject,
    /// A `type` that names no command (pi answers it without the `id`).
    #[error("Unknown command: {0}")]
    UnknownCommand(String),
    /// A command without a key it needs.
    #[error("Missing field: {0}")]
    MissingField(String),
    /// A command whose keys have the wrong type.
    #[error("Invalid command: {0}")]
    InvalidCommand(serde_json::Error),
    /// A prompt while the agent works, without `streamingBehavior`.
    #[error(
        "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."
    )]
    AlreadyProcessing,
    /// `set_model` with a model the registry does not know.
    #[error("Model not found: {provider}/{model_id}")]
    ModelNotFound {
        /// The provider asked for.
        provider: String,
        /// The model id asked for.
        model_id: String,
    },
    /// `set_session_name` with an empty name.
    #[error("Session name cannot be empty")]
    EmptySessionName,
    /// A queue mode other than `all` / `one-at-a-time`.
    #[error("Invalid mode: {0} (all, one-at-a-time)")]
    InvalidMode(String),
    /// A thinking level pi does not know.
    #[error(transparent)]
    ThinkingLevel(#[from] ParseThinkingLevelError),
    /// The app refused or failed.
    #[error(transparent)]
    App(#[from] AppError),
    /// The prompt could not start.
    #[error(transparent)]
    Agent(#[from] AgentError),
    /// The prompt ran but its messages were not saved.
    #[error(transparent)]
    Save(#[from] SaveError),
    /// A value could not be turned into JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// A command an extension added failed.
    #[error(transparent)]
    Extension(#[from] crate::extensions::ExtensionError),
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_named_command_parses() {
        let fields = json!({
            "message": "m", "command": "c", "provider": "p", "modelId": "m", "level": "low",
            "mode": "all", "enabled": true, "name": "n", "sessionPath": "s", "entryId": "e",
            "id": 7,
        });
        for name in RpcCommand::NAMES {
            let mut line = fields.clone();
            line["type"] = json!(name);
            let (kind, command) = RpcCommand::from_json(&line);
            assert_eq!(kind, name);
            let command = command.unwrap_or_else(|e| panic!("{name}: {e}"));
            let back = serde_json::to_value(&command).unwrap();
            assert_eq!(back["type"], name, "{command:?}");
        }
    }

    #[test]
    fn commands_read_pis_keys() {
        let line = json!({"type": "prompt", "message": "hi", "streamingBehavior": "followUp", "images": null});
        assert_eq!(
            RpcCommand::from_json(&line).1.unwrap(),
            RpcCommand::Prompt {
                message: "hi".into(),
                images: None,
                streaming_behavior: Some(StreamingBehavior::FollowUp),
            }
        );
        let line = json!({"type": "set_model", "provider": "p", "modelId": "m"});
        assert_eq!(
            RpcCommand::from_json(&line).1.unwrap(),
            RpcCommand::SetModel {
                provider: "p".into(),
                model_id: "m".into()
            }
        );
    }

    #[test]
    fn bad_commands_are_named_as_before() {
        let error = |line: Value| RpcCommand::from_json(&line).1.unwrap_err().to_string();
        assert_eq!(error(json!({"type": "nope"})), "Unknown command: nope");
        assert_eq!(error(json!({"id": 1})), "Unknown command: undefined");
        assert_eq!(error(json!({"type": "steer"})), "Missing field: message");
        assert_eq!(
            error(json!({"type": "switch_session"})),
            "Missing field: sessionPath"
        );
        assert!(
            error(json!({"type": "steer", "message": 5})).starts_with("Invalid command: "),
            "wrong types are named"
        );
    }

    #[test]
    fn responses_keep_pis_key_order() {
        let line = |r: RpcResponse| serde_json::to_string(&r).unwrap();
        assert_eq!(
            line(RpcResponse::new(
                Some(json!("a")),
                "get_state",
                Ok(Some(json!({"x": 1})))
            )),
            r#"{"id":"a","type":"response","command":"get_state","success":true,"data":{"x":1}}"#
        );
        assert_eq!(
            line(RpcResponse::new(None, "abort", Ok(None))),
            r#"{"type":"response","command":"abort","success":true}"#
        );
        assert_eq!(
            line(RpcResponse::new(None, "cycle_model", Ok(Some(Value::Null)))),
            r#"{"type":"response","command":"cycle_model","success":true,"data":null}"#
        );
        assert_eq!(
            line(RpcResponse::new(
                Some(json!(3)),
                "prompt",
                Err(RpcError::AlreadyProcessing)
            )),
            r#"{"id":3,"type":"response","command":"prompt","success":false,"error":"Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."}"#
        );
    }
}
