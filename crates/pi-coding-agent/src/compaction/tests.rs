use pi_agent_core::AgentMessage;
use pi_ai::scripted::{ScriptedProvider, error_reply, scripted_model, text_reply};
use pi_ai::{
    AssistantContent, AssistantMessage, Message, StopReason, ToolCall, ToolResultMessage, Usage,
    UserBlock, UserContent, UserMessage,
};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::messages::{CodingAgentMessage, CodingMessage};
use crate::session::{SessionEntry, SessionManager};

pub(super) fn user(text: &str) -> CodingAgentMessage {
    AgentMessage::Standard(Message::User(UserMessage {
        content: UserContent::Text(text.into()),
        timestamp: 1,
        ..UserMessage::default()
    }))
}

fn assistant_with(content: Vec<AssistantContent>, total_tokens: u64) -> CodingAgentMessage {
    let mut m =
        AssistantMessage::empty("anthropic-messages".into(), "anthropic".into(), "claude", 2);
    m.stop_reason = StopReason::Stop;
    m.content = content;
    m.usage = Usage {
        total_tokens,
        ..Usage::default()
    };
    AgentMessage::Standard(Message::Assistant(m))
}

fn tool_call(id: &str, name: &str, args: serde_json::Value) -> CodingAgentMessage {
    assistant_with(
        vec![AssistantContent::ToolCall(ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: args,
            ..ToolCall::default()
        })],
        100,
    )
}

fn tool_result(id: &str, name: &str, text: &str) -> CodingAgentMessage {
    AgentMessage::Standard(Message::ToolResult(ToolResultMessage {
        tool_call_id: id.into(),
        tool_name: name.into(),
        content: vec![UserBlock::text(text)],
        is_error: false,
        timestamp: 3,
        ..ToolResultMessage::default()
    }))
}

fn text(s: &str) -> AssistantContent {
    AssistantContent::text(s)
}

/// A session of `turns` turns: user, assistant calling `read` on
/// `file{i}.rs`, the tool result (`result_chars` long), assistant answer.
fn session_with_turns(turns: usize, result_chars: usize) -> SessionManager {
    let mut s = SessionManager::in_memory("/p");
    for i in 0..turns {
        s.append_message(user(&format!("question {i}"))).unwrap();
        let id = format!("call_{i}");
        s.append_message(tool_call(
            &id,
            "read",
            json!({"path": format!("file{i}.rs")}),
        ))
        .unwrap();
        s.append_message(tool_result(&id, "read", &"x".repeat(result_chars)))
            .unwrap();
        s.append_message(assistant_with(vec![text(&format!("answer {i}"))], 1000))
            .unwrap();
    }
    s
}

fn prompt_of(provider: &ScriptedProvider, call: usize) -> (Option<String>, String) {
    let context = &provider.calls()[call];
    let Message::User(u) = &context.messages[0] else {
        panic!("summary request is one user message");
    };
    let UserContent::Blocks(blocks) = &u.content else {
        panic!()
    };
    (
        context.system_prompt.clone(),
        blocks[0].as_text().unwrap().to_owned(),
    )
}

#[test]
fn settings_have_pi_defaults() {
    let s: CompactionSettings = serde_json::from_value(json!({})).unwrap();
    assert_eq!(
        s,
        CompactionSettings {
            enabled: true,
            reserve_tokens: 16384,
            keep_recent_tokens: 20000
        }
    );
    let custom: CompactionSettings =
        serde_json::from_value(json!({"reserveTokens": 1000})).unwrap();
    assert_eq!(custom.reserve_tokens, 1000);
    assert_eq!(custom.keep_recent_tokens, 20000);
}

#[test]
fn token_estimates_count_utf16_chars_over_four() {
    assert_eq!(estimate_tokens(&user("abcde")), 2);
    // One astral character is two UTF-16 units, as JavaScript counts.
    assert_eq!(js_len("a\u{1F600}"), 3);
    let call = tool_call("c", "read", json!({"path": "a"}));
    // "read" + {"path":"a"} = 4 + 12 characters.
    assert_eq!(estimate_tokens(&call), 4);
    let image = AgentMessage::Standard(Message::ToolResult(ToolResultMessage {
        content: vec![UserBlock::image("AAAA", "image/png")],
        ..ToolResultMessage::default()
    }));
    assert_eq!(estimate_tokens(&image), 1200);
    let bash: CodingAgentMessage = serde_json::from_value(json!({
        "role": "bashExecution", "command": "ls", "output": "12345678",
        "cancelled": false, "truncated": false, "timestamp": 1
    }))
    .unwrap();
    assert_eq!(estimate_tokens(&bash), 3);
}

