//! The one-pass read of a [`Chunk`]: serde visitors that fill the chunk in
//! place as serde_json walks the frame, each object level matching its own
//! keys (one key enum per level) and skipping the others.
//!
//! They accept what the derived `Deserialize` of [`ChatCompletionChunk`]
//! accepts in the JSON object form: the same value types, read by the same
//! functions (`lenient_str`, `lenient_u64`, the derived usage, `Value`), a
//! repeated known key refused, unknown keys skipped, `null` read as absent.
//! A chunk of more than one choice, or a struct written as an array, is
//! refused, and the caller parses it the full way. Written by hand rather
//! than derived, they write straight into the chunk: no `Option` of a whole
//! struct built at each level and moved up into the next.
//!
//! [`ChatCompletionChunk`]: crate::wire::ChatCompletionChunk

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::Chunk;
use crate::wire::{
    ChunkChoice, ChunkDelta, FunctionDelta, ToolCallDelta, lenient_str, lenient_u64,
};

/// `data` as a chunk of at most one choice, when it is a valid chunk in
/// object form.
pub(crate) fn parse(data: &str) -> Option<Chunk<'_>> {
    let mut chunk = Chunk::default();
    let mut deserializer = serde_json::Deserializer::from_str(data);
    Fill(&mut chunk).deserialize(&mut deserializer).ok()?;
    deserializer.end().ok()?;
    Some(chunk)
}

/// Declares the key enum of one object level: its known keys, `Other` for
/// the rest, read from a JSON object key (escapes already decoded).
macro_rules! keys {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $text:literal,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        enum $name {
            $($(#[$vdoc])* $variant,)*
            /// A key this level does not read.
            Other,
        }

        impl $name {
            /// The key named `name`.
            fn of(name: &str) -> Self {
                match name {
                    $($text => Self::$variant,)*
                    _ => Self::Other,
                }
            }

            /// Fails when `self` was seen before in this object (`seen`
            /// holds one bit per key), as a derived struct fails on a
            /// repeated field.
            fn first_time<E: de::Error>(self, seen: &mut u8) -> Result<(), E> {
                let bit = 1u8 << (self as u8);
                if *seen & bit != 0 {
                    return Err(E::custom("duplicate field"));
                }
                *seen |= bit;
                Ok(())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                /// Reads the key's name.
                struct KeyVisitor;

                impl Visitor<'_> for KeyVisitor {
                    type Value = $name;

                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str("a key")
                    }

                    fn visit_str<E: de::Error>(self, v: &str) -> Result<$name, E> {
                        Ok($name::of(v))
                    }
                }

                deserializer.deserialize_identifier(KeyVisitor)
            }
        }
    };
}

keys! {
    /// The keys of the chunk object.
    ChunkKey {
        /// `id`.
        Id = "id",
        /// `model`.
        Model = "model",
        /// `choices`.
        Choices = "choices",
        /// `usage`.
        Usage = "usage",
        /// `error`.
        Error = "error",
    }
}

keys! {
    /// The keys of a choice.
    ChoiceKey {
        /// `delta`.
        Delta = "delta",
        /// `finish_reason`.
        FinishReason = "finish_reason",
        /// `usage`.
        Usage = "usage",
    }
}

keys! {
    /// The keys of a delta.
    DeltaKey {
        /// `content`.
        Content = "content",
        /// `reasoning_content`.
        ReasoningContent = "reasoning_content",
        /// `reasoning`.
        Reasoning = "reasoning",
        /// `reasoning_text`.
        ReasoningText = "reasoning_text",
        /// `tool_calls`.
        ToolCalls = "tool_calls",
        /// `reasoning_details`.
        ReasoningDetails = "reasoning_details",
    }
}

keys! {
    /// The keys of a tool-call fragment.
    CallKey {
        /// `index`.
        Index = "index",
        /// `id`.
        Id = "id",
        /// `function`.
        Function = "function",
    }
}

keys! {
    /// The keys of a tool-call fragment's `function`.
    FunctionKey {
        /// `name`.
        Name = "name",
        /// `arguments`.
        Arguments = "arguments",
    }
}

/// An object level that fills itself from a JSON object's entries.
trait Object<'de>: Default {
    /// Reads the entries of `map` into `self`.
    fn fill<A: MapAccess<'de>>(&mut self, map: A) -> Result<(), A::Error>;
}

/// Fills the value it points at from a JSON object (an array, the other
/// form a derived struct takes, is refused).
struct Fill<'v, T>(&'v mut T);

impl<'de, T: Object<'de>> DeserializeSeed<'de> for Fill<'_, T> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_struct("", &[], self)
    }
}

impl<'de, T: Object<'de>> Visitor<'de> for Fill<'_, T> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        self.0.fill(map)
    }
}

/// An optional value: `null` leaves the slot as it is (`None`), anything
/// else is read by the inner seed, which fills the slot.
struct OrNull<S>(S);

impl<'de, S: DeserializeSeed<'de, Value = ()>> DeserializeSeed<'de> for OrNull<S> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de, S: DeserializeSeed<'de, Value = ()>> Visitor<'de> for OrNull<S> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value or null")
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        self.0.deserialize(deserializer)
    }
}

/// An object filled into a fresh default value in the slot.
struct Opt<'v, T>(&'v mut Option<T>);

impl<'de, T: Object<'de>> DeserializeSeed<'de> for Opt<'_, T> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        Fill(self.0.insert(T::default())).deserialize(deserializer)
    }
}

/// An array of at most one object, filled in place into the slot (`[]`
/// leaves it `None`; more than one element is an error, so the caller
/// falls back to the full parse).
struct FirstOf<'v, T>(&'v mut Option<T>);

