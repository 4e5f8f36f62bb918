#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use pi_test_support::event_stream::{encode_frame, encode_message};
use pi_test_support::fixture;

use super::*;

fn event(kind: &str, payload: &str) -> Vec<u8> {
    encode_message(
        &[
            (":event-type", kind),
            (":content-type", "application/json"),
            (":message-type", "event"),
        ],
        payload.as_bytes(),
    )
}

fn frames_of(bytes: &[u8], chunk: usize) -> Result<Vec<SseFrame>, FramingError> {
    let mut framing = EventStreamFraming::new();
    let mut out = Vec::new();
    for piece in bytes.chunks(chunk.max(1)) {
        framing.push(piece, &mut out)?;
    }
    framing.finish()?;
    Ok(out)
}

fn frame(event: &str, data: &str) -> SseFrame {
    SseFrame {
        event: event.into(),
        data: data.into(),
    }
}

#[test]
fn messages_become_frames() {
    let mut body = event("messageStart", r#"{"role":"assistant"}"#);
    body.extend(event(
        "contentBlockDelta",
        r#"{"contentBlockIndex":0,"delta":{"text":"hé"}}"#,
    ));
    assert_eq!(
        frames_of(&body, body.len()).unwrap(),
        [
            frame("messageStart", r#"{"role":"assistant"}"#),
            frame(
                "contentBlockDelta",
                r#"{"contentBlockIndex":0,"delta":{"text":"hé"}}"#
            ),
        ]
    );
}

#[test]
fn a_torn_frame_decodes_the_same_split_at_every_byte() {
    let mut body = event("messageStart", r#"{"role":"assistant"}"#);
    body.extend(event(
        "contentBlockDelta",
        r#"{"contentBlockIndex":0,"delta":{"text":"Hello"}}"#,
    ));
    body.extend(event("messageStop", r#"{"stopReason":"end_turn"}"#));
    let whole = frames_of(&body, body.len()).unwrap();
    assert_eq!(whole.len(), 3);
    for split in 0..=body.len() {
        let mut framing = EventStreamFraming::new();
        let mut out = Vec::new();
        framing.push(&body[..split], &mut out).unwrap();
        framing.push(&body[split..], &mut out).unwrap();
        framing.finish().unwrap();
        assert_eq!(out, whole, "split at {split}");
    }
    for chunk in 1..16 {
        assert_eq!(frames_of(&body, chunk).unwrap(), whole, "chunks of {chunk}");
    }
}

#[test]
fn a_bad_prelude_checksum_is_reported_before_the_message_arrives() {
    let mut body = event("messageStart", "{}");
    body[9] ^= 0xff;
    let mut framing = EventStreamFraming::new();
    let error = framing.push(&body[..12], &mut Vec::new()).unwrap_err();
    assert!(
        error
            .0
            .starts_with("The prelude checksum specified in the message ("),
        "{error}"
    );
    assert!(
        error
            .0
            .contains("does not match the calculated CRC32 checksum"),
        "{error}"
    );
}

#[test]
fn a_bad_message_checksum_is_an_error_after_the_frames_before_it() {
    let good = event("messageStart", r#"{"role":"assistant"}"#);
    let mut bad = event(
        "contentBlockDelta",
        r#"{"contentBlockIndex":0,"delta":{"text":"x"}}"#,
    );
    let at = bad.len() - 10;
    bad[at] ^= 0x01;
    let mut body = good;
    body.extend(bad);
    let mut framing = EventStreamFraming::new();
    let mut out = Vec::new();
    let error = framing.push(&body, &mut out).unwrap_err();
    assert_eq!(out.len(), 1, "the good message is still delivered");
    assert!(error.0.starts_with("The message checksum ("), "{error}");
    assert!(
        error.0.contains("did not match the expected value of"),
        "{error}"
    );
}

#[test]
fn lengths_out_of_range_are_errors() {
    let mut prelude = Vec::new();
    prelude.extend_from_slice(&u32::try_from(MAX_MESSAGE_LEN + 1).unwrap().to_be_bytes());
    prelude.extend_from_slice(&0u32.to_be_bytes());
    let crc = crc32fast::hash(&prelude);
    prelude.extend_from_slice(&crc.to_be_bytes());
    let error = EventStreamFraming::new()
        .push(&prelude, &mut Vec::new())
        .unwrap_err();
    assert!(error.0.contains("is outside 16..="), "{error}");
    let mut small = Vec::new();
    small.extend_from_slice(&20u32.to_be_bytes());
    small.extend_from_slice(&10u32.to_be_bytes());
    let crc = crc32fast::hash(&small);
    small.extend_from_slice(&crc.to_be_bytes());
    let error = EventStreamFraming::new()
        .push(&small, &mut Vec::new())
        .unwrap_err();
    assert!(error.0.contains("does not fit"), "{error}");
}

#[test]
fn a_body_that_stops_inside_a_message_is_truncated() {
    let body = event("messageStart", "{}");
    let mut framing = EventStreamFraming::new();
    framing
        .push(&body[..body.len() - 1], &mut Vec::new())
        .unwrap();
    assert_eq!(framing.buffered(), body.len() - 1);
    assert_eq!(
        framing.finish().unwrap_err().0,
        "Truncated event message received."
    );
}

#[test]
fn exceptions_errors_and_other_header_types() {
    let exception = encode_frame("event: throttlingException\ndata: {\"message\":\"slow\"}\n\n");
    let error = encode_message(
        &[
            (":message-type", "error"),
            (":error-code", "InternalFailure"),
            (":error-message", "broke"),
        ],
        b"",
    );
    let untyped = encode_message(&[(":event-type", "x")], b"{}");
    let mut framing = EventStreamFraming::new();
    let mut out = Vec::new();
    framing.push(&exception, &mut out).unwrap();
    framing.push(&error, &mut out).unwrap();
    assert_eq!(
        out,
        [
            frame("exception throttlingException", r#"{"message":"slow"}"#),
            frame("error InternalFailure", "broke"),
        ]
    );
    let error = framing.push(&untyped, &mut out).unwrap_err();
    assert_eq!(error.0, "Unrecognizable event type: x");

    // A message with every header type: only the strings are kept.
    let mut headers = Vec::new();
    let mut add = |name: &str, kind: u8, value: &[u8]| {
        headers.push(u8::try_from(name.len()).unwrap());
        headers.extend_from_slice(name.as_bytes());
        headers.push(kind);
        headers.extend_from_slice(value);
    };
    add("t", 0, &[]);
    add("f", 1, &[]);
    add("b", 2, &[1]);
    add("s", 3, &[0, 1]);
    add("i", 4, &[0, 0, 0, 1]);
    add("l", 5, &[0; 8]);
    add("y", 6, &[0, 2, 0xff, 0xfe]);
    add("d", 8, &[0; 8]);
    add("u", 9, &[0; 16]);
    add(":message-type", 7, b"\x00\x05event");
    add(":event-type", 7, b"\x00\x08metadata");
    let total = 12 + headers.len() + 2 + 4;
    let mut bytes = Vec::new();
    bytes.extend_from_slice(&u32::try_from(total).unwrap().to_be_bytes());
    bytes.extend_from_slice(&u32::try_from(headers.len()).unwrap().to_be_bytes());
    let crc = crc32fast::hash(&bytes);
    bytes.extend_from_slice(&crc.to_be_bytes());
    bytes.extend_from_slice(&headers);
    bytes.extend_from_slice(b"{}");
    let crc = crc32fast::hash(&bytes);
    bytes.extend_from_slice(&crc.to_be_bytes());
    assert_eq!(frames_of(&bytes, 3).unwrap(), [frame("metadata", "{}")]);
    let message = decode_message(&bytes).unwrap();
    assert_eq!(message.headers().count(), 11);
    let strings: Vec<_> = message
        .headers()
        .filter(|(_, v)| matches!(v, HeaderValue::String(_)))
        .map(|(n, _)| n)
        .collect();
    assert_eq!(strings, [":message-type", ":event-type"]);
    assert_eq!(message.payload, b"{}");
}

#[test]
fn python_encoded_recordings_frame_as_their_text_form() {
    let dir = fixture("eventstream");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 10, "{names:?}");
    for name in names {
        let bytes = std::fs::read(dir.join(&name)).unwrap();
        let text = std::fs::read_to_string(
            fixture("sse/bedrock-converse-stream").join(name.replace(".bin", ".sse")),
        )
        .unwrap();
        let ours: Vec<u8> = pi_test_support::raw_frames(&text)
            .iter()
            .flat_map(|f| encode_frame(f))
            .collect();
        assert_eq!(
            ours, bytes,
            "{name}: the Rust test encoder writes what Python wrote"
        );
        let frames = frames_of(&bytes, 5).unwrap();
        let expected: Vec<SseFrame> = pi_test_support::parse_sse(&text)
            .into_iter()
            .map(|f| {
                if f.event.ends_with("Exception") {
                    frame(&format!("{EXCEPTION_PREFIX}{}", f.event), &f.data)
                } else {
                    f
                }
            })
            .collect();
        assert_eq!(frames, expected, "{name}");
    }
}

#[test]
fn feeding_hands_out_borrowed_frames_and_stops_at_a_break() {
    let body = [
        event("messageStart", r#"{"role":"assistant"}"#),
        event("contentBlockDelta", r#"{"delta":{"text":"a"}}"#),
        event("messageStop", r#"{"stopReason":"end_turn"}"#),
    ]
    .concat();
    for split in 0..=body.len() {
        let mut framing = EventStreamFraming::new();
        let mut seen = Vec::new();
        let mut flow = ControlFlow::Continue(());
        for piece in [&body[..split], &body[split..]] {
            flow = framing
                .feed(piece, &mut |frame| {
                    seen.push(frame.to_frame());
                    if frame.event == "contentBlockDelta" {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                })
                .unwrap();
            if flow.is_break() {
                break;
            }
        }
        assert!(flow.is_break(), "split at {split}");
        assert_eq!(
            seen,
            [
                frame("messageStart", r#"{"role":"assistant"}"#),
                frame("contentBlockDelta", r#"{"delta":{"text":"a"}}"#),
            ],
            "split at {split}"
        );
    }
}

/// A message whose headers are these raw bytes, then `{}`.
fn with_raw_headers(headers: &[u8]) -> Vec<u8> {
    let total = 12 + headers.len() + 2 + 4;
    let mut bytes = Vec::new();
    bytes.extend_from_slice(&u32::try_from(total).unwrap().to_be_bytes());
    bytes.extend_from_slice(&u32::try_from(headers.len()).unwrap().to_be_bytes());
    let crc = crc32fast::hash(&bytes);
    bytes.extend_from_slice(&crc.to_be_bytes());
    bytes.extend_from_slice(headers);
    bytes.extend_from_slice(b"{}");
    let crc = crc32fast::hash(&bytes);
    bytes.extend_from_slice(&crc.to_be_bytes());
    bytes
}

fn string_header(name: &[u8], value: &[u8]) -> Vec<u8> {
    let mut out = vec![u8::try_from(name.len()).unwrap()];
    out.extend_from_slice(name);
    out.push(7);
    out.extend_from_slice(&u16::try_from(value.len()).unwrap().to_be_bytes());
    out.extend_from_slice(value);
    out
}

#[test]
fn header_names_and_string_values_must_be_utf8() {
    let good = [
        string_header(b":message-type", b"event"),
        string_header(b":event-type", "d\u{e9}j\u{e0}".as_bytes()),
        string_header("na\u{ef}ve".as_bytes(), "caf\u{e9}".as_bytes()),
    ]
    .concat();
    assert_eq!(
        frames_of(&with_raw_headers(&good), 5).unwrap(),
        [frame("d\u{e9}j\u{e0}", "{}")]
    );
    let cases = [
        (
            string_header(b":mess\xffage", b"event"),
            "Event stream header name is not UTF-8",
        ),
        (
            string_header(b":event-type", b"bad\xff"),
            "Event stream header :event-type is not UTF-8",
        ),
        (
            string_header(b":content-type", b"bad\xc3"),
            "Event stream header :content-type is not UTF-8",
        ),
    ];
    for (header, expected) in cases {
        let headers = [string_header(b":message-type", b"event"), header].concat();
        let error = frames_of(&with_raw_headers(&headers), 4).unwrap_err();
        assert_eq!(error.0, expected);
        let error = decode_message(&with_raw_headers(&headers)).unwrap_err();
        assert_eq!(error.0, expected);
    }
}
