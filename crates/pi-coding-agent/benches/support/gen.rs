//! A realistic large session for the load benchmark: turns of a user
//! prompt, an assistant message with thinking, text and a tool call, the
//! tool result (about 1 KB), and an assistant answer with usage.

use std::io::Write;
use std::path::Path;

use pi_agent_core::AgentMessage;
use pi_ai::{
    AssistantContent, AssistantMessage, Message, StopReason, ThinkingContent, ToolCall,
    ToolResultMessage, Usage, UserBlock, UserContent, UserMessage,
};
use pi_coding_agent::SessionManager;
use serde_json::json;

fn assistant(content: Vec<AssistantContent>, stop: StopReason, total: u64) -> AssistantMessage {
    let mut m = AssistantMessage::empty(
        "anthropic-messages".into(),
        "anthropic".into(),
        "claude-sonnet-4-5",
        1_795_996_451_198,
    );
    m.content = content;
    m.stop_reason = stop;
    m.usage = Usage {
        input: total - 40,
        output: 40,
        total_tokens: total,
        ..Usage::default()
    };
    m.response_id = Some("msg_01ABCDEF".into());
    m
}

/// The shape of a generated session's turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(dead_code)]
pub enum Shape {
    /// About 750 bytes per entry: thinking in every tool-calling answer,
    /// tool results of about 1 KB.
    Standard,
    /// About 420 bytes per message, as the session of issue 17 (20,000
    /// messages in 8.4 MB): no thinking, short tool results.
    Issue,
}

impl Shape {
    /// `standard` or `issue`.
    #[allow(dead_code)]
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "standard" => Some(Self::Standard),
            "issue" => Some(Self::Issue),
            _ => None,
        }
    }
}

/// Writes a session with `entries` entries (plus the header) to `path`
/// through [`SessionManager`] and returns the leaf id.
#[allow(dead_code)]
pub fn write_session(path: &Path, entries: usize) -> String {
    write_shaped_session(path, entries, Shape::Standard)
}

/// [`write_session`] with turns of the given shape.
pub fn write_shaped_session(path: &Path, entries: usize, shape: Shape) -> String {
    let mut session = SessionManager::in_memory("/home/user/project");
    let result_text = match shape {
        Shape::Standard => "fn main() {\n    println!(\"hello\");\n}\n".repeat(28),
        Shape::Issue => "fn main() {\n    println!(\"hello\");\n}\n".repeat(2),
    };
    let thinking = ThinkingContent {
        thinking: "The user wants the module fixed. Read it first.".into(),
        thinking_signature: Some("EqQBCkYIBhgCIkBmockSignatureAAAAbGlzdGluZw==".into()),
        ..ThinkingContent::default()
    };
    let mut i = 0usize;
    while session.entries().len() < entries {
        let message: Message = match i % 4 {
            0 => Message::User(UserMessage {
                content: UserContent::Blocks(vec![UserBlock::text(match shape {
                    Shape::Standard => format!(
                        "Please look at src/module_{i}.rs and fix the failing test in it; keep the public API unchanged."
                    ),
                    Shape::Issue => format!("Fix the test in src/module_{i}.rs."),
                })]),
                timestamp: 1_795_996_451_156,
                ..UserMessage::default()
            }),
            1 => Message::Assistant(assistant(
                [
                    (shape == Shape::Standard)
                        .then(|| AssistantContent::Thinking(thinking.clone())),
                    Some(AssistantContent::text("Let me read the file.")),
                    Some(AssistantContent::ToolCall(ToolCall {
                        id: format!("toolu_{i:020}"),
                        name: "read".into(),
                        arguments: json!({"path": format!("src/module_{i}.rs")}),
                        ..ToolCall::default()
                    })),
                ]
                .into_iter()
                .flatten()
                .collect(),
                StopReason::ToolUse,
                12_000 + i as u64,
            )),
            2 => Message::ToolResult(ToolResultMessage {
                tool_call_id: format!("toolu_{:020}", i - 1),
                tool_name: "read".into(),
                content: vec![UserBlock::text(result_text.clone())],
                is_error: false,
                timestamp: 1_795_996_451_233,
                ..ToolResultMessage::default()
            }),
            _ => Message::Assistant(assistant(
                vec![AssistantContent::text(
                    "Fixed: the test expected a trailing newline.",
                )],
                StopReason::Stop,
                12_500 + i as u64,
            )),
        };
        session
            .append_message(AgentMessage::Standard(message))
            .unwrap();
        i += 1;
    }
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(out, "{}", serde_json::to_string(session.header()).unwrap()).unwrap();
    for entry in session.entries() {
        writeln!(out, "{}", entry.to_line().unwrap()).unwrap();
    }
    out.flush().unwrap();
    session.leaf_id().unwrap().to_owned()
}
