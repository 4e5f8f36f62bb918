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
