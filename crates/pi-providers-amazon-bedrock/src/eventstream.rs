//! The AWS event-stream binary framing (`application/vnd.amazon.eventstream`)
//! of a ConverseStream body, cut incrementally across arbitrary chunk
//! boundaries. Each message is a 12-byte prelude (total length, headers
//! length, CRC32 of the first 8 bytes), typed headers, a payload and a CRC32
//! of everything before it; both checksums are verified, with the AWS SDK's
//! wording when they do not match.
//!
//! A message reaches the decoder as a frame (borrowed from the message, a
//! [`pi_http::SseFrameRef`], through [`BodyFraming::feed`]; owned through
//! [`BodyFraming::push`]): an `event` message as its `:event-type` with the
//! payload as `data`; an `exception` message as [`EXCEPTION_PREFIX`] + its
//! `:exception-type`; an `error` message as [`ERROR_PREFIX`] + its
//! `:error-code`, with `:error-message` as `data`.

use std::ops::ControlFlow;

use pi_http::{BodyFraming, FramingError, SseFrame, SseFrameRef};

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

/// The event-stream framing of one response. Messages that lie whole in a
/// chunk are decoded in place; only a message cut by a chunk boundary is
/// copied (into `held`, until its last byte arrives), so memory stays
/// bounded by one message.
#[derive(Debug, Default)]
pub struct EventStreamFraming {
    /// The start of a message cut by a chunk boundary (empty between messages).
    held: Vec<u8>,
}

/// Where [`BodyFraming::feed`] hands each frame.
type OnFrame<'f> = dyn FnMut(SseFrameRef<'_>) -> ControlFlow<()> + 'f;

impl EventStreamFraming {
    /// A framing with nothing buffered.
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes of an unfinished message still held.
    pub fn buffered(&self) -> usize {
        self.held.len()
    }

    /// Completes the held message with the start of `chunk` and hands it
    /// out once whole; the rest of `chunk`.
    fn complete_held<'c>(
        &mut self,
        mut chunk: &'c [u8],
        on_frame: &mut OnFrame<'_>,
    ) -> Result<(ControlFlow<()>, &'c [u8]), FramingError> {
        let mut take = |held: &mut Vec<u8>, upto: usize| {
            let n = upto.saturating_sub(held.len()).min(chunk.len());
            held.extend_from_slice(&chunk[..n]);
            chunk = &chunk[n..];
            held.len() >= upto
        };
        if !take(&mut self.held, PRELUDE_LEN) {
            return Ok((ControlFlow::Continue(()), chunk));
        }
        let total = message_length(&self.held)?;
        if !take(&mut self.held, total) {
            return Ok((ControlFlow::Continue(()), chunk));
        }
        let flow = hand_out(&self.held, on_frame)?;
        self.held.clear();
        Ok((flow, chunk))
    }
}

/// The checked total length of the message whose prelude starts `bytes`
/// (at least [`PRELUDE_LEN`] bytes).
fn message_length(bytes: &[u8]) -> Result<usize, FramingError> {
    let total = read_u32(bytes, 0) as usize;
    let headers = read_u32(bytes, 4) as usize;
    let expected = read_u32(bytes, 8);
    let actual = crc32fast::hash(&bytes[..8]);
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
    Ok(total)
}

/// Hands out every whole message at the start of `bytes`, in place; the
/// bytes they took (what follows is the start of an unfinished message).
fn cut(bytes: &[u8], on_frame: &mut OnFrame<'_>) -> Result<(ControlFlow<()>, usize), FramingError> {
    let mut at = 0;
    while bytes.len() - at >= PRELUDE_LEN {
        let total = message_length(&bytes[at..])?;
        let Some(message) = bytes.get(at..at + total) else {
            break;
        };
        at += total;
        if hand_out(message, on_frame)?.is_break() {
            return Ok((ControlFlow::Break(()), at));
        }
    }
    Ok((ControlFlow::Continue(()), at))
}

