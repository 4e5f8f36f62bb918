//! The three standard messages and their role-tagged union.

use std::borrow::Cow;
use std::fmt;

use serde::de::value::SeqAccessDeserializer;
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::exact::{exact_optional_value, exact_vec};
use crate::fast_de::{self, TaggedMap};
use crate::{
    Api, AssistantContent, ErrorClass, ExtraFields, Provider, StopReason, Usage, UserBlock,
};

/// User content: a plain string or a list of text/image blocks. Both forms
/// round-trip unchanged (a string stays a string).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum UserContent {
    /// A plain string.
    Text(String),
    /// Text and image blocks.
    Blocks(Vec<UserBlock>),
}

impl<'de> Deserialize<'de> for UserContent {
    /// A string or a list of blocks, told apart by the JSON type (serde's
    /// untagged derive would buffer the content and try each form in turn).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ContentVisitor;

        impl<'de> Visitor<'de> for ContentVisitor {
            type Value = UserContent;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or a list of text and image blocks")
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<UserContent, E> {
                Ok(UserContent::Text(v.to_owned()))
            }

            fn visit_string<E: de::Error>(self, v: String) -> Result<UserContent, E> {
                Ok(UserContent::Text(v))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<UserContent, A::Error> {
                exact_vec(SeqAccessDeserializer::new(seq)).map(UserContent::Blocks)
            }
        }

        deserializer.deserialize_any(ContentVisitor)
    }
}

impl Default for UserContent {
    fn default() -> Self {
        Self::Blocks(Vec::new())
    }
}

impl From<&str> for UserContent {
    fn from(value: &str) -> Self {
        Self::Text(value.to_owned())
    }
}

impl From<String> for UserContent {
    fn from(value: String) -> Self {
        Self::Text(value)
    }
}

impl From<Vec<UserBlock>> for UserContent {
    fn from(value: Vec<UserBlock>) -> Self {
        Self::Blocks(value)
    }
}

/// `{role:"user", content, timestamp}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserMessage {
    /// What the user said.
    #[serde(default)]
    pub content: UserContent,
    /// Unix time in milliseconds (0 when missing).
    #[serde(default)]
    pub timestamp: i64,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// `{role:"assistant", content, api, provider, model, usage, stopReason, ...}`.
///
/// Session files of older pi versions lack some of these fields; each reads
/// as pi's code treats the missing value: `api`, `provider` and `model`
/// empty (never the current model, so the message is replayed as from a
/// different model, as pi's `undefined` compares) and written back absent;
/// `usage` zeros; `stopReason` `stop` (pi skips only `error`/`aborted`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssistantMessage {
    /// Text, thinking and tool-call blocks in the order the model produced them.
    #[serde(default, deserialize_with = "exact_vec")]
    pub content: Vec<AssistantContent>,
    /// Wire API that produced the message (empty: absent in the file).
    #[serde(default, skip_serializing_if = "Api::is_empty")]
    pub api: Api,
    /// Provider that served it (empty: absent in the file).
    #[serde(default, skip_serializing_if = "Provider::is_empty")]
    pub provider: Provider,
    /// Requested model id (empty: absent in the file).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub model: String,
    /// Model id the provider reported, when it differs from the requested one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_model: Option<String>,
    /// Provider response id, opaque.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_id: Option<String>,
    /// Provider diagnostics, kept verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Vec<Value>>,
    /// Token usage and cost.
    #[serde(default)]
    pub usage: Usage,
    /// Why the message ended.
    #[serde(default = "default_stop_reason")]
    pub stop_reason: StopReason,
    /// Handle of a deferred result, kept verbatim (boxed: rare, and a
    /// `Value` inline is 80 bytes of every message of a transcript).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deferred: Option<Box<Value>>,
    /// What went wrong, for `error` and `aborted`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    /// What kind of failure `error_message` reports, when the transport
    /// knew it (never serialized: pi's JSON has no such field, so a message
    /// read from a file has none).
    #[serde(skip)]
    pub error_class: Option<ErrorClass>,
    /// The provider's own stop reason string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_stop_reason: Option<String>,
    /// Whether the provider marked the end of the turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_turn: Option<bool>,
    /// Unix time in milliseconds (0 when missing).
    #[serde(default)]
    pub timestamp: i64,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// `stopReason` of a message written before pi recorded it.
