//! Tool-argument validation as pi 0.73.1 does it: a conversion pass
//! (TypeBox's `Value.Convert` for tools built like pi's own, a JSON-Schema
//! guided coercion for other schemas), then a real JSON Schema validator,
//! then pi's error text with TypeBox's wording.

use jsonschema::{Draft, ValidationError, Validator};
use serde_json::{Map, Number, Value};

use crate::typebox_convert::{is_js_whitespace, js_number_text, js_to_number, typebox_convert};
use crate::validation_errors::error_lines;

/// How a tool's arguments are converted before they are validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ArgumentConversion {
    /// pi's coercion for plain JSON schemas ([`coerce_types`]): scalars
    /// towards the schema's types, `null` to the type's empty value.
    #[default]
    JsonSchema,
    /// TypeBox's `Value.Convert`, which pi applies to its built-in tools
    /// (their schemas are TypeBox types): also wraps a lone value into an
    /// array, writes `null` as `"null"`, truncates integers.
    TypeBox,
}

/// Arguments that do not match a tool's schema. The message is pi's text:
/// `Validation failed for tool "NAME":\n  - path: msg\n...\n\nReceived arguments:\n<JSON>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ArgumentError {
    message: String,
}

impl ArgumentError {
    /// The text given to the model.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// A compiled tool schema. Compile once per tool and reuse it for every call.
pub struct ArgumentValidator {
    tool_name: String,
    schema: Value,
    conversion: ArgumentConversion,
    /// The compiled schema, or the error every call reports when it does
    /// not compile.
    compiled: Result<Validator, ArgumentError>,
}

impl std::fmt::Debug for ArgumentValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArgumentValidator")
            .field("tool_name", &self.tool_name)
            .field("compiled", &self.compiled.is_ok())
            .finish_non_exhaustive()
    }
}

impl ArgumentValidator {
    /// Compiles `schema` (draft 7 unless it names another with `$schema`,
    /// formats checked, as AJV with ajv-formats does).
    pub fn new(tool_name: impl Into<String>, schema: &Value) -> Self {
        Self::with_conversion(tool_name, schema, ArgumentConversion::JsonSchema)
    }

    /// Compiles `schema` for arguments converted as `conversion` says.
    pub fn with_conversion(
        tool_name: impl Into<String>,
        schema: &Value,
        conversion: ArgumentConversion,
    ) -> Self {
        let mut options = jsonschema::options().should_validate_formats(true);
        if schema.get("$schema").is_none() {
            options = options.with_draft(Draft::Draft7);
        }
        let tool_name = tool_name.into();
        let compiled = options.build(schema).map_err(|error| ArgumentError {
            message: format!("Invalid JSON Schema for tool \"{tool_name}\": {error}"),
        });
        Self {
            tool_name,
            schema: schema.clone(),
            conversion,
            compiled,
        }
    }

    /// Converts a copy of `arguments` towards the schema's types and
    /// validates it; returns the converted arguments or pi's error text.
    pub fn validate(&self, arguments: &Value) -> Result<Value, ArgumentError> {
        let validator = self.compiled.as_ref().map_err(Clone::clone)?;
        let coerced = match self.conversion {
            ArgumentConversion::JsonSchema => {
                let mut coerced = arguments.clone();
                coerce_types(&self.schema, &mut coerced);
                coerced
            }
            ArgumentConversion::TypeBox => typebox_convert(&self.schema, arguments.clone()),
        };
        let errors: Vec<ValidationError<'_>> = validator.iter_errors(&coerced).collect();
        if errors.is_empty() {
            return Ok(coerced);
        }
        let lines = error_lines(&self.schema, &coerced, &errors);
        let received = serde_json::to_string_pretty(arguments).unwrap_or_else(|_| "{}".to_owned());
        Err(ArgumentError {
            message: format!(
                "Validation failed for tool \"{}\":\n{}\n\nReceived arguments:\n{received}",
                self.tool_name,
                lines.join("\n")
            ),
        })
    }
}