#[test]
fn context_tokens_use_the_last_successful_usage_plus_later_estimates() {
    let mut failed = assistant_with(vec![text("boom")], 99_999);
    if let AgentMessage::Standard(Message::Assistant(a)) = &mut failed {
        a.stop_reason = StopReason::Error;
    }
    let messages = vec![
        user("hi"),
        assistant_with(vec![text("ok")], 500),
        user("12345678"),
        failed,
    ];
    let estimate = estimate_context_tokens(&messages);
    assert_eq!(estimate.usage_tokens, 500);
    assert_eq!(estimate.last_usage_index, Some(1));
    assert_eq!(estimate.trailing_tokens, 2 + 1);
    assert_eq!(estimate.tokens, 503);
    let settings = CompactionSettings::default();
    assert!(!should_compact(200_000 - 16_384, 200_000, &settings));
    assert!(should_compact(200_000 - 16_383, 200_000, &settings));
    let off = CompactionSettings {
        enabled: false,
        ..settings
    };
    assert!(!should_compact(300_000, 200_000, &off));
}

#[test]
fn the_cut_never_separates_a_tool_result_from_its_call() {
    let s = session_with_turns(12, 400);
    let path = s.branch_path(None);
    for keep in (1..4000).step_by(37) {
        let cut = find_cut_point(&path, 0, path.len(), keep);
        let first = path[cut.first_kept_entry_index];
        let message = first.as_message().unwrap();
        assert!(
            !matches!(message, AgentMessage::Standard(Message::ToolResult(_))),
            "keep={keep} cut at a tool result"
        );
        // Every kept tool result has its call kept too.
        let kept = &path[cut.first_kept_entry_index..];
        for entry in kept {
            if let Some(AgentMessage::Standard(Message::ToolResult(r))) = entry.as_message() {
                let has_call = kept.iter().any(|e| {
                    e.as_message()
                        .and_then(AgentMessage::as_assistant)
                        .is_some_and(|a| a.tool_calls().any(|c| c.id == r.tool_call_id))
                });
                assert!(has_call, "keep={keep}: {} lost its call", r.tool_call_id);
            }
        }
        if cut.is_split_turn() {
            let start = cut.turn_start_index.unwrap();
            assert!(matches!(
                path[start].as_message(),
                Some(AgentMessage::Standard(Message::User(_)))
            ));
        }
    }
}

#[test]
fn a_long_single_turn_is_split_with_its_start_found() {
    let mut s = SessionManager::in_memory("/p");
    s.append_model_change("anthropic", "claude").unwrap();
    s.append_message(user("do everything")).unwrap();
    for i in 0..10 {
        let id = format!("c{i}");
        s.append_message(tool_call(&id, "edit", json!({"path": format!("f{i}")})))
            .unwrap();
        s.append_message(tool_result(&id, "edit", &"y".repeat(800)))
            .unwrap();
    }
    let path = s.branch_path(None);
    let cut = find_cut_point(&path, 0, path.len(), 500);
    assert!(cut.is_split_turn());
    assert_eq!(cut.turn_start_index, Some(1));
    assert!(matches!(
        path[cut.first_kept_entry_index].as_message(),
        Some(m) if m.as_assistant().is_some()
    ));
    let prep = prepare_compaction(
        &path,
        &CompactionSettings {
            keep_recent_tokens: 500,
            ..CompactionSettings::default()
        },
    )
    .unwrap();
    assert!(prep.is_split_turn);
    assert!(prep.messages_to_summarize.is_empty());
    assert_eq!(
        prep.turn_prefix_messages.len(),
        cut.first_kept_entry_index - 1
    );
}

#[test]
fn non_message_entries_before_the_cut_are_kept_with_it() {
    let mut s = SessionManager::in_memory("/p");
    s.append_message(user(&"a".repeat(400))).unwrap();
    s.append_message(assistant_with(vec![text(&"b".repeat(400))], 10))
        .unwrap();
    let change = s.append_model_change("openai", "gpt").unwrap();
    s.append_message(user(&"c".repeat(400))).unwrap();
    s.append_message(assistant_with(vec![text(&"d".repeat(400))], 10))
        .unwrap();
    let path = s.branch_path(None);
    let cut = find_cut_point(&path, 0, path.len(), 150);
    assert_eq!(path[cut.first_kept_entry_index].id(), change);
    assert!(!cut.is_split_turn());
}

