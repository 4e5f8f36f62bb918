//! The generic SSE call every provider uses: POST with retries, then feed
//! each SSE frame to the provider's decoder, turning every transport failure
//! into the stream's `error` event. The decoder owns the wire format; this
//! file owns everything else.

use std::ops::ControlFlow;
use std::pin::pin;
use std::time::Duration;

use futures::StreamExt;
use pi_ai::{
    ABORTED_MESSAGE, AssistantMessage, AssistantMessageEventStream, CancellationToken, DoneReason,
    ErrorReason, EventSink, ResponseHook, StreamOptions,
};

use crate::framing::{BodyFraming, FramingError};
use crate::{
    DEFAULT_FIRST_BYTE_TIMEOUT, DEFAULT_IDLE_TIMEOUT, ErrorClass, HttpClient, HttpError,
    HttpRequest, RetryPolicy, SseFrame, SseFrameRef, SseParser,
};

/// How a decoder ends the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamEnd {
    /// Success with this reason.
    Done(DoneReason),
    /// Failure reported by the provider inside the stream (e.g. an `error` event).
    Error(String),
}

/// A frame a wire could not decode (invalid JSON, an unexpected event): the
/// stream ends with its text as the failed message's `errorMessage`, worded
/// as pi words it, keeping the content decoded so far.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct DecodeError {
    message: String,
}

impl DecodeError {
    /// The error with this `errorMessage` text.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The `errorMessage` text.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The `errorMessage` text, owned.
    pub fn into_message(self) -> String {
        self.message
    }
}

impl From<String> for DecodeError {
    fn from(message: String) -> Self {
        Self { message }
    }
}

impl From<&str> for DecodeError {
    fn from(message: &str) -> Self {
        Self::new(message)
    }
}

/// A wire format's stream decoder: turns SSE frames into sink calls.
pub trait SseDecoder: Send + 'static {
    /// Applies one frame, borrowed from the body as the transport hands
    /// them out (no copy of the event; an owned [`SseFrame`] lends one with
    /// [`SseFrame::as_frame_ref`]). `Ok(Some(end))` ends the stream; an
    /// error ends it with that error (invalid JSON, an unexpected event),
    /// keeping the content decoded so far.
    fn frame(
        &mut self,
        frame: SseFrameRef<'_>,
        sink: &mut EventSink,
    ) -> Result<Option<StreamEnd>, DecodeError>;

    /// The body ended without a terminal frame. Wires where that is normal
    /// return `Done`; the others return an error naming what was missing.
    fn end_of_stream(&mut self, sink: &mut EventSink) -> StreamEnd;

    /// The `errorMessage` of an HTTP error answer, as the provider's own
    /// client library words it. The default is [`crate::status_error_message`]
    /// (the OpenAI client's `"<status> <error.message>"`).
    fn http_error_message(&self, status: u16, body: &str) -> String {
        crate::status_error_message(status, body)
    }

    /// As [`SseDecoder::http_error_message`], for clients that also read the
    /// response headers (the AWS SDK names the error in `x-amzn-errortype`);
    /// `headers` have lower-case names. The default ignores them.
    fn http_error_text(&self, status: u16, headers: &[(String, String)], body: &str) -> String {
        let _ = headers;
        self.http_error_message(status, body)
    }

    /// Whether a cancelled call ends its open text and thinking blocks
    /// before the `aborted` error (see [`EventSink::end_blocks_on_abort`]).
    fn ends_blocks_on_abort(&self) -> bool {
        false
    }
}

/// Everything about one HTTP call except the wire format.
#[derive(Debug, Clone)]
pub struct SseCall {
    /// The request to POST.
    pub request: HttpRequest,
    /// Retries before the stream starts.
    pub policy: RetryPolicy,
    /// Longest wait for the response headers.
    pub first_byte_timeout: Duration,
    /// Longest silence allowed between frames.
    pub idle_timeout: Duration,
    /// Called on each HTTP answer (every attempt, error statuses too) once
    /// its status and headers arrive, before its body is read; awaited.
    pub on_response: Option<ResponseHook>,
}

