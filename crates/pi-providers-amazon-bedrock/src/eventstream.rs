//! The AWS event-stream binary framing (`application/vnd.amazon.eventstream`)
//! of a ConverseStream body, cut incrementally across arbitrary chunk
//! boundaries. Each message is a 12-byte prelude (total length, headers
//! length, CRC32 of the first 8 bytes), typed headers, a payload and a CRC32
//! of everything before it; both checksums are verified, with the AWS SDK's
//! wording when they do not match.
//!
//! A message reaches the decoder as a [`pi_http::SseFrame`]: an `event`
//! message as its `:event-type` with the payload as `data`; an `exception`
//! message as [`EXCEPTION_PREFIX`] + its `:exception-type`; an `error`
//! message as [`ERROR_PREFIX`] + its `:error-code`, with `:error-message`
//! as `data`.

use pi_http::{BodyFraming, FramingError, SseFrame};

/// Bytes before the headers: total length, headers length, prelude CRC.
const PRELUDE_LEN: usize = 12;
/// Prelude plus the trailing message CRC: the smallest message.
const MIN_MESSAGE_LEN: usize = PRELUDE_LEN + 4;
/// The largest message the framing accepts (AWS's event-stream limit).
pub const MAX_MESSAGE_LEN: usize = 16 * 1024 * 1024;
/// The largest headers section (AWS's limit).
const MAX_HEADERS_LEN: usize = 128 * 1024;

/// The frame event name of an exception message, before its type.
pub const EXCEPTION_PREFIX: &str = "exception ";
/// The frame event name of an error message, before its code.
pub const ERROR_PREFIX: &str = "error ";

/// The event-stream framing of one response.
#[derive(Debug, Default)]
pub struct EventStreamFraming {
    buffer: Vec<u8>,
    /// Bytes of `buffer` already framed.
    start: usize,
    /// The total length of the message at `start`, once its prelude is checked.
    pending: Option<usize>,
}

impl EventStreamFraming {
    /// A framing with nothing buffered.
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes of an unfinished message still held.
    pub fn buffered(&self) -> usize {
        self.buffer.len() - self.start
    }

    fn next_message(&mut self) -> Result<Option<(usize, usize)>, FramingError> {
        let available = &self.buffer[self.start..];
        let total = match self.pending {
            Some(total) => total,
            None => {
                if available.len() < PRELUDE_LEN {
                    return Ok(None);
                }
                let total = read_u32(available, 0) as usize;
                let headers = read_u32(available, 4) as usize;
                let expected = read_u32(available, 8);
                let actual = crc32fast::hash(&available[..8]);
                if expected != actual {
                    return Err(FramingError(format!(
                        "The prelude checksum specified in the message ({expected}) does not match the calculated CRC32 checksum ({actual})"
                    )));
                }
                if !(MIN_MESSAGE_LEN..=MAX_MESSAGE_LEN).contains(&total) {
                    return Err(FramingError(format!(
                        "Event stream message length {total} is outside 16..={MAX_MESSAGE_LEN} bytes"
                    )));
                }
                if headers > MAX_HEADERS_LEN || headers > total - MIN_MESSAGE_LEN {
                    return Err(FramingError(format!(
                        "Event stream headers length {headers} does not fit a message of {total} bytes"
                    )));
                }
                self.pending = Some(total);
                total
            }
        };
        if available.len() < total {
            return Ok(None);
        }
        self.pending = None;
        let at = self.start;
        self.start += total;
        Ok(Some((at, total)))
    }
}

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// One decoded message, borrowed from the framing's buffer: its headers
/// block (validated) and its payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventMessage<'a> {
    headers: &'a [u8],
    /// The payload.
    pub payload: &'a [u8],
}

/// A header value: strings are read, other types only skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderValue<'a> {
    /// A string (type 7).
    String(&'a str),
    /// Any other type.
    Other,
}

impl<'a> EventMessage<'a> {
    /// The headers in order (names and values as sent).
    pub fn headers(&self) -> impl Iterator<Item = (&'a str, HeaderValue<'a>)> + 'a {
        let mut rest = self.headers;
        std::iter::from_fn(move || match next_header(rest) {
            Ok(Some((name, value, after))) => {
                rest = after;
                Some((name, value))
            }
            _ => None,
        })
    }

    /// The string header `name`.
    pub fn header(&self, name: &str) -> Option<&'a str> {
        self.headers().find_map(|(n, value)| match value {
            HeaderValue::String(text) if n == name => Some(text),
            _ => None,
        })
    }
}

