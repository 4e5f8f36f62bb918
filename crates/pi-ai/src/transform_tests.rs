use std::cell::RefCell;

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::{
    Api, AssistantContent, InputModality, ModelCost, StopReason, ThinkingContent, ToolCall,
    ToolResultMessage, UserMessage,
};

/// Timestamp given to synthetic results in these tests.
const NOW: i64 = 9_999;

pub(super) fn model(provider: &str, api: &str, id: &str) -> Model {
    Model {
        id: id.to_owned(),
        name: id.to_owned(),
        api: Api::new(api),
        provider: Provider::new(provider),
        base_url: String::new(),
        reasoning: true,
        input: vec![InputModality::Text, InputModality::Image],
        cost: ModelCost::default(),
        context_window: 200_000,
        max_tokens: 8_192,
        headers: None,
        compat: None,
        extra: crate::ExtraFields::new(),
    }
}

/// The model being called.
fn target() -> Model {
    model("anthropic", "anthropic-messages", "claude-sonnet-4-5")
}

/// Another model that produced part of the transcript.
fn other() -> Model {
    model("openai", "openai-responses", "gpt-5")
}

fn user(text: &str) -> Message {
    Message::User(UserMessage {
        content: text.into(),
        timestamp: 1,
        extra: crate::ExtraFields::new(),
    })
}

fn assistant_with(
    from: &Model,
    stop: StopReason,
    content: Vec<AssistantContent>,
) -> AssistantMessage {
    let mut message =
        AssistantMessage::empty(from.api.clone(), from.provider.clone(), from.id.clone(), 2);
    message.content = content;
    message.stop_reason = stop;
    message
}

fn assistant(from: &Model, stop: StopReason, content: Vec<AssistantContent>) -> Message {
    Message::Assistant(assistant_with(from, stop, content))
}

fn call(id: &str, name: &str) -> AssistantContent {
    AssistantContent::ToolCall(ToolCall {
        id: id.to_owned(),
        name: name.to_owned(),
        arguments: json!({"path": "a.txt"}),
        ..ToolCall::default()
    })
}

fn signed_call(id: &str, signature: &str) -> AssistantContent {
    AssistantContent::ToolCall(ToolCall {
        id: id.to_owned(),
        name: "read".to_owned(),
        arguments: json!({"path": "a.txt"}),
        thought_signature: Some(signature.to_owned()),
        ..ToolCall::default()
    })
}

fn thinking(text: &str, signature: Option<&str>, redacted: Option<bool>) -> AssistantContent {
    AssistantContent::Thinking(ThinkingContent {
        thinking: text.to_owned(),
        thinking_signature: signature.map(str::to_owned),
        redacted,
        extra: crate::ExtraFields::new(),
    })
}

fn signed_text(text: &str, signature: &str) -> AssistantContent {
    AssistantContent::Text(TextContent {
        text: text.to_owned(),
        text_signature: Some(signature.to_owned()),
        extra: crate::ExtraFields::new(),
    })
}

fn result(id: &str, name: &str, text: &str) -> Message {
    Message::ToolResult(ToolResultMessage {
        tool_call_id: id.to_owned(),
        tool_name: name.to_owned(),
        content: vec![UserBlock::text(text)],
        is_error: false,
        timestamp: 3,
        ..ToolResultMessage::default()
    })
}

fn synthetic(id: &str, name: &str) -> Message {
    Message::ToolResult(ToolResultMessage {
        tool_call_id: id.to_owned(),
        tool_name: name.to_owned(),
        content: vec![UserBlock::text("No result provided")],
        is_error: true,
        timestamp: NOW,
        ..ToolResultMessage::default()
    })
}

fn run(messages: &[Message], normalize: Option<ToolCallIdNormalizer<'_>>) -> Vec<Message> {
    transform_messages_at(messages, &target(), normalize, NOW)
}

fn anthropic_ids(id: &str, _: &Model, _: &AssistantMessage) -> String {
    normalize_tool_call_id_anthropic(id)
}

