//! Compaction in the running app, as pi 0.73.1's `AgentSession`: the
//! automatic check made after each run and before each prompt
//! (`_checkCompaction`), and the compaction itself with its
//! `compaction_start` / `compaction_end` events.

use std::sync::atomic::Ordering;

use pi_ai::{AssistantMessage, CancellationToken, StopReason};

use super::{App, AppError, CompactionReason, SessionEvent, lock};
use crate::compaction::{self, CompactionError, CompactionResult, Summarizer};

/// What pi tells when a second overflow follows a compact-and-retry.
const OVERFLOW_RETRY_FAILED: &str = "Context overflow recovery failed after one compact-and-retry attempt. Try reducing context or switching to a larger-context model.";

/// What the automatic check did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Checked {
    /// Nothing, or a threshold compaction (the run is not retried).
    Done,
    /// The context overflowed and was compacted: the caller retries the run.
    OverflowCompacted,
}

/// Why no compaction was made.
enum Refused {
    /// Nothing to compact (pi's `prepareCompaction` returned nothing):
    /// automatic compactions end silently.
    NoPreparation(CompactionError),
    /// The compaction failed.
    Failed(CompactionError),
}

impl Refused {
    fn into_error(self) -> CompactionError {
        match self {
            Self::NoPreparation(error) | Self::Failed(error) => error,
        }
    }
}

/// Milliseconds since the epoch of an ISO 8601 time.
fn iso_millis(text: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.timestamp_millis())
}

impl App {
    /// pi's automatic check of `assistant` (the last assistant message):
    /// overflow recovery (once until an answer succeeds), else a threshold
    /// compaction when its context (the usage it reports; for a failed
    /// message, the estimate from the last successful one) exceeds
    /// `contextWindow - reserveTokens`. A message from before the latest
    /// compaction is not looked at (its usage describes the old context);
    /// an aborted one only when `include_aborted` (the check before a prompt).
    pub(super) async fn check_compaction(
        &self,
        assistant: &AssistantMessage,
        include_aborted: bool,
    ) -> Checked {
        if !self.auto_compaction() {
            return Checked::Done;
        }
        if !include_aborted && assistant.stop_reason == StopReason::Aborted {
            return Checked::Done;
        }
        let model = self.agent.model();
        let window = model.context_window;
        let compacted_at = self
            .session()
            .latest_compaction_timestamp()
            .and_then(iso_millis);
        // pi skips a message not newer than the compaction (`<=`); times
        // are in milliseconds, and an answer can start within the
        // millisecond of a compaction made just before its prompt, so only
        // a strictly older one is skipped here (a message kept by the
        // compaction is older by at least the summary request).
        if compacted_at.is_some_and(|t| assistant.timestamp < t) {
            return Checked::Done;
        }
        let same_model = assistant.provider == model.provider && assistant.model == model.id;
        if same_model && pi_ai::is_context_overflow(assistant, Some(window)) {
            if self.hub.overflow_attempted.swap(true, Ordering::SeqCst) {
                self.emit(&SessionEvent::CompactionEnd {
                    reason: CompactionReason::Overflow,
                    aborted: false,
                    result: None,
                    will_retry: false,
                    error_message: Some(OVERFLOW_RETRY_FAILED.to_owned()),
                });
                return Checked::Done;
            }
            self.drop_last_assistant();
            return match self
                .run_compaction(CompactionReason::Overflow, None, true)
                .await
            {
                Ok(_) => Checked::OverflowCompacted,
                Err(_) => Checked::Done,
            };
        }
        let tokens = if assistant.stop_reason == StopReason::Error {
            let estimate = self.agent.with_state(|s| {
                let estimate = compaction::estimate_context_tokens(&s.messages);
                let usage_time = estimate
                    .last_usage_index
                    .and_then(|i| s.messages[i].as_assistant())
                    .map(|m| m.timestamp);
                (estimate, usage_time)
            });
            match estimate {
                (e, _) if e.last_usage_index.is_none() => return Checked::Done,
                // Usage from before the compaction describes the old context.
                (_, Some(time)) if compacted_at.is_some_and(|t| time < t) => {
                    return Checked::Done;
                }
                (e, _) => e.tokens,
            }
        } else {
            compaction::calculate_context_tokens(&assistant.usage)
        };
        if compaction::should_compact(tokens, window, &self.settings.compaction()) {
            let _ = self
                .run_compaction(CompactionReason::Threshold, None, false)
                .await;
        }
        Checked::Done
    }

