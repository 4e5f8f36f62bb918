//! The events an extension hears outside an agent run, with pi 0.73.1's
//! names and JSON fields, and what a handler may answer. Each is an
//! [`Event`]: its `type` name and its result type. Agent-run events are in
//! [`super::run_events`].

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use pi_ai::{ImageContent, Model};

use crate::app::BashResult;

/// One kind of event: its pi name (`type` in JSON) and what its handlers
/// return. Events serialize to pi's JSON (the out-of-process host sends
/// exactly that); results deserialize from pi's result objects.
pub trait Event: Serialize + Clone + Send + Sync + 'static {
    /// pi's name of the event (`"tool_call"`, `"session_start"`, ...).
    const NAME: &'static str;
    /// What a handler may return (`()` for notifications).
    type Output: DeserializeOwned + Send + 'static;
}

/// Declares an [`Event`] impl.
macro_rules! event {
    ($ty:ty, $name:literal, $out:ty) => {
        impl Event for $ty {
            const NAME: &'static str = $name;
            type Output = $out;
        }
    };
}
pub(crate) use event;

/// Fired after `session_start`: extensions may add skill, prompt template
/// and theme paths.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesDiscoverEvent {
    /// The working directory.
    pub cwd: String,
    /// `"startup"` or `"reload"`.
    pub reason: String,
}
event!(
    ResourcesDiscoverEvent,
    "resources_discover",
    ResourcesDiscoverResult
);

/// Paths `resources_discover` adds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourcesDiscoverResult {
    /// Skill files or folders.
    pub skill_paths: Vec<String>,
    /// Prompt template files or folders.
    pub prompt_paths: Vec<String>,
    /// Theme files or folders.
    pub theme_paths: Vec<String>,
}

/// A session was started, loaded or reloaded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionStartEvent {
    /// `"startup"`, `"reload"`, `"new"`, `"resume"` or `"fork"`.
    pub reason: String,
    /// The session file before (for `new`, `resume` and `fork`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_session_file: Option<String>,
}
event!(SessionStartEvent, "session_start", ());

/// Before `/new` or `/resume` (may cancel).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionBeforeSwitchEvent {
    /// `"new"` or `"resume"`.
    pub reason: String,
    /// The session switched to (`resume` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_session_file: Option<String>,
}
event!(
    SessionBeforeSwitchEvent,
    "session_before_switch",
    CancelResult
);

/// An answer that may stop the action (`session_before_*`).
pub trait Cancels {
    /// Whether it stops the action.
    fn cancels(&self) -> bool;
}

macro_rules! cancels {
    ($($ty:ty),*) => {
        $(impl Cancels for $ty {
            fn cancels(&self) -> bool {
                self.cancel
            }
        })*
    };
}
cancels!(CancelResult, ForkResult, CompactResult, TreeResult);

/// A `{cancel}` answer; the first handler that cancels wins.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CancelResult {
    /// Stop the action.
    pub cancel: bool,
}

/// Before `/fork` (`position: "before"`) or `/clone` (`"at"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionBeforeForkEvent {
    /// The selected entry.
    pub entry_id: String,
    /// `"before"` or `"at"`.
    pub position: String,
}
event!(SessionBeforeForkEvent, "session_before_fork", ForkResult);

/// `session_before_fork`'s answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ForkResult {
    /// Stop the fork.
    pub cancel: bool,
    /// Reserved by pi.
    pub skip_conversation_restore: bool,
}

/// Before a compaction (may cancel, or supply the summary).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionBeforeCompactEvent {
    /// What would be compacted (pi's `CompactionPreparation`).
    pub preparation: Value,
    /// The entries of the branch.
    pub branch_entries: Vec<Value>,
    /// `/compact <instructions>`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub custom_instructions: Option<String>,
}
event!(
    SessionBeforeCompactEvent,
    "session_before_compact",
    CompactResult
);

/// `session_before_compact`'s answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CompactResult {
    /// Stop the compaction.
    pub cancel: bool,
    /// The compaction to save instead of the model's summary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compaction: Option<ExtensionCompaction>,
}

