//! Request headers: auth, version, betas, Claude Code identity, overrides.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::collections::BTreeMap;

use common::model;
use pi_ai::{CacheRetention, Context, Model, StreamOptions, Tool};
use pi_http::{Wire, wire_headers};
use pi_providers_anthropic::{AnthropicOptions, AnthropicWire};
use pretty_assertions::assert_eq;
use serde_json::json;

fn with_tools() -> Context {
    Context {
        tools: Some(vec![Tool {
            name: "bash".into(),
            description: "Run".into(),
            parameters: json!({"type": "object"}),
        }]),
        ..Context::default()
    }
}

fn headers(
    model: &Model,
    context: &Context,
    options: &AnthropicOptions,
    key: &str,
) -> Vec<(String, String)> {
    wire_headers(&AnthropicWire, model, context, options, key).into_pairs()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
        .collect()
}

#[test]
fn api_key_call_headers_in_sdk_order() {
    let got = headers(
        &model("claude-sonnet-4-5", true),
        &with_tools(),
        &AnthropicOptions::default(),
        "sk-ant-api03-k",
    );
    assert_eq!(
        got,
        pairs(&[
            ("accept", "application/json"),
            ("anthropic-dangerous-direct-browser-access", "true"),
            ("anthropic-beta", "interleaved-thinking-2025-05-14"),
            ("x-api-key", "sk-ant-api03-k"),
            ("anthropic-version", "2023-06-01"),
            ("content-type", "application/json"),
        ])
    );
}

#[test]
fn betas_follow_compat_and_adaptive_models() {
    let adaptive = headers(
        &model("claude-opus-4-6", true),
        &with_tools(),
        &AnthropicOptions::default(),
        "k",
    );
    assert!(
        adaptive.iter().all(|(n, _)| n != "anthropic-beta"),
        "{adaptive:?}"
    );

    let mut legacy = model("claude-sonnet-4-5", true);
    legacy.compat = Some(json!({"supportsEagerToolInputStreaming": false}));
    let got = headers(&legacy, &with_tools(), &AnthropicOptions::default(), "k");
    let beta = got.iter().find(|(n, _)| n == "anthropic-beta").unwrap();
    assert_eq!(
        beta.1,
        "fine-grained-tool-streaming-2025-05-14,interleaved-thinking-2025-05-14"
    );
    // Without tools the fine-grained beta is not needed.
    let got = headers(
        &legacy,
        &Context::default(),
        &AnthropicOptions::default(),
        "k",
    );
    let beta = got.iter().find(|(n, _)| n == "anthropic-beta").unwrap();
    assert_eq!(beta.1, "interleaved-thinking-2025-05-14");

    let off = AnthropicOptions {
        interleaved_thinking: Some(false),
        ..AnthropicOptions::default()
    };
    let got = headers(&model("claude-sonnet-4-5", true), &with_tools(), &off, "k");
    assert!(got.iter().all(|(n, _)| n != "anthropic-beta"), "{got:?}");
}

#[test]
fn oauth_tokens_authenticate_as_claude_code() {
    let got = headers(
        &model("claude-sonnet-4-5", true),
        &with_tools(),
        &AnthropicOptions::default(),
        "sk-ant-oat01-t",
    );
    assert_eq!(
        got,
        pairs(&[
            ("accept", "application/json"),
            ("anthropic-dangerous-direct-browser-access", "true"),
            (
                "anthropic-beta",
                "claude-code-20250219,oauth-2025-04-20,interleaved-thinking-2025-05-14"
            ),
            ("user-agent", "claude-cli/2.1.75"),
            ("x-app", "cli"),
            ("authorization", "Bearer sk-ant-oat01-t"),
            ("anthropic-version", "2023-06-01"),
            ("content-type", "application/json"),
        ])
    );
}

#[test]
fn copilot_uses_bearer_auth() {
    let mut copilot = model("claude-sonnet-4.5", true);
    copilot.provider = pi_ai::Provider::GITHUB_COPILOT;
    let got = headers(
        &copilot,
        &Context::default(),
        &AnthropicOptions::default(),
        "ghu_x",
    );
    assert!(got.contains(&("authorization".into(), "Bearer ghu_x".into())));
    assert!(got.iter().all(|(n, _)| n != "x-api-key"));
}

#[test]
fn model_then_option_headers_override_by_name() {
    let mut custom = model("claude-test", false);
    custom.headers = Some(BTreeMap::from([
        ("User-Agent".to_owned(), "KimiCLI/1.5".to_owned()),
        ("X-Api-Key".to_owned(), "from-model".to_owned()),
    ]));
    let options = AnthropicOptions::from(StreamOptions {
        headers: BTreeMap::from([("x-api-key".to_owned(), "from-options".to_owned())]),
        ..StreamOptions::default()
    });
    let got = headers(&custom, &Context::default(), &options, "k");
    assert!(
        got.contains(&("x-api-key".into(), "from-options".into())),
        "{got:?}"
    );
    assert!(
        got.contains(&("user-agent".into(), "KimiCLI/1.5".into())),
        "{got:?}"
    );
    assert_eq!(got.iter().filter(|(n, _)| n == "x-api-key").count(), 1);
}

#[test]
fn session_affinity_is_opt_in_and_needs_caching() {
    let mut fireworks = model("accounts/fireworks/models/glm", false);
    fireworks.compat = Some(json!({"sendSessionAffinityHeaders": true}));
    let mut options = AnthropicOptions::from(StreamOptions {
        session_id: Some("session-1".into()),
        ..StreamOptions::default()
    });
    let got = headers(&fireworks, &Context::default(), &options, "k");
    assert!(
        got.contains(&("x-session-affinity".into(), "session-1".into())),
        "{got:?}"
    );
    let plain = headers(
        &model("claude-test", false),
        &Context::default(),
        &options,
        "k",
    );
    assert!(plain.iter().all(|(n, _)| n != "x-session-affinity"));
    options.base.cache_retention = Some(CacheRetention::None);
    let got = headers(&fireworks, &Context::default(), &options, "k");
    assert!(got.iter().all(|(n, _)| n != "x-session-affinity"));
}

#[test]
fn url_is_base_plus_v1_messages() {
    let mut m = model("claude-test", false);
    assert_eq!(
        AnthropicWire.url(&m),
        "https://api.anthropic.com/v1/messages"
    );
    m.base_url = "http://127.0.0.1:18777/".into();
    assert_eq!(AnthropicWire.url(&m), "http://127.0.0.1:18777/v1/messages");
    m.base_url = String::new();
    assert_eq!(
        AnthropicWire.url(&m),
        "https://api.anthropic.com/v1/messages"
    );
}