impl<'de, T: Object<'de>> DeserializeSeed<'de> for FirstOf<'_, T> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, T: Object<'de>> Visitor<'de> for FirstOf<'_, T> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let first = self.0.insert(T::default());
        if seq.next_element_seed(Fill(first))?.is_none() {
            *self.0 = None;
        } else if seq.next_element::<IgnoredAny>()?.is_some() {
            return Err(de::Error::custom("more than one element"));
        }
        Ok(())
    }
}

/// An array of objects, each filled in place at the end of the slot's
/// vector (the default pushed for the element after the last is popped
/// again).
struct Each<'v, T>(&'v mut Option<Vec<T>>);

impl<'de, T: Object<'de>> DeserializeSeed<'de> for Each<'_, T> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, T: Object<'de>> Visitor<'de> for Each<'_, T> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let list = self.0.insert(Vec::new());
        loop {
            list.push(T::default());
            let Some(element) = list.last_mut() else {
                return Ok(());
            };
            if seq.next_element_seed(Fill(element))?.is_none() {
                list.pop();
                return Ok(());
            }
        }
    }
}

/// Reads a string field with `lenient_str`, as the full parse does.
struct LenientStr;

impl<'de> DeserializeSeed<'de> for LenientStr {
    type Value = Option<Cow<'de, str>>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        lenient_str(deserializer)
    }
}

/// Reads a count with `lenient_u64`, as the full parse does.
struct LenientU64;

impl<'de> DeserializeSeed<'de> for LenientU64 {
    type Value = Option<u64>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        lenient_u64(deserializer)
    }
}

impl<'de> Object<'de> for Chunk<'de> {
    fn fill<A: MapAccess<'de>>(&mut self, mut map: A) -> Result<(), A::Error> {
        let mut seen = 0;
        while let Some(key) = map.next_key::<ChunkKey>()? {
            if key == ChunkKey::Other {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            key.first_time(&mut seen)?;
            match key {
                ChunkKey::Id => self.id = map.next_value_seed(LenientStr)?,
                ChunkKey::Model => self.model = map.next_value_seed(LenientStr)?,
                ChunkKey::Choices => {
                    map.next_value_seed(OrNull(FirstOf(&mut self.first_choice)))?
                }
                ChunkKey::Usage => self.usage = map.next_value()?,
                ChunkKey::Error => self.error = map.next_value()?,
                ChunkKey::Other => {}
            }
        }
        Ok(())
    }
}

impl<'de> Object<'de> for ChunkChoice<'de> {
    fn fill<A: MapAccess<'de>>(&mut self, mut map: A) -> Result<(), A::Error> {
        let mut seen = 0;
        while let Some(key) = map.next_key::<ChoiceKey>()? {
            if key == ChoiceKey::Other {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            key.first_time(&mut seen)?;
            match key {
                ChoiceKey::Delta => map.next_value_seed(OrNull(Opt(&mut self.delta)))?,
                ChoiceKey::FinishReason => self.finish_reason = map.next_value_seed(LenientStr)?,
                ChoiceKey::Usage => self.usage = map.next_value()?,
                ChoiceKey::Other => {}
            }
        }
        Ok(())
    }
}

impl<'de> Object<'de> for ChunkDelta<'de> {
    fn fill<A: MapAccess<'de>>(&mut self, mut map: A) -> Result<(), A::Error> {
        let mut seen = 0;
        while let Some(key) = map.next_key::<DeltaKey>()? {
            if key == DeltaKey::Other {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            key.first_time(&mut seen)?;
            match key {
                DeltaKey::Content => self.content = map.next_value_seed(LenientStr)?,
                DeltaKey::ReasoningContent => {
                    self.reasoning_content = map.next_value_seed(LenientStr)?;
                }
                DeltaKey::Reasoning => self.reasoning = map.next_value_seed(LenientStr)?,
                DeltaKey::ReasoningText => self.reasoning_text = map.next_value_seed(LenientStr)?,
                DeltaKey::ToolCalls => map.next_value_seed(OrNull(Each(&mut self.tool_calls)))?,
                DeltaKey::ReasoningDetails => self.reasoning_details = map.next_value()?,
                DeltaKey::Other => {}
            }
        }
        Ok(())
    }
}

impl<'de> Object<'de> for ToolCallDelta<'de> {
    fn fill<A: MapAccess<'de>>(&mut self, mut map: A) -> Result<(), A::Error> {
        let mut seen = 0;
        while let Some(key) = map.next_key::<CallKey>()? {
            if key == CallKey::Other {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            key.first_time(&mut seen)?;
            match key {
                CallKey::Index => self.index = map.next_value_seed(LenientU64)?,
                CallKey::Id => self.id = map.next_value_seed(LenientStr)?,
                CallKey::Function => map.next_value_seed(OrNull(Opt(&mut self.function)))?,
                CallKey::Other => {}
            }
        }
        Ok(())
    }
}

impl<'de> Object<'de> for FunctionDelta<'de> {
    fn fill<A: MapAccess<'de>>(&mut self, mut map: A) -> Result<(), A::Error> {
        let mut seen = 0;
        while let Some(key) = map.next_key::<FunctionKey>()? {
            if key == FunctionKey::Other {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            key.first_time(&mut seen)?;
            match key {
                FunctionKey::Name => self.name = map.next_value_seed(LenientStr)?,
                FunctionKey::Arguments => self.arguments = map.next_value_seed(LenientStr)?,
                FunctionKey::Other => {}
            }
        }
        Ok(())
    }
}
