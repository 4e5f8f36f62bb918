//! The coding agent's own message roles and their projection for the model.
//!
//! pi's coding agent adds four roles to the agent transcript:
//! `bashExecution` (a `!cmd` typed by the user), `custom` (a message injected
//! by an extension), `branchSummary` and `compactionSummary`. They are kept
//! with all their fields in the transcript and the session file; only
//! [`convert_to_llm`] flattens them into user messages right before a model
//! call. The JSON is pi's, flat and tagged by `role`, with the keys in pi's
//! order.

mod block_images;
mod convert;

use pi_agent_core::AgentMessage;
use pi_ai::fast_de::{self, TaggedMap};
use pi_ai::{ExtraFields, UserContent};
use serde::de::{self, MapAccess};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

pub use block_images::{IMAGE_BLOCKED_TEXT, block_images};
pub use convert::{
    BRANCH_SUMMARY_PREFIX, BRANCH_SUMMARY_SUFFIX, COMPACTION_SUMMARY_PREFIX,
    COMPACTION_SUMMARY_SUFFIX, bash_execution_to_text, convert_to_llm, llm_converter,
};

/// A message of the coding agent's transcript: standard or one of its roles.
pub type CodingAgentMessage = AgentMessage<CodingMessage>;

/// Keeps an explicit JSON `null` as `Some(Value::Null)` so it is written back
/// (`Option<Value>` alone would turn it into an absent key).
pub(crate) fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// The result of a `!cmd` run by the user (`role: "bashExecution"`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct BashExecutionMessage {
    /// The command line as typed (without the `!`).
    pub command: String,
    /// Combined output, possibly truncated.
    pub output: String,
    /// Exit code; absent when the process did not exit normally.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// True when the user cancelled the command.
    pub cancelled: bool,
    /// True when `output` was truncated.
    pub truncated: bool,
    /// Where the full output was saved when truncated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_output_path: Option<String>,
    /// Unix time in milliseconds.
    pub timestamp: i64,
    /// True for `!!cmd`: shown and persisted, but never sent to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude_from_context: Option<bool>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// A message injected by an extension (`role: "custom"`). It reaches the
/// model as a user message even when `display` is false.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CustomMessage {
    /// Identifies the extension's message kind.
    pub custom_type: String,
    /// A string or text/image blocks.
    #[serde(default)]
    pub content: UserContent,
    /// Whether the terminal shows it.
    pub display: bool,
    /// Extension data, never sent to the model.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub details: Option<Value>,
    /// Unix time in milliseconds.
    pub timestamp: i64,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// The summary of a branch the conversation came back from (`role: "branchSummary"`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct BranchSummaryMessage {
    /// The summary text.
    pub summary: String,
    /// Id of the entry the abandoned branch started from (`"root"` for the session start).
    pub from_id: String,
    /// Unix time in milliseconds.
    pub timestamp: i64,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// The summary that replaces compacted history (`role: "compactionSummary"`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CompactionSummaryMessage {
    /// The summary text.
    pub summary: String,
    /// Estimated context tokens before the compaction.
    pub tokens_before: u64,
    /// Unix time in milliseconds.
    pub timestamp: i64,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// The coding agent's own roles, the `C` of [`AgentMessage<C>`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "role", rename_all = "camelCase")]
pub enum CodingMessage {
    /// `role: "bashExecution"`.
    BashExecution(BashExecutionMessage),
    /// `role: "custom"`.
    Custom(CustomMessage),
    /// `role: "branchSummary"`.
    BranchSummary(BranchSummaryMessage),
    /// `role: "compactionSummary"`.
    CompactionSummary(CompactionSummaryMessage),
}

impl TaggedMap for CodingMessage {
    const TAG: &'static str = "role";
    const EXPECTING: &'static str =
        "a bashExecution, custom, branchSummary or compactionSummary message";

    fn from_tag<'de, A: MapAccess<'de>>(role: &str, rest: A) -> Result<Self, A::Error> {
        match role {
            "bashExecution" => fast_de::from_rest(rest).map(Self::BashExecution),
            "custom" => fast_de::from_rest(rest).map(Self::Custom),
            "branchSummary" => fast_de::from_rest(rest).map(Self::BranchSummary),
            "compactionSummary" => fast_de::from_rest(rest).map(Self::CompactionSummary),
            other => Err(de::Error::unknown_variant(
                other,
                <Self as pi_agent_core::CustomMessage>::ROLES,
            )),
        }
    }
}

impl<'de> Deserialize<'de> for CodingMessage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        fast_de::deserialize_tagged(deserializer)
    }
}

impl pi_agent_core::CustomMessage for CodingMessage {
    const ROLES: &'static [&'static str] = &[
        "bashExecution",
        "custom",
        "branchSummary",
        "compactionSummary",
    ];

    fn role(&self) -> &'static str {
        match self {
            Self::BashExecution(_) => "bashExecution",
            Self::Custom(_) => "custom",
            Self::BranchSummary(_) => "branchSummary",
            Self::CompactionSummary(_) => "compactionSummary",
        }
    }

    fn timestamp(&self) -> i64 {
        match self {
            Self::BashExecution(m) => m.timestamp,
            Self::Custom(m) => m.timestamp,
            Self::BranchSummary(m) => m.timestamp,
            Self::CompactionSummary(m) => m.timestamp,
        }
    }
}

impl From<CodingMessage> for CodingAgentMessage {
    fn from(value: CodingMessage) -> Self {
        AgentMessage::Custom(value)
    }
}

/// Milliseconds since the epoch of an ISO 8601 timestamp such as
/// `2026-11-29T23:54:11.135Z`; 0 when it does not parse (pi gets `NaN`,
/// which JSON cannot hold).
pub fn iso_to_millis(iso: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(iso).map_or(0, |t| t.timestamp_millis())
}

/// pi's `createBranchSummaryMessage`: the message for a `branch_summary` entry.
pub fn create_branch_summary_message(
    summary: &str,
    from_id: &str,
    timestamp: &str,
) -> CodingAgentMessage {
    CodingMessage::BranchSummary(BranchSummaryMessage {
        summary: summary.to_owned(),
        from_id: from_id.to_owned(),
        timestamp: iso_to_millis(timestamp),
        extra: ExtraFields::new(),
    })
    .into()
}

/// pi's `createCompactionSummaryMessage`: the message for a `compaction` entry.
pub fn create_compaction_summary_message(
    summary: &str,
    tokens_before: u64,
    timestamp: &str,
) -> CodingAgentMessage {
    CodingMessage::CompactionSummary(CompactionSummaryMessage {
        summary: summary.to_owned(),
        tokens_before,
        timestamp: iso_to_millis(timestamp),
        extra: ExtraFields::new(),
    })
    .into()
}

/// pi's `createCustomMessage`: the message for a `custom_message` entry.
pub fn create_custom_message(
    custom_type: &str,
    content: UserContent,
    display: bool,
    details: Option<Value>,
    timestamp: &str,
) -> CodingAgentMessage {
    CodingMessage::Custom(CustomMessage {
        custom_type: custom_type.to_owned(),
        content,
        display,
        details,
        timestamp: iso_to_millis(timestamp),
        extra: ExtraFields::new(),
    })
    .into()
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