    /// Cancels the running compaction, if any (Esc; pi's `abortCompaction`).
    pub fn abort_compaction(&self) {
        if let Some(token) = lock(&self.compaction_cancel).as_ref() {
            token.cancel();
        }
    }

    /// pi's check before a prompt: a session already over the threshold
    /// (or ending in an overflow) is compacted before the prompt is sent.
    pub(super) async fn check_compaction_before_prompt(&self) {
        if let Some(last) = self.last_assistant() {
            // After an overflow compaction the prompt itself is the retry
            // (pi's scheduled `continue` finds the agent busy).
            let _ = self.check_compaction(&last, true).await;
        }
    }

    /// Compacts the active branch: summary by the current model, a
    /// `compaction` entry, and the transcript rebuilt from the session.
    pub async fn compact(
        &self,
        custom_instructions: Option<&str>,
    ) -> Result<CompactionResult, AppError> {
        let started = self.begin_manual_compaction();
        self.finish_manual_compaction(custom_instructions, started)
            .await
    }

    /// What pi's `compact()` does at once: a run in progress is aborted, and
    /// the rest of its events (its `turn_end`, `agent_end`) reach no one;
    /// when idle, the compaction starts (`compaction_start`). Returns
    /// whether it started; [`App::finish_manual_compaction`] does the rest.
    pub(crate) fn begin_manual_compaction(&self) -> bool {
        if self.agent.is_streaming() {
            self.detached.store(true, Ordering::SeqCst);
            self.agent.abort();
            return false;
        }
        self.start_compaction(CompactionReason::Manual);
        true
    }

    /// The rest of a manual compaction that [`App::begin_manual_compaction`]
    /// began (`started`: its `compaction_start` is out).
    pub(crate) async fn finish_manual_compaction(
        &self,
        custom_instructions: Option<&str>,
        started: bool,
    ) -> Result<CompactionResult, AppError> {
        if !started {
            self.agent.wait_for_idle().await;
            self.detached.store(false, Ordering::SeqCst);
            self.start_compaction(CompactionReason::Manual);
        }
        self.complete_compaction(CompactionReason::Manual, custom_instructions, false)
            .await
            .map_err(AppError::from)
    }

    /// Runs one compaction with pi's `compaction_start` / `compaction_end` events.
    async fn run_compaction(
        &self,
        reason: CompactionReason,
        custom_instructions: Option<&str>,
        will_retry: bool,
    ) -> Result<CompactionResult, CompactionError> {
        self.start_compaction(reason);
        self.complete_compaction(reason, custom_instructions, will_retry)
            .await
    }

    fn start_compaction(&self, reason: CompactionReason) {
        self.compaction_started();
        self.emit(&SessionEvent::CompactionStart { reason });
    }

    /// A started compaction: the summary, then `compaction_end`.
    async fn complete_compaction(
        &self,
        reason: CompactionReason,
        custom_instructions: Option<&str>,
        will_retry: bool,
    ) -> Result<CompactionResult, CompactionError> {
        let cancel = CancellationToken::new();
        *lock(&self.compaction_cancel) = Some(cancel.clone());
        // Esc (`abort_compaction`) cancels the summary request in flight.
        let result = self.compact_inner(custom_instructions, &cancel).await;
        *lock(&self.compaction_cancel) = None;
        self.compaction_ended();
        let aborted = matches!(result, Err(Refused::Failed(CompactionError::Aborted)));
        let (result_json, will_retry, error_message) = match &result {
            Ok(r) => (Some(r.clone()), will_retry, None),
            Err(_) if aborted => (None, false, None),
            Err(Refused::NoPreparation(_)) if reason != CompactionReason::Manual => {
                (None, false, None)
            }
            Err(Refused::NoPreparation(e) | Refused::Failed(e)) => {
                let prefix = match reason {
                    CompactionReason::Manual => "Compaction failed",
                    CompactionReason::Overflow => "Context overflow recovery failed",
                    CompactionReason::Threshold => "Auto-compaction failed",
                };
                (None, false, Some(format!("{prefix}: {e}")))
            }
        };
        self.emit(&SessionEvent::CompactionEnd {
            reason,
            aborted,
            result: result_json,
            will_retry,
            error_message,
        });
        result.map_err(Refused::into_error)
    }