#[test]
fn errored_and_aborted_turns_are_skipped_without_synthetic_results() {
    let input = vec![
        user("hi"),
        assistant(
            &target(),
            StopReason::Error,
            vec![AssistantContent::text("partial"), call("t1", "read")],
        ),
        assistant(
            &other(),
            StopReason::Aborted,
            vec![thinking("hmm", None, None), call("t2", "bash")],
        ),
        user("again"),
        assistant(
            &target(),
            StopReason::Stop,
            vec![AssistantContent::text("done")],
        ),
    ];
    let expected = vec![
        user("hi"),
        user("again"),
        assistant(
            &target(),
            StopReason::Stop,
            vec![AssistantContent::text("done")],
        ),
    ];
    assert_eq!(run(&input, None), expected);
}

#[test]
fn failed_turn_settles_earlier_orphans_and_still_remaps_ids() {
    // The orphan of the first turn is settled where the failed turn was; the
    // failed turn's own call gets no synthetic result, but its renamed id is
    // remembered (pi records ids of every assistant message before skipping).
    let input = vec![
        assistant(&other(), StopReason::ToolUse, vec![call("a.1", "read")]),
        assistant(&other(), StopReason::Error, vec![call("b.2", "bash")]),
        result("b.2", "bash", "late"),
    ];
    let expected = vec![
        assistant(&other(), StopReason::ToolUse, vec![call("a_1", "read")]),
        synthetic("a_1", "read"),
        result("b_2", "bash", "late"),
    ];
    assert_eq!(run(&input, Some(&anthropic_ids)), expected);
}

#[test]
fn thinking_becomes_plain_text_for_another_model() {
    let mut block = ThinkingContent {
        thinking: "Let me look.".to_owned(),
        thinking_signature: Some("reasoning_content".to_owned()),
        redacted: None,
        extra: crate::ExtraFields::new(),
    };
    block.extra.insert("future".to_owned(), json!(1));
    let input = vec![assistant(
        &other(),
        StopReason::Stop,
        vec![
            AssistantContent::Thinking(block),
            AssistantContent::text("Hi"),
        ],
    )];
    let expected = vec![assistant(
        &other(),
        StopReason::Stop,
        vec![
            AssistantContent::text("Let me look."),
            AssistantContent::text("Hi"),
        ],
    )];
    assert_eq!(run(&input, None), expected);
}

#[test]
fn empty_thinking_is_dropped() {
    let blocks = || {
        vec![
            thinking("", None, None),
            thinking(" \n\t\u{feff}\u{3000}", Some(""), None),
            thinking("kept", None, None),
        ]
    };
    let input = vec![
        assistant(&other(), StopReason::Stop, blocks()),
        assistant(&target(), StopReason::Stop, blocks()),
    ];
    let expected = vec![
        assistant(
            &other(),
            StopReason::Stop,
            vec![AssistantContent::text("kept")],
        ),
        assistant(
            &target(),
            StopReason::Stop,
            vec![thinking("kept", None, None)],
        ),
    ];
    assert_eq!(run(&input, None), expected);
}

#[test]
fn signed_empty_thinking_is_kept_for_the_same_model() {
    let content = vec![
        thinking("", Some("{\"encrypted_content\":\"abc\"}"), None),
        thinking("  ", Some("sig"), None),
        AssistantContent::text("answer"),
    ];
    let input = vec![
        assistant(&target(), StopReason::Stop, content.clone()),
        assistant(&other(), StopReason::Stop, content),
    ];
    let expected = vec![
        input[0].clone(),
        assistant(
            &other(),
            StopReason::Stop,
            vec![AssistantContent::text("answer")],
        ),
    ];
    assert_eq!(run(&input, None), expected);
}

#[test]
fn redacted_thinking_is_kept_for_the_same_model_only() {
    let content = vec![
        thinking("[redacted]", Some("opaque-payload"), Some(true)),
        AssistantContent::text("ok"),
    ];
    // Same provider and id but another api is another model.
    let same_id_other_api = model("anthropic", "bedrock-converse-stream", "claude-sonnet-4-5");
    let input = vec![
        assistant(&target(), StopReason::Stop, content.clone()),
        assistant(&other(), StopReason::Stop, content.clone()),
        assistant(&same_id_other_api, StopReason::Stop, content),
    ];
    let expected = vec![
        input[0].clone(),
        assistant(
            &other(),
            StopReason::Stop,
            vec![AssistantContent::text("ok")],
        ),
        assistant(
            &same_id_other_api,
            StopReason::Stop,
            vec![AssistantContent::text("ok")],
        ),
    ];
    assert_eq!(run(&input, None), expected);
}

