//! The end-to-end scenarios every wire runs over real loopback HTTP,
//! written once. A wire supplies a [`WireAdapter`] (its recorded bodies,
//! URL path, auth header, error wording and how it encodes a request) and
//! invokes [`crate::wire_e2e_suite!`]; each scenario is then one test of
//! that crate, calling the wire through pi-ai's api registry as the app does.

mod hook_scenarios;
mod scenarios;

use pi_ai::{
    Api, AssistantMessageEvent, Context, Model, SimpleStreamOptions, StopReason, ThinkingLevel,
};
use serde_json::Value;

pub use hook_scenarios::the_response_hook_sees_each_answer;
pub use scenarios::*;

/// What one wire looks like to the shared scenarios: data, plus the two
/// entry points of the crate (registration and the request encoder).
pub struct WireAdapter {
    /// The api the wire registers.
    pub api: Api,
    /// Registers the wire in pi-ai's global api registry.
    pub register: fn(),
    /// The wire's folder under `fixtures/sse/`.
    pub sse_dir: &'static str,
    /// A model of the wire served by the mock server at this URL.
    pub model: fn(server_url: &str) -> Model,
    /// The API key passed in the options.
    pub api_key: String,
    /// The header carrying the key (lower case) ...
    pub auth_header: &'static str,
    /// ... and what precedes the key in it (`"Bearer "` or nothing).
    pub auth_prefix: &'static str,
    /// The request path (with query) the wire POSTs to.
    pub path: &'static str,
    /// Further headers every request carries (`None`: must be absent).
    pub headers: Vec<(&'static str, Option<&'static str>)>,
    /// The body the wire sends for these options, before `on_payload`
    /// (normally [`wire_body`]`::<TheWire>`).
    pub encode: fn(&Model, &Context, &SimpleStreamOptions) -> Value,
    /// A plain text answer.
    pub text: TextCase,
    /// How many raw frames of the text answer carry a partial text, and
    /// that text: the cut stream and the cancelled stream stop there.
    pub partial: PartialCase,
    /// An answer with one tool call.
    pub tool_call: ToolCallCase,
    /// A 500 answer: its body, the error text the wire reports, and how
    /// many requests the transport sends (1 + its retries).
    pub server_error: ServerErrorCase,
    /// The body of a 429 answer.
    pub rate_limit_body: &'static str,
    /// Streams that end in a wire-specific way (missing terminal events,
    /// invalid JSON, in-stream errors).
    pub endings: Vec<Ending>,
    /// A recorded answer whose body ends cleanly just before the wire's
    /// terminal event.
    pub eof: EofCase,
    /// A call with a reasoning level.
    pub thinking: ThinkingCase,
}

/// A plain text answer.
pub struct TextCase {
    /// The recorded body.
    pub file: &'static str,
    /// The exact event kinds, when the wire's recording pins them.
    pub kinds: Option<Vec<&'static str>>,
    /// The answer text.
    pub text: &'static str,
    /// The response id the message carries.
    pub response_id: Option<&'static str>,
    /// Input, output and total tokens.
    pub usage: (u64, u64, u64),
    /// Values the request body must hold, by JSON pointer.
    pub body: Vec<(&'static str, Value)>,
}

/// The first frames of [`TextCase::file`] and the text they carry.
pub struct PartialCase {
    /// How many raw frames.
    pub frames: usize,
    /// The text decoded from them.
    pub text: &'static str,
}

/// How a tool call id is checked.
pub enum CallId {
    /// Exactly this id.
    Exact(&'static str),
    /// An id generated with this prefix.
    Prefix(&'static str),
}

/// An answer with one tool call.
pub struct ToolCallCase {
    /// The recorded body.
    pub file: &'static str,
    /// The exact event kinds, when the wire's recording pins them.
    pub kinds: Option<Vec<&'static str>>,
    /// The call's id.
    pub id: CallId,
    /// The tool name.
    pub name: &'static str,
    /// The parsed arguments.
    pub arguments: Value,
}

/// A 500 answer.
pub struct ServerErrorCase {
    /// The JSON body the server sends.
    pub body: &'static str,
    /// The `errorMessage` the wire reports.
    pub message: String,
    /// Requests sent in all: 1 + the transport's retries.
    pub attempts: usize,
}

/// How an error text is checked.
pub enum ErrorText {
    /// No error text (the stream succeeded).
    None,
    /// Exactly this text.
    Exact(&'static str),
    /// A text starting with this.
    Prefix(&'static str),
}

/// A stream served over HTTP and how it ends.
pub struct Ending {
    /// The recorded body.
    pub file: &'static str,
    /// Only its first raw frames, when set (the body then just ends).
    pub frames: Option<usize>,
    /// The settled stop reason.
    pub stop: StopReason,
    /// The text kept, when pinned.
    pub text: Option<&'static str>,
    /// The error text.
    pub error: ErrorText,
    /// The total tokens, when pinned.
    pub total_tokens: Option<u64>,
}

/// A recorded answer cut before the wire's terminal event (the event, or
/// for Google the chunk with a `finishReason`, that says the answer is
/// complete), the body then ending without a transport error.
pub struct EofCase {
    /// The cut recording (`eof-before-terminal-event.sse`).
    pub file: &'static str,
    /// The text kept.
    pub text: &'static str,
    /// The exact `errorMessage`.
    pub error: &'static str,
}

/// A call with a reasoning level.
pub struct ThinkingCase {
    /// The recorded body.
    pub file: &'static str,
    /// A model of the wire served at this URL (the scenario marks it
    /// as a reasoning model).
    pub model: fn(server_url: &str) -> Model,
    /// The level asked for.
    pub reasoning: ThinkingLevel,
    /// Values the request body must hold, by JSON pointer.
    pub body: Vec<(&'static str, Value)>,
    /// Further checks of the events (a snapshot in the wire's own crate).
    pub check: Option<fn(&[AssistantMessageEvent])>,
}

/// Defines one `#[tokio::test]` per shared scenario, each running it with
/// the adapter `$adapter` (an expression, evaluated per test). The calling
/// crate needs `tokio` with the `macros` and `rt` features.
#[macro_export]
macro_rules! wire_e2e_suite {
    ($adapter:expr) => {
        $crate::wire_e2e_suite!(@tests $adapter;
            text_answer_and_the_request_sent,
            tool_call_answer,
            server_error_is_retried_as_the_wire_does_then_reported,
            rate_limit_is_retried_as_the_wire_does,
            cut_stream_is_an_error_that_keeps_the_partial_text,
            cancel_mid_stream_is_aborted_and_keeps_the_text,
            missing_api_key_fails_without_a_request,
            headers_merge_and_the_payload_hook_replaces_the_body,
            the_response_hook_sees_each_answer,
            registered_in_the_global_registry,
            streams_end_as_the_wire_says,
            eof_before_the_terminal_event_is_an_error,
            reasoning_call_maps_the_level,
            a_cross_origin_redirect_drops_the_key,
        );
    };
    (@tests $adapter:expr; $($scenario:ident),+ $(,)?) => {
        $(
            #[tokio::test]
            async fn $scenario() {
                $crate::e2e::$scenario(&$adapter).await;
            }
        )+
    };
}
