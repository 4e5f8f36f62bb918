//! The lines of a session file: the header, then one [`SessionEntry`] per
//! line, serialized with pi's key order (struct field order plus
//! serde_json's `preserve_order`) and with unknown fields kept.

use pi_ai::{ExtraFields, UserContent};
use serde::de::Error as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::messages::{CodingAgentMessage, present};

/// The session format version this crate writes.
pub const CURRENT_SESSION_VERSION: u32 = 3;

/// First line of a session file:
/// `{type:"session", version, id, timestamp, cwd, parentSession?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionHeader {
    /// Always `"session"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Format version; absent in version 1 files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
    /// Session id (a UUID; version 7 since pi 0.73).
    pub id: String,
    /// Creation time, ISO 8601.
    #[serde(default)]
    pub timestamp: String,
    /// Working directory the session belongs to ("" in old files).
    #[serde(default)]
    pub cwd: String,
    /// Path of the session file this one was forked from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_session: Option<String>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// `type: "message"`: one transcript message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageEntry {
    /// Short entry id.
    pub id: String,
    /// Parent entry id, `None` (JSON `null`) for a root.
    pub parent_id: Option<String>,
    /// ISO 8601 time of the append.
    pub timestamp: String,
    /// The message, standard or one of the coding agent's roles.
    pub message: CodingAgentMessage,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// `type: "thinking_level_change"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThinkingLevelChangeEntry {
    /// Short entry id.
    pub id: String,
    /// Parent entry id.
    pub parent_id: Option<String>,
    /// ISO 8601 time.
    pub timestamp: String,
    /// `off`, `minimal`, `low`, `medium`, `high` or `xhigh`.
    pub thinking_level: String,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// `type: "model_change"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelChangeEntry {
    /// Short entry id.
    pub id: String,
    /// Parent entry id.
    pub parent_id: Option<String>,
    /// ISO 8601 time.
    pub timestamp: String,
    /// Provider of the new model.
    pub provider: String,
    /// Id of the new model.
    pub model_id: String,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// `type: "compaction"`: history before `firstKeptEntryId` is replaced by `summary`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionEntry {
    /// Short entry id.
    pub id: String,
    /// Parent entry id.
    pub parent_id: Option<String>,
    /// ISO 8601 time.
    pub timestamp: String,
    /// The summary of the compacted history.
    pub summary: String,
    /// First entry kept verbatim after the summary.
    pub first_kept_entry_id: String,
    /// Estimated context tokens before the compaction.
    pub tokens_before: u64,
    /// Extra data (pi: `{readFiles, modifiedFiles}`; extensions: anything).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub details: Option<Value>,
    /// True when an extension produced it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_hook: Option<bool>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// `type: "branch_summary"`: what happened on a branch that was left.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BranchSummaryEntry {
    /// Short entry id.
    pub id: String,
    /// Parent entry id.
    pub parent_id: Option<String>,
    /// ISO 8601 time.
    pub timestamp: String,
    /// Entry the branch was left from (`"root"` before the first entry).
    pub from_id: String,
    /// The summary text.
    pub summary: String,
    /// Extra data (pi: `{readFiles, modifiedFiles}`).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub details: Option<Value>,
    /// True when an extension produced it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_hook: Option<bool>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// `type: "custom"`: extension state; never part of the model context.
/// Keys in pi's order: `type, customType, data, id, parentId, timestamp`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomEntry {
    /// Identifies the extension's entry kind.
    pub custom_type: String,
    /// The extension's data.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub data: Option<Value>,
    /// Short entry id.
    pub id: String,
    /// Parent entry id.
    pub parent_id: Option<String>,
    /// ISO 8601 time.
    pub timestamp: String,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// `type: "custom_message"`: an extension message that the model sees.
/// Keys in pi's order: `type, customType, content, display, details, id, parentId, timestamp`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomMessageEntry {
    /// Identifies the extension's message kind.
    pub custom_type: String,
    /// A string or text/image blocks (missing in hand-edited files: empty).
    #[serde(default)]
    pub content: UserContent,
    /// Whether the terminal shows it.
    pub display: bool,
    /// Extension data, not sent to the model.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub details: Option<Value>,
    /// Short entry id.
    pub id: String,
    /// Parent entry id.
    pub parent_id: Option<String>,
    /// ISO 8601 time.
    pub timestamp: String,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// `type: "label"`: sets (or, without `label`, clears) a bookmark on an entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelEntry {
    /// Short entry id.
    pub id: String,
    /// Parent entry id.
    pub parent_id: Option<String>,
    /// ISO 8601 time.
    pub timestamp: String,
    /// The labelled entry.
    pub target_id: String,
    /// The label; absent to clear.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// `type: "session_info"`: session metadata such as its display name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfoEntry {
    /// Short entry id.
    pub id: String,
    /// Parent entry id.
    pub parent_id: Option<String>,
    /// ISO 8601 time.
    pub timestamp: String,
    /// Display name of the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// One line of a session file after the header, tagged by `type`.
