//! AWS event-stream bodies for wires that are not SSE (Amazon Bedrock):
//! recorded answers stay readable SSE text (`event: <type>` / `data:
//! <JSON>`), and [`encode_frame`] turns each frame into the binary message
//! the service sends. A test binary of such a wire calls
//! [`crate::mock_server::use_stream_encoding`] with [`AWS_EVENT_STREAM`]
//! once, and the mock server then writes every streamed answer this way.

use crate::mock_server::StreamEncoding;
use crate::sse::parse_sse;

/// The event-stream encoding of streamed answers.
pub const AWS_EVENT_STREAM: StreamEncoding = StreamEncoding {
    content_type: "application/vnd.amazon.eventstream",
    encode: encode_frame,
};

/// One raw SSE frame as an event-stream message: `event: X` becomes an
/// `exception` message of type `X` when `X` ends in `Exception` (AWS names
/// every exception so), else an `event` message of type `X`; the `data`
/// is the payload. A frame without an event (comments, blank) is nothing.
pub fn encode_frame(raw: &str) -> Vec<u8> {
    parse_sse(raw)
        .into_iter()
        .flat_map(|frame| {
            let headers: [(&str, &str); 3] = if frame.event.ends_with("Exception") {
                [
                    (":exception-type", &frame.event),
                    (":content-type", "application/json"),
                    (":message-type", "exception"),
                ]
            } else {
                [
                    (":event-type", &frame.event),
                    (":content-type", "application/json"),
                    (":message-type", "event"),
                ]
            };
            encode_message(&headers, frame.data.as_bytes())
        })
        .collect()
}

/// One event-stream message with string headers: prelude (total length,
/// headers length, their CRC32), headers, payload, CRC32 of all before.
pub fn encode_message(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
    let mut head = Vec::new();
    for (name, value) in headers {
        head.push(u8::try_from(name.len()).unwrap());
        head.extend_from_slice(name.as_bytes());
        head.push(7);
        head.extend_from_slice(&u16::try_from(value.len()).unwrap().to_be_bytes());
        head.extend_from_slice(value.as_bytes());
    }
    let total = 12 + head.len() + payload.len() + 4;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&u32::try_from(total).unwrap().to_be_bytes());
    out.extend_from_slice(&u32::try_from(head.len()).unwrap().to_be_bytes());
    let prelude_crc = crc32fast::hash(&out);
    out.extend_from_slice(&prelude_crc.to_be_bytes());
    out.extend_from_slice(&head);
    out.extend_from_slice(payload);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_be_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_has_its_lengths_and_checksums() {
        let bytes = encode_frame("event: messageStart\ndata: {\"role\":\"assistant\"}\n\n");
        let total = u32::from_be_bytes(bytes[..4].try_into().unwrap()) as usize;
        assert_eq!(total, bytes.len());
        let prelude_crc = u32::from_be_bytes(bytes[8..12].try_into().unwrap());
        assert_eq!(prelude_crc, crc32fast::hash(&bytes[..8]));
        let crc = u32::from_be_bytes(bytes[total - 4..].try_into().unwrap());
        assert_eq!(crc, crc32fast::hash(&bytes[..total - 4]));
        assert!(bytes.windows(12).any(|w| w == b"messageStart"));
        assert!(encode_frame(": comment\n\n").is_empty());
    }

    #[test]
    fn exceptions_are_exception_messages() {
        let bytes = encode_frame("event: throttlingException\ndata: {}\n\n");
        assert!(bytes.windows(15).any(|w| w == b":exception-type"));
        assert!(bytes.windows(9).any(|w| w == b"exception"));
    }
}