impl SseCall {
    /// A call with the timeouts of `options` (defaults when unset) and
    /// [`RetryPolicy::for_options`].
    pub fn new(request: HttpRequest, options: &StreamOptions) -> Self {
        Self {
            request,
            policy: RetryPolicy::for_options(options),
            first_byte_timeout: options.timeout.unwrap_or(DEFAULT_FIRST_BYTE_TIMEOUT),
            idle_timeout: options.idle_timeout.unwrap_or(DEFAULT_IDLE_TIMEOUT),
            on_response: options.on_response.clone(),
        }
    }
}

/// Runs `call` and decodes its SSE body with `decoder` into an event stream
/// that starts from `initial`. `start` is emitted once the response status
/// is a success, as pi does (a request that fails yields only `error`).
/// Failures end the stream with a message carrying their
/// [`pi_ai::ErrorClass`]: HTTP errors worded by
/// [`SseDecoder::http_error_message`] (the provider client's wording, which
/// pi shows), transport errors in this crate's words after the provider's
/// name (`"openai: Connection error: ..."`); cancellation ends with `aborted`.
pub fn stream_sse<D: SseDecoder>(
    initial: AssistantMessage,
    call: SseCall,
    cancel: CancellationToken,
    decoder: D,
) -> AssistantMessageEventStream {
    stream_framed(initial, call, None, cancel, decoder)
}

/// [`stream_sse`] for a body cut by `framing` (SSE when `None`): the same
/// call, errors and decoder loop, with the framing's content-type check.
pub fn stream_framed<D: SseDecoder>(
    initial: AssistantMessage,
    call: SseCall,
    framing: Option<Box<dyn BodyFraming>>,
    cancel: CancellationToken,
    decoder: D,
) -> AssistantMessageEventStream {
    AssistantMessageEventStream::new(initial, cancel.clone(), move |sink| {
        drive_framed(sink, call, framing, cancel, decoder)
    })
}

/// The body of [`stream_sse`] for a producer that already holds the sink
/// (a transport that may hand a call over to SSE, as Codex's WebSocket
/// does, inside its own [`AssistantMessageEventStream::new`] producer).
pub fn drive_sse<D: SseDecoder>(
    sink: EventSink,
    call: SseCall,
    cancel: CancellationToken,
    decoder: D,
) -> impl std::future::Future<Output = ()> + Send + 'static {
    drive_framed(sink, call, None, cancel, decoder)
}

/// [`drive_sse`] for a body cut by `framing` (SSE when `None`).
pub fn drive_framed<D: SseDecoder>(
    mut sink: EventSink,
    call: SseCall,
    framing: Option<Box<dyn BodyFraming>>,
    cancel: CancellationToken,
    mut decoder: D,
) -> impl std::future::Future<Output = ()> + Send + 'static {
    let provider = sink.partial().lock().provider.to_string();
    async move {
        if decoder.ends_blocks_on_abort() {
            sink.end_blocks_on_abort();
        }
        let client = match HttpClient::shared() {
            Ok(client) => client,
            Err(error) => return fail(sink, &provider, &decoder, error),
        };
        let SseCall {
            request,
            policy,
            first_byte_timeout,
            idle_timeout,
            on_response,
        } = call;
        let response = client
            .post_with(
                &request,
                &policy,
                first_byte_timeout,
                &cancel,
                on_response.as_ref(),
            )
            .await;
        // Retries end with the response: the body (as large as the
        // transcript's JSON) is not kept while the answer streams.
        drop(request);
        let response = match response {
            Ok(response) => response,
            Err(error) => return fail(sink, &provider, &decoder, error),
        };
        let accepts = |content_type: &str| match &framing {
            None => content_type.contains("event-stream"),
            Some(framing) => framing.accepts_content_type(content_type),
        };
        let checked = not_an_event_stream(response, first_byte_timeout, accepts).await;
        let response = match checked {
            Ok(response) => response,
            Err(error) => {
                return sink.error_with_class(ErrorClass::InvalidResponse, named(&provider, error));
            }
        };
        // As pi: the stream starts once the provider has accepted the request.
        sink.start();
        let framer = Framer::new(framing);
        let body = decode_body(response, idle_timeout, &cancel, framer, &mut decoder, sink).await;
        end_body(body, &provider, &mut decoder);
    }
}