/// A compaction an extension made (pi's `CompactionResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ExtensionCompaction {
    /// The summary.
    pub summary: String,
    /// The first entry kept.
    pub first_kept_entry_id: String,
    /// Context tokens before.
    pub tokens_before: u64,
    /// Extension data saved with the entry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

/// After a compaction was saved.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionCompactEvent {
    /// The saved `compaction` entry.
    pub compaction_entry: Value,
    /// Whether an extension supplied it.
    pub from_extension: bool,
}
event!(SessionCompactEvent, "session_compact", ());

/// Before `/tree` navigation (may cancel or supply the branch summary).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionBeforeTreeEvent {
    /// pi's `TreePreparation`.
    pub preparation: TreePreparation,
}
event!(SessionBeforeTreeEvent, "session_before_tree", TreeResult);

/// What a tree navigation would do.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TreePreparation {
    /// The entry navigated to.
    pub target_id: String,
    /// The leaf before.
    pub old_leaf_id: Option<String>,
    /// The deepest entry both paths share.
    pub common_ancestor_id: Option<String>,
    /// The entries a summary would cover.
    pub entries_to_summarize: Vec<Value>,
    /// Whether the user asked for a summary.
    pub user_wants_summary: bool,
    /// Instructions for the summary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub custom_instructions: Option<String>,
    /// The instructions replace the default prompt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replace_instructions: Option<bool>,
    /// Label of the summary entry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// `session_before_tree`'s answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TreeResult {
    /// Stop the navigation.
    pub cancel: bool,
    /// The branch summary to save instead of the model's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<TreeSummary>,
    /// Replaces the summary instructions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub custom_instructions: Option<String>,
    /// Replaces whether the instructions replace the default prompt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replace_instructions: Option<bool>,
    /// Replaces the summary entry's label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// A branch summary an extension made.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TreeSummary {
    /// The summary.
    pub summary: String,
    /// Extension data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

/// After a tree navigation.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionTreeEvent {
    /// The leaf now.
    pub new_leaf_id: Option<String>,
    /// The leaf before.
    pub old_leaf_id: Option<String>,
    /// The saved branch summary entry, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary_entry: Option<Value>,
    /// Whether an extension supplied the summary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_extension: Option<bool>,
}
event!(SessionTreeEvent, "session_tree", ());

/// Before the extension runtime is torn down.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionShutdownEvent {
    /// `"quit"`, `"reload"`, `"new"`, `"resume"` or `"fork"`.
    pub reason: String,
    /// The session replacing this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_session_file: Option<String>,
}
event!(SessionShutdownEvent, "session_shutdown", ());

/// The model changed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelSelectEvent {
    /// The model now.
    pub model: Model,
    /// The model before.
    pub previous_model: Option<Model>,
    /// `"set"`, `"cycle"` or `"restore"`.
    pub source: String,
}
event!(ModelSelectEvent, "model_select", ());

/// The thinking level changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThinkingLevelSelectEvent {
    /// The level now (`"off"`, `"low"`, ...).
    pub level: String,
    /// The level before.
    pub previous_level: String,
}
event!(ThinkingLevelSelectEvent, "thinking_level_select", ());

/// A `!` or `!!` command (may be taken over).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserBashEvent {
    /// The command.
    pub command: String,
    /// `!!`: kept from the model.
    pub exclude_from_context: bool,
    /// The working directory.
    pub cwd: String,
}
event!(UserBashEvent, "user_bash", UserBashResult);

/// `user_bash`'s answer: the result of running the command elsewhere.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct UserBashResult {
    /// The command's result; pi-rs does not run it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<BashResult>,
}

/// User input, before skills and templates are expanded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputEvent {
    /// The raw text.
    pub text: String,
    /// Attached images.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub images: Option<Vec<ImageContent>>,
    /// `"interactive"`, `"rpc"` or `"extension"`.
    pub source: String,
}
event!(InputEvent, "input", InputResult);

/// `input`'s answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "camelCase")]
pub enum InputResult {
    /// Pass the input on unchanged.
    #[default]
    Continue,
    /// Replace the text (and images), then go on.
    Transform {
        /// The new text.
        text: String,
        /// The new images (kept when absent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        images: Option<Vec<ImageContent>>,
    },
    /// The extension dealt with it: no agent run.
    Handled,
}
