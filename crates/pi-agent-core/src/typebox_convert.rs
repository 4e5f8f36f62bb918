//! TypeBox's `Value.Convert`, which pi 0.73.1 applies to the arguments of
//! its built-in tools (their schemas are TypeBox types) before validating
//! them: each value is converted towards the type its schema names when
//! TypeBox knows how, and left as it is otherwise.

use serde_json::{Map, Number, Value};

/// Converts `value` towards `schema` as TypeBox's `Value.Convert` does:
/// a lone value becomes a one-item array, strings become numbers
/// (`"0x10"` is 16, `"true"` is 1, `"12n"` is 12) or booleans (`"TRUE"`,
/// `"1"`), numbers and booleans become strings, `null` becomes `"null"`,
/// `0`, `false`; integers are truncated. Objects are followed through
/// `properties` and an `additionalProperties` schema, arrays through
/// `items`. Schemas without a single `type` leave the value alone.
pub fn typebox_convert(schema: &Value, value: Value) -> Value {
    let Some(kind) = schema.get("type").and_then(Value::as_str) else {
        return value;
    };
    match kind {
        "array" => {
            let items = match value {
                Value::Array(items) => items,
                other => vec![other],
            };
            match schema.get("items") {
                Some(item_schema @ Value::Object(_)) => Value::Array(
                    items
                        .into_iter()
                        .map(|item| typebox_convert(item_schema, item))
                        .collect(),
                ),
                _ => Value::Array(items),
            }
        }
        "object" => match value {
            Value::Object(map) => Value::Object(convert_object(schema, map)),
            other => other,
        },
        "string" => to_string(&value).map_or(value, Value::String),
        "number" => to_number(&value).map_or(value, number_value),
        "integer" => to_number(&value).map_or(value, |n| number_value(n.trunc())),
        "boolean" => to_boolean(&value).map_or(value, Value::Bool),
        "null" => {
            if to_null(&value) {
                Value::Null
            } else {
                value
            }
        }
        _ => value,
    }
}

fn convert_object(schema: &Value, mut map: Map<String, Value>) -> Map<String, Value> {
    let properties = schema.get("properties").and_then(Value::as_object);
    if let Some(properties) = properties {
        for (key, property) in properties {
            if let Some(slot) = map.get_mut(key) {
                *slot = typebox_convert(property, slot.take());
            }
        }
    }
    if let Some(additional @ Value::Object(_)) = schema.get("additionalProperties") {
        for (key, slot) in &mut map {
            if !properties.is_some_and(|p| p.contains_key(key)) {
                *slot = typebox_convert(additional, slot.take());
            }
        }
    }
    map
}

fn to_string(value: &Value) -> Option<String> {
    match value {
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(match n.as_f64() {
            Some(f) if n.is_f64() => js_number_text(f),
            _ => n.to_string(),
        }),
        Value::Null => Some("null".to_owned()),
        Value::String(_) | Value::Array(_) | Value::Object(_) => None,
    }
}

fn to_number(value: &Value) -> Option<f64> {
    match value {
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::Number(n) => n.as_f64(),
        Value::Null => Some(0.0),
        Value::String(s) => string_to_number(s),
        Value::Array(_) | Value::Object(_) => None,
    }
}

/// TypeBox's string-to-number: JavaScript's `+value` when finite, then
/// `"true"`/`"false"` in any case, then BigInt-like text (`12n`, `-3.7`
/// truncated) within the safe-integer range.
fn string_to_number(text: &str) -> Option<f64> {
    if let Some(n) = js_to_number(text).filter(|n| n.is_finite()) {
        return Some(n);
    }
    match text.to_lowercase().as_str() {
        "false" => return Some(0.0),
        "true" => return Some(1.0),
        _ => {}
    }
    let digits = text.strip_suffix('n').unwrap_or(text);
    let integral = digits.split_once('.').map_or(digits, |(whole, _)| whole);
    let unsigned = integral.strip_prefix('-').unwrap_or(integral);
    let canonical = unsigned == "0" || (!unsigned.starts_with('0') && !unsigned.is_empty());
    if !canonical || !unsigned.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let parsed: f64 = integral.parse().ok()?;
    // Number.MAX_SAFE_INTEGER.
    (parsed.abs() <= 9_007_199_254_740_991.0).then_some(parsed)
}

/// JavaScript's `Number(text)` for a string (`None` for `NaN`).
pub(crate) fn js_to_number(text: &str) -> Option<f64> {
    let trimmed = text.trim_matches(is_js_whitespace);
    if trimmed.is_empty() {
        return Some(0.0);
    }
    for (prefix, radix) in [
        ("0x", 16),
        ("0X", 16),
        ("0o", 8),
        ("0O", 8),
        ("0b", 2),
        ("0B", 2),
    ] {
        if let Some(digits) = trimmed.strip_prefix(prefix) {
            return u128::from_str_radix(digits, radix)
                .ok()
                .filter(|_| !digits.starts_with(['+', '-']))
                // Precision loss past 2^53 is JavaScript's too.
                .map(|n| n as f64);
        }
    }
    let unsigned = trimmed.trim_start_matches(['+', '-']);
    if trimmed.len() - unsigned.len() > 1 {
        return None;
    }
    if unsigned == "Infinity" {
        return Some(if trimmed.starts_with('-') {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
    }
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e)),
        None => (unsigned, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits_ok = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && digits_ok(e)
    });
    if (whole.is_empty() && fraction.is_empty())
        || !digits_ok(whole)
        || !digits_ok(fraction)
        || !exponent_ok
    {
        return None;
    }
    trimmed.parse::<f64>().ok()
}

/// Whitespace as JavaScript's `trim` sees it.
pub(crate) fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

fn to_boolean(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::Number(n) => match n.as_f64() {
            Some(0.0) => Some(false),
            Some(1.0) => Some(true),
            _ => None,
        },
        Value::Null => Some(false),
        Value::String(s) => match s.to_lowercase().as_str() {
            "false" | "0" => Some(false),
            "true" | "1" => Some(true),
            _ => None,
        },
        Value::Array(_) | Value::Object(_) => None,
    }
}

fn to_null(value: &Value) -> bool {
    match value {
        Value::Null | Value::Bool(false) => true,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => {
            s.is_empty() || s == "0" || matches!(s.to_lowercase().as_str(), "null" | "undefined")
        }
        Value::Bool(true) | Value::Array(_) | Value::Object(_) => false,
    }
}

/// A finite number as JavaScript prints it (`5`, `2.5`, `1e+21`, `1.5e-7`).
pub(crate) fn js_number_text(f: f64) -> String {
    let abs = f.abs();
    if abs == 0.0 || (1e-6..1e21).contains(&abs) {
        return format!("{f}");
    }
    let text = format!("{f:e}");
    match text.split_once('e') {
        Some((mantissa, exponent)) if !exponent.starts_with('-') => {
            format!("{mantissa}e+{exponent}")
        }
        _ => text,
    }
}

fn number_value(f: f64) -> Value {
    // Integral values within the safe range become JSON integers (`5`).
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        return Value::Number(Number::from(f as i64));
    }
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

#[cfg(test)]
#[path = "typebox_convert_tests.rs"]
mod tests;
