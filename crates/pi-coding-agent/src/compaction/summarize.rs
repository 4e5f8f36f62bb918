//! What compaction and branch summaries send to the model: the transcript
//! serialized as text, the prompts, the file lists, and the call itself.

use std::collections::BTreeSet;

use pi_ai::{
    AssistantContent, AssistantMessage, CancellationToken, Context, Message, Model,
    SimpleStreamOptions, StopReason, StreamFunction, ThinkingLevel, UserBlock, UserContent,
    UserMessage,
};
use serde_json::{Value, json};

use super::CompactionError;
use super::conversation::Conversation;
use crate::messages::CodingAgentMessage;

/// System prompt of every summarization call.
pub const SUMMARIZATION_SYSTEM_PROMPT: &str = "You write summaries of working sessions between a user and an AI coding assistant. \
You are given the session as text and must return a structured summary in exactly the format you are asked for.\n\n\
Do not carry the session on and do not answer anything asked in it. Return the summary and nothing else.";

/// Instructions for a first summary (sections: goal, constraints, progress,
/// decisions, next steps, critical context).
pub const SUMMARY_PROMPT: &str = "The text above is a session to condense. Write a structured checkpoint that a different model will read to pick the work up where it stopped.

Follow this format exactly:

## Goal
[What the user wants done. List several goals if the session moved between tasks.]

## Constraints & Preferences
- [Requirements, limits or preferences the user stated]
- [Write \"(none)\" if there were none]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [Work under way]

### Blocked
- [What stops progress, if anything]

## Key Decisions
- **[Decision]**: [Short reason]

## Next Steps
1. [What to do next, in order]

## Critical Context
- [Facts, values or references needed to continue]
- [Write \"(none)\" if nothing applies]

Keep every section short. Quote file paths, function names and error messages exactly.";

/// Instructions for folding new messages into a previous summary.
pub const UPDATE_SUMMARY_PROMPT: &str = "The text above holds NEW messages of the session. Merge them into the earlier summary given in <previous-summary> tags.

Rules for the update:
- KEEP everything the earlier summary says unless it no longer matters
- ADD the progress, decisions and context the new messages bring
- MOVE items from \"In Progress\" to \"Done\" once they are finished
- REVISE \"Next Steps\" to match the current state
- Quote file paths, function names and error messages exactly

Follow this format exactly:

## Goal
[Earlier goals, plus any the work grew into]

## Constraints & Preferences
- [Earlier ones, plus new ones]

## Progress
### Done
- [x] [Earlier finished items and the newly finished ones]

### In Progress
- [ ] [Work under way now]

### Blocked
- [Current blockers; drop the resolved ones]

## Key Decisions
- **[Decision]**: [Short reason] (keep the earlier ones, add new ones)

## Next Steps
1. [What to do next, given where things stand]

## Critical Context
- [Context worth keeping, plus anything new]

Keep every section short. Quote file paths, function names and error messages exactly.";

/// Instructions for the first part of a turn that is cut in two.
pub const TURN_PREFIX_PROMPT: &str = "The text above is the BEGINNING of a turn that is too long to keep whole. Its END (the latest work) stays in the context as it is.

Condense the beginning so the kept end makes sense:

## Original Request
[What the user asked for in this turn]

## Early Progress
- [Decisions made and work done in the beginning]

## Context for Suffix
- [What a reader of the kept end needs to know]

Be brief; keep only what the kept end depends on.";

/// Instructions for the summary of a branch that is being left.
pub const BRANCH_SUMMARY_PROMPT: &str = "Write a structured summary of this branch of the session, to give context when the user comes back to it.

Follow this format exactly:

## Goal
[What the user wanted to achieve on this branch]

## Constraints & Preferences
- [Requirements, limits or preferences stated]
- [Write \"(none)\" if there were none]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [Work started and not finished]

### Blocked
- [What stops progress, if anything]

## Key Decisions
- **[Decision]**: [Short reason]

## Next Steps
1. [What should happen next to carry this work on]

Keep every section short. Quote file paths, function names and error messages exactly.";

/// Text put before a branch summary (pi's exact bytes; the model and the
/// session file see it).
pub const BRANCH_SUMMARY_PREAMBLE: &str = "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n";

/// Longest tool result (in UTF-16 units, as pi counts) kept in a serialized transcript.
pub const TOOL_RESULT_MAX_CHARS: usize = 2000;

/// Length of a string as JavaScript counts it (UTF-16 code units).
pub fn js_len(text: &str) -> usize {
    text.chars().map(char::len_utf16).sum()
}

/// Files seen in `read`, `write` and `edit` tool calls.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileOperations {
    /// Paths read.
    pub read: BTreeSet<String>,
    /// Paths written.
    pub written: BTreeSet<String>,
    /// Paths edited.
    pub edited: BTreeSet<String>,
}

impl FileOperations {
    /// Records the `path` argument of the read/write/edit calls of an assistant message.
    pub fn add_from_message(&mut self, message: &CodingAgentMessage) {
        let Some(assistant) = message.as_assistant() else {
            return;
        };
        for call in assistant.tool_calls() {
            let Some(path) = call.arguments.get("path").and_then(Value::as_str) else {
                continue;
            };
            let set = match call.name.as_str() {
                "read" => &mut self.read,
                "write" => &mut self.written,
                "edit" => &mut self.edited,
                _ => continue,
            };
            set.insert(path.to_owned());
        }
    }

    /// Adds the `readFiles` / `modifiedFiles` of a previous summary's details.
    pub fn add_from_details(&mut self, details: &Value) {
        let list = |key: &str| {
            details
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        self.read.extend(list("readFiles"));
        self.edited.extend(list("modifiedFiles"));
    }

    /// `(read_only, modified)`, both sorted: a modified file is not listed as read.
    pub fn file_lists(&self) -> (Vec<String>, Vec<String>) {
        let modified: BTreeSet<&String> = self.edited.iter().chain(&self.written).collect();
        let read = self
            .read
            .iter()
            .filter(|f| !modified.contains(f))
            .cloned()
            .collect();
        (read, modified.into_iter().cloned().collect())
    }

    /// `{"readFiles": [...], "modifiedFiles": [...]}` as stored in entry details.
    pub fn details(&self) -> Value {
        let (read, modified) = self.file_lists();
        json!({ "readFiles": read, "modifiedFiles": modified })
    }
}

/// The file lists appended to a summary: `\n\n<read-files>\n…\n</read-files>`
/// and `\n\n<modified-files>\n…\n</modified-files>`, or "" when both are empty.
pub fn format_file_operations(read: &[String], modified: &[String]) -> String {
    let mut sections = Vec::new();
    if !read.is_empty() {
        sections.push(format!("<read-files>\n{}\n</read-files>", read.join("\n")));
    }
    if !modified.is_empty() {
        sections.push(format!(
            "<modified-files>\n{}\n</modified-files>",
            modified.join("\n")
        ));
    }
    if sections.is_empty() {
        String::new()
    } else {
        format!("\n\n{}", sections.join("\n\n"))
    }
}

/// Who answers the summarization calls.
#[derive(Clone)]
pub struct Summarizer<'a> {
    /// The model to ask.
    pub model: &'a Model,
    /// The wire implementation; `None` uses pi-ai's global registry
    /// (`complete_simple`).
    pub stream_fn: Option<&'a dyn StreamFunction>,
    /// API key; `None` lets the provider use its environment variable.
    pub api_key: Option<String>,
    /// Cancels the call.
    pub cancel: CancellationToken,
}

impl std::fmt::Debug for Summarizer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Summarizer")
            .field("model", &self.model.id)
            .field("stream_fn", &self.stream_fn.is_some())
            .finish_non_exhaustive()
    }
}

