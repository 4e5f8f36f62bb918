//! The app's own events (pi's `AgentSessionEvent`s besides the agent's):
//! queue changes, compactions, auto-retries, thinking level and session
//! name changes, and pi-rs's `session_save_error`. Each serializes to the
//! JSON line pi writes in json and rpc mode, keys in pi's order; only those
//! modes serialize them (the interactive mode matches on the typed events).

use pi_ai::ThinkingLevel;
use serde::{Serialize, Serializer};

use crate::compaction::CompactionResult;

/// Why a compaction runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactionReason {
    /// Asked for (`/compact`, rpc `compact`).
    Manual,
    /// The context passed `contextWindow - reserveTokens`.
    Threshold,
    /// The provider refused the context as too long.
    Overflow,
}

/// One of the app's own events.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SessionEvent {
    /// The queued steering and follow-up texts changed.
    QueueUpdate {
        /// Queued steering messages.
        steering: Vec<String>,
        /// Queued follow-up messages.
        #[serde(rename = "followUp")]
        follow_up: Vec<String>,
    },
    /// A compaction starts.
    CompactionStart {
        /// Why.
        reason: CompactionReason,
    },
    /// A compaction ended.
    #[serde(rename_all = "camelCase")]
    CompactionEnd {
        /// Why it ran.
        reason: CompactionReason,
        /// Always false (pi-rs has no abortable compaction yet).
        aborted: bool,
        /// What it made, when it succeeded.
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<CompactionResult>,
        /// The run that overflowed is retried.
        will_retry: bool,
        /// Why it failed, as the user reads it.
        #[serde(skip_serializing_if = "Option::is_none")]
        error_message: Option<String>,
    },
    /// A transient provider error is retried after a delay.
    #[serde(rename_all = "camelCase")]
    AutoRetryStart {
        /// This retry's number, from 1.
        attempt: u32,
        /// The most retries made.
        max_attempts: u32,
        /// The wait before it.
        delay_ms: u64,
        /// The error being retried.
        error_message: String,
    },
    /// Retrying ended.
    #[serde(rename_all = "camelCase")]
    AutoRetryEnd {
        /// An answer came through.
        success: bool,
        /// The retries made.
        attempt: u32,
        /// Why retrying gave up.
        #[serde(skip_serializing_if = "Option::is_none")]
        final_error: Option<String>,
    },
    /// The thinking level changed.
    ThinkingLevelChanged {
        /// The new level (`off` for none).
        #[serde(serialize_with = "level_name")]
        level: Option<ThinkingLevel>,
    },
    /// The session was named (`null`: the name was cleared).
    SessionInfoChanged {
        /// The session's name.
        name: Option<String>,
    },
    /// A settled message could not be saved (pi-rs's own event).
    SessionSaveError {
        /// The failure, as the user reads it.
        error: String,
    },
}

fn level_name<S: Serializer>(level: &Option<ThinkingLevel>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(ThinkingLevel::setting_name(*level))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(event: &SessionEvent) -> String {
        serde_json::to_string(event).unwrap()
    }

    #[test]
    fn events_serialize_as_pi_writes_them() {
        assert_eq!(
            line(&SessionEvent::QueueUpdate {
                steering: vec!["a".into()],
                follow_up: vec![]
            }),
            r#"{"type":"queue_update","steering":["a"],"followUp":[]}"#
        );
        assert_eq!(
            line(&SessionEvent::CompactionStart {
                reason: CompactionReason::Threshold
            }),
            r#"{"type":"compaction_start","reason":"threshold"}"#
        );
        assert_eq!(
            line(&SessionEvent::CompactionEnd {
                reason: CompactionReason::Manual,
                aborted: false,
                result: Some(CompactionResult {
                    summary: "s".into(),
                    first_kept_entry_id: "e".into(),
                    tokens_before: 5,
                    details: serde_json::json!({"readFiles": []}),
                }),
                will_retry: false,
                error_message: None,
            }),
            r#"{"type":"compaction_end","reason":"manual","aborted":false,"result":{"summary":"s","firstKeptEntryId":"e","tokensBefore":5,"details":{"readFiles":[]}},"willRetry":false}"#
        );
        assert_eq!(
            line(&SessionEvent::CompactionEnd {
                reason: CompactionReason::Overflow,
                aborted: false,
                result: None,
                will_retry: false,
                error_message: Some("x".into()),
            }),
            r#"{"type":"compaction_end","reason":"overflow","aborted":false,"willRetry":false,"errorMessage":"x"}"#
        );
        assert_eq!(
            line(&SessionEvent::AutoRetryStart {
                attempt: 1,
                max_attempts: 3,
                delay_ms: 2000,
                error_message: "500".into()
            }),
            r#"{"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":2000,"errorMessage":"500"}"#
        );
        assert_eq!(
            line(&SessionEvent::AutoRetryEnd {
                success: false,
                attempt: 2,
                final_error: Some("Retry cancelled".into())
            }),
            r#"{"type":"auto_retry_end","success":false,"attempt":2,"finalError":"Retry cancelled"}"#
        );
        assert_eq!(
            line(&SessionEvent::AutoRetryEnd {
                success: true,
                attempt: 1,
                final_error: None
            }),
            r#"{"type":"auto_retry_end","success":true,"attempt":1}"#
        );
        assert_eq!(
            line(&SessionEvent::ThinkingLevelChanged { level: None }),
            r#"{"type":"thinking_level_changed","level":"off"}"#
        );
        assert_eq!(
            line(&SessionEvent::SessionInfoChanged { name: None }),
            r#"{"type":"session_info_changed","name":null}"#
        );
        assert_eq!(
            line(&SessionEvent::SessionSaveError { error: "e".into() }),
            r#"{"type":"session_save_error","error":"e"}"#
        );
    }
}
