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

/// The expected texts are what pi 0.73.1's `validateToolArguments` answers
/// for the same schema and arguments (run under Node).
#[test]
fn errors_use_pi_text_with_typebox_paths_messages_and_order() {
    let validator = ArgumentValidator::new("read", &read_schema());
    let arguments = json!({"offset": "zero", "mode": "fast", "edits": [{"newText": "x"}]});
    let error = validator.validate(&arguments).unwrap_err();
    assert_eq!(
        error.message(),
        "Validation failed for tool \"read\":\n  - path: must have required properties path\n  \
         - offset: must be integer\n  - mode: must be equal to one of the allowed values\n  \
         - edits.0.oldText: must have required properties oldText\n\nReceived arguments:\n{\n  \
         \"offset\": \"zero\",\n  \"mode\": \"fast\",\n  \"edits\": [\n    {\n      \
         \"newText\": \"x\"\n    }\n  ]\n}"
    );
    let error = validator
        .validate(&json!({"path": "", "offset": 0}))
        .unwrap_err();
    assert_eq!(
        error.message(),
        "Validation failed for tool \"read\":\n  - path: must not have fewer than 1 characters\n  \
         - offset: must be >= 1\n\nReceived arguments:\n{\n  \"path\": \"\",\n  \"offset\": 0\n}"
    );
}

#[test]
fn extra_properties_and_wrong_types_read_as_typebox_reports_them() {
    // pi 0.73.1's edit tool with `{path: {}, extra: 1}` and nested extras.
    let schema = json!({
        "type": "object",
        "required": ["path", "edits"],
        "properties": {
            "path": {"type": "string"},
            "edits": {"type": "array", "items": {
                "type": "object",
                "required": ["oldText", "newText"],
                "properties": {"oldText": {"type": "string"}, "newText": {"type": "string"}},
                "additionalProperties": false
            }}
        },
        "additionalProperties": false
    });
    let validator =
        ArgumentValidator::with_conversion("edit", &schema, ArgumentConversion::TypeBox);
    let lines = |arguments: Value| {
        let error = validator.validate(&arguments).unwrap_err();
        let (head, _) = error.message().split_once("\n\n").unwrap();
        head.lines().skip(1).map(str::to_owned).collect::<Vec<_>>()
    };
    assert_eq!(
        lines(json!({"path": {}, "extra": 1})),
        [
            "  - edits: must have required properties edits",
            "  - extra: schema is false",
            "  - root: must not have additional properties",
            "  - path: must be string",
        ]
    );
    assert_eq!(
        lines(json!({"edits": [{"oldText": {}, "z": 1}], "path": [], "q": 2})),
        [
            "  - q: schema is false",
            "  - root: must not have additional properties",
            "  - path: must be string",
            "  - edits.0.newText: must have required properties newText",
            "  - edits.0.z: schema is false",
            "  - edits.0: must not have additional properties",
            "  - edits.0.oldText: must be string",
        ]
    );
    assert_eq!(
        lines(json!({})),
        ["  - path: must have required properties path, edits"]
    );
    assert_eq!(lines(json!("str")), ["  - root: must be object"]);
    // TypeBox conversion: a lone value becomes an array, null a string.
    assert_eq!(
        lines(json!({"path": "a", "edits": null})),
        ["  - edits.0: must be object"]
    );
    assert_eq!(
        validator.validate(&json!({"path": null, "edits": {"oldText": 1, "newText": true}})),
        Ok(json!({"path": "null", "edits": [{"oldText": "1", "newText": "true"}]}))
    );
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

/// pi 0.73.1's `validateToolArguments` on a plain JSON schema (run under
/// Node): its JSON-Schema coercion, then TypeBox's error text.
#[test]
fn plain_schemas_coerce_as_pi_does() {
    let schema = json!({"type": "object", "properties": {
        "n": {"type": "number"}, "i": {"type": "integer"},
        "s": {"type": "string"}, "b": {"type": "boolean"}
    }});
    let validator = ArgumentValidator::new("t", &schema);
    let outcome = |arguments: Value| match validator.validate(&arguments) {
        Ok(value) => value.to_string(),
        Err(error) => error.message().split("\n\nRec").next().unwrap().to_owned(),
    };
    assert_eq!(
        outcome(json!({"n": "0x10", "i": "0b11", "s": null, "b": "TRUE"})),
        "Validation failed for tool \"t\":\n  - b: must be boolean"
    );
    assert_eq!(
        outcome(json!({"n": "Infinity", "i": "2.5", "s": 1.5, "b": 1})),
        "Validation failed for tool \"t\":\n  - n: must be number\n  - i: must be integer"
    );
    assert_eq!(
        outcome(json!({"n": " 7 ", "i": "1e3", "s": true, "b": null})),
        r#"{"n":7,"i":1000,"s":"true","b":false}"#
    );
    assert_eq!(
        outcome(json!({"n": "", "i": "", "s": [], "b": "1"})),
        "Validation failed for tool \"t\":\n  - n: must be number\n  - i: must be integer\n  \
         - s: must be string\n  - b: must be boolean"
    );
}