/// As pi 0.73.1: a second compaction starts at the first entry the earlier
/// one kept, so what it kept is summarized again (not the compaction entry
/// itself, whose summary is the previous summary), and `tokensBefore`
/// counts the context the session gives (summary, kept, newer messages).
#[test]
fn a_second_compaction_summarizes_what_the_first_kept() {
    let mut s = SessionManager::in_memory("/p");
    s.append_message(user("first")).unwrap();
    let kept = s
        .append_message(assistant_with(vec![text("kept answer")], 10))
        .unwrap();
    s.append_compaction("earlier summary", &kept, 10, None, Some(false))
        .unwrap();
    s.append_message(user("second")).unwrap();
    s.append_message(user(&"x".repeat(400))).unwrap();
    let path = s.branch_path(None);
    let prep = prepare_compaction(&path, &settings(1)).unwrap();
    assert_eq!(prep.previous_summary.as_deref(), Some("earlier summary"));
    assert_eq!(prep.messages_to_summarize.len(), 2);
    assert_eq!(
        prep.messages_to_summarize.text(),
        "[Assistant]: kept answer\n\n[User]: second"
    );
    let expected: Vec<CodingAgentMessage> = vec![
        crate::messages::create_compaction_summary_message(
            "earlier summary",
            10,
            "2026-01-01T00:00:00.000Z",
        ),
        assistant_with(vec![text("kept answer")], 10),
        user("second"),
        user(&"x".repeat(400)),
    ];
    assert_eq!(
        prep.tokens_before,
        estimate_context_tokens(&expected).tokens
    );
}

pub(super) fn settings(keep: u64) -> CompactionSettings {
    CompactionSettings {
        keep_recent_tokens: keep,
        ..CompactionSettings::default()
    }
}

#[tokio::test]
async fn compaction_summarizes_persists_and_is_applied_by_the_context() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SessionManager::create("/p", Some(dir.path())).unwrap();
    for i in 0..6 {
        s.append_message(user(&format!("question {i} {}", "q".repeat(300))))
            .unwrap();
        let id = format!("call_{i}");
        s.append_message(tool_call(
            &id,
            "read",
            json!({"path": format!("src/{i}.rs")}),
        ))
        .unwrap();
        s.append_message(tool_result(&id, "read", &"r".repeat(300)))
            .unwrap();
        s.append_message(assistant_with(vec![text(&format!("answer {i}"))], 1000))
            .unwrap();
    }
    let model = scripted_model();
    let provider = ScriptedProvider::new([text_reply("## Goal\nRead files.")]);
    let summarizer = Summarizer::new(&model).with_stream_fn(&provider);
    let (result, entry_id) =
        compact_session(&mut s, &settings(300), &summarizer, Some("focus on reads"))
            .await
            .unwrap();

    let (system, prompt) = prompt_of(&provider, 0);
    assert_eq!(system.as_deref(), Some(SUMMARIZATION_SYSTEM_PROMPT));
    assert!(
        prompt.starts_with("<conversation>\n[User]: question 0 "),
        "{prompt}"
    );
    assert!(prompt.contains("[Assistant tool calls]: read(path=\"src/0.rs\")"));
    assert!(prompt.contains("</conversation>\n\nThe text above is a session to condense."));
    assert!(prompt.ends_with("\n\nAdditional focus: focus on reads"));
    assert!(!prompt.contains("<previous-summary>"));

    assert!(
        result
            .summary
            .starts_with("## Goal\nRead files.\n\n<read-files>\nsrc/0.rs\n")
    );
    assert!(result.summary.ends_with("</read-files>"));
    let kept = s.entry(&result.first_kept_entry_id).unwrap();
    assert!(matches!(
        kept.as_message(),
        Some(AgentMessage::Standard(Message::User(_)))
    ));

    // Persisted in the file, applied on reload.
    let reopened = SessionManager::open(s.session_file().unwrap(), None).unwrap();
    let SessionEntry::Compaction(entry) = reopened.entry(&entry_id).unwrap() else {
        panic!("compaction entry expected");
    };
    assert_eq!(entry.summary, result.summary);
    assert_eq!(entry.details.as_ref(), Some(&result.details));
    let context = reopened.build_session_context();
    let AgentMessage::Custom(CodingMessage::CompactionSummary(first)) = &context.messages[0] else {
        panic!("context starts with the summary");
    };
    assert_eq!(first.summary, result.summary);
    assert_eq!(first.tokens_before, result.tokens_before);
    let expected_rest: Vec<CodingAgentMessage> = reopened
        .branch_path(Some(&result.first_kept_entry_id))
        .last()
        .map(|_| {
            let start = reopened
                .entries()
                .iter()
                .position(|e| e.id() == result.first_kept_entry_id)
                .unwrap();
            reopened.entries()[start..]
                .iter()
                .filter_map(|e| e.as_message().cloned())
                .collect()
        })
        .unwrap();
    assert_eq!(&context.messages[1..], expected_rest.as_slice());

    // The path ends with a compaction now.
    let again = compact_session(&mut s, &settings(300), &summarizer, None).await;
    assert!(matches!(again, Err(CompactionError::AlreadyCompacted)));
}

