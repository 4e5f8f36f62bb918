//! The lines of a session file: the header, then one [`SessionEntry`] per
//! line, serialized with pi's key order (struct field order plus
//! serde_json's `preserve_order`) and with unknown fields kept.

use std::fmt;

use pi_ai::fast_de::{self, CowStr, TaggedMap};
use pi_ai::{ExtraFields, UserContent};
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::raw::RawEntry;
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
#[derive(Debug, Clone, PartialEq, Serialize)]
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

impl<'de> Deserialize<'de> for MessageEntry {
    /// The hot path of loading, by hand: the derive with a flattened
    /// `extra` would buffer the whole entry, message included, first.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(MessageEntryVisitor)
    }
}

struct MessageEntryVisitor;

impl<'de> Visitor<'de> for MessageEntryVisitor {
    type Value = MessageEntry;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a message entry")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MessageEntry, A::Error> {
        // A key given twice keeps its last value, as JSON.parse does.
        fn set<T, E: de::Error>(
            slot: &mut Option<T>,
            _key: &'static str,
            value: T,
        ) -> Result<(), E> {
            *slot = Some(value);
            Ok(())
        }
        let (mut id, mut parent_id, mut timestamp, mut message) = (None, None, None, None);
        let mut extra = ExtraFields::new();
        while let Some(key) = map.next_key::<CowStr<'de>>()? {
            match &*key.0 {
                "id" => set(&mut id, "id", map.next_value::<String>()?)?,
                "parentId" => set(
                    &mut parent_id,
                    "parentId",
                    map.next_value::<Option<String>>()?,
                )?,
                "timestamp" => set(&mut timestamp, "timestamp", map.next_value::<String>()?)?,
                "message" => set(&mut message, "message", map.next_value()?)?,
                _ => {
                    let value = map.next_value()?;
                    extra.insert(key.0.into_owned(), value);
                }
            }
        }
        Ok(MessageEntry {
            id: id.unwrap_or_default(),
            parent_id: parent_id.flatten(),
            timestamp: timestamp.unwrap_or_default(),
            message: message.ok_or_else(|| de::Error::missing_field("message"))?,
            extra,
        })
    }
}

/// `type: "thinking_level_change"`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
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
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
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
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
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
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
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
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
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
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
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
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
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
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
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
    /// Any line this version cannot type, kept and written back verbatim.
    #[serde(untagged)]
    Raw(RawEntry),
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
            SessionEntry::Raw($e) => $body,
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
    pub fn kind(&self) -> &str {
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
            Self::Raw(raw) => &raw.kind,
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
        serde_json::from_value(value)
    }

    /// Parses one entry from a JSON object; a value this version cannot
    /// type becomes a [`RawEntry`] (never an error, never dropped).
    pub fn from_value_or_raw(value: &Value) -> Result<Self, serde_json::Error> {
        match Self::deserialize(value) {
            Ok(entry) => Ok(entry),
            Err(err) => Ok(Self::Raw(RawEntry::from_value(value, err.to_string())?)),
        }
    }

    /// The entry as one JSON line without the trailing newline, as pi
    /// writes it (a [`RawEntry`] exactly as it was read).
    pub fn to_line(&self) -> Result<String, serde_json::Error> {
        match self {
            Self::Raw(raw) => Ok(raw.line().to_owned()),
            typed => serde_json::to_string(typed),
        }
    }
}

impl TaggedMap for SessionEntry {
    const TAG: &'static str = "type";
    const EXPECTING: &'static str = "a session entry";

    fn from_tag<'de, A: MapAccess<'de>>(kind: &str, rest: A) -> Result<Self, A::Error> {
        let entry = match kind {
            "message" => Self::Message(fast_de::from_rest(rest)?),
            "thinking_level_change" => Self::ThinkingLevelChange(fast_de::from_rest(rest)?),
            "model_change" => Self::ModelChange(fast_de::from_rest(rest)?),
            "compaction" => Self::Compaction(fast_de::from_rest(rest)?),
            "branch_summary" => Self::BranchSummary(fast_de::from_rest(rest)?),
            "custom" => Self::Custom(fast_de::from_rest(rest)?),
            "custom_message" => Self::CustomMessage(fast_de::from_rest(rest)?),
            "label" => Self::Label(fast_de::from_rest(rest)?),
            "session_info" => Self::SessionInfo(fast_de::from_rest(rest)?),
            other => {
                return Err(de::Error::custom(format_args!(
                    "unknown entry type \"{other}\" (known types: {})",
                    ENTRY_TYPES.join(", ")
                )));
            }
        };
        Ok(entry)
    }
}

impl<'de> Deserialize<'de> for SessionEntry {
    /// Reads `type` first and builds the entry straight from the JSON (no
    /// intermediate value when `type` is the first key, as pi writes it).
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        fast_de::deserialize_tagged(deserializer)
    }
}
