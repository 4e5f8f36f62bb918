use pi_agent_core::AgentMessage;
use pi_ai::{Message, UserBlock, UserContent, UserMessage};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn bash(command: &str, output: &str) -> BashExecutionMessage {
    BashExecutionMessage {
        command: command.into(),
        output: output.into(),
        exit_code: Some(0),
        cancelled: false,
        truncated: false,
        full_output_path: None,
        timestamp: 1_748_568_000_000,
        exclude_from_context: None,
        extra: ExtraFields::new(),
    }
}

fn parse(value: serde_json::Value) -> CodingAgentMessage {
    serde_json::from_value(value).unwrap()
}

fn user_text_of(message: &Message) -> &str {
    match message {
        Message::User(UserMessage {
            content: UserContent::Blocks(blocks),
            ..
        }) => blocks[0].as_text().unwrap(),
        other => panic!("not a user text message: {other:?}"),
    }
}

/// The design document's example: `!ls -la` recorded as bashExecution, and
/// the user message the model gets.
#[test]
fn design_doc_ls_la_example() {
    let record = json!({
        "role": "bashExecution",
        "command": "ls -la",
        "output": "total 32\ndrwxr-xr-x 5 user staff 160 .",
        "exitCode": 0,
        "cancelled": false,
        "truncated": false,
        "timestamp": 1748568000000_i64
    });
    let transcript = vec![parse(record.clone())];
    let before = transcript.clone();
    let converted = convert_to_llm(&transcript);
    assert_eq!(
        serde_json::to_value(&converted).unwrap(),
        json!([{
            "role": "user",
            "content": [{
                "type": "text",
                "text": "Ran `ls -la`\n```\ntotal 32\ndrwxr-xr-x 5 user staff 160 .\n```"
            }],
            "timestamp": 1748568000000_i64
        }])
    );
    // The original record is untouched and still serializes as pi wrote it.
    assert_eq!(transcript, before);
    assert_eq!(serde_json::to_value(&transcript[0]).unwrap(), record);
}

#[test]
fn bash_text_variants() {
    let mut m = bash("make", "");
    assert_eq!(bash_execution_to_text(&m), "Ran `make`\n(no output)");
    m.exit_code = Some(2);
    assert_eq!(
        bash_execution_to_text(&m),
        "Ran `make`\n(no output)\n\nCommand exited with code 2"
    );
    m.cancelled = true;
    assert_eq!(
        bash_execution_to_text(&m),
        "Ran `make`\n(no output)\n\n(command cancelled)"
    );
    m.cancelled = false;
    m.exit_code = None;
    m.output = "out".into();
    m.truncated = true;
    assert_eq!(bash_execution_to_text(&m), "Ran `make`\n```\nout\n```");
    m.full_output_path = Some("/tmp/pi-bash-1.log".into());
    assert_eq!(
        bash_execution_to_text(&m),
        "Ran `make`\n```\nout\n```\n\n[Output truncated. Full output: /tmp/pi-bash-1.log]"
    );
}

#[test]
fn excluded_bash_is_dropped_and_standard_messages_pass_through() {
    let mut hidden = bash("cat secret", "x");
    hidden.exclude_from_context = Some(true);
    let user = Message::User(UserMessage {
        content: "after".into(),
        timestamp: 2,
        ..UserMessage::default()
    });
    let transcript: Vec<CodingAgentMessage> = vec![
        CodingMessage::BashExecution(hidden).into(),
        AgentMessage::Standard(user.clone()),
    ];
    assert_eq!(convert_to_llm(&transcript), vec![user]);
}

/// Bash record before a user message, as in the design document's flow.
#[test]
fn bash_record_then_user_message() {
    let transcript = vec![
        CodingMessage::BashExecution(bash("ls -la", "a\nb")).into(),
        parse(json!({"role": "user", "content": "what is in b?", "timestamp": 5})),
    ];
    let converted = convert_to_llm(&transcript);
    assert_eq!(converted.len(), 2);
    assert_eq!(user_text_of(&converted[0]), "Ran `ls -la`\n```\na\nb\n```");
    assert_eq!(
        serde_json::to_value(&converted[1]).unwrap(),
        json!({"role": "user", "content": "what is in b?", "timestamp": 5})
    );
}

#[test]
fn custom_string_content_becomes_one_text_block() {
    let transcript = vec![parse(json!({
        "role": "custom", "customType": "note", "content": "hello",
        "display": false, "details": {"k": 1}, "timestamp": 7
    }))];
    assert_eq!(
        serde_json::to_value(convert_to_llm(&transcript)).unwrap(),
        json!([{"role": "user", "content": [{"type": "text", "text": "hello"}], "timestamp": 7}])
    );
    let blocks = vec![parse(json!({
        "role": "custom", "customType": "img", "display": true, "timestamp": 8,
        "content": [{"type": "text", "text": "see"}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}]
    }))];
    match &convert_to_llm(&blocks)[0] {
        Message::User(u) => assert_eq!(
            u.content,
            UserContent::Blocks(vec![
                UserBlock::text("see"),
                UserBlock::image("AAAA", "image/png")
            ])
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn summaries_use_pi_prefixes_byte_for_byte() {
    let transcript = vec![
        create_compaction_summary_message("S1", 123, "2026-11-29T23:54:11.135Z"),
        create_branch_summary_message("S2", "abcd1234", "2026-11-29T23:54:11.135Z"),
    ];
    let converted = convert_to_llm(&transcript);
    assert_eq!(
        user_text_of(&converted[0]),
        "The conversation history before this point was compacted into the following summary:\n\n<summary>\nS1\n</summary>"
    );
    assert_eq!(
        user_text_of(&converted[1]),
        "The following is a summary of a branch that this conversation came back from:\n\n<summary>\nS2</summary>"
    );
    assert_eq!(converted[0].timestamp(), 1_795_996_451_135);
}

#[test]
fn roles_round_trip_with_pi_key_order_and_unknown_fields() {
    let lines = [
        r#"{"role":"bashExecution","command":"ls","output":"a","exitCode":1,"cancelled":false,"truncated":true,"fullOutputPath":"/tmp/x","timestamp":1,"excludeFromContext":true}"#,
        r#"{"role":"bashExecution","command":"sleep 9","output":"","cancelled":true,"truncated":false,"timestamp":2}"#,
        r#"{"role":"custom","customType":"t","content":"c","display":true,"details":null,"timestamp":3,"future":[1]}"#,
        r#"{"role":"branchSummary","summary":"s","fromId":"root","timestamp":4}"#,
        r#"{"role":"compactionSummary","summary":"s","tokensBefore":10,"timestamp":5}"#,
    ];
    for line in lines {
        let message: CodingAgentMessage = serde_json::from_str(line).unwrap();
        assert!(matches!(message, AgentMessage::Custom(_)), "{line}");
        assert_eq!(serde_json::to_string(&message).unwrap(), line);
    }
}

#[test]
fn invalid_timestamps_become_zero() {
    assert_eq!(iso_to_millis("not a date"), 0);
    assert_eq!(iso_to_millis("1970-01-01T00:00:01.500Z"), 1500);
}
