//! Tool-argument validation as pi does it with AJV (`coerceTypes: true`,
//! `allErrors: true`, formats on): a schema-guided coercion pass, then a
//! real JSON Schema validator, then pi's error text.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{Draft, ValidationError, Validator};
use serde_json::{Map, Number, Value};

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
    compiled: Result<Validator, String>,
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
        let mut options = jsonschema::options().should_validate_formats(true);
        if schema.get("$schema").is_none() {
            options = options.with_draft(Draft::Draft7);
        }
        let compiled = options.build(schema).map_err(|e| e.to_string());
        Self {
            tool_name: tool_name.into(),
            schema: schema.clone(),
            compiled,
        }
    }

    /// Coerces a copy of `arguments` to the schema's scalar types and
    /// validates it; returns the coerced arguments or pi's error text.
    pub fn validate(&self, arguments: &Value) -> Result<Value, ArgumentError> {
        let validator = match &self.compiled {
            Ok(validator) => validator,
            Err(error) => {
                return Err(ArgumentError {
                    message: format!(
                        "Invalid JSON Schema for tool \"{}\": {error}",
                        self.tool_name
                    ),
                });
            }
        };
        let mut coerced = arguments.clone();
        coerce_types(&self.schema, &mut coerced);
        let mut errors: Vec<ValidationError<'_>> = validator.iter_errors(&coerced).collect();
        // AJV reports an object's own keywords (required, then
        // additionalProperties) before the errors inside its properties.
        errors.sort_by_key(|error| {
            let depth = error.instance_path().segments().count();
            let rank = match error.kind() {
                ValidationErrorKind::Type { .. } => 0,
                ValidationErrorKind::Required { .. } => 1,
                ValidationErrorKind::AdditionalProperties { .. } => 2,
                _ => 3,
            };
            (depth, rank)
        });
        let lines: Vec<String> = errors.iter().flat_map(error_lines).collect();
        if lines.is_empty() {
            return Ok(coerced);
        }
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

/// pi's `  - path: message` lines for one validator error (AJV wording).
fn error_lines(error: &ValidationError<'_>) -> Vec<String> {
    let pointer = error.instance_path().as_str();
    let path = pointer.strip_prefix('/').unwrap_or(pointer);
    let line = |path: &str, message: String| {
        let path = if path.is_empty() { "root" } else { path };
        format!("  - {path}: {message}")
    };
    match error.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_owned);
            // AJV names the missing property when the object is the root.
            let shown = if path.is_empty() { name.as_str() } else { path };
            vec![line(shown, format!("must have required property '{name}'"))]
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => unexpected
            .iter()
            .map(|_| line(path, "must NOT have additional properties".to_owned()))
            .collect(),
        kind => vec![line(
            path,
            ajv_message(kind).unwrap_or_else(|| error.to_string()),
        )],
    }
}