/// Ends the stream once the body has been read: a transport failure, no
/// frame at all, or the decoder's [`SseDecoder::end_of_stream`].
fn end_body<D: SseDecoder>(body: Body, provider: &str, decoder: &mut D) {
    let (seen, mut sink) = match body {
        Body::Ended(seen, sink) => (seen, sink),
        Body::Decoded => return,
        Body::Failed(sink, error) => return fail(sink, provider, decoder, error),
    };
    if seen == 0 {
        let text = named(provider, EMPTY_STREAM_MESSAGE);
        return sink.error_with_class(ErrorClass::InvalidResponse, text);
    }
    let end = decoder.end_of_stream(&mut sink);
    finish(sink, end);
}

/// Decodes a recorded body, `chunks` as they arrived, exactly as
/// [`stream_framed`] decodes a live one after a success status (cut by
/// `framing`, SSE when `None`; `start`, each frame borrowed from its chunk,
/// then the end of the body), with no HTTP involved: for benchmarks of
/// framing and decoding together, fuzzing and fixture tests.
pub fn replay_body<D: SseDecoder>(
    initial: AssistantMessage,
    chunks: Vec<bytes::Bytes>,
    framing: Option<Box<dyn BodyFraming>>,
    mut decoder: D,
) -> AssistantMessageEventStream {
    let provider = initial.provider.to_string();
    AssistantMessageEventStream::new(initial, CancellationToken::new(), move |sink| async move {
        let mut sink = sink;
        sink.start();
        let mut framer = Framer::new(framing);
        let mut seen = 0usize;
        let body = 'read: {
            for chunk in &chunks {
                match framer.take(chunk, &mut decoder, &mut sink, &mut seen) {
                    Chunk::Fed => {}
                    Chunk::Ended(outcome) => {
                        end_decoded(sink, outcome);
                        break 'read Body::Decoded;
                    }
                    Chunk::Bad(text) => break 'read Body::Failed(sink, HttpError::Stream(text)),
                }
                // As a live body waits for its next read: the consumer takes
                // this chunk's events before the next chunk is decoded.
                tokio::task::yield_now().await;
            }
            match framer.finish() {
                Ok(()) => Body::Ended(seen, sink),
                Err(FramingError(text)) => Body::Failed(sink, HttpError::Stream(text)),
            }
        };
        end_body(body, &provider, &mut decoder);
    })
}

/// Decodes recorded `frames` with `decoder` exactly as [`stream_sse`] decodes
/// a live body after a success status (`start`, each frame, then
/// [`SseDecoder::end_of_stream`] if no frame ended the stream), with no HTTP
/// involved: for benchmarks, fuzzing and fixture tests.
pub fn replay_sse<D: SseDecoder>(
    initial: AssistantMessage,
    frames: Vec<SseFrame>,
    mut decoder: D,
) -> AssistantMessageEventStream {
    AssistantMessageEventStream::new(initial, CancellationToken::new(), move |sink| async move {
        let mut sink = sink;
        sink.start();
        for frame in &frames {
            match apply(&mut decoder, frame.as_frame_ref(), sink) {
                Some(live) => sink = live,
                None => return,
            }
        }
        let end = decoder.end_of_stream(&mut sink);
        finish(sink, end);
    })
}

/// Ends the stream with a transport failure and its class.
fn fail<D: SseDecoder>(sink: EventSink, provider: &str, decoder: &D, error: HttpError) {
    match error {
        HttpError::Aborted => sink.error(ErrorReason::Aborted, ABORTED_MESSAGE),
        HttpError::Status {
            status,
            ref body,
            ref headers,
            ..
        } => {
            let message = decoder.http_error_text(status, headers, body);
            sink.error_with_class(error.class(), message);
        }
        error => sink.error_with_class(error.class(), named(provider, &error)),
    }
}

