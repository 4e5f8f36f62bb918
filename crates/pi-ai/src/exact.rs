//! Values read without spare room.
//!
//! A transcript keeps what it read for as long as the session is open (a
//! resumed one: thousands of messages), so the room serde leaves for growth
//! is paid once per message for nothing: it grows a list of unknown length
//! to at least four elements, and a JSON object's map (insertion-ordered)
//! to room for three entries of 104 bytes. These readers give each list and
//! map exactly the room its elements take; what they read is unchanged.

use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// A list with no spare room.
pub(crate) fn exact_vec<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Vec<T>, D::Error> {
    let mut list = Vec::<T>::deserialize(deserializer)?;
    list.shrink_to_fit();
    Ok(list)
}

/// A JSON value whose lists and objects, at every depth, have no spare room.
pub(crate) fn exact_value<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
    Value::deserialize(deserializer).map(compact)
}

/// [`exact_value`], for a field that may be absent or `null`.
pub(crate) fn exact_optional_value<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Value>, D::Error> {
    Option::<Value>::deserialize(deserializer).map(|value| value.map(compact))
}

/// `value` with every list and object sized to its elements. An object is
/// rebuilt entry by entry in its order (its map cannot be shrunk in place);
/// its keys were unique already, so nothing moves or merges.
pub(crate) fn compact(value: Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.into_iter().map(compact).collect()),
        Value::Object(map) => {
            let mut exact = Map::with_capacity(map.len());
            for (key, item) in map {
                exact.insert(key, compact(item));
            }
            Value::Object(exact)
        }
        scalar => scalar,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn compacting_keeps_every_value_and_the_key_order() {
        let value = json!({
            "z": 1, "a": [1, {"y": null, "b": "s"}, []], "m": {"k": {"deep": [true, 2.5]}},
            "e": {}
        });
        let text = serde_json::to_string(&value).unwrap();
        let compacted = compact(value.clone());
        assert_eq!(compacted, value);
        assert_eq!(serde_json::to_string(&compacted).unwrap(), text);
    }

    #[test]
    fn a_read_value_is_the_value_serde_reads() {
        let text = r#"{"command":"ls -la","timeout":30,"env":{"A":"1","B":["x","y"]},"a":0}"#;
        let mut de = serde_json::Deserializer::from_str(text);
        let read = exact_value(&mut de).unwrap();
        assert_eq!(read, serde_json::from_str::<Value>(text).unwrap());
        assert_eq!(serde_json::to_string(&read).unwrap(), text);
        let mut de = serde_json::Deserializer::from_str("null");
        assert_eq!(exact_optional_value(&mut de).unwrap(), None);
    }

    #[test]
    fn lists_have_no_spare_room() {
        let mut de = serde_json::Deserializer::from_str("[1,2,3,4,5]");
        let list: Vec<u8> = exact_vec(&mut de).unwrap();
        assert_eq!(list.capacity(), 5);
        let read = compact(json!([[1], [2, 3]]));
        let Value::Array(items) = read else {
            panic!("an array")
        };
        assert_eq!(items.capacity(), 2);
    }
}
