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
    let mut content = TextOrParts::Text("hi".to_owned());
    assert!(mark_text(&mut content, &marker()));
    assert_eq!(
        serde_json::to_value(&content).unwrap(),
        json!([{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}])
    );
    let mut empty = TextOrParts::Text(String::new());
    assert!(!mark_text(&mut empty, &marker()));
}

#[test]
fn mark_text_marks_the_last_text_part_only() {
    let mut content = TextOrParts::Parts(vec![
        text_part("a".to_owned()),
        text_part("b".to_owned()),
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
