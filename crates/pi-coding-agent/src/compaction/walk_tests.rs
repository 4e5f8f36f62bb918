//! Compaction of a session read from its file: the branch is walked one
//! entry at a time, nothing is kept in the session, and what is prepared is
//! what the fully parsed path gives.

use pi_agent_core::AgentMessage;
use pi_ai::scripted::{ScriptedProvider, scripted_model, text_reply};
use pi_ai::{
    AssistantContent, AssistantMessage, Message, StopReason, ToolCall, ToolResultMessage, Usage,
    UserBlock, UserContent,
};
use serde_json::json;

use super::tests::{settings, user};
use super::*;
use crate::messages::CodingAgentMessage;
use crate::session::SessionManager;

fn assistant(content: Vec<AssistantContent>, total_tokens: u64) -> CodingAgentMessage {
    let mut m = AssistantMessage::empty("anthropic-messages".into(), "anthropic".into(), "m", 2);
    m.stop_reason = StopReason::ToolUse;
    m.content = content;
    m.usage = Usage {
        total_tokens,
        ..Usage::default()
    };
    AgentMessage::Standard(Message::Assistant(m))
}

fn call(id: &str, name: &str, path: &str) -> CodingAgentMessage {
    assistant(
        vec![
            AssistantContent::text(format!("{name} {path}")),
            AssistantContent::ToolCall(ToolCall {
                id: id.into(),
                name: name.into(),
                arguments: json!({"path": path}),
                ..ToolCall::default()
            }),
        ],
        300,
    )
}

fn result(id: &str, chars: usize) -> CodingAgentMessage {
    AgentMessage::Standard(Message::ToolResult(ToolResultMessage {
        tool_call_id: id.into(),
        tool_name: "read".into(),
        content: vec![UserBlock::text("r".repeat(chars))],
        timestamp: 3,
        ..ToolResultMessage::default()
    }))
}

fn bash(command: &str) -> CodingAgentMessage {
    serde_json::from_value(json!({"role": "bashExecution", "command": command,
        "output": "out", "exitCode": 0, "cancelled": false, "truncated": false,
        "timestamp": 4}))
    .unwrap()
}

/// Turns of every kind of entry, an earlier compaction, then a long last
/// turn (so that small budgets split it).
fn write_session(dir: &std::path::Path) -> std::path::PathBuf {
    let mut s = SessionManager::create("/p", Some(dir)).unwrap();
    let mut kept = String::new();
    for i in 0..8 {
        s.append_message(user(&format!("question {i} {}", "q".repeat(200))))
            .unwrap();
        let id = format!("c{i}");
        let id_kept = s.append_message(call(&id, "read", &format!("src/{i}.rs")));
        if i == 3 {
            kept = id_kept.unwrap();
        }
        s.append_message(result(&id, 300)).unwrap();
        s.append_message(bash(&format!("ls {i}"))).unwrap();
        if i == 5 {
            s.append_model_change("openai", "gpt").unwrap();
            s.append_custom_message_entry("note", UserContent::Text("n".into()), true, None)
                .unwrap();
        }
        s.append_message(assistant(vec![AssistantContent::text("done")], 2000))
            .unwrap();
        if i == 4 {
            let details = json!({"readFiles": ["old.rs"], "modifiedFiles": []});
            s.append_compaction("EARLIER", &kept, 5000, Some(details), Some(false))
                .unwrap();
        }
    }
    s.append_message(user("one long task")).unwrap();
    for i in 0..6 {
        let id = format!("w{i}");
        s.append_message(call(&id, "edit", &format!("f{i}.rs")))
            .unwrap();
        s.append_message(result(&id, 600)).unwrap();
    }
    s.session_file().unwrap().to_path_buf()
}

/// The session as `pi -c` has it: opened, its context handed to the agent.
fn resumed(file: &std::path::Path) -> SessionManager {
    let mut s = SessionManager::open(file, None).unwrap();
    let context = s.take_session_context();
    assert!(!context.messages.is_empty());
    s
}

#[test]
fn the_walk_prepares_what_the_parsed_path_does_and_keeps_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_session(dir.path());
    let keeps = [1, 100, 300, 700, 1200, 2000, 3500, 100_000];
    let mut split = 0;
    for keep in keeps {
        let s = resumed(&file);
        let walked = prepare_branch_compaction(&s.branch_walk(), &settings(keep));
        assert_eq!(s.cached_read_entries(), 0, "keep={keep}");
        let parsed = prepare_compaction(&s.branch_path(None), &settings(keep));
        assert!(
            s.cached_read_entries() > 0,
            "branch_path keeps what it read"
        );
        assert_eq!(walked, parsed, "keep={keep}");
        let walked = walked.unwrap();
        split += usize::from(walked.is_split_turn);
        assert_eq!(walked.previous_summary.as_deref(), Some("EARLIER"));
        assert!(walked.file_ops.read.contains("old.rs"));
    }
    assert!(split > 0 && split < keeps.len(), "both cuts are covered");
}

#[tokio::test]
async fn compacting_a_resumed_session_reads_entries_without_keeping_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_session(dir.path());
    let mut s = resumed(&file);
    let model = scripted_model();
    let provider = ScriptedProvider::new([text_reply("HISTORY"), text_reply("PREFIX")]);
    let summarizer = Summarizer::new(&model).with_stream_fn(&provider);
    let (result, id) = compact_session(&mut s, &settings(700), &summarizer, None)
        .await
        .unwrap();
    assert_eq!(s.cached_read_entries(), 0);
    assert!(result.summary.starts_with("HISTORY\n\n---\n\n"));
    // The context after compaction is the one a resume of the file gives.
    let context = s.build_session_context();
    assert_eq!(s.cached_read_entries(), 0);
    let mut reopened = SessionManager::open(&file, None).unwrap();
    assert_eq!(reopened.leaf_id(), Some(id.as_str()));
    assert_eq!(context, reopened.take_session_context());
}