/// Decodes one complete message (`bytes` is exactly its total length, its
/// prelude already checked): verifies the message CRC and the headers.
pub fn decode_message(bytes: &[u8]) -> Result<EventMessage<'_>, FramingError> {
    let total = bytes.len();
    if total < MIN_MESSAGE_LEN {
        return Err(FramingError(format!(
            "Event stream message length {total} is outside 16..={MAX_MESSAGE_LEN} bytes"
        )));
    }
    let expected = read_u32(bytes, total - 4);
    let actual = crc32fast::hash(&bytes[..total - 4]);
    if expected != actual {
        return Err(FramingError(format!(
            "The message checksum ({actual}) did not match the expected value of {expected}"
        )));
    }
    let headers_len = read_u32(bytes, 4) as usize;
    let headers = bytes
        .get(PRELUDE_LEN..PRELUDE_LEN + headers_len)
        .filter(|_| PRELUDE_LEN + headers_len <= total - 4)
        .ok_or_else(truncated)?;
    let mut rest = headers;
    while let Some((_, _, after)) = next_header(rest)? {
        rest = after;
    }
    Ok(EventMessage {
        headers,
        payload: &bytes[PRELUDE_LEN + headers_len..total - 4],
    })
}

fn truncated() -> FramingError {
    FramingError("Event stream message headers are truncated".to_owned())
}

type Header<'a> = (&'a str, HeaderValue<'a>, &'a [u8]);

/// The header at the start of `bytes` and what follows it; `None` at the end.
fn next_header(bytes: &[u8]) -> Result<Option<Header<'_>>, FramingError> {
    let Some((&name_len, rest)) = bytes.split_first() else {
        return Ok(None);
    };
    let name_len = usize::from(name_len);
    let name = rest.get(..name_len).ok_or_else(truncated)?;
    let name = std::str::from_utf8(name)
        .map_err(|_| FramingError("Event stream header name is not UTF-8".to_owned()))?;
    let (&kind, rest) = rest[name_len..].split_first().ok_or_else(truncated)?;
    let fixed = match kind {
        0 | 1 => 0,
        2 => 1,
        3 => 2,
        4 => 4,
        5 | 8 => 8,
        9 => 16,
        6 | 7 => {
            let len_bytes = rest.get(..2).ok_or_else(truncated)?;
            let len = usize::from(u16::from_be_bytes([len_bytes[0], len_bytes[1]]));
            let value = rest.get(2..2 + len).ok_or_else(truncated)?;
            let value = if kind == 7 {
                HeaderValue::String(std::str::from_utf8(value).map_err(|_| {
                    FramingError(format!("Event stream header {name} is not UTF-8"))
                })?)
            } else {
                HeaderValue::Other
            };
            return Ok(Some((name, value, &rest[2 + len..])));
        }
        other => {
            return Err(FramingError(format!(
                "Unrecognized header type tag {other}"
            )));
        }
    };
    let after = rest.get(fixed..).ok_or_else(truncated)?;
    Ok(Some((name, HeaderValue::Other, after)))
}

/// The frame a message reaches the decoder as (see the module docs).
pub fn to_frame(message: EventMessage<'_>) -> Result<SseFrame, FramingError> {
    let kind = message.header(":message-type").unwrap_or_default();
    let (event, data) = match kind {
        "event" => (
            message.header(":event-type").unwrap_or_default().to_owned(),
            message.payload,
        ),
        "exception" => (
            format!(
                "{EXCEPTION_PREFIX}{}",
                message.header(":exception-type").unwrap_or_default()
            ),
            message.payload,
        ),
        "error" => (
            format!(
                "{ERROR_PREFIX}{}",
                message.header(":error-code").unwrap_or_default()
            ),
            message
                .header(":error-message")
                .unwrap_or_default()
                .as_bytes(),
        ),
        _ => {
            return Err(FramingError(format!(
                "Unrecognizable event type: {}",
                message.header(":event-type").unwrap_or("undefined")
            )));
        }
    };
    let data = std::str::from_utf8(data)
        .map_err(|_| FramingError(format!("The payload of event {event} is not UTF-8")))?;
    Ok(SseFrame {
        event,
        data: data.to_owned(),
    })
}

impl BodyFraming for EventStreamFraming {
    fn accepts_content_type(&self, content_type: &str) -> bool {
        content_type.contains("application/vnd.amazon.eventstream")
    }

    fn push(&mut self, chunk: &[u8], out: &mut Vec<SseFrame>) -> Result<(), FramingError> {
        self.buffer.extend_from_slice(chunk);
        let result = loop {
            match self.next_message() {
                Ok(Some((at, total))) => {
                    let message = decode_message(&self.buffer[at..at + total]);
                    match message.and_then(to_frame) {
                        Ok(frame) => out.push(frame),
                        Err(error) => break Err(error),
                    }
                }
                Ok(None) => break Ok(()),
                Err(error) => break Err(error),
            }
        };
        // Keep only the unfinished message, so the buffer stays as small as one message.
        if self.start > 0 {
            self.buffer.drain(..self.start);
            self.start = 0;
        }
        result
    }

    fn finish(&mut self) -> Result<(), FramingError> {
        if self.buffered() == 0 {
            Ok(())
        } else {
            Err(FramingError("Truncated event message received.".to_owned()))
        }
    }
}

#[cfg(test)]
#[path = "eventstream_tests.rs"]
mod tests;