// Nearly every entry of a real session is a message, so boxing the large
// variant would cost one more allocation per entry for no saving.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SessionEntry {
    /// `message`.
    Message(MessageEntry),
    /// `thinking_level_change`.
    ThinkingLevelChange(ThinkingLevelChangeEntry),
    /// `model_change`.
    ModelChange(ModelChangeEntry),
    /// `compaction`.
    Compaction(CompactionEntry),
    /// `branch_summary`.
    BranchSummary(BranchSummaryEntry),
    /// `custom`.
    Custom(CustomEntry),
    /// `custom_message`.
    CustomMessage(CustomMessageEntry),
    /// `label`.
    Label(LabelEntry),
    /// `session_info`.
    SessionInfo(SessionInfoEntry),
}

/// The `type` values of [`SessionEntry`].
pub const ENTRY_TYPES: [&str; 9] = [
    "message",
    "thinking_level_change",
    "model_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
];

macro_rules! each_entry {
    ($value:expr, $e:ident => $body:expr) => {
        match $value {
            SessionEntry::Message($e) => $body,
            SessionEntry::ThinkingLevelChange($e) => $body,
            SessionEntry::ModelChange($e) => $body,
            SessionEntry::Compaction($e) => $body,
            SessionEntry::BranchSummary($e) => $body,
            SessionEntry::Custom($e) => $body,
            SessionEntry::CustomMessage($e) => $body,
            SessionEntry::Label($e) => $body,
            SessionEntry::SessionInfo($e) => $body,
        }
    };
}

impl SessionEntry {
    /// The entry id.
    pub fn id(&self) -> &str {
        each_entry!(self, e => &e.id)
    }

    /// The parent entry id, `None` for a root.
    pub fn parent_id(&self) -> Option<&str> {
        each_entry!(self, e => e.parent_id.as_deref())
    }

    /// ISO 8601 time of the entry.
    pub fn timestamp(&self) -> &str {
        each_entry!(self, e => &e.timestamp)
    }

    /// The `type` as written in JSON.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Message(_) => "message",
            Self::ThinkingLevelChange(_) => "thinking_level_change",
            Self::ModelChange(_) => "model_change",
            Self::Compaction(_) => "compaction",
            Self::BranchSummary(_) => "branch_summary",
            Self::Custom(_) => "custom",
            Self::CustomMessage(_) => "custom_message",
            Self::Label(_) => "label",
            Self::SessionInfo(_) => "session_info",
        }
    }

    /// The message of a `message` entry.
    pub fn as_message(&self) -> Option<&CodingAgentMessage> {
        match self {
            Self::Message(e) => Some(&e.message),
            _ => None,
        }
    }

    /// Parses one entry from a JSON object, dispatching on `type`.
    pub fn from_value(value: Value) -> Result<Self, serde_json::Error> {
        let Value::Object(mut map) = value else {
            return Err(serde_json::Error::custom("entry is not a JSON object"));
        };
        let kind = match map.shift_remove("type") {
            Some(Value::String(kind)) => kind,
            Some(other) => {
                return Err(serde_json::Error::custom(format!(
                    "entry type must be a string, found {other}"
                )));
            }
            None => return Err(serde_json::Error::custom("entry has no type")),
        };
        if kind == "message" {
            return message_entry_from_map(map).map(Self::Message);
        }
        let value = Value::Object(map);
        let entry = match kind.as_str() {
            "thinking_level_change" => Self::ThinkingLevelChange(serde_json::from_value(value)?),
            "model_change" => Self::ModelChange(serde_json::from_value(value)?),
            "compaction" => Self::Compaction(serde_json::from_value(value)?),
            "branch_summary" => Self::BranchSummary(serde_json::from_value(value)?),
            "custom" => Self::Custom(serde_json::from_value(value)?),
            "custom_message" => Self::CustomMessage(serde_json::from_value(value)?),
            "label" => Self::Label(serde_json::from_value(value)?),
            "session_info" => Self::SessionInfo(serde_json::from_value(value)?),
            other => {
                return Err(serde_json::Error::custom(format!(
                    "unknown entry type \"{other}\" (known types: {})",
                    ENTRY_TYPES.join(", ")
                )));
            }
        };
        Ok(entry)
    }

    /// The entry as one JSON line without the trailing newline, as pi writes it.
    pub fn to_line(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }
}

fn take_string(map: &mut ExtraFields, key: &str) -> Result<String, serde_json::Error> {
    match map.shift_remove(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(serde_json::Error::custom(format!(
            "{key} must be a string, found {other}"
        ))),
        None => Err(serde_json::Error::custom(format!("missing field `{key}`"))),
    }
}

/// The hot path of loading: a `message` entry built straight from its JSON
/// map (the derive with a flattened `extra` would buffer the whole entry,
/// message included, once more).
fn message_entry_from_map(mut map: ExtraFields) -> Result<MessageEntry, serde_json::Error> {
    let message = map
        .shift_remove("message")
        .ok_or_else(|| serde_json::Error::custom("missing field `message`"))?;
    let message = CodingAgentMessage::from_value(message)?;
    let id = take_string(&mut map, "id")?;
    let parent_id = match map.shift_remove("parentId") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(other) => {
            return Err(serde_json::Error::custom(format!(
                "parentId must be a string or null, found {other}"
            )));
        }
    };
    let timestamp = take_string(&mut map, "timestamp")?;
    Ok(MessageEntry {
        id,
        parent_id,
        timestamp,
        message,
        extra: map,
    })
}

impl<'de> Deserialize<'de> for SessionEntry {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Self::from_value(value).map_err(D::Error::custom)
    }
}
