//! `AgentMessage<C>`: a standard [`Message`] or the app's own message `C`,
//! kept in pi's flat role-tagged JSON.

use serde::de::{self, DeserializeOwned, MapAccess};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use pi_ai::Message;
use pi_ai::fast_de::{self, TaggedMap};

/// The app's own message roles. Implementors are role-tagged serde types
/// (usually `#[serde(tag = "role")]` enums) that list their roles.
pub trait CustomMessage:
    Serialize + DeserializeOwned + Clone + std::fmt::Debug + Send + Sync + 'static
{
    /// Every `role` value this type reads and writes.
    const ROLES: &'static [&'static str];

    /// The role of this message.
    fn role(&self) -> &'static str;

    /// Unix time in milliseconds.
    fn timestamp(&self) -> i64;
}

/// No custom roles: the default `C`. It has no values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum NoCustom {}

impl CustomMessage for NoCustom {
    const ROLES: &'static [&'static str] = &[];

    fn role(&self) -> &'static str {
        match *self {}
    }

    fn timestamp(&self) -> i64 {
        match *self {}
    }
}

/// A message of the agent's transcript: a standard message the model can see,
/// or an app message that only the app's `convert_to_llm` turns into one.
// Transcripts hold messages by value; boxing the common case would cost more than it saves.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum AgentMessage<C = NoCustom> {
    /// user, assistant or toolResult.
    Standard(Message),
    /// One of the app's roles.
    Custom(C),
}

impl<C: CustomMessage> AgentMessage<C> {
    /// The `role` as written in JSON.
    pub fn role(&self) -> &'static str {
        match self {
            Self::Standard(m) => m.role(),
            Self::Custom(c) => c.role(),
        }
    }

    /// Unix time in milliseconds.
    pub fn timestamp(&self) -> i64 {
        match self {
            Self::Standard(m) => m.timestamp(),
            Self::Custom(c) => c.timestamp(),
        }
    }

    /// The standard message, if this is one.
    pub fn as_standard(&self) -> Option<&Message> {
        match self {
            Self::Standard(m) => Some(m),
            Self::Custom(_) => None,
        }
    }

    /// The assistant message, if this is one.
    pub fn as_assistant(&self) -> Option<&pi_ai::AssistantMessage> {
        match self {
            Self::Standard(Message::Assistant(m)) => Some(m),
            Self::Standard(Message::User(_) | Message::ToolResult(_)) | Self::Custom(_) => None,
        }
    }

    /// Parses one message from a JSON value, dispatching on `role`: standard
    /// roles to [`Message`], the app's roles to `C`, anything else to an
    /// error naming the role.
    pub fn from_value(value: Value) -> Result<Self, serde_json::Error> {
        serde_json::from_value(value)
    }
}

impl<C: CustomMessage> TaggedMap for AgentMessage<C> {
    const TAG: &'static str = "role";
    const EXPECTING: &'static str = "a message";

    fn from_tag<'de, A: MapAccess<'de>>(role: &str, rest: A) -> Result<Self, A::Error> {
        if Message::ROLES.contains(&role) {
            return Message::from_tag(role, rest).map(Self::Standard);
        }
        if C::ROLES.contains(&role) {
            return fast_de::with_tag("role", role, rest).map(Self::Custom);
        }
        let known: Vec<&str> = Message::ROLES.iter().chain(C::ROLES).copied().collect();
        Err(de::Error::custom(format_args!(
            "unknown message role \"{role}\" (known roles: {})",
            known.join(", ")
        )))
    }
}

impl<C> From<Message> for AgentMessage<C> {
    fn from(value: Message) -> Self {
        Self::Standard(value)
    }
}

impl<C> From<pi_ai::UserMessage> for AgentMessage<C> {
    fn from(value: pi_ai::UserMessage) -> Self {
        Self::Standard(Message::User(value))
    }
}

impl<C> From<pi_ai::AssistantMessage> for AgentMessage<C> {
    fn from(value: pi_ai::AssistantMessage) -> Self {
        Self::Standard(Message::Assistant(value))
    }
}

