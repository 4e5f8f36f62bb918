//! [`ExtraFields`]: the JSON fields of a value that this version does not
//! know, kept verbatim.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::LazyLock;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// The map every empty [`ExtraFields`] reads as.
static EMPTY: LazyLock<Map<String, Value>> = LazyLock::new(Map::new);

/// Extra JSON fields kept verbatim (in their order) so a read-modify-write
/// round trip loses nothing. Flattened into the struct that holds them.
///
/// It reads and writes as a `serde_json::Map` (through `Deref` and
/// `DerefMut`), but takes one word when empty, as it almost always is: a
/// message and each of its content blocks hold one, and a resumed session
/// holds tens of thousands of them (an inline map is nine words).
#[derive(Clone, Default)]
pub struct ExtraFields(Option<Box<Map<String, Value>>>);

impl ExtraFields {
    /// No fields.
    pub const fn new() -> Self {
        Self(None)
    }

    /// The fields as a map, taken out.
    pub fn into_map(self) -> Map<String, Value> {
        self.0.map(|map| *map).unwrap_or_default()
    }
}

impl Deref for ExtraFields {
    type Target = Map<String, Value>;

    fn deref(&self) -> &Map<String, Value> {
        self.0.as_deref().unwrap_or(&EMPTY)
    }
}

impl DerefMut for ExtraFields {
    /// The map, made on first use.
    fn deref_mut(&mut self) -> &mut Map<String, Value> {
        self.0.get_or_insert_with(Box::default)
    }
}

impl PartialEq for ExtraFields {
    /// Equal when they hold the same fields (an emptied map equals none).
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl fmt::Debug for ExtraFields {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl From<Map<String, Value>> for ExtraFields {
    fn from(map: Map<String, Value>) -> Self {
        Self((!map.is_empty()).then(|| Box::new(map)))
    }
}

impl From<ExtraFields> for Map<String, Value> {
    fn from(extra: ExtraFields) -> Self {
        extra.into_map()
    }
}

impl FromIterator<(String, Value)> for ExtraFields {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Self {
        Map::from_iter(iter).into()
    }
}

impl<'a> IntoIterator for &'a ExtraFields {
    type Item = (&'a String, &'a Value);
    type IntoIter = serde_json::map::Iter<'a>;

    fn into_iter(self) -> Self::IntoIter {
        (**self).iter()
    }
}

impl IntoIterator for ExtraFields {
    type Item = (String, Value);
    type IntoIter = serde_json::map::IntoIter;

    fn into_iter(self) -> Self::IntoIter {
        self.into_map().into_iter()
    }
}

impl Serialize for ExtraFields {
    /// As the map (flattened by the struct that holds it).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ExtraFields {
    /// As a map; no allocation when it is empty.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Map::deserialize(deserializer).map(Self::from)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Holder {
        known: u32,
        #[serde(flatten)]
        extra: ExtraFields,
    }

    #[test]
    fn it_takes_one_word() {
        assert_eq!(
            std::mem::size_of::<ExtraFields>(),
            std::mem::size_of::<usize>()
        );
    }

    #[test]
    fn unknown_fields_round_trip_in_their_order() {
        let text = r#"{"known":1,"zeta":[1,2],"alpha":{"b":1,"a":2},"mid":null}"#;
        let holder: Holder = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            holder.extra.keys().collect::<Vec<_>>(),
            ["zeta", "alpha", "mid"]
        );
        assert_eq!(serde_json::to_string(&holder).ok().as_deref(), Some(text));
    }

    #[test]
    fn none_stays_unallocated_and_reads_as_an_empty_map() {
        let holder: Holder =
            serde_json::from_str(r#"{"known":1}"#).unwrap_or_else(|e| panic!("{e}"));
        assert!(holder.extra.0.is_none());
        assert!(holder.extra.is_empty());
        assert_eq!(holder.extra.get("x"), None);
        assert_eq!(
            serde_json::to_value(&holder).ok(),
            Some(json!({"known": 1}))
        );
    }

    #[test]
    fn writing_makes_the_map_and_an_emptied_map_equals_none() {
        let mut extra = ExtraFields::new();
        extra.insert("k".to_owned(), json!(1));
        assert_eq!(extra.get("k"), Some(&json!(1)));
        extra.remove("k");
        assert_eq!(extra, ExtraFields::new());
    }
}