impl<'a> Summarizer<'a> {
    /// A summarizer for `model` through the global registry.
    pub fn new(model: &'a Model) -> Self {
        Self {
            model,
            stream_fn: None,
            api_key: None,
            cancel: CancellationToken::new(),
        }
    }

    /// Uses `stream_fn` instead of the global registry.
    pub fn with_stream_fn(mut self, stream_fn: &'a dyn StreamFunction) -> Self {
        self.stream_fn = Some(stream_fn);
        self
    }

    /// Sends one summarization request (system prompt + one user message)
    /// and returns the text of the answer, joined by newlines.
    pub async fn summarize(
        &self,
        prompt: String,
        max_tokens: u64,
        reasoning: Option<ThinkingLevel>,
    ) -> Result<String, CompactionError> {
        let context = Context {
            system_prompt: Some(SUMMARIZATION_SYSTEM_PROMPT.to_owned()),
            messages: vec![Message::User(UserMessage {
                content: UserContent::Blocks(vec![UserBlock::text(prompt)]),
                timestamp: pi_ai::now_ms(),
                ..UserMessage::default()
            })],
            ..Context::default()
        };
        let mut options = SimpleStreamOptions {
            reasoning,
            ..SimpleStreamOptions::default()
        };
        options.base.max_tokens = Some(max_tokens);
        options.base.api_key.clone_from(&self.api_key);
        options.base.cancel = self.cancel.clone();
        let reply: AssistantMessage = match self.stream_fn {
            Some(stream_fn) => {
                stream_fn
                    .stream_simple(self.model, context.view(), options)
                    .result()
                    .await
            }
            None => pi_ai::complete_simple(self.model, &context, options).await,
        };
        match reply.stop_reason {
            StopReason::Error => Err(CompactionError::Summarization(
                reply
                    .error_message
                    .unwrap_or_else(|| "Unknown error".to_owned()),
            )),
            StopReason::Aborted => Err(CompactionError::Aborted),
            StopReason::Stop
            | StopReason::Length
            | StopReason::ToolUse
            | StopReason::Pending
            | StopReason::Deferred => Ok(reply
                .content
                .iter()
                .filter_map(|b| match b {
                    AssistantContent::Text(t) => Some(t.text.as_str()),
                    AssistantContent::Thinking(_) | AssistantContent::ToolCall(_) => None,
                })
                .collect::<Vec<_>>()
                .join("\n")),
        }
    }
}

/// The user text of a summarization request:
/// `<conversation>…</conversation>`, the previous summary if any, then the
/// instructions (plus `Additional focus: …`).
pub fn summary_request_text(
    messages: &[CodingAgentMessage],
    previous_summary: Option<&str>,
    instructions: &str,
    custom_instructions: Option<&str>,
) -> String {
    Conversation::of(messages).into_request(previous_summary, instructions, custom_instructions)
}