impl<C> From<pi_ai::ToolResultMessage> for AgentMessage<C> {
    fn from(value: pi_ai::ToolResultMessage) -> Self {
        Self::Standard(Message::ToolResult(value))
    }
}

impl<C> AgentMessage<C> {
    /// A user message with one text block, stamped now (as pi builds a
    /// prompt from text).
    pub fn user_text(text: impl Into<String>) -> Self {
        Self::Standard(Message::User(pi_ai::UserMessage {
            content: vec![pi_ai::UserBlock::text(text)].into(),
            timestamp: pi_ai::now_ms(),
            ..pi_ai::UserMessage::default()
        }))
    }
}

impl<C: CustomMessage> Serialize for AgentMessage<C> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Standard(m) => m.serialize(serializer),
            Self::Custom(c) => c.serialize(serializer),
        }
    }
}

impl<'de, C: CustomMessage> Deserialize<'de> for AgentMessage<C> {
    /// Reads `role` first and builds the message straight from the JSON
    /// (no intermediate value when `role` is the first key, as pi writes it).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        fast_de::deserialize_tagged(deserializer)
    }
}

/// The default `convert_to_llm`: keeps user, assistant and toolResult
/// messages and drops every app message.
pub fn default_convert_to_llm<C: CustomMessage>(messages: &[AgentMessage<C>]) -> Vec<Message> {
    // Sized up front: growing by doubling would copy the projection ~twice.
    let mut converted = Vec::with_capacity(messages.len());
    converted.extend(messages.iter().filter_map(|m| m.as_standard().cloned()));
    converted
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(tag = "role", rename_all = "camelCase")]
    enum AppMessage {
        #[serde(rename_all = "camelCase")]
        Note { text: String, timestamp: i64 },
    }

    impl CustomMessage for AppMessage {
        const ROLES: &'static [&'static str] = &["note"];

        fn role(&self) -> &'static str {
            "note"
        }

        fn timestamp(&self) -> i64 {
            match self {
                Self::Note { timestamp, .. } => *timestamp,
            }
        }
    }

    #[test]
    fn flat_role_tagged_json_round_trips() {
        let lines = json!([
            {"role": "user", "content": "hi", "timestamp": 1},
            {"role": "note", "text": "kept for the UI", "timestamp": 2}
        ]);
        let messages: Vec<AgentMessage<AppMessage>> =
            serde_json::from_value(lines.clone()).unwrap();
        assert!(matches!(
            messages[0],
            AgentMessage::Standard(Message::User(_))
        ));
        assert_eq!(
            messages[1],
            AgentMessage::Custom(AppMessage::Note {
                text: "kept for the UI".into(),
                timestamp: 2
            })
        );
        assert_eq!(serde_json::to_value(&messages).unwrap(), lines);
        assert_eq!(messages[1].role(), "note");
        assert_eq!(messages[1].timestamp(), 2);
    }

    #[test]
    fn an_unknown_role_is_an_error_naming_it() {
        let err = serde_json::from_value::<AgentMessage<AppMessage>>(
            json!({"role": "mystery", "timestamp": 1}),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown message role \"mystery\" (known roles: user, assistant, toolResult, note)"
        );
        let err = serde_json::from_value::<AgentMessage>(
            json!({"role": "note", "text": "x", "timestamp": 1}),
        )
        .unwrap_err();
        assert!(err.to_string().contains("\"note\""), "{err}");
    }

    #[test]
    fn the_default_converter_keeps_only_standard_messages() {
        let messages: Vec<AgentMessage<AppMessage>> = vec![
            AgentMessage::Custom(AppMessage::Note {
                text: "x".into(),
                timestamp: 1,
            }),
            Message::User(pi_ai::UserMessage {
                content: "hi".into(),
                timestamp: 2,
                ..Default::default()
            })
            .into(),
        ];
        let converted = default_convert_to_llm(&messages);
        assert_eq!(converted.len(), 1);
        assert_eq!(converted[0].role(), "user");
    }
}
