use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::{AssistantContent, Message, UserBlock, UserContent, tagged};

fn message(text: &str) -> Message {
    serde_json::from_str(text).unwrap()
}

#[test]
fn the_tag_may_come_anywhere_and_unknown_keys_keep_their_order() {
    let tag_first = r#"{"role":"user","content":[{"type":"text","text":"hi","z":1,"a":2}],"timestamp":1,"later":true}"#;
    let tag_last = r#"{"content":[{"text":"hi","z":1,"a":2,"type":"text"}],"timestamp":1,"later":true,"role":"user"}"#;
    let fast = message(tag_first);
    assert_eq!(message(tag_last), fast);
    // From a JSON value (no borrowed strings) too.
    let from_value: Message =
        serde_json::from_value(serde_json::from_str(tag_last).unwrap()).unwrap();
    assert_eq!(from_value, fast);
    assert_eq!(serde_json::to_string(&fast).unwrap(), tag_first);
}

#[test]
fn content_is_a_string_or_blocks() {
    let Message::User(text) = message(r#"{"role":"user","content":"plain","timestamp":1}"#) else {
        panic!("expected a user message");
    };
    assert_eq!(text.content, UserContent::Text("plain".into()));
    let Message::User(blocks) = message(
        r#"{"role":"user","content":[{"type":"image","data":"AAAA","mimeType":"image/png"}],"timestamp":1}"#,
    ) else {
        panic!("expected a user message");
    };
    assert_eq!(
        blocks.content,
        UserContent::Blocks(vec![UserBlock::image("AAAA", "image/png")])
    );
    let err = serde_json::from_str::<Message>(r#"{"role":"user","content":7,"timestamp":1}"#)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("expected a string or a list of text and image blocks"),
        "{err}"
    );
}

#[test]
fn errors_name_the_tag_and_the_known_variants() {
    // serde_json's message without its " at line 1 column N".
    let err = |text: &str| {
        let message = serde_json::from_str::<Message>(text)
            .unwrap_err()
            .to_string();
        message.split(" at line ").next().unwrap().to_owned()
    };
    assert_eq!(
        err(r#"{"role":"robot","timestamp":1}"#),
        "unknown variant `robot`, expected one of `user`, `assistant`, `toolResult`"
    );
    assert_eq!(err(r#"{"timestamp":1}"#), "missing field `role`");
    assert_eq!(err("{}"), "missing field `role`");
    assert!(err(r#"{"role":3}"#).contains("expected a string"));
    assert!(err(r#"{"timestamp":1,"role":3}"#).contains("`role` must be a string, found 3"));
    assert!(err("[1]").contains("expected a message"));
    let block: Result<AssistantContent, _> = serde_json::from_value(json!({"type": "video"}));
    assert_eq!(
        block.unwrap_err().to_string(),
        "unknown variant `video`, expected one of `text`, `thinking`, `toolCall`"
    );
}

#[test]
fn a_single_message_field_checks_its_role() {
    #[derive(Debug, serde::Deserialize)]
    struct Event {
        #[serde(with = "tagged::assistant")]
        message: crate::AssistantMessage,
    }
    let assistant = json!({
        "role": "assistant", "content": [], "api": "anthropic-messages", "provider": "anthropic",
        "model": "m", "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0,
        "totalTokens": 0, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0,
        "total": 0}}, "stopReason": "stop", "timestamp": 1
    });
    let event: Event = serde_json::from_value(json!({ "message": assistant })).unwrap();
    assert_eq!(event.message.model, "m");
    let err = serde_json::from_value::<Event>(
        json!({"message": {"role": "user", "content": "x", "timestamp": 1}}),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown variant `user`, expected `assistant`"
    );
    let _: Value = serde_json::to_value(&event.message).unwrap();
}
