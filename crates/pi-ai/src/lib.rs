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
mod json_number;
mod message;
mod model;
mod usage;
// [partial_json]
// [transform]
// [catalog]

pub use api::{Api, Provider};
pub use content::{
    AssistantContent, ImageContent, TextContent, ThinkingContent, ToolCall, UserBlock,
};
pub use context::{Context, Tool};
pub use message::{AssistantMessage, Message, ToolResultMessage, UserContent, UserMessage};
pub use model::{InputModality, Model, ModelCost};
pub use usage::{Cost, StopReason, Usage};

/// Extra JSON fields kept verbatim so a read-modify-write round trip loses nothing.
pub type ExtraFields = serde_json::Map<String, serde_json::Value>;
