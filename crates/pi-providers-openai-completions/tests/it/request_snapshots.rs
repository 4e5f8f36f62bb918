//! Encoded request bodies for a matrix of contexts, snapshotted with insta,
//! plus value assertions on the rules each case exercises.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::*;
use pi_ai::{Api, Context, StopReason, ThinkingLevel, UserBlock};
use pi_providers_openai_completions::{OpenAiCompletionsOptions, ToolChoice};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

#[test]
fn user_string_and_defaults() {
    let m = model("mock-gpt", false, false);
    let b = simple(&m, &ctx(vec![user("hi")]), None);
    assert_eq!(
        b,
        json!({
            "model": "mock-gpt",
            "messages": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "hi"}
            ],
            "stream": true,
            "stream_options": {"include_usage": true},
            "store": false,
            "max_completion_tokens": 4096
        })
    );
    insta::assert_json_snapshot!("user_string_and_defaults", b);
}

#[test]
fn user_blocks_with_images() {
    let blocks = vec![
        UserBlock::text("What is this?"),
        UserBlock::image(PNG, "image/png"),
    ];
    let vision = body(
        &model("mock-vision", false, true),
        &ctx(vec![user_blocks(blocks.clone())]),
    );
    insta::assert_json_snapshot!("user_blocks_with_images_vision", vision);
    assert_eq!(
        messages(&vision)[1]["content"][1],
        json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PNG}")}})
    );
    // Without image input each image becomes pi 0.73.1's placeholder text, so
    // an image-only message is still sent.
    let only_image = user_blocks(vec![UserBlock::image(PNG, "image/jpeg")]);
    let text_only = body(
        &model("mock-gpt", false, false),
        &ctx(vec![user_blocks(blocks), only_image, user("next")]),
    );
    insta::assert_json_snapshot!("user_blocks_with_images_text_model", text_only);
    let placeholder = json!({"type": "text", "text": pi_ai::USER_IMAGE_PLACEHOLDER});
    assert_eq!(messages(&text_only).len(), 4);
    assert_eq!(
        messages(&text_only)[1]["content"],
        json!([{"type": "text", "text": "What is this?"}, placeholder])
    );
    assert_eq!(messages(&text_only)[2]["content"], json!([placeholder]));
}

#[test]
fn assistant_text_and_tool_calls_same_model() {
    let m = model("mock-gpt", false, false);
    let context = Context {
        tools: Some(tools()),
        ..ctx(vec![
            user("list and read"),
            assistant_from(
                &m,
                vec![
                    text("First "),
                    text("  "),
                    text("second."),
                    call("call_1", "bash", json!({"command": "ls"})),
                    call("call_2", "read", json!({"path": "a.txt", "limit": 5})),
                ],
                StopReason::ToolUse,
            ),
            tool_result("call_1", "bash", vec![UserBlock::text("a.txt\n")], false),
            tool_result(
                "call_2",
                "read",
                vec![UserBlock::text("line 1"), UserBlock::text("line 2")],
                false,
            ),
            assistant_from(
                &m,
                vec![call("call_3", "read", json!({"path": "missing"}))],
                StopReason::ToolUse,
            ),
            tool_result("call_3", "read", vec![UserBlock::text("ENOENT")], true),
            assistant_from(&m, vec![text("Done.")], StopReason::Stop),
        ])
    };
    let b = body_with(
        &m,
        &context,
        OpenAiCompletionsOptions {
            tool_choice: Some(ToolChoice::Auto),
            ..Default::default()
        },
    );
    insta::assert_json_snapshot!("assistant_text_and_tool_calls", b);
    let ms = messages(&b);
    assert_eq!(
        ms[2]["content"],
        json!("First second."),
        "text joined into one string, blank blocks dropped"
    );
    assert_eq!(
        ms[2]["tool_calls"][1]["function"]["arguments"],
        json!("{\"path\":\"a.txt\",\"limit\":5}")
    );
    assert_eq!(
        ms[4],
        json!({"role": "tool", "content": "line 1\nline 2", "tool_call_id": "call_2"})
    );
    assert_eq!(
        ms[5]["content"],
        Value::Null,
        "tool-call-only assistant has null content"
    );
    assert_eq!(
        ms[6]["content"],
        json!("ENOENT"),
        "isError is not sent on this wire"
    );
    assert_eq!(b["tool_choice"], json!("auto"));
    assert_eq!(b["tools"][0]["function"]["strict"], json!(false));
}

#[test]
fn thinking_replay_same_model() {
    let m = model("mock-gpt-think", true, false);
    let context = ctx(vec![
        user("q1"),
        assistant_from(
            &m,
            vec![
                thinking("Step one.", Some("reasoning_content")),
                thinking("Step two.", None),
                text("A1"),
            ],
            StopReason::Stop,
        ),
        user("q2"),
        assistant_from(
            &m,
            vec![thinking("unsigned thought", None), text("A2")],
            StopReason::Stop,
        ),
        user("q3"),
        assistant_from(
            &m,
            vec![
                redacted("opaque-payload"),
                thinking("   ", Some("reasoning")),
                text("A3"),
            ],
            StopReason::Stop,
        ),
        user("q4"),
    ]);
    let b = simple(&m, &context, Some(ThinkingLevel::Medium));
    insta::assert_json_snapshot!("thinking_replay_same_model", b);
    let ms = messages(&b);
    assert_eq!(
        ms[0]["role"],
        json!("developer"),
        "reasoning model + developer role"
    );
    assert_eq!(
        ms[2],
        json!({"role": "assistant", "content": "A1", "reasoning_content": "Step one.\nStep two."})
    );
    assert_eq!(
        ms[4],
        json!({"role": "assistant", "content": "A2"}),
        "no signature: no reasoning field"
    );
    assert_eq!(
        ms[6],
        json!({"role": "assistant", "content": "A3"}),
        "blank and redacted thinking are not replayed"
    );
    assert_eq!(b["reasoning_effort"], json!("medium"));
}

