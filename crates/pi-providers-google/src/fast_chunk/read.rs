//! The one-pass read of a [`Chunk`]: serde visitors that fill the chunk in
//! place as serde_json walks the frame, each object level reading its own
//! keys and skipping the others.
//!
//! They accept what the derived `Deserialize` of the owned types accepts in
//! the JSON object form (the same value types, a repeated known key refused,
//! unknown keys skipped), with at most one candidate and at most one part;
//! whatever they refuse goes to the owned parse. Written by hand rather than
//! derived, they write straight into the chunk (no per-level `Option` of a
//! whole struct moved up a level) and borrow every string without escapes.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::{Candidate, Chunk, Content, Part};

/// `data` as a chunk of at most one candidate with at most one part, when
/// it is a valid chunk.
pub(crate) fn parse(data: &str) -> Option<Chunk<'_>> {
    let mut chunk = Chunk::default();
    let mut deserializer = serde_json::Deserializer::from_str(data);
    deserializer
        .deserialize_struct("Chunk", &[], Fill(&mut chunk))
        .ok()?;
    deserializer.end().ok()?;
    Some(chunk)
}

/// The keys of every object level of a chunk (each level reads its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Candidates,
    UsageMetadata,
    ModelVersion,
    ResponseId,
    PromptFeedback,
    Error,
    Content,
    FinishReason,
    Parts,
    FunctionCall,
    FunctionResponse,
    InlineData,
    Text,
    Thought,
    ThoughtSignature,
    Other,
}

impl Key {
    fn of(name: &str) -> Self {
        match name {
            "candidates" => Self::Candidates,
            "usageMetadata" => Self::UsageMetadata,
            "modelVersion" => Self::ModelVersion,
            "responseId" => Self::ResponseId,
            "promptFeedback" => Self::PromptFeedback,
            "error" => Self::Error,
            "content" => Self::Content,
            "finishReason" => Self::FinishReason,
            "parts" => Self::Parts,
            "functionCall" => Self::FunctionCall,
            "functionResponse" => Self::FunctionResponse,
            "inlineData" => Self::InlineData,
            "text" => Self::Text,
            "thought" => Self::Thought,
            "thoughtSignature" => Self::ThoughtSignature,
            _ => Self::Other,
        }
    }

    /// Fails when `self` was seen before in this object (`seen` holds one
    /// bit per key), as a derived struct fails on a repeated field.
    fn first_time<E: de::Error>(self, seen: &mut u16) -> Result<(), E> {
        let bit = 1u16 << (self as u16);
        if *seen & bit != 0 {
            return Err(E::custom("duplicate field"));
        }
        *seen |= bit;
        Ok(())
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;

        impl Visitor<'_> for KeyVisitor {
            type Value = Key;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                Ok(Key::of(v))
            }
        }

        deserializer.deserialize_identifier(KeyVisitor)
    }
}

/// Fills the value it points at from a JSON object.
struct Fill<'v, T>(&'v mut T);

/// Reads an optional string, borrowed from the input when it has no escapes.
///
/// (serde's `borrow` borrows a `Cow<str>` field, but an `Option<Cow<str>>`
/// is read as an owned `String`: one allocation and copy per string.)
struct CowStr;

impl<'de> DeserializeSeed<'de> for CowStr {
    type Value = Option<Cow<'de, str>>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for CowStr {
    type Value = Option<Cow<'de, str>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v)))
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

/// Reads a JSON array of at most one element into the slot (more: an
/// error, so the caller falls back to the owned parse).
struct FirstOf<'v, T>(&'v mut Option<T>);

/// Reads one object into the slot (a fresh default value, filled in place).
struct Slot<'v, T>(&'v mut Option<T>);

impl<'de, 'v, T: Default> DeserializeSeed<'de> for FirstOf<'v, T>
where
    Slot<'v, T>: DeserializeSeed<'de, Value = ()>,
{
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, 'v, T: Default> Visitor<'de> for FirstOf<'v, T>
where
    Slot<'v, T>: DeserializeSeed<'de, Value = ()>,
{
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if seq.next_element_seed(Slot(self.0))?.is_some()
            && seq.next_element::<IgnoredAny>()?.is_some()
        {
            return Err(de::Error::custom("more than one element"));
        }
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for Slot<'_, Candidate<'de>> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        let candidate = self.0.insert(Candidate::default());
        deserializer.deserialize_struct("Candidate", &[], Fill(candidate))
    }
}

impl<'de> DeserializeSeed<'de> for Slot<'_, Part<'de>> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        let part = self.0.insert(Part::default());
        deserializer.deserialize_struct("Part", &[], Fill(part))
    }
}

/// A candidate's `content`: `null` leaves it out.
impl<'de> DeserializeSeed<'de> for Slot<'_, Content<'de>> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for Slot<'_, Content<'de>> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a content object")
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        let content = self.0.insert(Content::default());
        deserializer.deserialize_struct("Content", &[], Fill(content))
    }
}

impl<'de> Visitor<'de> for Fill<'_, Chunk<'de>> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a chunk object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let chunk = self.0;
        let mut seen = 0;
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Candidates => {
                    key.first_time(&mut seen)?;
                    map.next_value_seed(FirstOf(&mut chunk.first_candidate))?;
                }
                Key::UsageMetadata => {
                    key.first_time(&mut seen)?;
                    chunk.usage_metadata = map.next_value()?;
                }
                Key::ModelVersion => {
                    key.first_time(&mut seen)?;
                    chunk._model_version = map.next_value_seed(CowStr)?;
                }
                Key::ResponseId => {
                    key.first_time(&mut seen)?;
                    chunk.response_id = map.next_value_seed(CowStr)?;
                }
                Key::PromptFeedback => {
                    key.first_time(&mut seen)?;
                    chunk.prompt_feedback = map.next_value()?;
                }
                Key::Error => {
                    key.first_time(&mut seen)?;
                    chunk.error = map.next_value()?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

impl<'de> Visitor<'de> for Fill<'_, Candidate<'de>> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a candidate object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let candidate = self.0;
        let mut seen = 0;
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Content => {
                    key.first_time(&mut seen)?;
                    map.next_value_seed(Slot(&mut candidate.content))?;
                }
                Key::FinishReason => {
                    key.first_time(&mut seen)?;
                    candidate.finish_reason = map.next_value_seed(CowStr)?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

impl<'de> Visitor<'de> for Fill<'_, Content<'de>> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a content object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let content = self.0;
        let mut seen = 0;
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Parts => {
                    key.first_time(&mut seen)?;
                    map.next_value_seed(FirstOf(&mut content.first))?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

impl<'de> Visitor<'de> for Fill<'_, Part<'de>> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a part object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let part = self.0;
        let mut seen = 0;
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Text => {
                    key.first_time(&mut seen)?;
                    part.text = map.next_value_seed(CowStr)?;
                }
                Key::Thought => {
                    key.first_time(&mut seen)?;
                    part.thought = map.next_value()?;
                }
                Key::ThoughtSignature => {
                    key.first_time(&mut seen)?;
                    part.thought_signature = map.next_value_seed(CowStr)?;
                }
                Key::FunctionCall => {
                    key.first_time(&mut seen)?;
                    part.function_call = map.next_value()?;
                }
                Key::FunctionResponse => {
                    key.first_time(&mut seen)?;
                    part._function_response = map.next_value()?;
                }
                Key::InlineData => {
                    key.first_time(&mut seen)?;
                    part._inline_data = map.next_value()?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}
