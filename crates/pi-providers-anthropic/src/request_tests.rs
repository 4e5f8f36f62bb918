use pi_test_support::contexts::{first_user_text, handoff_context, points_into};
use pretty_assertions::assert_eq;

use super::*;

fn blocks<'r>(param: &'r MessageParam<'_>) -> &'r [ContentBlock<'r>] {
    match &param.content {
        MessageContent::Blocks(blocks) => blocks,
        MessageContent::Text(text) => panic!("a plain text turn: {text}"),
    }
}

#[test]
fn the_request_borrows_the_texts_it_sends_unchanged() {
    let mut model = pi_test_support::fixtures::mock_model("mock-ant", "mock-claude-think");
    // With image input, the transform leaves the images alone.
    model.input = vec![pi_ai::InputModality::Text, pi_ai::InputModality::Image];
    // Its own tool turn, then the same turn by another model: replayed
    // rewritten, so owned.
    let context = handoff_context(
        [
            "anthropic-messages",
            "mock-ant",
            "mock-claude-think",
            "call_1",
        ],
        ["openai-completions", "mock-oai", "mock-gpt", "call_2"],
    );
    let request = build_request_body(&model, &context, &AnthropicOptions::default());

    let system = request.system.as_deref().unwrap_or_default();
    assert!(matches!(system[0].text, Cow::Borrowed("Be brief.")));
    let first_text = first_user_text(&context);
    assert!(matches!(&request.messages[0].content,
        MessageContent::Text(Cow::Borrowed(text)) if points_into(text, first_text)));
    let assistant = blocks(&request.messages[1]);
    assert!(matches!(
        &assistant[0],
        ContentBlock::Thinking {
            thinking: Cow::Borrowed("Need the file."),
            signature: Cow::Borrowed("c2lnbmF0dXJl"),
        }
    ));
    assert!(matches!(
        &assistant[2],
        ContentBlock::ToolUse {
            id: Cow::Borrowed("call_1"),
            name: Cow::Borrowed("read"),
            input: Cow::Borrowed(_),
        }
    ));
    let result = blocks(&request.messages[2]);
    let ContentBlock::ToolResult {
        tool_use_id: Cow::Borrowed("call_1"),
        content: MessageContent::Blocks(result),
        ..
    } = &result[0]
    else {
        panic!("the tool result: {result:?}");
    };
    assert!(matches!(
        &result[1],
        ContentBlock::Image {
            source: ImageSource {
                data: Cow::Borrowed(_),
                ..
            },
            ..
        }
    ));

    // The other model's turn was rewritten: owned.
    let other = blocks(&request.messages[5]);
    assert!(matches!(
        &other[0],
        ContentBlock::Text {
            text: Cow::Owned(_),
            ..
        }
    ));
    assert!(matches!(
        other.last(),
        Some(ContentBlock::ToolUse {
            id: Cow::Owned(_),
            ..
        })
    ));

    // The same JSON as a copy of the context gives.
    let copied = context.view().to_context();
    assert_eq!(
        serde_json::to_value(&request).unwrap(),
        serde_json::to_value(build_request_body(
            &model,
            &copied,
            &AnthropicOptions::default()
        ))
        .unwrap()
    );
}