#[test]
fn text_signature_is_dropped_for_another_model() {
    let input = vec![
        assistant(
            &other(),
            StopReason::Stop,
            vec![signed_text("hello", "msg_123")],
        ),
        assistant(
            &target(),
            StopReason::Stop,
            vec![signed_text("hello", "msg_456")],
        ),
    ];
    let expected = vec![
        assistant(
            &other(),
            StopReason::Stop,
            vec![AssistantContent::text("hello")],
        ),
        input[1].clone(),
    ];
    assert_eq!(run(&input, None), expected);
}

#[test]
fn thought_signature_is_removed_for_another_model() {
    let input = vec![
        assistant(
            &other(),
            StopReason::ToolUse,
            vec![signed_call("c1", "sig-a")],
        ),
        result("c1", "read", "x"),
        assistant(
            &target(),
            StopReason::ToolUse,
            vec![signed_call("c2", "sig-b")],
        ),
        result("c2", "read", "y"),
    ];
    let expected = vec![
        assistant(&other(), StopReason::ToolUse, vec![call("c1", "read")]),
        result("c1", "read", "x"),
        input[2].clone(),
        result("c2", "read", "y"),
    ];
    assert_eq!(run(&input, None), expected);
}

#[test]
fn normalized_ids_rename_the_matching_results() {
    let seen = RefCell::new(Vec::new());
    let normalize = |id: &str, to: &Model, source: &AssistantMessage| {
        seen.borrow_mut()
            .push((id.to_owned(), to.id.clone(), source.model.clone()));
        normalize_tool_call_id_anthropic(id)
    };
    let input = vec![
        user("go"),
        assistant(
            &other(),
            StopReason::ToolUse,
            vec![call("call_1|fc_abc+/=", "read"), call("plain", "ls")],
        ),
        result("call_1|fc_abc+/=", "read", "one"),
        result("plain", "ls", "two"),
        // Same model: ids are never normalized.
        assistant(
            &target(),
            StopReason::ToolUse,
            vec![call("toolu.9", "read")],
        ),
        result("toolu.9", "read", "three"),
    ];
    let expected = vec![
        user("go"),
        assistant(
            &other(),
            StopReason::ToolUse,
            vec![call("call_1_fc_abc___", "read"), call("plain", "ls")],
        ),
        result("call_1_fc_abc___", "read", "one"),
        result("plain", "ls", "two"),
        assistant(
            &target(),
            StopReason::ToolUse,
            vec![call("toolu.9", "read")],
        ),
        result("toolu.9", "read", "three"),
    ];
    assert_eq!(run(&input, Some(&normalize)), expected);
    assert_eq!(
        seen.into_inner(),
        vec![
            (
                "call_1|fc_abc+/=".to_owned(),
                "claude-sonnet-4-5".to_owned(),
                "gpt-5".to_owned()
            ),
            (
                "plain".to_owned(),
                "claude-sonnet-4-5".to_owned(),
                "gpt-5".to_owned()
            ),
        ]
    );
}

#[test]
fn orphaned_calls_get_synthetic_results_before_the_next_turn() {
    let input = vec![
        user("go"),
        assistant(
            &target(),
            StopReason::ToolUse,
            vec![call("a", "read"), call("b", "bash")],
        ),
        result("a", "read", "ok"),
        user("stop that"),
        assistant(&target(), StopReason::ToolUse, vec![call("c", "ls")]),
        assistant(
            &target(),
            StopReason::Stop,
            vec![AssistantContent::text("done")],
        ),
    ];
    let expected = vec![
        user("go"),
        assistant(
            &target(),
            StopReason::ToolUse,
            vec![call("a", "read"), call("b", "bash")],
        ),
        result("a", "read", "ok"),
        synthetic("b", "bash"),
        user("stop that"),
        assistant(&target(), StopReason::ToolUse, vec![call("c", "ls")]),
        synthetic("c", "ls"),
        assistant(
            &target(),
            StopReason::Stop,
            vec![AssistantContent::text("done")],
        ),
    ];
    assert_eq!(run(&input, None), expected);
}

#[test]
fn orphaned_calls_at_the_tail_get_synthetic_results() {
    let input = vec![
        user("go"),
        assistant(
            &target(),
            StopReason::ToolUse,
            vec![call("a", "read"), call("b", "bash")],
        ),
        result("b", "bash", "ok"),
    ];
    let mut expected = input.clone();
    expected.push(synthetic("a", "read"));
    assert_eq!(run(&input, None), expected);
}