fn default_stop_reason() -> StopReason {
    StopReason::Stop
}

impl AssistantMessage {
    /// An empty message for `model`, stop reason `pending`, zero usage.
    pub fn empty(api: Api, provider: Provider, model: impl Into<String>, timestamp: i64) -> Self {
        Self {
            content: Vec::new(),
            api,
            provider,
            model: model.into(),
            response_model: None,
            response_id: None,
            diagnostics: None,
            usage: Usage::default(),
            stop_reason: StopReason::Pending,
            deferred: None,
            error_message: None,
            error_class: None,
            raw_stop_reason: None,
            end_turn: None,
            timestamp,
            extra: ExtraFields::new(),
        }
    }

    /// The tool calls in content order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &crate::ToolCall> {
        self.content.iter().filter_map(|block| match block {
            AssistantContent::ToolCall(call) => Some(call),
            AssistantContent::Text(_) | AssistantContent::Thinking(_) => None,
        })
    }

    /// All text blocks joined (no separator), as pi's print mode shows them.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for block in &self.content {
            if let AssistantContent::Text(t) = block {
                out.push_str(&t.text);
            }
        }
        out
    }
}

/// `{role:"toolResult", toolCallId, toolName, content, details?, isError, ...}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultMessage {
    /// Id of the tool call this answers.
    #[serde(default)]
    pub tool_call_id: String,
    /// Name of the tool that ran.
    #[serde(default)]
    pub tool_name: String,
    /// Text and image output shown to the model.
    #[serde(default, deserialize_with = "exact_vec")]
    pub content: Vec<UserBlock>,
    /// Tool-specific structured details (for display; not sent to the model).
    #[serde(
        default,
        deserialize_with = "exact_optional_value",
        skip_serializing_if = "Option::is_none"
    )]
    pub details: Option<Value>,
    /// The tool's own resource use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<crate::Usage>,
    /// Tools that became available through this result (deferred loading).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added_tool_names: Option<Vec<String>>,
    /// True when the tool failed.
    #[serde(default)]
    pub is_error: bool,
    /// Unix time in milliseconds.
    #[serde(default)]
    pub timestamp: i64,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

impl ToolResultMessage {
    /// The text blocks joined with `\n` (images left out): the text every
    /// wire sends for a result.
    pub fn text(&self) -> String {
        self.text_ref().into_owned()
    }

    /// [`Self::text`], borrowed when the result has at most one text block
    /// (the common case), so an encoder need not copy it.
    pub fn text_ref(&self) -> Cow<'_, str> {
        let mut texts = self.content.iter().filter_map(UserBlock::as_text);
        match (texts.next(), texts.next()) {
            (None, _) => Cow::Borrowed(""),
            (Some(text), None) => Cow::Borrowed(text),
            (Some(first), Some(second)) => {
                let mut joined = [first, second].join("\n");
                for text in texts {
                    joined.push('\n');
                    joined.push_str(text);
                }
                Cow::Owned(joined)
            }
        }
    }
}

/// A message the model sees: user, assistant or tool result, tagged by `role`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "role", rename_all = "camelCase")]
pub enum Message {
    /// `role: "user"`.
    User(UserMessage),
    /// `role: "assistant"`.
    Assistant(AssistantMessage),
    /// `role: "toolResult"`.
    ToolResult(ToolResultMessage),
}

