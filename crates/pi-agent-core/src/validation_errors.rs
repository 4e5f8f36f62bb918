//! The error lines of a failed validation, worded and ordered as pi 0.73.1
//! (TypeBox) reports them: `  - <path>: <message>`, the path dotted
//! (`edits.0.oldText`, `root` for the arguments object). At each object:
//! its missing required properties (one line, at the first missing one),
//! then each property not allowed (`<key>: schema is false`, then
//! `<path>: must not have additional properties`), then its properties in
//! schema order; arrays report their items in order. Other keywords come
//! from the JSON Schema validator, at the node they concern.

use jsonschema::ValidationError;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::Value;

use crate::typebox_convert::js_number_text;

/// Whether the structural walk reports this validator error itself.
fn is_structural(error: &ValidationError<'_>) -> bool {
    matches!(
        error.kind(),
        ValidationErrorKind::Type { .. }
            | ValidationErrorKind::Required { .. }
            | ValidationErrorKind::AdditionalProperties { .. }
    )
}

/// The lines for `value` against `schema`, given the validator's own errors
/// (consulted for keywords other than type, required and
/// additionalProperties).
pub(crate) fn error_lines(
    schema: &Value,
    value: &Value,
    errors: &[ValidationError<'_>],
) -> Vec<String> {
    let mut keyword_errors: Vec<(String, String, bool)> = errors
        .iter()
        .filter(|e| !is_structural(e))
        .map(|e| {
            (
                pointer_path(e.instance_path().as_str()),
                keyword_message(e),
                false,
            )
        })
        .collect();
    let mut walk = Walk {
        lines: Vec::new(),
        keyword_errors: &mut keyword_errors,
    };
    walk.node(schema, value, &mut Vec::new());
    let mut lines = walk.lines;
    for (path, message, shown) in &keyword_errors {
        if !shown {
            lines.push(line(path, message));
        }
    }
    if lines.is_empty() {
        // The validator failed in a way the walk does not see (for example
        // a required property inside `if`/`then`): report its errors as is.
        lines = errors
            .iter()
            .map(|e| {
                line(
                    &pointer_path(e.instance_path().as_str()),
                    &keyword_message(e),
                )
            })
            .collect();
    }
    lines
}

struct Walk<'a> {
    lines: Vec<String>,
    keyword_errors: &'a mut Vec<(String, String, bool)>,
}

