//! Readers for the stream chunk's fields that take nothing the frame
//! already holds: a chunk is parsed once per frame, and each owned string
//! or vector it made was an allocation per frame.
//!
//! Both accept exactly what the derived readers they replace accept, with
//! the same error texts, so a chunk reads and fails as before.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use pi_ai::fast_de::CowStr;
use serde::Deserialize;
use serde::de::{Deserializer, SeqAccess, Visitor};

/// An optional string, borrowed from the frame when it has no escapes
/// (pi-ai's [`CowStr`]).
///
/// serde's `borrow` borrows a bare `Cow<str>` field but reads an
/// `Option<Cow<str>>` as an owned `String`. Accepts a string or `null`,
/// as `Option<Cow<str>>` does.
pub(super) fn optional_str<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Cow<'de, str>>, D::Error> {
    Ok(Option::<CowStr<'de>>::deserialize(deserializer)?.map(|text| text.0))
}

/// The first element of a JSON array, the others read (so an invalid one
/// still fails the chunk, as a `Vec` would) and dropped without a vector.
pub(super) fn first_of<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    /// Keeps the first element.
    struct First<T>(PhantomData<T>);

    impl<'de, T: Deserialize<'de>> Visitor<'de> for First<T> {
        type Value = Option<T>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a sequence")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let first = seq.next_element::<T>()?;
            if first.is_some() {
                while seq.next_element::<T>()?.is_some() {}
            }
            Ok(first)
        }
    }

    deserializer.deserialize_seq(First(PhantomData))
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use serde::Deserialize;

    /// A chunk-like struct read the new way and the derived way.
    #[derive(Debug, Deserialize)]
    struct New<'a> {
        #[serde(default, borrow, deserialize_with = "super::optional_str")]
        id: Option<Cow<'a, str>>,
        #[serde(rename = "choices", deserialize_with = "super::first_of")]
        first: Option<u32>,
    }

    #[derive(Debug, Deserialize)]
    struct Old<'a> {
        #[serde(default, borrow)]
        id: Option<Cow<'a, str>>,
        choices: Vec<u32>,
    }

    fn both(json: &str) -> (Result<String, String>, Result<String, String>) {
        let new = serde_json::from_str::<New<'_>>(json)
            .map(|c| format!("{:?} {:?}", c.id.as_deref(), c.first))
            .map_err(|e| e.to_string());
        let old = serde_json::from_str::<Old<'_>>(json)
            .map(|c| format!("{:?} {:?}", c.id.as_deref(), c.choices.first()))
            .map_err(|e| e.to_string());
        (new, old)
    }

    #[test]
    fn reads_and_fails_as_the_derived_readers() {
        for json in [
            r#"{"id":"cmpl-1","choices":[7]}"#,
            r#"{"id":"c\u0031","choices":[7,8,9]}"#,
            r#"{"id":null,"choices":[]}"#,
            r#"{"choices":[1]}"#,
            r#"{"id":5,"choices":[1]}"#,
            r#"{"id":"a","choices":null}"#,
            r#"{"id":"a"}"#,
            r#"{"id":"a","choices":[1,"x"]}"#,
            r#"{"id":"a","choices":{"0":1}}"#,
            r#"{"id":[],"choices":[1]}"#,
        ] {
            let (new, old) = both(json);
            assert_eq!(new, old, "{json}");
        }
    }

    #[test]
    fn a_string_without_escapes_is_borrowed() {
        let chunk: New<'_> = serde_json::from_str(r#"{"id":"cmpl-1","choices":[1]}"#).unwrap();
        assert!(matches!(chunk.id, Some(Cow::Borrowed("cmpl-1"))));
        let chunk: New<'_> = serde_json::from_str(r#"{"id":"c\u0031","choices":[1]}"#).unwrap();
        assert!(matches!(chunk.id, Some(Cow::Owned(ref id)) if id == "c1"));
    }
}
