//! Encoded request bodies for small contexts, as insta snapshots: a text
//! turn, tool calls and results with images for text-only and image
//! models, reasoning levels through the catalog's `thinkingLevelMap`, and
//! a transcript handed over from anthropic (thinking and a `toolu_` call)
//! and from another model of the same provider.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use pi_ai::{Context, Model, SimpleStreamOptions, ThinkingLevel, get_model};
use pi_http::WireOptions;
use pi_providers_azure_openai_responses::{AzureOpenAiResponsesOptions, build_request_body};
use pi_test_support::contexts::{
    brief_context as context, messages, session_options as session, tool_conversation,
};
use serde_json::{Value, json};

fn encode(model: &Model, context: &Context, simple: SimpleStreamOptions) -> Value {
    let options = AzureOpenAiResponsesOptions::from_simple(model, simple);
    serde_json::to_value(build_request_body(model, context, &options)).unwrap()
}

#[test]
fn text_turn_without_session_or_tools() {
    let model = common::CAPTURES.model("mock-az");
    let ctx = Context {
        system_prompt: None,
        messages: messages(json!([{"role": "user", "content": "Hi", "timestamp": 1}])),
        tools: None,
        ..Context::default()
    };
    insta::assert_json_snapshot!(encode(&model, &ctx, SimpleStreamOptions::default()));
}

#[test]
fn images_on_a_text_model_and_on_an_image_model() {
    let ctx = context(tool_conversation(
        "azure-openai-responses",
        common::CAPTURES.provider,
        "other",
        "call_1|fc_1",
    ));
    insta::assert_json_snapshot!(
        "text_model",
        encode(&common::CAPTURES.model("mock-az"), &ctx, session())
    );
    insta::assert_json_snapshot!(
        "image_model",
        encode(&common::CAPTURES.model("mock-az-vision"), &ctx, session())
    );
}

#[test]
fn reasoning_levels_of_catalog_models() {
    let mut table = serde_json::Map::new();
    for id in ["gpt-5.2", "o4-mini"] {
        let model = get_model("azure-openai-responses", id).unwrap();
        let ctx = context(messages(
            json!([{"role": "user", "content": "Think.", "timestamp": 1}]),
        ));
        for level in [
            None,
            Some(ThinkingLevel::Minimal),
            Some(ThinkingLevel::Low),
            Some(ThinkingLevel::High),
            Some(ThinkingLevel::Xhigh),
        ] {
            let simple = SimpleStreamOptions {
                reasoning: level,
                ..SimpleStreamOptions::default()
            };
            let body = encode(model, &ctx, simple);
            let key = format!("{id} {}", level.map_or("off", ThinkingLevel::as_str));
            table.insert(
                key,
                json!({"reasoning": body.get("reasoning"), "include": body.get("include")}),
            );
        }
    }
    insta::assert_json_snapshot!(Value::Object(table));
}

#[test]
fn handed_over_from_anthropic() {
    let model = get_model("azure-openai-responses", "gpt-5.2").unwrap();
    let ctx = context(tool_conversation(
        "anthropic-messages",
        "anthropic",
        "claude-sonnet-4-5",
        "toolu_01A09q90qw90lq917835lq9A",
    ));
    insta::assert_json_snapshot!(encode(model, &ctx, session()));
}

#[test]
fn handed_over_from_another_model_of_the_provider() {
    let model = get_model("azure-openai-responses", "gpt-5.2").unwrap();
    let ctx = context(tool_conversation(
        "azure-openai-responses",
        "azure-openai-responses",
        "o4-mini",
        "call_abc|fc_123",
    ));
    insta::assert_json_snapshot!(encode(model, &ctx, session()));
}