impl Walk<'_> {
    fn node(&mut self, schema: &Value, value: &Value, path: &mut Vec<String>) {
        let Value::Object(schema) = schema else {
            return;
        };
        if let Some(types) = schema.get("type")
            && !matches_type(types, value)
        {
            self.lines.push(line(&dotted(path), &type_message(types)));
            return;
        }
        let here = dotted(path);
        for (at, message, shown) in self.keyword_errors.iter_mut() {
            if !*shown && *at == here {
                *shown = true;
                self.lines.push(line(at, message));
            }
        }
        match value {
            Value::Object(map) => {
                let properties = schema.get("properties").and_then(Value::as_object);
                let missing: Vec<&str> = schema
                    .get("required")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .filter(|key| !map.contains_key(*key))
                    .collect();
                if let Some(first) = missing.first() {
                    path.push((*first).to_owned());
                    let at = dotted(path);
                    path.pop();
                    self.lines.push(line(
                        &at,
                        &format!("must have required properties {}", missing.join(", ")),
                    ));
                }
                let extras: Vec<&String> = map
                    .keys()
                    .filter(|key| !properties.is_some_and(|p| p.contains_key(*key)))
                    .collect();
                if schema.get("additionalProperties") == Some(&Value::Bool(false))
                    && !extras.is_empty()
                {
                    for key in &extras {
                        path.push((*key).clone());
                        self.lines.push(line(&dotted(path), "schema is false"));
                        path.pop();
                    }
                    self.lines
                        .push(line(&here, "must not have additional properties"));
                }
                for (key, property) in properties.into_iter().flatten() {
                    if let Some(child) = map.get(key) {
                        path.push(key.clone());
                        self.node(property, child, path);
                        path.pop();
                    }
                }
                if let Some(additional @ Value::Object(_)) = schema.get("additionalProperties") {
                    for key in extras {
                        path.push(key.clone());
                        self.node(additional, &map[key.as_str()], path);
                        path.pop();
                    }
                }
            }
            Value::Array(items) => {
                if let Some(item_schema @ Value::Object(_)) = schema.get("items") {
                    for (index, item) in items.iter().enumerate() {
                        path.push(index.to_string());
                        self.node(item_schema, item, path);
                        path.pop();
                    }
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
        }
        if let Some(Value::Array(all)) = schema.get("allOf") {
            for sub in all {
                self.node(sub, value, path);
            }
        }
    }
}

fn line(path: &str, message: &str) -> String {
    format!("  - {path}: {message}")
}

fn dotted(path: &[String]) -> String {
    if path.is_empty() {
        "root".to_owned()
    } else {
        path.join(".")
    }
}

fn pointer_path(pointer: &str) -> String {
    let path = pointer
        .strip_prefix('/')
        .unwrap_or(pointer)
        .replace('/', ".");
    if path.is_empty() {
        "root".to_owned()
    } else {
        path
    }
}

fn matches_type(types: &Value, value: &Value) -> bool {
    let matches = |name: &str| match name {
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.as_f64().is_some_and(|f| f.fract() == 0.0),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        _ => true,
    };
    match types {
        Value::String(name) => matches(name),
        Value::Array(names) => names.iter().filter_map(Value::as_str).any(matches),
        _ => true,
    }
}

fn type_message(types: &Value) -> String {
    match types {
        Value::Array(names) => {
            let names: Vec<&str> = names.iter().filter_map(Value::as_str).collect();
            format!("must be either {}", names.join(" or "))
        }
        other => format!("must be {}", other.as_str().unwrap_or_default()),
    }
}

/// TypeBox's English message for a keyword error.
fn keyword_message(error: &ValidationError<'_>) -> String {
    let limit = |value: &Value| match value.as_f64() {
        Some(f) if value.is_f64() => js_number_text(f),
        _ => value.to_string(),
    };
    match error.kind() {
        ValidationErrorKind::Type { kind } => match kind {
            TypeKind::Single(t) => format!("must be {}", t.as_str()),
            TypeKind::Multiple(set) => {
                let names: Vec<&str> = set.iter().map(|t| t.as_str()).collect();
                format!("must be either {}", names.join(" or "))
            }
        },
        ValidationErrorKind::Required { property } => format!(
            "must have required properties {}",
            property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_owned)
        ),
        ValidationErrorKind::AdditionalProperties { .. } => {
            "must not have additional properties".to_owned()
        }
        ValidationErrorKind::Enum { .. } => "must be equal to one of the allowed values".to_owned(),
        ValidationErrorKind::Constant { .. } => "must be equal to constant".to_owned(),
        ValidationErrorKind::Minimum { limit: l } => format!("must be >= {}", limit(l)),
        ValidationErrorKind::Maximum { limit: l } => format!("must be <= {}", limit(l)),
        ValidationErrorKind::ExclusiveMinimum { limit: l } => format!("must be > {}", limit(l)),
        ValidationErrorKind::ExclusiveMaximum { limit: l } => format!("must be < {}", limit(l)),
        ValidationErrorKind::MinLength { limit } => {
            format!("must not have fewer than {limit} characters")
        }
        ValidationErrorKind::MaxLength { limit } => {
            format!("must not have more than {limit} characters")
        }
        ValidationErrorKind::MinItems { limit } => {
            format!("must not have fewer than {limit} items")
        }
        ValidationErrorKind::MaxItems { limit } => {
            format!("must not have more than {limit} items")
        }
        ValidationErrorKind::AdditionalItems { limit } => {
            format!("must not have more than {limit} items")
        }
        ValidationErrorKind::MinProperties { limit } => {
            format!("must not have fewer than {limit} properties")
        }
        ValidationErrorKind::MaxProperties { limit } => {
            format!("must not have more than {limit} properties")
        }
        ValidationErrorKind::Pattern { pattern } => format!("must match pattern \"{pattern}\""),
        ValidationErrorKind::Format { format } => format!("must match format \"{format}\""),
        ValidationErrorKind::MultipleOf { multiple_of } => {
            format!("must be multiple of {}", js_number_text(*multiple_of))
        }
        ValidationErrorKind::UniqueItems => "must not have duplicate items".to_owned(),
        ValidationErrorKind::AnyOf { .. } => "must match a schema in anyOf".to_owned(),
        ValidationErrorKind::OneOfNotValid { .. }
        | ValidationErrorKind::OneOfMultipleValid { .. } => {
            "must match exactly one schema in oneOf".to_owned()
        }
        ValidationErrorKind::Not { .. } => "must not be valid".to_owned(),
        ValidationErrorKind::FalseSchema => "schema is false".to_owned(),
        ValidationErrorKind::Contains => "must contain at least 1 valid item".to_owned(),
        ValidationErrorKind::UnevaluatedProperties { .. } => {
            "must not have unevaluated properties".to_owned()
        }
        ValidationErrorKind::UnevaluatedItems { .. } => {
            "must not have unevaluated items".to_owned()
        }
        _ => error.to_string(),
    }
}