#[test]
fn synthetic_results_use_the_normalized_id() {
    let input = vec![
        assistant(&other(), StopReason::ToolUse, vec![call("x:1", "read")]),
        user("next"),
    ];
    let expected = vec![
        assistant(&other(), StopReason::ToolUse, vec![call("x_1", "read")]),
        synthetic("x_1", "read"),
        user("next"),
    ];
    assert_eq!(run(&input, Some(&anthropic_ids)), expected);
}

#[test]
fn synthetic_results_are_stamped_with_the_current_time() {
    let input = vec![
        assistant(&target(), StopReason::ToolUse, vec![call("a", "read")]),
        user("next"),
    ];
    let before = now_ms();
    let out = transform_messages(&input, &target(), None);
    let after = now_ms();
    let Message::ToolResult(synthetic) = &out[1] else {
        panic!("expected a synthetic result, got {out:?}");
    };
    assert!((before..=after).contains(&synthetic.timestamp));
}

#[test]
fn input_is_not_modified() {
    let input = vec![
        user("go"),
        assistant(
            &other(),
            StopReason::ToolUse,
            vec![
                thinking("plan", Some("sig"), None),
                signed_text("t", "s"),
                signed_call("a|b", "sig"),
            ],
        ),
        assistant(&other(), StopReason::Aborted, vec![call("z", "ls")]),
        result("a|b", "read", "ok"),
        user("next"),
    ];
    let snapshot = input.clone();
    let out = transform_messages(&input, &target(), Some(&anthropic_ids));
    assert_eq!(input, snapshot);
    assert_ne!(out, input);
}

/// The target model without image input.
fn text_only() -> Model {
    Model {
        input: vec![InputModality::Text],
        ..target()
    }
}

fn image() -> UserBlock {
    UserBlock::image("AAAA", "image/png")
}

fn user_blocks(content: Vec<UserBlock>) -> Message {
    Message::User(UserMessage {
        content: content.into(),
        timestamp: 1,
        extra: crate::ExtraFields::new(),
    })
}

fn result_blocks(id: &str, content: Vec<UserBlock>) -> Message {
    Message::ToolResult(ToolResultMessage {
        tool_call_id: id.to_owned(),
        tool_name: "read".to_owned(),
        content,
        details: Some(json!({"path": "a.png"})),
        is_error: true,
        timestamp: 3,
        ..ToolResultMessage::default()
    })
}

#[test]
fn images_become_one_placeholder_per_run_for_a_text_only_model() {
    let (user_ph, tool_ph) = (USER_IMAGE_PLACEHOLDER, TOOL_IMAGE_PLACEHOLDER);
    let text = UserBlock::text;
    let input = vec![
        user_blocks(vec![image(), image(), text("between"), image()]),
        // A placeholder already there counts; the other role's does not.
        user_blocks(vec![
            text(user_ph),
            image(),
            text(tool_ph),
            image(),
            image(),
        ]),
        user_blocks(vec![image()]),
        user("plain strings are untouched"),
        assistant(&target(), StopReason::ToolUse, vec![call("t1", "read")]),
        result_blocks("t1", vec![text("Read image file"), image(), image()]),
        result_blocks("t2", vec![text(user_ph), image(), text(tool_ph), image()]),
    ];
    let expected = vec![
        user_blocks(vec![text(user_ph), text("between"), text(user_ph)]),
        user_blocks(vec![text(user_ph), text(tool_ph), text(user_ph)]),
        user_blocks(vec![text(user_ph)]),
        user("plain strings are untouched"),
        assistant(&target(), StopReason::ToolUse, vec![call("t1", "read")]),
        // Every other field of a result survives the rewrite.
        result_blocks("t1", vec![text("Read image file"), text(tool_ph)]),
        result_blocks("t2", vec![text(user_ph), text(tool_ph), text(tool_ph)]),
    ];
    assert_eq!(
        transform_messages_at(&input, &text_only(), None, NOW),
        expected
    );
}

#[test]
fn images_stay_for_a_model_with_image_input() {
    let input = vec![
        user_blocks(vec![image(), UserBlock::text("what is it?")]),
        assistant(&target(), StopReason::ToolUse, vec![call("t1", "read")]),
        result_blocks("t1", vec![image(), image()]),
    ];
    assert_eq!(run(&input, None), input);
}

