//! The decoder's view of one stream chunk: its first choice, read in one
//! pass.
//!
//! [`ChatCompletionChunk`] holds every choice in a vector; pi reads only the
//! first, and servers send one. [`parse`] reads a chunk of at most one choice
//! straight into a [`Chunk`] (no vector, the rare large fields boxed, so
//! nothing big is moved per chunk); a chunk with several choices, or one the
//! one-pass read rejects, is parsed as a [`ChatCompletionChunk`] and
//! converted ([`From`]). Every field has the type and the reader the full
//! parse gives it, so both accept exactly the same chunks and the decoder
//! sees the same values either way.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde_json::Value;

use crate::wire::{ChatCompletionChunk, ChunkChoice, ChunkUsage, lenient_str};

/// A chunk: its first choice and the rest of its fields.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Chunk<'a> {
    /// Completion id.
    #[serde(default, borrow, deserialize_with = "lenient_str")]
    pub(crate) id: Option<Cow<'a, str>>,
    /// Model that served the request.
    #[serde(default, borrow, deserialize_with = "lenient_str")]
    pub(crate) model: Option<Cow<'a, str>>,
    /// The first choice (the only one pi reads); `None` when there is none.
    #[serde(rename = "choices", default, borrow, deserialize_with = "at_most_one")]
    pub(crate) first_choice: Option<ChunkChoice<'a>>,
    /// Token usage.
    #[serde(default)]
    pub(crate) usage: Option<Box<ChunkUsage>>,
    /// An error reported inside the stream.
    #[serde(default)]
    pub(crate) error: Option<Box<Value>>,
}

/// `data` as a chunk of at most one choice, when the one-pass read takes it.
pub(crate) fn parse(data: &str) -> Option<Chunk<'_>> {
    serde_json::from_str(data).ok()
}

/// A JSON array of at most one element (more, or not an array: an error,
/// so the caller falls back to the full parse).
fn at_most_one<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct One<T>(PhantomData<T>);

    impl<'de, T: Deserialize<'de>> Visitor<'de> for One<T> {
        type Value = Option<T>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a sequence")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let first = seq.next_element::<T>()?;
            if first.is_some() && seq.next_element::<IgnoredAny>()?.is_some() {
                return Err(de::Error::custom("more than one element"));
            }
            Ok(first)
        }
    }

    deserializer.deserialize_seq(One(PhantomData))
}

impl<'a> From<ChatCompletionChunk<'a>> for Chunk<'a> {
    fn from(chunk: ChatCompletionChunk<'a>) -> Self {
        Self {
            id: chunk.id,
            model: chunk.model,
            first_choice: chunk.choices.and_then(|choices| choices.into_iter().next()),
            usage: chunk.usage,
            error: chunk.error.map(Box::new),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the decoder reads of a chunk, from either parse.
    fn summary(chunk: &Chunk<'_>) -> String {
        format!("{chunk:?}")
    }

    fn full(data: &str) -> Option<String> {
        serde_json::from_str::<ChatCompletionChunk<'_>>(data)
            .ok()
            .map(|c| summary(&Chunk::from(c)))
    }

    #[test]
    fn a_one_choice_chunk_reads_as_the_full_parse_does() {
        for data in [
            r#"{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":"a \"mock\" model"},"logprobs":null,"finish_reason":null}]}"#,
            r#"{"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"finish_reason":null}]}"#,
            r#"{"choices":[{"delta":{"reasoning_content":"hm","reasoning":5,"content":null}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read","arguments":"{\"p"}}]}}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"stop","usage":{"prompt_tokens":3}}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":1200,"completion_tokens":14,"prompt_tokens_details":{"cached_tokens":2.5}}}"#,
            r#"{"error":{"message":"overloaded","metadata":{"raw":"x"}}}"#,
            r#"{"id":7,"model":["m"],"choices":[{"delta":{"reasoning_details":[{"type":"reasoning.encrypted","id":"a","data":"x"}]}}]}"#,
            r#"{}"#,
        ] {
            let fast = parse(data).as_ref().map(summary);
            assert!(fast.is_some(), "{data}");
            assert_eq!(fast, full(data), "{data}");
        }
    }

    #[test]
    fn several_choices_and_invalid_chunks_are_left_to_the_full_parse() {
        for data in [
            r#"{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}}]}"#,
            r#"{"choices":null}"#,
            r#"{"choices":[{"delta":{"content":"a"}}],"choices":[]}"#,
            r#"{"choices":[{"delta":5}]}"#,
            r#"{"usage":{"prompt_tokens":1},"usage":null}"#,
            r#"{"choices":[{"delta":{"content":"a"}}]"#,
        ] {
            assert!(parse(data).is_none(), "{data}");
        }
        let several = r#"{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}}]}"#;
        let chunk = Chunk::from(serde_json::from_str::<ChatCompletionChunk<'_>>(several).unwrap());
        let first = chunk
            .first_choice
            .and_then(|c| c.delta)
            .and_then(|d| d.content);
        assert_eq!(
            first.as_deref(),
            Some("a"),
            "the conversion keeps the first"
        );
    }
}
