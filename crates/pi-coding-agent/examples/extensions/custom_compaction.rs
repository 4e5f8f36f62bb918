//! Custom compaction (pi's `examples/extensions/custom-compaction.ts`):
//! `session_before_compact` summarizes the whole compacted part of the
//! conversation with another model, `google/gemini-2.5-flash` from the
//! model registry, and hands pi-rs that summary instead of the one its
//! own compaction would ask the current model for.
//!
//! pi gives the handler the messages to summarize (`messagesToSummarize`,
//! `turnPrefixMessages`) and the extension serializes them; pi-rs's
//! preparation carries them already serialized (`conversationText`,
//! `turnPrefixText`, in pi's `serializeConversation` format), which is
//! what the prompt is built from here. The number of messages the
//! notification names is counted in `branchEntries` (from the start of
//! the compacted range to the first kept entry), as pi's two arrays hold
//! them.
//!
//! Whenever it cannot summarize (no such model, no key, a failed or empty
//! answer) it returns nothing, and the default compaction runs.

use pi_ai::{
    AssistantContent, Context, Message, Model, StopReason, StreamOptions, UserBlock, UserMessage,
};
use pi_coding_agent::extensions::{
    CompactResult, Extension, ExtensionApi, ExtensionCompaction, ExtensionContext, NotifyLevel,
    SessionBeforeCompactEvent,
};
use serde_json::Value;

/// The summarizing model.
const PROVIDER: &str = "google";
/// Its id.
const MODEL_ID: &str = "gemini-2.5-flash";

/// The extension: a `session_before_compact` handler.
#[derive(Debug, Default)]
pub struct CustomCompaction;

/// The summary request's text (pi's prompt).
fn prompt(conversation: &str, previous_summary: Option<&str>) -> String {
    let previous = previous_summary
        .map(|s| format!("\n\nPrevious session summary for context:\n{s}"))
        .unwrap_or_default();
    format!(
        "You are a conversation summarizer. Create a comprehensive summary of this conversation that captures:{previous}

1. The main goals and objectives discussed
2. Key decisions made and their rationale
3. Important code changes, file modifications, or technical details
4. Current state of any ongoing work
5. Any blockers, issues, or open questions
6. Next steps that were planned or suggested

Be thorough but concise. The summary will replace the ENTIRE conversation history, so include all information needed to continue the work effectively.

Format the summary as structured markdown with clear sections.

<conversation>
{conversation}
</conversation>"
    )
}

/// The messages being compacted: the entries that become messages, from
/// where the range starts (the previous compaction's first kept entry, or
/// the start of the branch) up to `first_kept`.
fn compacted_message_count(branch: &[Value], first_kept: &str) -> usize {
    let position = |id: &str| branch.iter().position(|e| e["id"] == id);
    let start = branch
        .iter()
        .rposition(|e| e["type"] == "compaction")
        .map_or(0, |at| {
            branch[at]["firstKeptEntryId"]
                .as_str()
                .and_then(position)
                .unwrap_or(at + 1)
        });
    let end = position(first_kept).unwrap_or(branch.len());
    branch
        .get(start..end)
        .unwrap_or_default()
        .iter()
        .filter(|e| {
            matches!(
                e["type"].as_str(),
                Some("message" | "custom_message" | "branch_summary")
            )
        })
        .count()
}

