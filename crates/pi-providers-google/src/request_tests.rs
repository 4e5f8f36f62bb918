use super::*;

#[test]
fn only_base64_signatures_are_valid() {
    assert!(is_valid_thought_signature("AAAA"));
    assert!(is_valid_thought_signature("ab+/cd=="));
    assert!(is_valid_thought_signature("abc="));
    assert!(!is_valid_thought_signature(""));
    assert!(
        !is_valid_thought_signature("abc"),
        "length not a multiple of 4"
    );
    assert!(
        !is_valid_thought_signature("a==="),
        "at most two padding characters"
    );
    assert!(!is_valid_thought_signature("===="));
    assert!(
        !is_valid_thought_signature("ab-_"),
        "base64url is not accepted"
    );
    assert!(!is_valid_thought_signature("a=bc"));
    assert!(!is_valid_thought_signature(SKIP_THOUGHT_SIGNATURE));
}

#[test]
fn blank_means_javascript_trim_leaves_nothing() {
    assert!(is_blank(""));
    assert!(is_blank(" \n\t\u{a0}\u{feff}\u{2028}"));
    assert!(!is_blank("\u{85}"), "NEL is not whitespace to JavaScript");
    assert!(!is_blank(" x "));
}

#[test]
fn the_request_borrows_the_texts_it_sends_unchanged() {
    use pi_test_support::contexts::{first_user_text, handoff_context, points_into};
    let mut model = pi_test_support::fixtures::mock_model("mock-goog", "mock-gemini");
    // With image input, the transform leaves the images alone.
    model.input = vec![pi_ai::InputModality::Text, pi_ai::InputModality::Image];
    // Its own tool turn, then the same turn by another model: replayed
    // rewritten, so owned.
    let context = handoff_context(
        ["google-generative-ai", "mock-goog", "mock-gemini", "call_1"],
        ["anthropic-messages", "anthropic", "claude", "call_2"],
    );
    let options = GoogleOptions::default();
    let request = build_request_body(&model, &context, &options);

    let system = request.system_instruction.as_ref().unwrap();
    assert!(matches!(
        system.parts[0].text,
        Some(Cow::Borrowed("Be brief."))
    ));
    let first_text = first_user_text(&context);
    assert!(matches!(&request.contents[0].parts[0].text,
        Some(Cow::Borrowed(text)) if points_into(text, first_text)));
    let assistant = &request.contents[1].parts;
    assert!(matches!(
        (&assistant[0].text, &assistant[0].thought_signature),
        (
            Some(Cow::Borrowed("Need the file.")),
            Some(Cow::Borrowed("c2lnbmF0dXJl"))
        )
    ));
    let call = assistant[2].function_call.as_ref().unwrap();
    assert!(matches!(
        (&call.name, &call.args),
        (Cow::Borrowed("read"), Cow::Borrowed(_))
    ));
    let response = request.contents[2].parts[0].function_response.as_ref();
    let response = response.unwrap();
    assert!(matches!(
        response.response,
        FunctionResult::Output(Cow::Borrowed("a picture"))
    ));
    let nested = response.parts.as_deref().unwrap_or_default();
    assert!(matches!(nested[0].inline_data.data, Cow::Borrowed(_)));

    // Messages the transform rewrote are owned, and encode the same as a
    // copy of the context would.
    let owned_calls = request
        .contents
        .iter()
        .flat_map(|content| &content.parts)
        .filter_map(|part| part.function_call.as_ref())
        .filter(|call| matches!(call.name, Cow::Owned(_)))
        .count();
    assert_eq!(owned_calls, 1);
    let copied = context.view().to_context();
    assert_eq!(
        serde_json::to_value(&request).unwrap(),
        serde_json::to_value(build_request_body(&model, &copied, &options)).unwrap()
    );
}
