use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

#[test]
fn text_signatures_parse_like_pi() {
    let parse = |s: &str| parse_text_signature(Some(s));
    assert_eq!(parse_text_signature(None), None);
    assert_eq!(parse(""), None);
    assert_eq!(
        parse(r#"{"v":1,"id":"msg_1","phase":"commentary"}"#),
        Some(TextSignatureV1 {
            v: 1,
            id: "msg_1".into(),
            phase: Some("commentary".into())
        })
    );
    assert_eq!(
        parse(r#"{"v":1,"id":"msg_1","phase":"thinking"}"#).map(|s| s.phase),
        Some(None),
        "unknown phases are dropped"
    );
    assert_eq!(
        parse(r#"{"v":2,"id":"msg_1"}"#).map(|s| s.id),
        Some(r#"{"v":2,"id":"msg_1"}"#.to_owned()),
        "another version is a legacy plain id"
    );
    assert_eq!(parse("msg_legacy").map(|s| s.id), Some("msg_legacy".into()));
}

#[test]
fn arguments_are_stringified_like_javascript() {
    assert_eq!(
        js_stringify(&json!({"b": 1.0, "a": [2.5, 3.0, "x"], "c": {"d": -0.0}})),
        r#"{"b":1,"a":[2.5,3,"x"],"c":{"d":0}}"#
    );
    assert_eq!(
        js_stringify(&json!({"path": "a\"b\n"})),
        r#"{"path":"a\"b\n"}"#
    );
}

#[test]
fn the_request_borrows_the_texts_it_sends_unchanged() {
    use pi_test_support::contexts::{first_user_text, handoff_context, points_into};
    let mut model = pi_test_support::fixtures::mock_model("mock-resp", "mock-resp");
    // With image input, the transform leaves the results' images alone.
    model.input = vec![pi_ai::InputModality::Text, pi_ai::InputModality::Image];
    // Its own tool turn, then the same turn by another model: replayed
    // rewritten, so owned.
    let context = handoff_context(
        ["openai-responses", "mock-resp", "mock-resp", "call_1|fc_1"],
        ["anthropic-messages", "anthropic", "claude", "call_2"],
    );
    let options = OpenAiResponsesOptions::default();
    let request = build_request_body(&model, &context, &options);

    assert!(matches!(
        &request.input[0],
        InputItem::Role(RoleMessage::System {
            content: Cow::Borrowed("Be brief.")
        })
    ));
    let first_text = first_user_text(&context);
    let InputItem::Role(RoleMessage::User { content }) = &request.input[1] else {
        panic!("the user turn: {:?}", request.input[1]);
    };
    assert!(matches!(&content[0],
        InputContent::InputText { text: Cow::Borrowed(text) } if points_into(text, first_text)));
    let InputItem::Typed(TypedItem::Message { content, .. }) = &request.input[2] else {
        panic!("the assistant text: {:?}", request.input[2]);
    };
    assert!(matches!(content[0].text, Cow::Borrowed("Reading.")));
    assert!(matches!(
        &request.input[3],
        InputItem::Typed(TypedItem::FunctionCall {
            id: Some(Cow::Borrowed("fc_1")),
            call_id: Cow::Borrowed("call_1"),
            name: Cow::Borrowed("read"),
            ..
        })
    ));
    let InputItem::Typed(TypedItem::FunctionCallOutput {
        call_id: Cow::Borrowed("call_1"),
        output: FunctionOutput::Parts(parts),
    }) = &request.input[4]
    else {
        panic!("the tool result: {:?}", request.input[4]);
    };
    assert!(matches!(
        &parts[0],
        InputContent::InputText {
            text: Cow::Borrowed("a picture")
        }
    ));

    // Messages the transform rewrote are owned, and encode the same as a
    // copy of the context would.
    let owned_calls = request
        .input
        .iter()
        .filter(|item| {
            matches!(
                item,
                InputItem::Typed(TypedItem::FunctionCall {
                    call_id: Cow::Owned(_),
                    ..
                })
            )
        })
        .count();
    assert_eq!(owned_calls, 1);
    let copied = context.view().to_context();
    assert_eq!(
        serde_json::to_value(&request).unwrap(),
        serde_json::to_value(build_request_body(&model, &copied, &options)).unwrap()
    );
}
