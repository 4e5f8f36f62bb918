//! The host protocol's messages (`docs/extension-protocol.md`): JSON
//! objects, one per line, in three shapes (request, response,
//! notification), and what `load` answers per extension.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The protocol version pi-rs speaks.
pub const PROTOCOL: u64 = 1;

/// One message, either way.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Frame {
    /// A call that gets one response with the same `id`.
    Request {
        /// Unique among the sender's requests in flight.
        id: u64,
        /// What to do.
        method: String,
        /// Its arguments.
        #[serde(default)]
        params: Value,
    },
    /// The answer to a request.
    Response {
        /// The request's id.
        id: u64,
        /// The result (`null` or absent: none).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<Value>,
        /// Set when the request failed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<RemoteError>,
    },
    /// A message that gets no answer.
    Notify {
        /// What happened.
        method: String,
        /// Its data.
        #[serde(default)]
        params: Value,
    },
}

impl Frame {
    /// The frame as one line (with its `\n`).
    pub fn to_line(&self) -> String {
        let mut line = serde_json::to_string(self).unwrap_or_else(|_| "{}".to_owned());
        line.push('\n');
        line
    }

    /// Parses one line (without or with its line end).
    pub fn parse(line: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(line.trim_end_matches(['\r', '\n']))
    }
}

/// A failure the other side reports (a thrown error).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemoteError {
    /// The error's message.
    pub message: String,
    /// Its stack, where the runtime has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<String>,
}

/// What one extension registered while it loaded (`load`'s answer).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Loaded {
    /// The extension's path.
    pub path: String,
    /// Why it failed to load (it registered nothing).
    pub error: Option<String>,
    /// The event of each `pi.on` call, in registration order.
    pub handlers: Vec<String>,
    /// Its tools.
    pub tools: Vec<ToolSpec>,
    /// Its commands.
    pub commands: Vec<CommandSpec>,
    /// Its keyboard shortcuts.
    pub shortcuts: Vec<ShortcutSpec>,
    /// Its command-line flags.
    pub flags: Vec<FlagSpec>,
    /// Its providers (models.json's provider shape).
    pub providers: Vec<ProviderSpec>,
    /// The custom message types it draws.
    pub message_renderers: Vec<String>,
}

/// A tool as the host describes it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolSpec {
    /// The name the model calls.
    pub name: String,
    /// The name shown.
    pub label: Option<String>,
    /// The model's description.
    pub description: String,
    /// The JSON schema of its arguments.
    pub parameters: Value,
    /// One line for the system prompt.
    pub prompt_snippet: Option<String>,
    /// Bullets for the system prompt's guidelines.
    pub prompt_guidelines: Vec<String>,
    /// `"sequential"` or `"parallel"` (none: the agent's default).
    pub execution_mode: Option<String>,
    /// It has a `renderCall` hook.
    pub render_call: bool,
    /// It has a `renderResult` hook.
    pub render_result: bool,
    /// `"default"` or `"self"`.
    pub render_shell: Option<String>,
    /// It has a `prepareArguments` hook.
    pub prepare_arguments: bool,
}

/// A command as the host describes it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CommandSpec {
    /// Its name without the slash.
    pub name: String,
    /// Shown in the `/` menu.
    pub description: Option<String>,
    /// It completes its arguments.
    pub completions: bool,
}

/// A keyboard shortcut as the host describes it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ShortcutSpec {
    /// pi's key id.
    pub key: String,
    /// Shown in `/hotkeys`.
    pub description: Option<String>,
}

/// A command-line flag as the host describes it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct FlagSpec {
    /// Its name without dashes.
    pub name: String,
    /// Shown in `--help`.
    pub description: Option<String>,
    /// `"boolean"` or `"string"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Its value when not given.
    pub default: Option<Value>,
}

/// A provider as the host describes it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ProviderSpec {
    /// Its name.
    pub name: String,
    /// Its configuration.
    pub config: Value,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn frames_round_trip_as_one_line_each() {
        let frames = [
            Frame::Request {
                id: 7,
                method: "event".into(),
                params: json!({"ext": 0, "handler": 1, "event": {"type": "agent_start"}}),
            },
            Frame::Response {
                id: 7,
                result: Some(json!({"block": true})),
                error: None,
            },
            Frame::Response {
                id: 8,
                result: None,
                error: Some(RemoteError {
                    message: "boom".into(),
                    stack: None,
                }),
            },
            Frame::Notify {
                method: "state".into(),
                params: json!({"idle": true, "text": "a\nb"}),
            },
        ];
        for frame in frames {
            let line = frame.to_line();
            assert_eq!(line.matches('\n').count(), 1, "{line}");
            assert_eq!(Frame::parse(&line).unwrap(), frame);
        }
        assert_eq!(
            Frame::parse(r#"{"kind":"response","id":3,"result":null}"#).unwrap(),
            Frame::Response {
                id: 3,
                result: None,
                error: None
            }
        );
        assert!(Frame::parse("[1]").is_err());
        assert!(Frame::parse(r#"{"kind":"other"}"#).is_err());
    }

    #[test]
    fn loaded_records_take_missing_fields_as_empty() {
        let loaded: Loaded = serde_json::from_value(json!({
            "path": "/x/hello.ts",
            "handlers": ["tool_call"],
            "tools": [{"name": "hello", "description": "Says hello", "parameters": {"type": "object"}}],
            "flags": [{"name": "plan", "type": "boolean", "default": false}],
            "messageRenderers": ["note"]
        }))
        .unwrap();
        assert_eq!(loaded.handlers, ["tool_call"]);
        assert_eq!(loaded.tools[0].name, "hello");
        assert!(!loaded.tools[0].render_call);
        assert_eq!(loaded.flags[0].kind, "boolean");
        assert_eq!(loaded.message_renderers, ["note"]);
        assert!(loaded.error.is_none());
    }
}
