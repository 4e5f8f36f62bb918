//! JSON read as pi's JavaScript reads it, for the wires that test optional
//! fields by truthiness.

use serde_json::Value;

/// JavaScript truthiness of a JSON value: `null`, `false`, `0` and `""` are
/// false; every other value, empty arrays and objects included, is true.
pub fn is_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn truthiness_matches_javascript() {
        for falsy in [json!(null), json!(false), json!(0), json!(""), json!(0.0)] {
            assert!(!is_truthy(&falsy), "{falsy}");
        }
        for truthy in [json!(true), json!(1), json!("x"), json!([]), json!({})] {
            assert!(is_truthy(&truthy), "{truthy}");
        }
    }
}