/// Decodes one whole message and hands its frame to `on_frame`.
fn hand_out(message: &[u8], on_frame: &mut OnFrame<'_>) -> Result<ControlFlow<()>, FramingError> {
    with_frame(decode_message(message)?, on_frame)
}

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// One decoded message, borrowed from the body chunk (or the framing's
/// buffer): its headers block (validated) and its payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventMessage<'a> {
    headers: &'a [u8],
    /// The headers the framing reads, found while validating.
    known: Known<'a>,
    /// The payload.
    pub payload: &'a [u8],
}

/// The string headers that make a message's frame (the first of each name).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Known<'a> {
    message_type: Option<&'a str>,
    event_type: Option<&'a str>,
    exception_type: Option<&'a str>,
    error_code: Option<&'a str>,
    error_message: Option<&'a str>,
}

impl<'a> Known<'a> {
    /// Where the string header `name` goes, if the framing reads it.
    fn slot(&mut self, name: &[u8]) -> Option<&mut Option<&'a str>> {
        Some(match name {
            b":message-type" => &mut self.message_type,
            b":event-type" => &mut self.event_type,
            b":exception-type" => &mut self.exception_type,
            b":error-code" => &mut self.error_code,
            b":error-message" => &mut self.error_message,
            _ => return None,
        })
    }
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
    let mut known = Known::default();
    while let Some((header, after)) = next_raw(rest)? {
        if header.kind == STRING {
            match known.slot(header.name) {
                Some(slot @ None) => *slot = Some(header.string()?),
                _ => header.check_string()?,
            }
        }
        rest = after;
    }
    Ok(EventMessage {
        headers,
        known,
        payload: &bytes[PRELUDE_LEN + headers_len..total - 4],
    })
}

fn truncated() -> FramingError {
    FramingError("Event stream message headers are truncated".to_owned())
}

type Header<'a> = (&'a str, HeaderValue<'a>, &'a [u8]);

/// The type tag of a string header.
const STRING: u8 = 7;

/// One header as sent: its name (checked to be UTF-8), its type tag, and
/// the value bytes of a string or byte-array header (not yet checked).
struct RawHeader<'a> {
    name: &'a [u8],
    kind: u8,
    value: &'a [u8],
}

impl<'a> RawHeader<'a> {
    fn not_utf8(&self) -> FramingError {
        let name = std::str::from_utf8(self.name).unwrap_or_default();
        FramingError(format!("Event stream header {name} is not UTF-8"))
    }

    /// The value of a string header.
    fn string(&self) -> Result<&'a str, FramingError> {
        std::str::from_utf8(self.value).map_err(|_| self.not_utf8())
    }

    /// Checks the value of a string header the framing does not read.
    fn check_string(&self) -> Result<(), FramingError> {
        if utf8(self.value) {
            Ok(())
        } else {
            Err(self.not_utf8())
        }
    }
}

/// Whether `bytes` are UTF-8 (ASCII, the usual case, checked first).
fn utf8(bytes: &[u8]) -> bool {
    bytes.is_ascii() || std::str::from_utf8(bytes).is_ok()
}

/// The header at the start of `bytes` and what follows it; `None` at the end.
fn next_header(bytes: &[u8]) -> Result<Option<Header<'_>>, FramingError> {
    let Some((header, after)) = next_raw(bytes)? else {
        return Ok(None);
    };
    let name = std::str::from_utf8(header.name).map_err(|_| name_not_utf8())?;
    let value = if header.kind == STRING {
        HeaderValue::String(header.string()?)
    } else {
        HeaderValue::Other
    };
    Ok(Some((name, value, after)))
}

fn name_not_utf8() -> FramingError {
    FramingError("Event stream header name is not UTF-8".to_owned())
}