#[tokio::test]
async fn the_previous_summary_is_folded_into_the_next() {
    let mut s = session_with_turns(4, 200);
    let model = scripted_model();
    let provider = ScriptedProvider::new([text_reply("FIRST"), text_reply("SECOND")]);
    let summarizer = Summarizer::new(&model).with_stream_fn(&provider);
    let (first, _) = compact_session(&mut s, &settings(200), &summarizer, None)
        .await
        .unwrap();
    for i in 10..14 {
        s.append_message(user(&format!("more {i} {}", "m".repeat(400))))
            .unwrap();
        let id = format!("w{i}");
        s.append_message(tool_call(&id, "write", json!({"path": "out.txt"})))
            .unwrap();
        s.append_message(tool_result(&id, "write", "ok")).unwrap();
        s.append_message(assistant_with(vec![text("done")], 2000))
            .unwrap();
    }
    let (second, _) = compact_session(&mut s, &settings(200), &summarizer, None)
        .await
        .unwrap();
    let (_, prompt) = prompt_of(&provider, 1);
    assert!(prompt.contains(&format!(
        "<previous-summary>\n{}\n</previous-summary>\n\n",
        first.summary
    )));
    assert!(prompt.contains("Merge them into the earlier summary"));
    assert!(
        !prompt.contains("question 0"),
        "already summarized messages are not sent again"
    );
    // File lists carry over from the first compaction's details.
    assert!(second.summary.starts_with("SECOND"));
    assert_eq!(second.details["modifiedFiles"], json!(["out.txt"]));
    let read = second.details["readFiles"].as_array().unwrap();
    assert!(read.contains(&json!("file0.rs")));
    // The context shows only the newest summary.
    let context = s.build_session_context();
    let summaries = context
        .messages
        .iter()
        .filter(|m| matches!(m, AgentMessage::Custom(CodingMessage::CompactionSummary(_))))
        .count();
    assert_eq!(summaries, 1);
}

#[tokio::test]
async fn a_split_turn_gets_a_second_summary() {
    let mut s = SessionManager::in_memory("/p");
    s.append_message(user("earlier")).unwrap();
    s.append_message(assistant_with(vec![text("earlier answer")], 10))
        .unwrap();
    s.append_message(user("big task")).unwrap();
    for i in 0..8 {
        let id = format!("c{i}");
        s.append_message(tool_call(&id, "bash", json!({"command": "ls"})))
            .unwrap();
        s.append_message(tool_result(&id, "bash", &"z".repeat(800)))
            .unwrap();
    }
    let model = scripted_model();
    let provider = ScriptedProvider::new([text_reply("HISTORY"), text_reply("PREFIX")]);
    let summarizer = Summarizer::new(&model).with_stream_fn(&provider);
    let (result, _) = compact_session(&mut s, &settings(600), &summarizer, None)
        .await
        .unwrap();
    assert_eq!(
        result.summary,
        "HISTORY\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX"
    );
    let (_, prefix_prompt) = prompt_of(&provider, 1);
    assert!(prefix_prompt.starts_with("<conversation>\n[User]: big task"));
    assert!(prefix_prompt.ends_with(TURN_PREFIX_PROMPT));
}

#[tokio::test]
async fn a_failed_summary_is_an_error_and_nothing_is_appended() {
    let mut s = session_with_turns(4, 200);
    let before = s.entries().len();
    let model = scripted_model();
    let provider = ScriptedProvider::new([error_reply("529 overloaded")]);
    let summarizer = Summarizer::new(&model).with_stream_fn(&provider);
    let err = compact_session(&mut s, &settings(200), &summarizer, None)
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "Summarization failed: 529 overloaded");
    assert_eq!(s.entries().len(), before);
}