#[test]
fn a_downgraded_message_keeps_its_extra_fields_and_follows_renamed_ids() {
    let mut asked = UserMessage {
        content: vec![image()].into(),
        timestamp: 7,
        extra: crate::ExtraFields::new(),
    };
    asked.extra.insert("future".to_owned(), json!(true));
    let mut expected_user = asked.clone();
    expected_user.content = vec![UserBlock::text(USER_IMAGE_PLACEHOLDER)].into();
    let input = vec![
        Message::User(asked),
        assistant(&other(), StopReason::ToolUse, vec![call("x:1", "read")]),
        result_blocks("x:1", vec![image()]),
    ];
    let expected = vec![
        Message::User(expected_user),
        assistant(&other(), StopReason::ToolUse, vec![call("x_1", "read")]),
        result_blocks("x_1", vec![UserBlock::text(TOOL_IMAGE_PLACEHOLDER)]),
    ];
    assert_eq!(
        transform_messages_at(&input, &text_only(), Some(&anthropic_ids), NOW),
        expected
    );
}

#[test]
fn the_borrowed_transform_borrows_exactly_the_messages_it_leaves_as_they_are() {
    let input = vec![
        user("hi"),
        // Same model, nothing to drop: borrowed.
        assistant(&target(), StopReason::ToolUse, vec![call("a:1", "read")]),
        result("a:1", "read", "ok"),
        // Same model, but a blank unsigned thinking block goes: owned.
        assistant(
            &target(),
            StopReason::Stop,
            vec![thinking(" ", None, None), AssistantContent::text("done")],
        ),
        user("again"),
        // Another model: rebuilt, and its renamed id renames the result.
        assistant(&other(), StopReason::ToolUse, vec![call("b:1", "read")]),
        result("b:1", "read", "ok"),
        // An unanswered call at the end gets a synthetic result.
        assistant(&target(), StopReason::ToolUse, vec![call("c1", "read")]),
    ];
    let borrowed = transform_borrowed_at(&input, &target(), Some(&anthropic_ids), NOW);
    let kinds: Vec<Option<usize>> = borrowed
        .iter()
        .map(|m| match m {
            TransformedMessage::Borrowed(m) => input.iter().position(|i| std::ptr::eq(i, *m)),
            TransformedMessage::Owned(_) => None,
        })
        .collect();
    assert_eq!(
        kinds,
        [
            Some(0),
            Some(1),
            Some(2),
            None,
            Some(4),
            None,
            None,
            Some(7),
            None
        ]
    );
    let owned: Vec<Message> = borrowed
        .into_iter()
        .map(TransformedMessage::into_owned)
        .collect();
    assert_eq!(owned, run(&input, Some(&anthropic_ids)));
    assert_eq!(owned.last(), Some(&synthetic("c1", "read")));
}

#[test]
fn the_iterator_rewrites_as_it_is_read_and_holds_back_only_a_calls_results() {
    // An endless transcript: only a transform that goes message by message
    // gets anywhere in it.
    let turn = [
        assistant(&other(), StopReason::ToolUse, vec![call("call_1", "read")]),
        result("call_1", "read", "text"),
    ];
    let endless = turn.iter().cycle();
    let read: Vec<Message> = crate::transform_messages_iter(endless, &target(), None)
        .take(5)
        .map(TransformedMessage::into_owned)
        .collect();
    let replayed = assistant(&other(), StopReason::ToolUse, vec![call("call_1", "read")]);
    let expected = run(&[replayed.clone(), turn[1].clone(), replayed], None);
    assert_eq!(read[..3], expected[..3]);
    assert_eq!(read.len(), 5);

    // Unanswered calls at the end are still answered, after the results.
    let messages = [
        user("go"),
        assistant(
            &other(),
            StopReason::ToolUse,
            vec![call("a", "read"), call("b", "read")],
        ),
        result("b", "read", "text"),
    ];
    let read: Vec<Message> =
        crate::transform_iter::TransformIter::at(messages.iter(), &target(), None, NOW)
            .map(TransformedMessage::into_owned)
            .collect();
    assert_eq!(read, run(&messages, None));
    assert!(matches!(&read[3], Message::ToolResult(r) if r.tool_call_id == "a" && r.is_error));
}
