//! The generic SSE call every provider uses: POST with retries, then feed
//! each SSE frame to the provider's decoder, turning every transport failure
//! into the stream's `error` event. The decoder owns the wire format; this
//! file owns everything else.

use std::pin::pin;
use std::time::Duration;

use futures::StreamExt;
use pi_ai::{
    ABORTED_MESSAGE, AssistantMessage, AssistantMessageEventStream, CancellationToken, DoneReason,
    ErrorReason, EventSink, StreamOptions,
};

use crate::{
    DEFAULT_FIRST_BYTE_TIMEOUT, DEFAULT_IDLE_TIMEOUT, HttpClient, HttpError, HttpRequest,
    RetryPolicy, SseFrame, sse_frames,
};

/// How a decoder ends the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamEnd {
    /// Success with this reason.
    Done(DoneReason),
    /// Failure reported by the provider inside the stream (e.g. an `error` event).
    Error(String),
}

/// A wire format's stream decoder: turns SSE frames into sink calls.
pub trait SseDecoder: Send + 'static {
    /// Applies one frame. `Ok(Some(end))` ends the stream; `Err(text)` ends
    /// it with an error (invalid JSON, an unexpected event), keeping the
    /// content decoded so far.
    fn frame(
        &mut self,
        frame: &SseFrame,
        sink: &mut EventSink,
    ) -> Result<Option<StreamEnd>, String>;

    /// The body ended without a terminal frame. Wires where that is normal
    /// return `Done`; the others return an error naming what was missing.
    fn end_of_stream(&mut self, sink: &mut EventSink) -> StreamEnd;

    /// The `errorMessage` of an HTTP error answer, as the provider's own
    /// client library words it. The default is [`crate::status_error_message`]
    /// (the OpenAI client's `"<status> <error.message>"`).
    fn http_error_message(&self, status: u16, body: &str) -> String {
        crate::status_error_message(status, body)
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
}

impl SseCall {
    /// A call with the timeouts of `options` (defaults when unset) and a
    /// retry policy honouring `options.max_retry_delay`.
    pub fn new(request: HttpRequest, options: &StreamOptions) -> Self {
        let mut policy = RetryPolicy::default();
        if let Some(limit) = options.max_retry_delay {
            policy.max_retry_delay = Some(limit);
        }
        Self {
            request,
            policy,
            first_byte_timeout: options.timeout.unwrap_or(DEFAULT_FIRST_BYTE_TIMEOUT),
            idle_timeout: options.idle_timeout.unwrap_or(DEFAULT_IDLE_TIMEOUT),
        }
    }
}

/// Runs `call` and decodes its SSE body with `decoder` into an event stream
/// that starts from `initial`. `start` is emitted once the response status
/// is a success, as pi does (a request that fails yields only `error`);
/// HTTP errors are worded by [`SseDecoder::http_error_message`], transport
/// errors describe themselves, cancellation ends with `aborted`.
pub fn stream_sse<D: SseDecoder>(
    initial: AssistantMessage,
    call: SseCall,
    cancel: CancellationToken,
    mut decoder: D,
) -> AssistantMessageEventStream {
    AssistantMessageEventStream::new(initial, cancel.clone(), move |mut sink| async move {
        if decoder.ends_blocks_on_abort() {
            sink.end_blocks_on_abort();
        }
        let client = match HttpClient::shared() {
            Ok(client) => client,
            Err(error) => return sink.error(ErrorReason::Error, error.to_string()),
        };
        let response = match client
            .post(
                &call.request,
                &call.policy,
                call.first_byte_timeout,
                &cancel,
            )
            .await
        {
            Ok(response) => response,
            Err(HttpError::Aborted) => return sink.error(ErrorReason::Aborted, ABORTED_MESSAGE),
            Err(HttpError::Status { status, body, .. }) => {
                let message = decoder.http_error_message(status, &body);
                return sink.error(ErrorReason::Error, message);
            }
            Err(error) => return sink.error(ErrorReason::Error, error.to_string()),
        };
        let response = match not_an_event_stream(response, call.first_byte_timeout).await {
            Ok(response) => response,
            Err(text) => return sink.error(ErrorReason::Error, text),
        };
        // As pi: the stream starts once the provider has accepted the request.
        sink.start();
        let mut frames = pin!(sse_frames(response, call.idle_timeout));
        let mut seen = 0usize;
        while let Some(item) = frames.next().await {
            seen += 1;
            let frame = match item {
                Ok(frame) => frame,
                Err(error) => return sink.error(ErrorReason::Error, error.to_string()),
            };
            match decoder.frame(&frame, &mut sink) {
                Ok(None) => {}
                Ok(Some(end)) => return finish(sink, end),
                Err(text) => return sink.error(ErrorReason::Error, text),
            }
        }
        if seen == 0 {
            return sink.error(ErrorReason::Error, EMPTY_STREAM_MESSAGE);
        }
        let end = decoder.end_of_stream(&mut sink);
        finish(sink, end);
    })
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
) -> Result<reqwest::Response, String> {
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    if content_type.is_empty() || content_type.contains("event-stream") {
        return Ok(response);
    }
    let status = response.status().as_u16();
    let body = match tokio::time::timeout(limit, response.text()).await {
        Ok(Ok(body)) => body,
        _ => String::new(),
    };
    let snippet: String = body.trim().chars().take(200).collect();
    let shown = if snippet.is_empty() {
        "(no body)".to_owned()
    } else {
        snippet
    };
    Err(format!(
        "Expected an event stream, but the server answered {status} with {content_type}: {shown}"
    ))
}

fn finish(sink: EventSink, end: StreamEnd) {
    match end {
        StreamEnd::Done(reason) => sink.done(reason),
        StreamEnd::Error(text) => sink.error(ErrorReason::Error, text),
    }
}