#[tokio::test]
async fn a_session_smaller_than_the_kept_tokens_is_compacted_as_pi_does() {
    // Nothing lies before the cut: pi still asks for a summary (of an empty
    // conversation) and keeps every entry after it.
    let mut tiny = SessionManager::in_memory("/p");
    let first = tiny.append_message(user("hi")).unwrap();
    tiny.append_message(assistant_with(vec![text("hello")], 10))
        .unwrap();
    let model = scripted_model();
    let provider = ScriptedProvider::new([text_reply("EMPTY")]);
    let summarizer = Summarizer::new(&model).with_stream_fn(&provider);
    let (result, _) = compact_session(&mut tiny, &settings(200), &summarizer, None)
        .await
        .unwrap();
    assert_eq!(result.summary, "EMPTY");
    assert_eq!(result.first_kept_entry_id, first);
    let (_, prompt) = prompt_of(&provider, 0);
    assert!(
        prompt.starts_with("<conversation>\n\n</conversation>"),
        "{prompt}"
    );
}

#[tokio::test]
async fn leaving_a_branch_summarizes_it() {
    let mut s = SessionManager::in_memory("/p");
    let root = s.append_message(user("start")).unwrap();
    let answer = s
        .append_message(assistant_with(vec![text("ready")], 10))
        .unwrap();
    s.append_message(user("try approach A")).unwrap();
    s.append_message(tool_call("c1", "edit", json!({"path": "a.rs"})))
        .unwrap();
    s.append_message(tool_result("c1", "edit", "edited"))
        .unwrap();
    s.append_message(tool_call("c2", "read", json!({"path": "b.rs"})))
        .unwrap();
    let (entries, common) =
        crate::compaction::collect_entries_for_branch_summary(&s, s.leaf_id(), &answer);
    assert_eq!(common.as_deref(), Some(answer.as_str()));
    assert_eq!(entries.len(), 4);

    let model = scripted_model();
    let provider = ScriptedProvider::new([text_reply("Tried approach A.")]);
    let summarizer = Summarizer::new(&model).with_stream_fn(&provider);
    let id = summarize_and_branch(
        &mut s,
        Some(&answer),
        &summarizer,
        &BranchSummaryOptions::default(),
    )
    .await
    .unwrap();
    let (_, prompt) = prompt_of(&provider, 0);
    assert!(prompt.starts_with("<conversation>\n[User]: try approach A"));
    assert!(
        !prompt.contains("[Tool result]"),
        "tool results are left out"
    );
    assert!(prompt.ends_with(BRANCH_SUMMARY_PROMPT));
    let SessionEntry::BranchSummary(entry) = s.entry(&id).unwrap() else {
        panic!()
    };
    assert_eq!(entry.parent_id.as_deref(), Some(answer.as_str()));
    assert_eq!(entry.from_id, answer);
    assert_eq!(
        entry.summary,
        "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\nTried approach A.\n\n<read-files>\nb.rs\n</read-files>\n\n<modified-files>\na.rs\n</modified-files>"
    );
    assert_eq!(
        entry.details,
        Some(json!({"readFiles": ["b.rs"], "modifiedFiles": ["a.rs"]}))
    );
    let context = s.build_session_context();
    assert_eq!(context.messages.len(), 3);
    assert_eq!(s.branch_path(None)[0].id(), root);
}

#[test]
fn conversation_serialization_follows_pi() {
    let messages = crate::messages::convert_to_llm(&[
        user("hi"),
        assistant_with(
            vec![
                AssistantContent::Thinking(pi_ai::ThinkingContent {
                    thinking: "hmm".into(),
                    ..Default::default()
                }),
                text("let me look"),
                AssistantContent::ToolCall(ToolCall {
                    id: "1".into(),
                    name: "bash".into(),
                    arguments: json!({"command": "ls", "timeout": 5}),
                    ..ToolCall::default()
                }),
            ],
            1,
        ),
        tool_result("1", "bash", &"é".repeat(2005)),
    ]);
    let text = serialize_conversation(&messages);
    let expected_head = "[User]: hi\n\n[Assistant thinking]: hmm\n\n[Assistant]: let me look\n\n[Assistant tool calls]: bash(command=\"ls\", timeout=5)\n\n[Tool result]: ";
    assert!(text.starts_with(expected_head), "{text}");
    assert!(text.ends_with(&format!(
        "{}\n\n[... 5 more characters truncated]",
        "é".repeat(2000)
    )));
    assert_eq!(
        format_file_operations(&["a".into()], &[]),
        "\n\n<read-files>\na\n</read-files>"
    );
    assert_eq!(format_file_operations(&[], &[]), "");
}
