use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::*;

/// TypeBox 1.x `Value.Convert` on single types, as printed by Node for
/// `Value.Convert(Type.X(), value)`.
#[test]
fn scalars_convert_as_typebox_does() {
    let cases: [(&str, Value, Value); 34] = [
        ("string", json!(null), json!("null")),
        ("string", json!(true), json!("true")),
        ("string", json!(2.5), json!("2.5")),
        ("string", json!(-3), json!("-3")),
        ("string", json!([1]), json!([1])),
        ("number", json!(null), json!(0)),
        ("number", json!(true), json!(1)),
        ("number", json!(""), json!(0)),
        ("number", json!(" "), json!(0)),
        ("number", json!(" 5 "), json!(5)),
        ("number", json!("5.5"), json!(5.5)),
        ("number", json!("1e3"), json!(1000)),
        ("number", json!("0x10"), json!(16)),
        ("number", json!("-0x10"), json!("-0x10")),
        ("number", json!("abc"), json!("abc")),
        ("number", json!("TRUE"), json!(1)),
        ("number", json!("false"), json!(0)),
        ("number", json!("12n"), json!(12)),
        ("number", json!("Infinity"), json!("Infinity")),
        ("number", json!("null"), json!("null")),
        ("integer", json!(2.5), json!(2)),
        ("integer", json!("5.5"), json!(5)),
        ("boolean", json!(null), json!(false)),
        ("boolean", json!(1), json!(true)),
        ("boolean", json!(2.5), json!(2.5)),
        ("boolean", json!("TRUE"), json!(true)),
        ("boolean", json!("0"), json!(false)),
        ("boolean", json!(""), json!("")),
        ("null", json!(false), json!(null)),
        ("null", json!("0"), json!(null)),
        ("null", json!("NULL"), json!(null)),
        ("null", json!(1), json!(1)),
        ("object", json!("5"), json!("5")),
        ("array", json!({}), json!([{}])),
    ];
    for (type_name, input, expected) in cases {
        assert_eq!(
            typebox_convert(&json!({"type": type_name}), input.clone()),
            expected,
            "{input} as {type_name}"
        );
    }
}

#[test]
fn conversion_follows_properties_additional_properties_and_items() {
    let schema = json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "edits": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "number"}}}}
        },
        "additionalProperties": {"type": "boolean"}
    });
    assert_eq!(
        typebox_convert(
            &schema,
            json!({"path": null, "edits": {"n": "3"}, "flag": "true"})
        ),
        json!({"path": "null", "edits": [{"n": 3}], "flag": true})
    );
    assert_eq!(
        typebox_convert(
            &json!({"type": "array", "items": {"type": "string"}}),
            json!(null)
        ),
        json!(["null"])
    );
}

#[test]
fn numbers_print_as_javascript_does() {
    assert_eq!(js_number_text(5.0), "5");
    assert_eq!(js_number_text(0.1), "0.1");
    assert_eq!(js_number_text(1e21), "1e+21");
    assert_eq!(js_number_text(1.5e-7), "1.5e-7");
    assert_eq!(js_number_text(123_456.789), "123456.789");
}