/// AJV's message for an error kind, when there is a direct equivalent.
fn ajv_message(kind: &ValidationErrorKind) -> Option<String> {
    Some(match kind {
        ValidationErrorKind::Type { kind } => {
            let names: Vec<&str> = match kind {
                TypeKind::Single(t) => vec![t.as_str()],
                TypeKind::Multiple(set) => set.iter().map(|t| t.as_str()).collect(),
            };
            format!("must be {}", names.join(","))
        }
        ValidationErrorKind::Enum { .. } => "must be equal to one of the allowed values".to_owned(),
        ValidationErrorKind::Constant { .. } => "must be equal to constant".to_owned(),
        ValidationErrorKind::Minimum { limit } => format!("must be >= {}", js_number(limit)),
        ValidationErrorKind::Maximum { limit } => format!("must be <= {}", js_number(limit)),
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            format!("must be > {}", js_number(limit))
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            format!("must be < {}", js_number(limit))
        }
        ValidationErrorKind::MinLength { limit } => {
            format!("must NOT have fewer than {limit} characters")
        }
        ValidationErrorKind::MaxLength { limit } => {
            format!("must NOT have more than {limit} characters")
        }
        ValidationErrorKind::MinItems { limit } => {
            format!("must NOT have fewer than {limit} items")
        }
        ValidationErrorKind::MaxItems { limit } => format!("must NOT have more than {limit} items"),
        ValidationErrorKind::MinProperties { limit } => {
            format!("must NOT have fewer than {limit} properties")
        }
        ValidationErrorKind::MaxProperties { limit } => {
            format!("must NOT have more than {limit} properties")
        }
        ValidationErrorKind::Pattern { pattern } => format!("must match pattern \"{pattern}\""),
        ValidationErrorKind::Format { format } => format!("must match format \"{format}\""),
        ValidationErrorKind::MultipleOf { multiple_of } => {
            format!("must be multiple of {}", js_f64(*multiple_of))
        }
        ValidationErrorKind::UniqueItems => "must NOT have duplicate items".to_owned(),
        ValidationErrorKind::AnyOf { .. } => "must match a schema in anyOf".to_owned(),
        ValidationErrorKind::OneOfNotValid { .. }
        | ValidationErrorKind::OneOfMultipleValid { .. } => {
            "must match exactly one schema in oneOf".to_owned()
        }
        ValidationErrorKind::Not { .. } => "must NOT be valid".to_owned(),
        ValidationErrorKind::FalseSchema => "boolean schema is false".to_owned(),
        ValidationErrorKind::Contains => "must contain at least 1 valid item(s)".to_owned(),
        ValidationErrorKind::AdditionalItems { limit } => {
            format!("must NOT have more than {limit} items")
        }
        ValidationErrorKind::UnevaluatedProperties { .. } => {
            "must NOT have unevaluated properties".to_owned()
        }
        ValidationErrorKind::UnevaluatedItems { .. } => {
            "must NOT have unevaluated items".to_owned()
        }
        ValidationErrorKind::PropertyNames { .. } => "property name must be valid".to_owned(),
        _ => return None,
    })
}

/// A JSON number as JavaScript prints it (`1` rather than `1.0`).
fn js_number(value: &Value) -> String {
    match value.as_f64() {
        Some(f) if value.is_f64() => js_f64(f),
        _ => value.to_string(),
    }
}

fn js_f64(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e21 {
        format!("{f:.0}")
    } else {
        f.to_string()
    }
}

/// Coerces scalar values in place to the types the schema asks for, as AJV's
/// `coerceTypes: true` does: `"5"` to `5` for a number or integer, `5` to
/// `"5"` for a string, `"true"`/`1` to `true` for a boolean, `""`/`0`/`false`
/// to `null` for null, `null` to `""`/`0`/`false`, and any other value `v`
/// to `[v]` for an array (TypeBox's conversion in pi 0.73.1). A value that already
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
                .map_or_else(|| n.to_string(), js_f64),
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
        // pi 0.73.1 converts with TypeBox first, which wraps a lone value
        // for an array (a string `edits` becomes `[string]`).
        ("array", other) => Some(Value::Array(vec![other.clone()])),
        _ => None,
    }
}

fn parse_number(text: &str) -> Option<f64> {
    let trimmed = text.trim();
    if trimmed.is_empty() || trimmed.chars().any(char::is_alphabetic) && !is_exponent(trimmed) {
        return None;
    }
    trimmed.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// True for decimal numbers written with an exponent (`1e3`), the only
/// letters a numeric string may contain here (no `inf`, `NaN`, hex).
fn is_exponent(text: &str) -> bool {
    text.chars()
        .all(|c| c.is_ascii_digit() || matches!(c, 'e' | 'E' | '+' | '-' | '.'))
}

fn number_value(f: f64) -> Value {
    // Integral values within i64 become JSON integers (`5`, not `5.0`).
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        #[allow(clippy::cast_possible_truncation)]
        return Value::Number(Number::from(f as i64));
    }
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

#[cfg(test)]
#[path = "validation_tests.rs"]
mod tests;