    async fn compact_inner(
        &self,
        custom_instructions: Option<&str>,
        cancel: &CancellationToken,
    ) -> Result<CompactionResult, Refused> {
        let settings = self.settings.compaction();
        let (preparation, for_extensions) = {
            let session = self.session();
            // One entry at a time, none kept: the session stays as small
            // as its resume left it.
            let branch = session.branch_walk();
            if compaction::ends_with_compaction(&branch) {
                return Err(Refused::NoPreparation(CompactionError::AlreadyCompacted));
            }
            let preparation = compaction::prepare_branch_compaction(&branch, &settings)
                .ok_or(Refused::NoPreparation(CompactionError::NothingToCompact))?;
            // The entries and messages go to extensions only when one listens.
            let for_extensions = if self.extensions.has_handlers("session_before_compact") {
                let path = session.branch_path(None);
                ExtensionView {
                    entries: path
                        .iter()
                        .filter_map(|e| serde_json::to_value(e).ok())
                        .collect(),
                    to_summarize: compaction::messages_json(
                        &path,
                        preparation.summarize_range.clone(),
                    ),
                    turn_prefix: compaction::messages_json(
                        &path,
                        preparation.turn_prefix_range.clone(),
                    ),
                }
            } else {
                ExtensionView::default()
            };
            (preparation, for_extensions)
        };
        let from_extension = self
            .extension_compaction(&preparation, for_extensions, custom_instructions)
            .await?;
        let result = match from_extension.clone() {
            Some(result) => result,
            None => {
                let model = self.agent.model();
                let mut summarizer = Summarizer::new(&model);
                summarizer.api_key = self.resolve_api_key(&model).await;
                summarizer.cancel = cancel.clone();
                compaction::compact(preparation, &summarizer, custom_instructions)
                    .await
                    .map_err(Refused::Failed)?
            }
        };
        let (context, entry) = {
            let mut session = self.session();
            session
                .append_compaction(
                    &result.summary,
                    &result.first_kept_entry_id,
                    result.tokens_before,
                    (!result.details.is_null()).then(|| result.details.clone()),
                    // pi records whether an extension made it.
                    Some(from_extension.is_some()),
                )
                .map_err(|e| Refused::Failed(e.into()))?;
            let entry = session
                .leaf_id()
                .and_then(|id| session.entry(id))
                .and_then(|e| serde_json::to_value(e).ok());
            (session.build_session_context(), entry)
        };
        self.agent.replace_messages(context.messages);
        if let Some(entry) = entry {
            self.extensions
                .emit(crate::extensions::SessionCompactEvent {
                    compaction_entry: entry,
                    from_extension: from_extension.is_some(),
                })
                .await;
        }
        Ok(result)
    }

    /// `session_before_compact`: a cancel refuses the compaction; a
    /// compaction an extension made replaces the model's summary.
    async fn extension_compaction(
        &self,
        preparation: &compaction::CompactionPreparation,
        view: ExtensionView,
        custom_instructions: Option<&str>,
    ) -> Result<Option<CompactionResult>, Refused> {
        if !self.extensions.has_handlers("session_before_compact") {
            return Ok(None);
        }
        let files = &preparation.file_ops;
        let event = crate::extensions::SessionBeforeCompactEvent {
            // pi's CompactionPreparation, plus the serialized text pi-rs
            // summarizes (`conversationText`, `turnPrefixText`).
            preparation: serde_json::json!({
                "firstKeptEntryId": preparation.first_kept_entry_id,
                "messagesToSummarize": view.to_summarize,
                "turnPrefixMessages": view.turn_prefix,
                "conversationText": preparation.messages_to_summarize.text(),
                "turnPrefixText": preparation.turn_prefix_messages.text(),
                "isSplitTurn": preparation.is_split_turn,
                "tokensBefore": preparation.tokens_before,
                "previousSummary": preparation.previous_summary,
                "fileOps": {"read": files.read, "written": files.written, "edited": files.edited},
                "settings": preparation.settings,
            }),
            branch_entries: view.entries,
            custom_instructions: custom_instructions.map(str::to_owned),
        };
        let Some(answer) = self.extensions.emit_before_compact(event).await else {
            return Ok(None);
        };
        if answer.cancel {
            return Err(Refused::Failed(CompactionError::Cancelled));
        }
        Ok(answer.compaction.map(|c| CompactionResult {
            summary: c.summary,
            first_kept_entry_id: c.first_kept_entry_id,
            tokens_before: c.tokens_before,
            details: c.details.unwrap_or(serde_json::Value::Null),
        }))
    }
}

/// What `session_before_compact` handlers see of the branch: its entries
/// and the messages to summarize (empty when no handler listens).
#[derive(Default)]
struct ExtensionView {
    entries: Vec<serde_json::Value>,
    to_summarize: Vec<serde_json::Value>,
    turn_prefix: Vec<serde_json::Value>,
}