/// Feeds one frame; the sink back while the stream goes on.
fn apply<D: SseDecoder>(
    decoder: &mut D,
    frame: SseFrameRef<'_>,
    mut sink: EventSink,
) -> Option<EventSink> {
    match decoder.frame(frame, &mut sink) {
        Ok(None) => Some(sink),
        Ok(Some(end)) => {
            end_decoded(sink, Ok(end));
            None
        }
        Err(error) => {
            end_decoded(sink, Err(error));
            None
        }
    }
}

/// Ends the stream as a decoder said: its end, or its decode error.
fn end_decoded(sink: EventSink, outcome: Result<StreamEnd, DecodeError>) {
    match outcome {
        Ok(end) => finish(sink, end),
        Err(error) => sink.error(ErrorReason::Error, error.into_message()),
    }
}

/// Hands one frame of a body to `decoder` (counting it in `seen`); breaks
/// the read when the decoder ends the stream or fails, with its outcome in
/// `ended`.
fn hand_frame<D: SseDecoder>(
    decoder: &mut D,
    frame: SseFrameRef<'_>,
    sink: &mut EventSink,
    seen: &mut usize,
    ended: &mut Option<Result<StreamEnd, DecodeError>>,
) -> ControlFlow<()> {
    *seen += 1;
    match decoder.frame(frame, sink) {
        Ok(None) => ControlFlow::Continue(()),
        Ok(Some(end)) => {
            *ended = Some(Ok(end));
            ControlFlow::Break(())
        }
        Err(error) => {
            *ended = Some(Err(error));
            ControlFlow::Break(())
        }
    }
}

/// How a body's decoding ended.
enum Body {
    /// The body ended after this many frames, none of which ended the stream.
    Ended(usize, EventSink),
    /// A frame ended the stream (the terminal event is sent).
    Decoded,
    /// The transport failed (a read error, invalid bytes, silence).
    Failed(EventSink, HttpError),
}

/// How a body is cut into frames: SSE, or a wire's own framing.
enum Framer {
    Sse(SseParser),
    Own(Box<dyn BodyFraming>),
}

/// What one chunk of a body did.
enum Chunk {
    /// Its frames were decoded; the body goes on.
    Fed,
    /// A frame ended the stream, or could not be decoded.
    Ended(Result<StreamEnd, DecodeError>),
    /// Bytes the framing rejects (frames before them were decoded).
    Bad(String),
}

impl Framer {
    fn new(framing: Option<Box<dyn BodyFraming>>) -> Self {
        framing.map_or_else(|| Self::Sse(SseParser::new()), Self::Own)
    }

    /// Cuts `chunk` and hands each frame it completes to `decoder`,
    /// borrowed from the chunk, counting them in `seen`.
    fn take<D: SseDecoder>(
        &mut self,
        chunk: &[u8],
        decoder: &mut D,
        sink: &mut EventSink,
        seen: &mut usize,
    ) -> Chunk {
        let mut ended = None;
        let on_frame = |frame: SseFrameRef<'_>| hand_frame(decoder, frame, sink, seen, &mut ended);
        let fed = match self {
            Self::Sse(parser) => parser.feed(chunk, on_frame).map_err(|e| e.to_string()),
            Self::Own(framing) => {
                let mut on_frame = on_frame;
                framing.feed(chunk, &mut on_frame).map_err(|e| e.0)
            }
        };
        match (ended, fed) {
            (Some(outcome), _) => Chunk::Ended(outcome),
            (None, Err(text)) => Chunk::Bad(text),
            (None, Ok(_)) => Chunk::Fed,
        }
    }

    /// The body ended: an error if the framing stopped inside a frame it
    /// cannot drop (SSE drops an unfinished event, as pi does).
    fn finish(&mut self) -> Result<(), FramingError> {
        match self {
            Self::Sse(_) => Ok(()),
            Self::Own(framing) => framing.finish(),
        }
    }
}

/// The most bytes one response body may hold: an endless stream ends with
/// an error here instead of filling memory (a real answer is a few MB).
pub const MAX_RESPONSE_BYTES: u64 = 128 * 1024 * 1024;