#[test]
fn cross_provider_replay() {
    let m = model("mock-gpt", false, false);
    let long_item = format!("fc_{}", "x+/=".repeat(30));
    let context = ctx(vec![
        user("start"),
        foreign_assistant(
            Api::ANTHROPIC_MESSAGES,
            "anthropic",
            "claude-sonnet-4-5",
            vec![
                thinking("I should check.", Some("EqQBCkYIBxgCKkA=")),
                redacted("ErcBCkgIBhABGAIiQ=="),
                signed_text("Checking.", "msg_sig"),
                signed_call("toolu_01A", "bash", json!({"command": "pwd"}), "sig"),
            ],
        ),
        tool_result("toolu_01A", "bash", vec![UserBlock::text("/home")], false),
        foreign_assistant(
            Api::OPENAI_RESPONSES,
            "openai",
            "gpt-5",
            vec![call(
                &format!("call_abc|{long_item}"),
                "read",
                json!({"path": "x"}),
            )],
        ),
        tool_result(
            &format!("call_abc|{long_item}"),
            "read",
            vec![UserBlock::text("x!")],
            false,
        ),
        user("continue"),
    ]);
    let b = body(&m, &context);
    insta::assert_json_snapshot!("cross_provider_replay", b);
    let ms = messages(&b);
    assert_eq!(
        ms[2]["content"],
        json!("I should check.Checking."),
        "foreign thinking becomes text; redacted dropped"
    );
    assert_eq!(ms[2]["tool_calls"][0]["id"], json!("toolu_01A"));
    assert_eq!(
        ms[4]["tool_calls"][0]["id"],
        json!("call_abc"),
        "Responses call|item ids keep the call part"
    );
    assert_eq!(
        ms[5]["tool_call_id"],
        json!("call_abc"),
        "the result follows the new id"
    );
}

#[test]
fn tool_results_with_images() {
    let m = model("mock-vision", false, true);
    let context = ctx(vec![
        user("shoot"),
        assistant_from(
            &m,
            vec![
                call("c1", "screenshot", json!({})),
                call("c2", "read", json!({"path": "a.png"})),
                call("c3", "bash", json!({"command": "false"})),
            ],
            StopReason::ToolUse,
        ),
        tool_result(
            "c1",
            "screenshot",
            vec![UserBlock::image(PNG, "image/png")],
            false,
        ),
        tool_result(
            "c2",
            "read",
            vec![
                UserBlock::text("Read image file [image/png]"),
                UserBlock::image(PNG, "image/png"),
            ],
            false,
        ),
        tool_result("c3", "bash", vec![UserBlock::text("exit 1")], true),
        user("what do you see?"),
    ]);
    let b = body(&m, &context);
    insta::assert_json_snapshot!("tool_results_with_images_vision", b);
    let ms = messages(&b);
    assert_eq!(ms[3]["content"], json!("(see attached image)"));
    assert_eq!(
        ms[6],
        json!({"role": "user", "content": [
            {"type": "text", "text": "Attached image(s) from tool result:"},
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PNG}")}},
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PNG}")}}
        ]}),
        "images of consecutive results follow in one user message"
    );
    let text_model = body(&model("mock-gpt", false, false), &context);
    insta::assert_json_snapshot!("tool_results_with_images_text_model", text_model);
    let ms = messages(&text_model);
    assert_eq!(ms.len(), 7, "no image message for a text-only model");
    assert_eq!(
        (&ms[3]["content"], &ms[4]["content"]),
        (
            &json!(pi_ai::TOOL_IMAGE_PLACEHOLDER),
            &json!(format!(
                "Read image file [image/png]\n{}",
                pi_ai::TOOL_IMAGE_PLACEHOLDER
            ))
        ),
        "images become placeholder text in the tool message"
    );
}

#[test]
fn failed_turns_and_orphaned_calls() {
    let m = model("mock-gpt", false, false);
    let context = ctx(vec![
        user("go"),
        assistant_from(&m, vec![text("half")], StopReason::Error),
        assistant_from(
            &m,
            vec![
                text("Calling."),
                call("c9", "bash", json!({"command": "sleep 9"})),
            ],
            StopReason::ToolUse,
        ),
        user("never mind"),
        assistant_from(&m, vec![], StopReason::Aborted),
    ]);
    let b = body(&m, &context);
    insta::assert_json_snapshot!("failed_turns_and_orphaned_calls", b);
    let ms = messages(&b);
    assert_eq!(ms.len(), 5);
    assert_eq!(
        ms[3],
        json!({"role": "tool", "content": "No result provided", "tool_call_id": "c9"})
    );
    assert_eq!(
        b["tools"],
        json!([]),
        "tool history without tools sends an empty list"
    );
}
