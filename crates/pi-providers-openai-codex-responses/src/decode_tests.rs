use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

const NOW: i64 = 1_767_225_600_000;

#[test]
fn usage_limits_get_pis_friendly_text() {
    let body =
        json!({"error": {"type": "usage_limit_reached", "message": "limit", "plan_type": "PLUS",
        "resets_at": NOW / 1000 + 3600}})
        .to_string();
    assert_eq!(
        error_message_at(404, &body, NOW),
        "You have hit your ChatGPT usage limit (plus plan). Try again in ~60 min."
    );
    // Any 429 with an error object; a reset in the past is ~0 min.
    let body = json!({"error": {"message": "slow down", "resets_at": 1}}).to_string();
    assert_eq!(
        error_message_at(429, &body, NOW),
        "You have hit your ChatGPT usage limit. Try again in ~0 min."
    );
    let body = json!({"error": {"code": "Rate_Limit_Exceeded"}}).to_string();
    assert_eq!(
        error_message_at(400, &body, NOW),
        "You have hit your ChatGPT usage limit."
    );
}

#[test]
fn other_errors_use_the_message_the_body_or_the_status() {
    let body = json!({"error": {"message": "bad input", "code": "invalid"}}).to_string();
    assert_eq!(error_message_at(400, &body, NOW), "bad input");
    assert_eq!(error_message_at(500, "upstream died", NOW), "upstream died");
    assert_eq!(error_message_at(502, "", NOW), "Bad Gateway");
    assert_eq!(error_message_at(599, "", NOW), "Request failed");
    let no_message = json!({"error": {"code": "x"}}).to_string();
    assert_eq!(error_message_at(400, &no_message, NOW), no_message);
    // A 429 without an error object keeps the raw body.
    assert_eq!(
        error_message_at(429, r#"{"detail":"x"}"#, NOW),
        r#"{"detail":"x"}"#
    );
    let odd_plan = json!({"error": {"code": "usage_limit_reached", "plan_type": 3}}).to_string();
    assert_eq!(error_message_at(429, &odd_plan, NOW), odd_plan);
}

#[test]
fn codex_error_events_name_message_code_or_event() {
    assert_eq!(
        codex_error_text(Some(&json!("c")), Some("m"), "{}"),
        "Codex error: m"
    );
    assert_eq!(
        codex_error_text(Some(&json!("c")), Some(""), "{}"),
        "Codex error: c"
    );
    assert_eq!(
        codex_error_text(Some(&json!(42)), None, "{}"),
        "Codex error: 42"
    );
    assert_eq!(
        codex_error_text(None, None, r#"{ "type": "error" }"#),
        r#"Codex error: {"type":"error"}"#
    );
}

#[test]
fn only_frames_naming_a_lifecycle_type_or_error_take_the_slow_path() {
    for special in [
        r#"{"type":"error","message":"x"}"#,
        r#"{"type":"response.failed","response":{}}"#,
        r#"{"response":{},"type":"response.done"}"#,
        r#"{"type":"response.completed","response":{}}"#,
        r#"{"type":"response.incomplete","response":{}}"#,
        r#"{"type":"response.created","response":{"error":null}}"#,
    ] {
        assert!(may_be_special(special.as_bytes()), "{special}");
    }
    for plain in [
        r#"{"type":"response.output_text.delta","delta":"an error happened"}"#,
        r#"{"type":"response.output_text.delta","delta":"say \"error\" or response.done"}"#,
        r#"{"type":"response.output_item.done","item":{"type":"message"}}"#,
        r#"{"type":"response.function_call_arguments.delta","delta":"{\"e\":1}"}"#,
    ] {
        assert!(!may_be_special(plain.as_bytes()), "{plain}");
    }
}
