use pretty_assertions::assert_eq;
use serde_json::json;

use pi_ai::StreamOptions;

use super::*;

fn marker() -> CacheControl {
    CacheControl {
        kind: "ephemeral",
        ttl: None,
    }
}

#[test]
fn blank_follows_javascript_trim() {
    assert!(is_blank(""));
    assert!(is_blank(" \n\t\u{feff}\u{a0}"));
    assert!(!is_blank(" x "));
}

#[test]
fn mark_text_turns_a_string_into_one_marked_part() {
    let mut content = TextOrParts::Text("hi".into());
    assert!(mark_text(&mut content, &marker()));
    assert_eq!(
        serde_json::to_value(&content).unwrap(),
        json!([{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}])
    );
    let mut empty = TextOrParts::Text("".into());
    assert!(!mark_text(&mut empty, &marker()));
}

#[test]
fn mark_text_marks_the_last_text_part_only() {
    let mut content = TextOrParts::Parts(vec![
        text_part("a".into()),
        text_part("b".into()),
        image_part("AAAA", "image/png"),
    ]);
    assert!(mark_text(&mut content, &marker()));
    assert_eq!(
        serde_json::to_value(&content).unwrap(),
        json!([
            {"type": "text", "text": "a"},
            {"type": "text", "text": "b", "cache_control": {"type": "ephemeral"}},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
        ])
    );
    let mut images_only = TextOrParts::Parts(vec![image_part("AAAA", "image/png")]);
    assert!(!mark_text(&mut images_only, &marker()));
}

#[test]
fn retention_comes_from_the_option_first() {
    let options = StreamOptions {
        cache_retention: Some(CacheRetention::None),
        ..StreamOptions::default()
    };
    assert_eq!(effective_cache_retention(&options), CacheRetention::None);
}

#[test]
fn the_request_borrows_the_texts_it_sends_unchanged() {
    use pi_test_support::contexts::{first_user_text, handoff_context, points_into};
    let mut model = pi_test_support::fixtures::mock_model("mock-oai", "mock-gpt");
    // With image input, the transform leaves the results' images alone.
    model.input = vec![pi_ai::InputModality::Text, pi_ai::InputModality::Image];
    // Its own tool turn, then the same turn by another model: replayed
    // rewritten, so owned.
    let context = handoff_context(
        ["openai-completions", "mock-oai", "mock-gpt", "call_1"],
        ["anthropic-messages", "anthropic", "claude", "call_2"],
    );
    let request = build_request_body(&model, &context, &OpenAiCompletionsOptions::default());
    let messages = request.messages.to_vec();

    let system = match &messages[0] {
        ChatMessage::System { content } | ChatMessage::Developer { content } => content,
        other => panic!("not the system prompt: {other:?}"),
    };
    assert!(matches!(
        system,
        TextOrParts::Text(Cow::Borrowed("Be brief."))
    ));
    let first_text = first_user_text(&context);
    assert!(matches!(&messages[1],
        ChatMessage::User { content: TextOrParts::Text(Cow::Borrowed(text)) } if points_into(text, first_text)));
    let ChatMessage::Assistant(assistant) = &messages[2] else {
        panic!("the assistant turn: {:?}", messages[2]);
    };
    assert!(matches!(
        assistant.content,
        Some(TextOrParts::Text(Cow::Borrowed(_)))
    ));
    let calls = assistant.tool_calls.as_deref().unwrap_or_default();
    assert!(matches!(calls[0].id, Cow::Borrowed("call_1")));
    assert!(matches!(
        &messages[3],
        ChatMessage::Tool {
            content: Cow::Borrowed("a picture"),
            tool_call_id: Cow::Borrowed("call_1"),
            ..
        }
    ));

    // Messages the transform rewrote are owned, and encode the same as a
    // copy of the context would.
    let owned_calls = messages
        .iter()
        .filter_map(|message| match message {
            ChatMessage::Assistant(wire) => wire.tool_calls.as_ref(),
            _ => None,
        })
        .flatten()
        .filter(|call| matches!(call.id, Cow::Owned(_)))
        .count();
    assert_eq!(owned_calls, 1);
    let copied = context.view().to_context();
    assert_eq!(
        serde_json::to_value(&request).unwrap(),
        serde_json::to_value(build_request_body(
            &model,
            &copied,
            &OpenAiCompletionsOptions::default()
        ))
        .unwrap()
    );
}
