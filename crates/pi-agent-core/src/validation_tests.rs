use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::*;

fn coerced(schema: Value, mut value: Value) -> Value {
    coerce_types(&schema, &mut value);
    value
}

#[test]
fn scalars_are_coerced_like_ajv() {
    let cases = [
        ("integer", json!("5"), json!(5)),
        ("integer", json!(" 7 "), json!(7)),
        ("integer", json!("5.5"), json!("5.5")),
        ("integer", json!(true), json!(1)),
        ("integer", json!(null), json!(0)),
        ("number", json!("2.5"), json!(2.5)),
        ("number", json!("1e3"), json!(1000)),
        ("number", json!("abc"), json!("abc")),
        ("number", json!(""), json!("")),
        ("number", json!("NaN"), json!("NaN")),
        ("string", json!(5), json!("5")),
        ("string", json!(2.5), json!("2.5")),
        ("string", json!(true), json!("true")),
        ("string", json!(null), json!("")),
        ("boolean", json!("true"), json!(true)),
        ("boolean", json!("false"), json!(false)),
        ("boolean", json!(1), json!(true)),
        ("boolean", json!(0), json!(false)),
        ("boolean", json!("yes"), json!("yes")),
        ("null", json!(""), json!(null)),
        ("null", json!(0), json!(null)),
        ("null", json!(false), json!(null)),
        ("object", json!("{}"), json!("{}")),
    ];
    for (type_name, input, expected) in cases {
        assert_eq!(
            coerced(json!({"type": type_name}), input.clone()),
            expected,
            "{input} as {type_name}"
        );
    }
}

#[test]
fn a_value_of_an_allowed_type_is_kept_and_the_first_coercible_type_wins() {
    assert_eq!(
        coerced(json!({"type": ["string", "number"]}), json!(5)),
        json!(5)
    );
    assert_eq!(
        coerced(json!({"type": ["integer", "string"]}), json!(true)),
        json!(1)
    );
    assert_eq!(coerced(json!({"type": "integer"}), json!(3.0)), json!(3.0));
}

#[test]
fn coercion_follows_properties_items_and_all_of() {
    let schema = json!({
        "type": "object",
        "properties": {
            "limit": {"type": "integer"},
            "edits": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"line": {"type": "integer"}, "text": {"type": "string"}}
                }
            },
            "pair": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "boolean"}]}
        },
        "additionalProperties": {"type": "string"},
        "allOf": [{"properties": {"flag": {"type": "boolean"}}}]
    });
    let value = json!({
        "limit": "10",
        "edits": [{"line": "3", "text": 42}],
        "pair": ["1.5", "false"],
        "other": 7,
        "flag": "true"
    });
    assert_eq!(
        coerced(schema, value),
        json!({
            "limit": 10,
            "edits": [{"line": 3, "text": "42"}],
            "pair": [1.5, false],
            "other": "7",
            "flag": true
        })
    );
}

fn read_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string", "minLength": 1},
            "offset": {"type": "integer", "minimum": 1},
            "mode": {"enum": ["text", "binary"]},
            "edits": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"oldText": {"type": "string"}},
                    "required": ["oldText"]
                }
            }
        },
        "required": ["path"]
    })
}

#[test]
fn valid_arguments_come_back_coerced() {
    let validator = ArgumentValidator::new("read", &read_schema());
    assert_eq!(
        validator.validate(&json!({"path": "a.txt", "offset": "2"})),
        Ok(json!({"path": "a.txt", "offset": 2}))
    );
}

#[test]
fn errors_use_pi_text_with_ajv_paths_and_messages() {
    let validator = ArgumentValidator::new("read", &read_schema());
    let arguments = json!({"offset": "zero", "mode": "fast", "edits": [{"newText": "x"}]});
    let error = validator.validate(&arguments).unwrap_err();
    let (head, received) = error.message().split_once("\n\n").unwrap();
    let mut lines: Vec<&str> = head.lines().collect();
    assert_eq!(lines.remove(0), "Validation failed for tool \"read\":");
    lines.sort_unstable();
    assert_eq!(
        lines,
        [
            "  - edits/0: must have required property 'oldText'",
            "  - mode: must be equal to one of the allowed values",
            "  - offset: must be integer",
            "  - path: must have required property 'path'",
        ]
    );
    // The original arguments, pretty-printed with two spaces.
    assert_eq!(
        received,
        format!(
            "Received arguments:\n{}",
            serde_json::to_string_pretty(&arguments).unwrap()
        )
    );
    assert!(received.contains("\n  \"offset\": \"zero\""));
}

#[test]
fn an_invalid_schema_is_reported_not_panicked_on() {
    let validator = ArgumentValidator::new("odd", &json!({"type": 12}));
    let error = validator.validate(&json!({})).unwrap_err();
    assert!(
        error
            .message()
            .starts_with("Invalid JSON Schema for tool \"odd\": "),
        "{}",
        error.message()
    );
}

#[test]
fn limits_print_as_javascript_numbers() {
    let validator = ArgumentValidator::new(
        "t",
        &json!({"type": "object", "properties": {"n": {"type": "number", "maximum": 2.0, "exclusiveMinimum": 0.5}}}),
    );
    let error = validator.validate(&json!({"n": 3})).unwrap_err();
    assert!(
        error.message().contains("  - n: must be <= 2\n"),
        "{}",
        error.message()
    );
    let error = validator.validate(&json!({"n": 0.5})).unwrap_err();
    assert!(
        error.message().contains("  - n: must be > 0.5\n"),
        "{}",
        error.message()
    );
}
