//! Open string identifiers for wire APIs and providers.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

use serde::{Deserialize, Serialize};

/// The text of an identifier: a known one's constant, or its own copy.
///
/// Sixteen bytes (a `Cow<'static, str>` takes 24): the constant is held by
/// a reference to its `&'static str`, which fits beside the box's non-null
/// pointer. Every assistant message of a transcript holds two of these.
#[derive(Clone)]
enum IdText {
    /// A known identifier's constant.
    Known(&'static &'static str),
    /// Any other identifier, as written.
    Owned(Box<str>),
}

impl IdText {
    /// The identifier's text.
    fn as_str(&self) -> &str {
        match self {
            IdText::Known(text) => text,
            IdText::Owned(text) => text,
        }
    }
}

macro_rules! open_string {
    ($(#[$meta:meta])* $name:ident { $($(#[$cmeta:meta])* $konst:ident = $lit:literal,)* }) => {
        $(#[$meta])*
        #[derive(Clone)]
        pub struct $name(IdText);

        impl Default for $name {
            fn default() -> Self {
                Self(IdText::Known(&""))
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_tuple(stringify!($name)).field(&self.as_str()).finish()
            }
        }

        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                self.as_str() == other.as_str()
            }
        }

        impl Eq for $name {}

        impl Hash for $name {
            fn hash<H: Hasher>(&self, state: &mut H) {
                self.as_str().hash(state);
            }
        }

        impl PartialOrd for $name {
            fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
                Some(self.cmp(other))
            }
        }

        impl Ord for $name {
            fn cmp(&self, other: &Self) -> Ordering {
                self.as_str().cmp(other.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            /// A known identifier is read as its constant (no allocation:
            /// every assistant message of a session names its api and
            /// provider), any other as an owned string.
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct IdVisitor;

                impl serde::de::Visitor<'_> for IdVisitor {
                    type Value = $name;

                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str("a string")
                    }

                    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<$name, E> {
                        Ok($name::known(v).unwrap_or_else(|| $name::new(v)))
                    }

                    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<$name, E> {
                        Ok($name::known(&v).unwrap_or_else(|| $name::from(v)))
                    }
                }

                deserializer.deserialize_str(IdVisitor)
            }
        }

        impl $name {
            $($(#[$cmeta])* pub const $konst: $name = $name(IdText::Known(&$lit));)*

            /// Wraps any string, known or not.
            pub fn new(value: impl Into<String>) -> Self {
                Self(IdText::Owned(value.into().into_boxed_str()))
            }

            /// The constant spelled `value`, if it is a known identifier.
            pub fn known(value: &str) -> Option<Self> {
                match value {
                    $($lit => Some(Self::$konst),)*
                    _ => None,
                }
            }

            /// The identifier as written in pi's JSON.
            pub fn as_str(&self) -> &str {
                self.0.as_str()
            }

            /// True for the empty identifier, which stands for a field old
            /// session files do not have (never equal to a real one).
            pub fn is_empty(&self) -> bool {
                self.as_str().is_empty()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl From<&str> for $name {
            fn from(value: &str) -> Self {
                Self::new(value)
            }
        }

        impl From<String> for $name {
            fn from(value: String) -> Self {
                Self(IdText::Owned(value.into_boxed_str()))
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.as_str() == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }
    };
}

open_string! {
    /// A wire API (`model.api`): which request/stream format a provider speaks.
    Api {
        /// Anthropic Messages API.
        ANTHROPIC_MESSAGES = "anthropic-messages",
        /// OpenAI Chat Completions and compatible servers.
        OPENAI_COMPLETIONS = "openai-completions",
        /// OpenAI Responses API.
        OPENAI_RESPONSES = "openai-responses",
        /// Azure OpenAI Responses API.
        AZURE_OPENAI_RESPONSES = "azure-openai-responses",
        /// OpenAI Codex (ChatGPT backend) Responses API.
        OPENAI_CODEX_RESPONSES = "openai-codex-responses",
        /// Google Generative AI (Gemini API).
        GOOGLE_GENERATIVE_AI = "google-generative-ai",
        /// Google Gemini CLI / Cloud Code Assist.
        GOOGLE_GEMINI_CLI = "google-gemini-cli",
        /// Google Vertex AI.
        GOOGLE_VERTEX = "google-vertex",
        /// Mistral conversations API.
        MISTRAL_CONVERSATIONS = "mistral-conversations",
        /// Amazon Bedrock Converse stream.
        BEDROCK_CONVERSE_STREAM = "bedrock-converse-stream",
    }
}

open_string! {
    /// A provider (`model.provider`): who serves the model, and whose key is used.
    Provider {
        /// Anthropic.
        ANTHROPIC = "anthropic",
        /// OpenAI.
        OPENAI = "openai",
        /// Google (Gemini API).
        GOOGLE = "google",
        /// Google Vertex AI.
        GOOGLE_VERTEX = "google-vertex",
        /// Groq.
        GROQ = "groq",
        /// Cerebras.
        CEREBRAS = "cerebras",
        /// xAI.
        XAI = "xai",
        /// OpenRouter.
        OPENROUTER = "openrouter",
        /// Mistral.
        MISTRAL = "mistral",
        /// z.ai.
        ZAI = "zai",
        /// Amazon Bedrock.
        AMAZON_BEDROCK = "amazon-bedrock",
        /// Vercel AI gateway.
        VERCEL_AI_GATEWAY = "vercel-ai-gateway",
        /// GitHub Copilot.
        GITHUB_COPILOT = "github-copilot",
        /// OpenAI Codex (ChatGPT subscription).
        OPENAI_CODEX = "openai-codex",
        /// Azure OpenAI.
        AZURE_OPENAI_RESPONSES = "azure-openai-responses",
    }
}

#[cfg(test)]
mod tests {
    use super::{Api, IdText, Provider};

    #[test]
    fn known_identifiers_read_as_their_constants_without_a_copy() {
        let api: Api = serde_json::from_str(r#""anthropic-messages""#).unwrap();
        assert_eq!(api, Api::ANTHROPIC_MESSAGES);
        assert!(matches!(api.0, IdText::Known(_)));
        // From a Value (an owned string) too.
        let provider: Provider = serde_json::from_value(serde_json::json!("openai")).unwrap();
        assert!(matches!(provider.0, IdText::Known(_)));
        assert_eq!(Provider::known("openai"), Some(Provider::OPENAI));
    }

    #[test]
    fn other_identifiers_stay_as_written() {
        for text in [r#""my-proxy""#, r#""""#, r#""Anthropic""#] {
            let provider: Provider = serde_json::from_str(text).unwrap();
            assert!(matches!(provider.0, IdText::Owned(_)), "{text}");
            assert_eq!(serde_json::to_string(&provider).unwrap(), text);
        }
        assert!(serde_json::from_str::<Api>("42").is_err());
        assert_eq!(Api::known("nope"), None);
    }

    #[test]
    fn identifiers_take_sixteen_bytes_and_print_as_before() {
        assert_eq!(std::mem::size_of::<Api>(), 16);
        assert_eq!(std::mem::size_of::<Provider>(), 16);
        assert_eq!(
            format!("{:?}", Api::OPENAI_RESPONSES),
            r#"Api("openai-responses")"#
        );
        assert_eq!(format!("{:?}", Provider::new("x")), r#"Provider("x")"#);
        assert_eq!(Api::default().as_str(), "");
        assert!(Provider::new("anthropic") == Provider::ANTHROPIC);
        let mut sorted = [Provider::OPENAI, Provider::new("b"), Provider::ANTHROPIC];
        sorted.sort();
        let names: Vec<&str> = sorted.iter().map(Provider::as_str).collect();
        assert_eq!(names, ["anthropic", "b", "openai"]);
    }
}
