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
//!
//! Before that, [`exact_delta`] reads a delta laid out byte for byte as the
//! Anthropic API writes it (`{"type":"content_block_delta","index":0,
//! "delta":{"type":"text_delta","text":"..."}}`, no spaces): that layout
//! leaves nothing to parse but the index and one string, so it costs a
//! fraction of a serde pass. Any other byte (a space, another key order,
//! an extra field) sends the frame to the flat parse.

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

/// The part of an exact delta before its index.
const EXACT_HEAD: &str = r#"{"type":"content_block_delta","index":"#;

/// `data` as a `content_block_delta` event, when it is a well-formed one:
/// the exact layout first, then the flat parse.
pub(crate) fn content_block_delta(data: &str) -> Option<StreamEvent<'_>> {
    exact_delta(data).or_else(|| flat_delta(data))
}

/// A delta in exactly the API's layout: the head, the index (JSON digits),
/// `,"delta":{"type":"<kind>","<field>":`, one JSON string, then `}}` and
/// nothing else. The string is borrowed when it has no escapes; one with
/// escapes is read by serde_json. Whatever does not fit gives `None`.
fn exact_delta(data: &str) -> Option<StreamEvent<'_>> {
    let rest = data.strip_prefix(EXACT_HEAD)?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    // JSON has no leading zeros; a number past u64 is left to serde.
    if digits == 0 || (digits > 1 && rest.starts_with('0')) {
        return None;
    }
    let index: u64 = rest.get(..digits)?.parse().ok()?;
    let rest = rest.get(digits..)?.strip_prefix(r#","delta":{"type":""#)?;
    let (kind, rest) = rest.split_once('"')?;
    let field = match kind {
        "text_delta" => "text",
        "thinking_delta" => "thinking",
        "input_json_delta" => "partial_json",
        "signature_delta" => "signature",
        _ => return None,
    };
    let rest = rest
        .strip_prefix(",\"")?
        .strip_prefix(field)?
        .strip_prefix("\":")?;
    let (value, rest) = json_string(rest)?;
    if rest != "}}" {
        return None;
    }
    let delta = match kind {
        "text_delta" => BlockDelta::TextDelta { text: value },
        "thinking_delta" => BlockDelta::ThinkingDelta { thinking: value },
        "input_json_delta" => BlockDelta::InputJsonDelta {
            partial_json: value,
        },
        _ => BlockDelta::SignatureDelta { signature: value },
    };
    Some(StreamEvent::ContentBlockDelta { index, delta })
}

/// The JSON string at the start of `text` and what follows it. A string
/// without escapes or control characters is borrowed as it is; any other
/// is read by serde_json (which rejects what JSON rejects).
fn json_string(text: &str) -> Option<(Cow<'_, str>, &str)> {
    let body = text.strip_prefix('"')?;
    let end = memchr::memchr2(b'"', b'\\', body.as_bytes())?;
    let plain = body.as_bytes().get(..end)?;
    if body.as_bytes().get(end) == Some(&b'"') && plain.iter().all(|&b| b >= 0x20) {
        return Some((Cow::Borrowed(body.get(..end)?), body.get(end + 1..)?));
    }
    let mut strings = serde_json::Deserializer::from_str(text).into_iter::<Cow<'_, str>>();
    let value = strings.next()?.ok()?;
    Some((value, text.get(strings.byte_offset()..)?))
}

/// The flat one-pass parse (any key order, spaces, unknown fields).
fn flat_delta(data: &str) -> Option<StreamEvent<'_>> {
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

    /// Frames in the API's exact layout, each delta kind, with escapes.
    const EXACT: [&str; 6] = [
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a mock model"}}"#,
        r#"{"type":"content_block_delta","index":12,"delta":{"type":"thinking_delta","thinking":"hm \"x\" \u00e9"}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"a\\b\""}}"#,
        r#"{"type":"content_block_delta","index":3,"delta":{"type":"signature_delta","signature":"c2ln/+=="}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\ud83d\ude00 é"}}"#,
    ];

    #[test]
    fn the_exact_layout_is_read_as_the_tagged_parse_reads_it() {
        for data in EXACT {
            let exact = exact_delta(data);
            assert!(exact.is_some(), "{data}");
            assert_eq!(exact, serde_json::from_str(data).ok(), "{data}");
        }
    }

    #[test]
    fn the_exact_reader_never_disagrees_with_the_tagged_parse() {
        // Every one-byte change of the exact frames (deleted, replaced,
        // or preceded by another byte): where the exact reader answers,
        // its answer is the tagged parse's.
        let bytes = [
            b' ', b'0', b'1', b'9', b'"', b'\\', b'}', b'{', b',', b'x', b'\n', 0x01,
        ];
        let mut answered = 0;
        for data in EXACT {
            for at in 0..data.len() {
                let mut variants =
                    vec![[&data.as_bytes()[..at], &data.as_bytes()[at + 1..]].concat()];
                for &b in &bytes {
                    let mut replaced = data.as_bytes().to_vec();
                    replaced[at] = b;
                    variants.push(replaced);
                    let mut inserted = data.as_bytes().to_vec();
                    inserted.insert(at, b);
                    variants.push(inserted);
                }
                for variant in variants {
                    let Ok(text) = String::from_utf8(variant) else {
                        continue;
                    };
                    if let Some(exact) = exact_delta(&text) {
                        answered += 1;
                        let tagged = serde_json::from_str::<StreamEvent<'_>>(&text).ok();
                        assert_eq!(Some(exact), tagged, "{text}");
                    }
                }
            }
        }
        assert!(
            answered > 100,
            "the variants inside strings are read: {answered}"
        );
    }

    #[test]
    fn near_misses_of_the_exact_layout_go_to_the_flat_parse() {
        for data in [
            r#"{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"x"}}"#,
            r#"{"type":"content_block_delta","index":99999999999999999999,"delta":{"type":"text_delta","text":"x"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}} "#,
            r#"{"type":"content_block_delta", "index":0,"delta":{"type":"text_delta","text":"x"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","thinking":"x"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","text":"x"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","text":"y"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\x"}}"#,
            "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\tb\"}}",
        ] {
            assert!(exact_delta(data).is_none(), "{data}");
            assert!(agrees(data), "{data}");
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