/// `n` with thousands separators (JavaScript's `toLocaleString()` in English).
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// Summarizes, or returns `None` (after telling the user why) so that the
/// default compaction runs.
async fn summarize(
    event: SessionBeforeCompactEvent,
    ctx: ExtensionContext,
) -> Option<CompactResult> {
    let ui = ctx.ui();
    ui.notify(
        "Custom compaction extension triggered",
        Some(NotifyLevel::Info),
    );
    let Some(model) = ctx
        .with_model_registry(|registry| {
            registry
                .models()
                .iter()
                .find(|m| m.provider.as_str() == PROVIDER && m.id == MODEL_ID)
                .cloned()
        })
        .flatten()
    else {
        ui.notify(
            "Could not find Gemini Flash model, using default compaction",
            Some(NotifyLevel::Warning),
        );
        return None;
    };
    let api_key = ctx.api_key_for(&model);
    let headers = match ctx.with_model_registry(|r| r.request_headers(&model, api_key.as_deref())) {
        Some(Ok(headers)) => headers.unwrap_or_default(),
        Some(Err(e)) => {
            ui.notify(
                &format!("Compaction auth failed: {e}"),
                Some(NotifyLevel::Warning),
            );
            return None;
        }
        None => Default::default(),
    };
    let Some(api_key) = api_key else {
        ui.notify(
            &format!("No API key for {PROVIDER}, using default compaction"),
            Some(NotifyLevel::Warning),
        );
        return None;
    };

    let preparation = &event.preparation;
    let first_kept = preparation["firstKeptEntryId"].as_str().unwrap_or_default();
    let tokens_before = preparation["tokensBefore"].as_u64().unwrap_or_default();
    let count = compacted_message_count(&event.branch_entries, first_kept);
    ui.notify(
        &format!(
            "Custom compaction: summarizing {count} messages ({} tokens) with {}...",
            thousands(tokens_before),
            model.id
        ),
        Some(NotifyLevel::Info),
    );
    let conversation: Vec<&str> = ["conversationText", "turnPrefixText"]
        .iter()
        .filter_map(|key| preparation[*key].as_str())
        .filter(|text| !text.is_empty())
        .collect();
    let text = prompt(
        &conversation.join("\n\n"),
        preparation["previousSummary"].as_str(),
    );
    call(&model, text, api_key, headers, &ctx)
        .await
        .map(|summary| CompactResult {
            cancel: false,
            compaction: Some(ExtensionCompaction {
                summary,
                first_kept_entry_id: first_kept.to_owned(),
                tokens_before,
                details: None,
            }),
        })
}

/// Asks `model` for the summary; `None` (after a notification) when it
/// fails or is empty.
async fn call(
    model: &Model,
    text: String,
    api_key: String,
    headers: std::collections::BTreeMap<String, String>,
    ctx: &ExtensionContext,
) -> Option<String> {
    let context = Context {
        messages: vec![Message::User(UserMessage {
            content: vec![UserBlock::text(text)].into(),
            timestamp: pi_ai::now_ms(),
            ..UserMessage::default()
        })],
        ..Context::default()
    };
    let cancel = ctx.signal().unwrap_or_default();
    let options = StreamOptions {
        api_key: Some(api_key),
        headers,
        max_tokens: Some(8192),
        cancel: cancel.clone(),
        ..StreamOptions::default()
    };
    let answer = pi_ai::complete(model, &context, options).await;
    if answer.stop_reason == StopReason::Error {
        let message = answer.error_message.unwrap_or_default();
        ctx.ui().notify(
            &format!("Compaction failed: {message}"),
            Some(NotifyLevel::Error),
        );
        return None;
    }
    let texts: Vec<&str> = answer
        .content
        .iter()
        .filter_map(|block| match block {
            AssistantContent::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    let summary = texts.join("\n");
    if summary.trim().is_empty() {
        if !cancel.is_cancelled() {
            ctx.ui().notify(
                "Compaction summary was empty, using default compaction",
                Some(NotifyLevel::Warning),
            );
        }
        return None;
    }
    Some(summary)
}

impl Extension for CustomCompaction {
    fn path(&self) -> String {
        "<custom-compaction>".to_owned()
    }

    fn register(&self, api: &mut ExtensionApi<'_>) {
        api.on(
            |event: SessionBeforeCompactEvent, ctx: ExtensionContext| async move {
                Ok(summarize(event, ctx).await)
            },
        );
    }
}