/// Reads `response`'s body chunk by chunk (each read bounded by
/// `idle_timeout`, the whole by [`MAX_RESPONSE_BYTES`]), cuts it with
/// `framer` and hands each frame to `decoder` borrowed from the chunk.
/// Frames completed before bad bytes are decoded first. After each chunk it
/// yields, so that the consumer takes that chunk's events (and sees a
/// cancellation) before the next one is read, however fast they come.
async fn decode_body<D: SseDecoder>(
    response: reqwest::Response,
    idle_timeout: Duration,
    cancel: &CancellationToken,
    mut framer: Framer,
    decoder: &mut D,
    mut sink: EventSink,
) -> Body {
    let mut body = pin!(response.bytes_stream());
    let mut seen = 0usize;
    let mut total = 0u64;
    loop {
        let next = tokio::select! {
            biased;
            () = cancel.cancelled() => return Body::Failed(sink, HttpError::Aborted),
            next = tokio::time::timeout(idle_timeout, body.next()) => next,
        };
        let chunk = match next {
            Err(_) => return Body::Failed(sink, HttpError::Idle(idle_timeout)),
            Ok(None) => {
                return match framer.finish() {
                    Ok(()) => Body::Ended(seen, sink),
                    Err(FramingError(text)) => Body::Failed(sink, HttpError::Stream(text)),
                };
            }
            Ok(Some(Err(error))) => {
                return Body::Failed(sink, HttpError::Stream(crate::sse::describe(&error)));
            }
            Ok(Some(Ok(chunk))) => chunk,
        };
        total += chunk.len() as u64;
        if total > MAX_RESPONSE_BYTES {
            let text = format!(
                "the response is larger than {} MiB; stopped reading it",
                MAX_RESPONSE_BYTES >> 20
            );
            return Body::Failed(sink, HttpError::Stream(text));
        }
        match framer.take(&chunk, decoder, &mut sink, &mut seen) {
            Chunk::Fed => {}
            Chunk::Ended(outcome) => {
                end_decoded(sink, outcome);
                return Body::Decoded;
            }
            Chunk::Bad(text) => return Body::Failed(sink, HttpError::Stream(text)),
        }
        tokio::task::yield_now().await;
    }
}

/// `"<provider>: <text>"`: an error in pi-rs's own words (not the provider's
/// or its client's, which pi shows as they are) names the provider it came
/// from; the text after the prefix stays as pi words it where pi has one.
pub fn named(provider: &str, text: impl std::fmt::Display) -> String {
    if provider.is_empty() {
        text.to_string()
    } else {
        format!("{provider}: {text}")
    }
}

/// The error of a success status whose body holds no event at all.
pub const EMPTY_STREAM_MESSAGE: &str =
    "The server answered 200 with an empty body: no events were received";

/// A success answer that is not an event stream (an HTML login page from a
/// proxy, a JSON body): its error text, with the content type and the start
/// of the body. `Ok(response)` when the content type is an event stream or absent.
async fn not_an_event_stream(
    response: reqwest::Response,
    limit: Duration,
    accepts: impl Fn(&str) -> bool,
) -> Result<reqwest::Response, NotAnEventStream> {
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    if content_type.is_empty() || accepts(&content_type) {
        return Ok(response);
    }
    let status = response.status().as_u16();
    let body = tokio::time::timeout(limit, crate::client::read_error_body(response))
        .await
        .unwrap_or_default();
    let snippet: String = body.trim().chars().take(200).collect();
    let shown = if snippet.is_empty() {
        "(no body)".to_owned()
    } else {
        snippet
    };
    Err(NotAnEventStream {
        status,
        content_type,
        shown,
    })
}

/// A success answer that is not an event stream: its status, content type
/// and the start of its body.
#[derive(Debug, thiserror::Error)]
#[error("Expected an event stream, but the server answered {status} with {content_type}: {shown}")]
struct NotAnEventStream {
    status: u16,
    content_type: String,
    shown: String,
}

fn finish(sink: EventSink, end: StreamEnd) {
    match end {
        StreamEnd::Done(reason) => sink.done(reason),
        StreamEnd::Error(text) => sink.error(ErrorReason::Error, text),
    }
}