/// Coerces scalar values in place to the types the schema asks for, as pi
/// does for plain JSON schemas (its `coerceWithJsonSchema`, after AJV's
/// `coerceTypes`): `"5"` to `5` for a number or integer, `5` to
/// `"5"` for a string, `"true"`/`1` to `true` for a boolean, `""`/`0`/`false`
/// to `null` for null, and `null` to `""`/`0`/`false`. A value that already
/// has one of the allowed types is left alone; with several allowed types the
/// first that accepts the value wins. The pass follows `properties`,
/// `additionalProperties`, `items`, `prefixItems`, `additionalItems` and
/// `allOf`; it does not enter `anyOf`/`oneOf` branches or `$ref`s.
pub fn coerce_types(schema: &Value, value: &mut Value) {
    let Value::Object(schema) = schema else {
        return;
    };
    if let Some(types) = schema.get("type") {
        coerce_scalar(types, value);
    }
    match value {
        Value::Object(map) => coerce_object(schema, map),
        Value::Array(items) => coerce_array(schema, items),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
    if let Some(Value::Array(all)) = schema.get("allOf") {
        for sub in all {
            coerce_types(sub, value);
        }
    }
}

fn coerce_object(schema: &Map<String, Value>, map: &mut Map<String, Value>) {
    let properties = match schema.get("properties") {
        Some(Value::Object(properties)) => Some(properties),
        _ => None,
    };
    let additional = schema.get("additionalProperties").filter(|s| s.is_object());
    for (key, child) in map.iter_mut() {
        match properties.and_then(|p| p.get(key)) {
            Some(sub) => coerce_types(sub, child),
            None => {
                if let Some(sub) = additional {
                    coerce_types(sub, child);
                }
            }
        }
    }
}

fn coerce_array(schema: &Map<String, Value>, items: &mut [Value]) {
    let mut from = 0;
    let tuple = match (schema.get("prefixItems"), schema.get("items")) {
        (Some(Value::Array(prefix)), _) | (None, Some(Value::Array(prefix))) => Some(prefix),
        _ => None,
    };
    if let Some(prefix) = tuple {
        for (item, sub) in items.iter_mut().zip(prefix) {
            coerce_types(sub, item);
        }
        from = prefix.len();
    }
    let rest = match schema.get("items") {
        Some(sub @ Value::Object(_)) => Some(sub),
        Some(Value::Array(_)) => schema.get("additionalItems").filter(|s| s.is_object()),
        _ => None,
    };
    if let Some(sub) = rest {
        for item in items.iter_mut().skip(from) {
            coerce_types(sub, item);
        }
    }
}

fn coerce_scalar(types: &Value, value: &mut Value) {
    let types: Vec<&str> = match types {
        Value::String(t) => vec![t.as_str()],
        Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
        _ => return,
    };
    if types.iter().any(|t| has_type(value, t)) {
        return;
    }
    if let Some(coerced) = types.iter().find_map(|t| coerce_to(t, value)) {
        *value = coerced;
    }
}

fn has_type(value: &Value, type_name: &str) -> bool {
    match type_name {
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.as_f64().is_some_and(|f| f.fract() == 0.0),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        _ => false,
    }
}

fn coerce_to(type_name: &str, value: &Value) -> Option<Value> {
    match (type_name, value) {
        ("string", Value::Number(n)) => Some(Value::String(
            n.as_f64()
                .filter(|_| n.is_f64())
                .map_or_else(|| n.to_string(), js_number_text),
        )),
        ("string", Value::Bool(b)) => Some(Value::String(b.to_string())),
        ("string", Value::Null) => Some(Value::String(String::new())),
        ("number" | "integer", Value::String(s)) => {
            let parsed = parse_number(s)?;
            (type_name == "number" || parsed.fract() == 0.0).then(|| number_value(parsed))
        }
        ("number" | "integer", Value::Bool(b)) => Some(Value::from(u8::from(*b))),
        ("number" | "integer", Value::Null) => Some(Value::from(0)),
        ("boolean", Value::String(s)) => match s.as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        ("boolean", Value::Number(n)) => match n.as_f64() {
            Some(1.0) => Some(Value::Bool(true)),
            Some(0.0) => Some(Value::Bool(false)),
            _ => None,
        },
        ("boolean", Value::Null) => Some(Value::Bool(false)),
        ("null", Value::String(s)) if s.is_empty() => Some(Value::Null),
        ("null", Value::Number(n)) if n.as_f64() == Some(0.0) => Some(Value::Null),
        ("null", Value::Bool(false)) => Some(Value::Null),
        _ => None,
    }
}

/// pi's `Number(value)` for a non-blank string, when finite (hex, octal
/// and binary literals included, `Infinity` and `NaN` not).
fn parse_number(text: &str) -> Option<f64> {
    if text.trim_matches(is_js_whitespace).is_empty() {
        return None;
    }
    js_to_number(text).filter(|f| f.is_finite())
}

fn number_value(f: f64) -> Value {
    // Integral values within i64 become JSON integers (`5`, not `5.0`).
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        return Value::Number(Number::from(f as i64));
    }
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

#[cfg(test)]
#[path = "validation_tests.rs"]
mod tests;
