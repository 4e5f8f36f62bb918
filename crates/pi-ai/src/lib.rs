//! `pi-ai` owns the provider-facing contract of pi: the [`Message`] union
//! (user | assistant | toolResult), its content blocks, [`Usage`],
//! [`StopReason`], [`Context`], [`Tool`] and [`Model`], the streaming event
//! protocol ([`AssistantMessageEvent`], [`AssistantMessageEventStream`]) and
//! the registry of wire APIs.
//!
//! Every type mirrors pi's JSON exactly (camelCase fields, the same
//! discriminants). Fields written by a newer pi that this crate does not
//! know are kept in an `extra` map and written back unchanged.

mod api;
mod content;
mod context;
mod context_ref;
mod error_class;
mod exact;
mod extra_fields;
mod hooks;
pub use extra_fields::ExtraFields;
// Not part of the contract (hidden from the docs): public only for the
// session reader of pi-coding-agent, which reads its entries the same way.
#[doc(hidden)]
pub mod fast_de;
mod json_number;
mod message;
mod model;
mod options;
mod partial_json;
mod registry;
mod short_hash;
pub use short_hash::short_hash;
#[cfg(feature = "testing")]
pub mod scripted;
mod stream;
mod usage;
pub use partial_json::{PartialJson, parse_partial_json};
mod transform;
mod transform_iter;
mod transformed;
pub use transform::{
    TOOL_IMAGE_PLACEHOLDER, ToolCallIdNormalizer, USER_IMAGE_PLACEHOLDER,
    normalize_tool_call_id_anthropic, normalize_tool_call_id_completions,
    normalize_tool_call_id_responses, transform_messages, transform_messages_iter,
};
pub use transform_iter::TransformIter;
pub use transformed::TransformedMessage;
mod catalog;
pub use catalog::{
    builtin_models, calculate_cost, env_api_key_var, get_env_api_key, get_env_api_key_from,
    get_model, get_models, get_providers, is_context_overflow, models_are_equal, supports_xhigh,
};

pub use api::{Api, Provider};
pub use content::{
    AssistantContent, ImageContent, TextContent, ThinkingContent, ToolCall, UserBlock,
};
pub use context::{Context, Tool};
pub use context_ref::{ContextRef, MessagesIter, MessagesRef};
pub use error_class::ErrorClass;
pub use hooks::{PayloadHook, ProviderResponse, ResponseHook};
pub use message::tagged;
pub use message::{AssistantMessage, Message, ToolResultMessage, UserContent, UserMessage};
pub use model::{InputModality, Model, ModelCost};
pub use options::{
    CacheRetention, ParseThinkingLevelError, SimpleStreamOptions, StreamOptions, ThinkingBudgets,
    ThinkingLevel, Transport,
};
pub use registry::{
    ApiRegistry, StreamFunction, complete, complete_simple, get_api_provider, global_registry,
    register_api_provider, stream, stream_simple, unregister_api_providers,
};
pub use stream::{
    ABORTED_MESSAGE, AssistantMessageEvent, AssistantMessageEventStream, DoneReason, ErrorReason,
    EventSink, MAX_ERROR_TEXT_BYTES, SharedMessage, bounded_error_text,
};
pub use tokio_util::sync::CancellationToken;
pub use usage::{Cost, StopReason, Usage};

/// The current Unix time in milliseconds, as pi stamps messages.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