impl Message {
    /// Every `role` a standard message has.
    pub const ROLES: &'static [&'static str] = &["user", "assistant", "toolResult"];

    /// The `role` discriminant as written in JSON.
    pub fn role(&self) -> &'static str {
        match self {
            Self::User(_) => "user",
            Self::Assistant(_) => "assistant",
            Self::ToolResult(_) => "toolResult",
        }
    }

    /// Unix time in milliseconds.
    pub fn timestamp(&self) -> i64 {
        match self {
            Self::User(m) => m.timestamp,
            Self::Assistant(m) => m.timestamp,
            Self::ToolResult(m) => m.timestamp,
        }
    }
}

impl TaggedMap for Message {
    const TAG: &'static str = "role";
    const EXPECTING: &'static str = "a message (user, assistant or toolResult)";

    fn from_tag<'de, A: MapAccess<'de>>(role: &str, rest: A) -> Result<Self, A::Error> {
        match role {
            "user" => fast_de::from_rest(rest).map(Self::User),
            "assistant" => fast_de::from_rest(rest).map(Self::Assistant),
            "toolResult" => fast_de::from_rest(rest).map(Self::ToolResult),
            other => Err(de::Error::unknown_variant(other, Self::ROLES)),
        }
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        fast_de::deserialize_tagged(deserializer)
    }
}

impl From<UserMessage> for Message {
    fn from(value: UserMessage) -> Self {
        Self::User(value)
    }
}

impl From<AssistantMessage> for Message {
    fn from(value: AssistantMessage) -> Self {
        Self::Assistant(value)
    }
}

impl From<ToolResultMessage> for Message {
    fn from(value: ToolResultMessage) -> Self {
        Self::ToolResult(value)
    }
}

/// Serde helpers that write a single standard message with its `role` tag
/// (`#[serde(with = "pi_ai::tagged::assistant")]`), as pi's JSON has it
/// wherever a message appears on its own (events, session entries).
pub mod tagged {
    macro_rules! tagged_module {
        ($(#[$meta:meta])* $module:ident, $ty:ident, $variant:ident, $role:literal) => {
            $(#[$meta])*
            pub mod $module {
                use serde::{Deserialize, Deserializer, Serialize, Serializer};

                use crate::$ty as Inner;

                #[derive(Serialize)]
                #[serde(tag = "role", rename_all = "camelCase")]
                enum Ref<'a> {
                    $variant(&'a Inner),
                }

                /// Serializes with the role tag.
                pub fn serialize<S: Serializer>(value: &Inner, serializer: S) -> Result<S::Ok, S::Error> {
                    Ref::$variant(value).serialize(serializer)
                }

                /// Deserializes, requiring the role tag.
                pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Inner, D::Error> {
                    match crate::Message::deserialize(deserializer)? {
                        crate::Message::$variant(inner) => Ok(inner),
                        other => Err(serde::de::Error::unknown_variant(other.role(), &[$role])),
                    }
                }
            }
        };
    }

    tagged_module!(
        /// `{"role":"user",...}`.
        user, UserMessage, User, "user"
    );
    tagged_module!(
        /// `{"role":"assistant",...}`.
        assistant, AssistantMessage, Assistant, "assistant"
    );
    tagged_module!(
        /// `{"role":"toolResult",...}`.
        tool_result, ToolResultMessage, ToolResult, "toolResult"
    );
}

#[cfg(test)]
mod size_tests {
    use super::{AssistantMessage, Message, ToolResultMessage};

    /// A transcript is a list of `Message`s, each as large as the largest
    /// kind: a resumed 20,000-message session's list is 20,000 times this.
    /// Rare values (such as `deferred`) are boxed so that the assistant
    /// message, the largest, stays small.
    #[test]
    fn a_message_is_no_larger_than_its_largest_kind_needs() {
        let largest =
            std::mem::size_of::<AssistantMessage>().max(std::mem::size_of::<ToolResultMessage>());
        assert!(std::mem::size_of::<Message>() <= largest + 8);
        assert!(
            std::mem::size_of::<AssistantMessage>() <= 328,
            "AssistantMessage is {} bytes",
            std::mem::size_of::<AssistantMessage>()
        );
    }
}
