//! The hot event of a stream, `content_block_delta`, parsed in one pass.
//!
//! [`StreamEvent`] and [`BlockDelta`] are internally tagged (`"type"`), which
//! serde decodes by first buffering the whole object into an intermediate
//! tree: that buffering cost more than the rest of a delta's decoding. Here
//! the object is read straight into a flat struct holding every field a
//! delta may carry, and the result is accepted only when it is exactly what
//! the tagged parse would give (the tag is `content_block_delta`, the
//! delta's own tag is known and its field present). Anything else returns
//! `None` and the caller parses the frame the tagged way, so the outcome,
//! errors included, never differs from it.

use std::borrow::Cow;

use serde::Deserialize;

use crate::wire::{BlockDelta, StreamEvent};

/// Every field of a `content_block_delta` event, and its delta's.
#[derive(Deserialize)]
struct Flat<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    index: Option<u64>,
    #[serde(borrow)]
    delta: Option<FlatDelta<'a>>,
}

/// Every field of the deltas pi reads.
#[derive(Deserialize)]
struct FlatDelta<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow)]
    thinking: Option<Cow<'a, str>>,
    #[serde(borrow)]
    partial_json: Option<Cow<'a, str>>,
    #[serde(borrow)]
    signature: Option<Cow<'a, str>>,
}

/// `data` as a `content_block_delta` event, when it is a well-formed one.
pub(crate) fn content_block_delta(data: &str) -> Option<StreamEvent<'_>> {
    let flat: Flat<'_> = serde_json::from_str(data).ok()?;
    if flat.kind != "content_block_delta" {
        return None;
    }
    let index = flat.index?;
    let delta = flat.delta?;
    let delta = match delta.kind?.as_ref() {
        "text_delta" => BlockDelta::TextDelta { text: delta.text? },
        "thinking_delta" => BlockDelta::ThinkingDelta {
            thinking: delta.thinking?,
        },
        "input_json_delta" => BlockDelta::InputJsonDelta {
            partial_json: delta.partial_json?,
        },
        "signature_delta" => BlockDelta::SignatureDelta {
            signature: delta.signature?,
        },
        _ => BlockDelta::Other,
    };
    Some(StreamEvent::ContentBlockDelta { index, delta })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast parse agrees with the tagged parse wherever it answers.
    fn agrees(data: &str) -> bool {
        let tagged = serde_json::from_str::<StreamEvent<'_>>(data).ok();
        match content_block_delta(data) {
            Some(fast) => tagged == Some(fast),
            None => true,
        }
    }

    #[test]
    fn each_delta_kind_parses_as_the_tagged_parse_does() {
        for data in [
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a \"b\""}}"#,
            r#"{"index":2,"delta":{"thinking":"hm","type":"thinking_delta"},"type":"content_block_delta"}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"signature_delta","signature":"c2ln"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"citations_delta","citation":{}}}"#,
        ] {
            assert!(content_block_delta(data).is_some(), "{data}");
            assert!(agrees(data), "{data}");
        }
    }

    #[test]
    fn anything_else_is_left_to_the_tagged_parse() {
        for data in [
            r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{}}"#,
            r#"{"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"text":"x"}}"#,
            r#"{"type":"content_block_delta","type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"x","text":5}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":null}}"#,
            r#"{"type":"content_block_delta","index":-1,"delta":{"type":"text_delta","text":"x"}}"#,
            "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\nb\"}}",
        ] {
            assert!(content_block_delta(data).is_none(), "{data}");
        }
    }

    #[test]
    fn escaped_text_is_unescaped_as_the_tagged_parse_does() {
        let data = r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\u00e9\n\\"}}"#;
        assert!(agrees(data));
        assert_eq!(
            content_block_delta(data),
            Some(StreamEvent::ContentBlockDelta {
                index: 0,
                delta: BlockDelta::TextDelta {
                    text: "é\n\\".into()
                }
            })
        );
    }
}