/// [`next_header`] up to the UTF-8 check of a string value, which is left
/// to the caller (the last check of a header, so errors come in the same
/// order).
fn next_raw(bytes: &[u8]) -> Result<Option<(RawHeader<'_>, &[u8])>, FramingError> {
    let Some((&name_len, rest)) = bytes.split_first() else {
        return Ok(None);
    };
    let name_len = usize::from(name_len);
    let name = rest.get(..name_len).ok_or_else(truncated)?;
    if !utf8(name) {
        return Err(name_not_utf8());
    }
    let (&kind, rest) = rest[name_len..].split_first().ok_or_else(truncated)?;
    let fixed = match kind {
        0 | 1 => 0,
        2 => 1,
        3 => 2,
        4 => 4,
        5 | 8 => 8,
        9 => 16,
        6 | STRING => {
            let len_bytes = rest.get(..2).ok_or_else(truncated)?;
            let len = usize::from(u16::from_be_bytes([len_bytes[0], len_bytes[1]]));
            let value = rest.get(2..2 + len).ok_or_else(truncated)?;
            let header = RawHeader { name, kind, value };
            return Ok(Some((header, &rest[2 + len..])));
        }
        other => {
            return Err(FramingError(format!(
                "Unrecognized header type tag {other}"
            )));
        }
    };
    let after = rest.get(fixed..).ok_or_else(truncated)?;
    let header = RawHeader {
        name,
        kind,
        value: &[],
    };
    Ok(Some((header, after)))
}

/// The frame a message reaches the decoder as (see the module docs).
pub fn to_frame(message: EventMessage<'_>) -> Result<SseFrame, FramingError> {
    with_frame(message, |frame| frame.to_frame())
}

/// Hands `message`'s frame (see the module docs) to `on_frame`, borrowed
/// from the message except for an exception's or error's event name.
fn with_frame<R>(
    message: EventMessage<'_>,
    on_frame: impl FnOnce(SseFrameRef<'_>) -> R,
) -> Result<R, FramingError> {
    let known = message.known;
    let named: String;
    let (event, data): (&str, &[u8]) = match known.message_type.unwrap_or_default() {
        "event" => (known.event_type.unwrap_or_default(), message.payload),
        "exception" => {
            named = format!(
                "{EXCEPTION_PREFIX}{}",
                known.exception_type.unwrap_or_default()
            );
            (&named, message.payload)
        }
        "error" => {
            named = format!("{ERROR_PREFIX}{}", known.error_code.unwrap_or_default());
            (&named, known.error_message.unwrap_or_default().as_bytes())
        }
        _ => {
            return Err(FramingError(format!(
                "Unrecognizable event type: {}",
                known.event_type.unwrap_or("undefined")
            )));
        }
    };
    let data = std::str::from_utf8(data)
        .map_err(|_| FramingError(format!("The payload of event {event} is not UTF-8")))?;
    Ok(on_frame(SseFrameRef { event, data }))
}

impl BodyFraming for EventStreamFraming {
    fn accepts_content_type(&self, content_type: &str) -> bool {
        content_type.contains("application/vnd.amazon.eventstream")
    }

    fn push(&mut self, chunk: &[u8], out: &mut Vec<SseFrame>) -> Result<(), FramingError> {
        self.feed(chunk, &mut |frame| {
            out.push(frame.to_frame());
            ControlFlow::Continue(())
        })
        .map(drop)
    }

    fn feed(
        &mut self,
        chunk: &[u8],
        on_frame: &mut OnFrame<'_>,
    ) -> Result<ControlFlow<()>, FramingError> {
        let mut rest = chunk;
        if !self.held.is_empty() {
            let (flow, after) = self.complete_held(rest, on_frame)?;
            if flow.is_break() || !self.held.is_empty() {
                return Ok(flow);
            }
            rest = after;
        }
        let (flow, used) = cut(rest, on_frame)?;
        if flow.is_continue() {
            self.held.extend_from_slice(&rest[used..]);
        }
        Ok(flow)
    }

    fn finish(&mut self) -> Result<(), FramingError> {
        if self.held.is_empty() {
            Ok(())
        } else {
            Err(FramingError("Truncated event message received.".to_owned()))
        }
    }
}

#[cfg(test)]
#[path = "eventstream_tests.rs"]
mod tests;
