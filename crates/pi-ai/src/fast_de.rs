//! Deserialization of tagged objects without an intermediate tree, for the
//! types read in bulk (a session file holds tens of thousands of messages).
//!
//! serde's derived internally tagged enums buffer the whole object before
//! they look at the tag. Objects tagged by one of their keys (`role` for
//! messages, `type` for content blocks and session entries) implement
//! [`TaggedMap`] instead. pi writes the tag first, so [`deserialize_tagged`]
//! reads the first key: when it is the tag, the variant is built straight
//! from the rest of the object; otherwise the object is buffered into a
//! [`serde_json::Map`] and dispatched the same way, so any key order is
//! still accepted.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::value::{MapAccessDeserializer, MapDeserializer, StrDeserializer};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::Value;

/// A type read from a JSON object whose variant is named by the key [`Self::TAG`].
pub trait TaggedMap: Sized {
    /// The key holding the variant name, e.g. `"role"`.
    const TAG: &'static str;

    /// What the object is, for error messages ("a message").
    const EXPECTING: &'static str;

    /// Builds the value of variant `tag` from the rest of the object (every
    /// key but the tag, in their order).
    fn from_tag<'de, A: MapAccess<'de>>(tag: &str, rest: A) -> Result<Self, A::Error>;
}

/// Deserializes a [`TaggedMap`] from a JSON object.
pub fn deserialize_tagged<'de, T: TaggedMap, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<T, D::Error> {
    deserializer.deserialize_map(TaggedVisitor(PhantomData))
}

/// Deserializes `T` (a derived struct or a map) from the rest of an object.
pub fn from_rest<'de, T: Deserialize<'de>, A: MapAccess<'de>>(rest: A) -> Result<T, A::Error> {
    T::deserialize(MapAccessDeserializer::new(rest))
}

/// Deserializes `T` from the rest of an object with the tag put back in
/// front, for types that read the tag themselves (derived tagged enums).
pub fn with_tag<'de, T: Deserialize<'de>, A: MapAccess<'de>>(
    key: &'static str,
    tag: &str,
    rest: A,
) -> Result<T, A::Error> {
    T::deserialize(MapAccessDeserializer::new(Retagged {
        key,
        tag: Some(tag),
        rest,
    }))
}

struct TaggedVisitor<T>(PhantomData<T>);

impl<'de, T: TaggedMap> Visitor<'de> for TaggedVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(T::EXPECTING)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let first = match map.next_key_seed(KeySeed(T::TAG))? {
            None => return Err(de::Error::missing_field(T::TAG)),
            Some(Key::Tag) => {
                let tag: CowStr<'de> = map.next_value()?;
                return T::from_tag(&tag.0, map);
            }
            Some(Key::Other(first)) => first,
        };
        // The tag is not first: buffer the object, then dispatch on it.
        let mut object = serde_json::Map::new();
        object.insert(first, map.next_value()?);
        while let Some((key, value)) = map.next_entry::<String, Value>()? {
            object.insert(key, value);
        }
        let tag = match object.shift_remove(T::TAG) {
            Some(Value::String(tag)) => tag,
            Some(other) => {
                return Err(de::Error::custom(format_args!(
                    "`{}` must be a string, found {other}",
                    T::TAG
                )));
            }
            None => return Err(de::Error::missing_field(T::TAG)),
        };
        let rest = MapDeserializer::<_, serde_json::Error>::new(object.into_iter());
        T::from_tag(&tag, rest).map_err(de::Error::custom)
    }
}

enum Key {
    Tag,
    Other(String),
}

/// Reads a key, telling the tag apart without allocating for it.
struct KeySeed(&'static str);

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for KeySeed {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        Ok(if key == self.0 {
            Key::Tag
        } else {
            Key::Other(key.to_owned())
        })
    }

    fn visit_string<E: de::Error>(self, key: String) -> Result<Key, E> {
        Ok(if key == self.0 {
            Key::Tag
        } else {
            Key::Other(key)
        })
    }
}

/// A string (a key or a tag), borrowed from the input when possible.
#[derive(Debug)]
pub struct CowStr<'de>(pub Cow<'de, str>);

impl<'de> Deserialize<'de> for CowStr<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StrVisitor;

        impl<'de> Visitor<'de> for StrVisitor {
            type Value = CowStr<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }

            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Borrowed(v)))
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Owned(v.to_owned())))
            }

            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Owned(v)))
            }
        }

        deserializer.deserialize_str(StrVisitor)
    }
}

/// The rest of an object with `key: tag` in front again.
struct Retagged<'t, A> {
    key: &'static str,
    tag: Option<&'t str>,
    rest: A,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Retagged<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        if self.tag.is_some() {
            return seed
                .deserialize(StrDeserializer::<A::Error>::new(self.key))
                .map(Some);
        }
        self.rest.next_key_seed(seed)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        match self.tag.take() {
            Some(tag) => seed.deserialize(StrDeserializer::<A::Error>::new(tag)),
            None => self.rest.next_value_seed(seed),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        self.rest
            .size_hint()
            .map(|n| n + usize::from(self.tag.is_some()))
    }
}

#[cfg(test)]
#[path = "fast_de_tests.rs"]
mod tests;
