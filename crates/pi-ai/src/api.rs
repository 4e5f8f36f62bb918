//! Open string identifiers for wire APIs and providers.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

macro_rules! open_string {
    ($(#[$meta:meta])* $name:ident { $($(#[$cmeta:meta])* $konst:ident = $lit:literal,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(Cow<'static, str>);

        impl $name {
            $($(#[$cmeta])* pub const $konst: $name = $name(Cow::Borrowed($lit));)*

            /// Wraps any string, known or not.
            pub fn new(value: impl Into<String>) -> Self {
                Self(Cow::Owned(value.into()))
            }

            /// The identifier as written in pi's JSON.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// True for the empty identifier, which stands for a field old
            /// session files do not have (never equal to a real one).
            pub fn is_empty(&self) -> bool {
                self.0.is_empty()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<&str> for $name {
            fn from(value: &str) -> Self {
                Self::new(value)
            }
        }

        impl From<String> for $name {
            fn from(value: String) -> Self {
                Self(Cow::Owned(value))
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
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
