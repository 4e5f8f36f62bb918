#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;
use proptest::prelude::*;
use serde_json::json;

/// Pushes `fragments` one by one into a fresh parser starting from `{}` and
/// returns the value after each push.
fn stream(fragments: &[&str]) -> (PartialJson, Vec<Value>) {
    let mut parser = PartialJson::new();
    let mut value = json!({});
    let mut seen = Vec::new();
    for fragment in fragments {
        parser.push(fragment, &mut value);
        seen.push(value.clone());
    }
    (parser, seen)
}

/// Value after pushing `text` char by char.
fn char_by_char(text: &str) -> (PartialJson, Value) {
    let mut parser = PartialJson::new();
    let mut value = json!({});
    let mut buf = [0u8; 4];
    for c in text.chars() {
        parser.push(c.encode_utf8(&mut buf), &mut value);
    }
    (parser, value)
}

fn is_error(parser: &PartialJson) -> bool {
    matches!(parser.state, State::Error)
}

#[test]
fn string_escapes_split_across_fragments() {
    let (parser, seen) = stream(&[
        r#"{"a":"x\"#,
        "n",
        r"\u00",
        "e9",
        r"\",
        r#"""#,
        r#"\t\/\\\b\f\r"#,
        r#""}"#,
    ]);
    assert_eq!(seen[0], json!({"a": "x"}));
    assert_eq!(seen[1], json!({"a": "x\n"}));
    assert_eq!(seen[2], json!({"a": "x\n"}));
    assert_eq!(seen[3], json!({"a": "x\né"}));
    assert_eq!(seen[4], json!({"a": "x\né"}));
    assert_eq!(seen[5], json!({"a": "x\né\""}));
    assert_eq!(seen[6], json!({"a": "x\né\"\t/\\\u{8}\u{c}\r"}));
    assert_eq!(seen[7], parser.finish().unwrap());
    assert!(!is_error(&parser));
}

#[test]
fn surrogate_pair_split_decodes_to_one_char() {
    let (parser, seen) = stream(&[r#"["a\uD8"#, "3D", r"\", "u", "DE", "00", r#"b"]"#]);
    for held in &seen[..5] {
        assert_eq!(held, &json!(["a"]));
    }
    assert_eq!(seen[5], json!(["a😀"]));
    assert_eq!(seen[6], json!(["a😀b"]));
    assert_eq!(seen[6], parser.finish().unwrap());
}

#[test]
fn lone_surrogates_become_replacement_char() {
    let cases = [
        (r#""\uD83Dx""#, "\u{FFFD}x"),
        (r#""\uDE00""#, "\u{FFFD}"),
        (r#""\uD83D""#, "\u{FFFD}"),
        (r#""\uD83D\n""#, "\u{FFFD}\n"),
        (r#""\uD83D\"""#, "\u{FFFD}\""),
        (r#""\uD83D\u0041""#, "\u{FFFD}A"),
        (r#""\uD83D\uD83D\uDE00""#, "\u{FFFD}😀"),
    ];
    for (text, want) in cases {
        let (parser, value) = char_by_char(text);
        assert_eq!(value, json!(want), "{text}");
        assert_eq!(parse_partial_json(text), json!(want), "{text}");
        assert!(!is_error(&parser), "{text}");
        assert!(parser.finish().is_err(), "serde_json rejects {text}");
    }
}

#[test]
fn keys_appear_only_when_their_value_starts() {
    let (_, seen) = stream(&[
        "{", r#""ab"#, r#"c""#, " ", ":", " ", r#"""#, "v", r#"","#, r#" "d"#, r#"":"#,
    ]);
    let want = [
        json!({}),
        json!({}),
        json!({}),
        json!({}),
        json!({}),
        json!({}),
        json!({"abc": ""}),
        json!({"abc": "v"}),
        json!({"abc": "v"}),
        json!({"abc": "v"}),
        json!({"abc": "v"}),
    ];
    assert_eq!(seen, want);
}

#[test]
fn nested_containers_grow_in_place() {
    let (parser, seen) = stream(&[
        r#"{"a":["#,
        "1,",
        r#"{"b":["#,
        "[",
        "]",
        r#"],"c":{}"#,
        "}]",
        r#","d":[true"#,
        "]}",
    ]);
    let want = [
        json!({"a": []}),
        json!({"a": [1]}),
        json!({"a": [1, {"b": []}]}),
        json!({"a": [1, {"b": [[]]}]}),
        json!({"a": [1, {"b": [[]]}]}),
        json!({"a": [1, {"b": [[]], "c": {}}]}),
        json!({"a": [1, {"b": [[]], "c": {}}]}),
        json!({"a": [1, {"b": [[]], "c": {}}], "d": [true]}),
        json!({"a": [1, {"b": [[]], "c": {}}], "d": [true]}),
    ];
    assert_eq!(seen, want);
    assert_eq!(seen[8], parser.finish().unwrap());
}

#[test]
fn numbers_show_their_longest_valid_prefix() {
    let cases = [
        ("-", json!({})),
        ("1.", json!(1)),
        ("1e", json!(1)),
        ("1e-", json!(1)),
        ("1E+", json!(1)),
        ("1.5e", json!(1.5)),
        ("12", json!(12)),
        ("-0", serde_json::from_str("-0").unwrap()),
        ("-12.5e2", json!(-1250.0)),
        ("[-", json!([])),
        ("[1.", json!([1])),
        ("[1, 2", json!([1, 2])),
        (r#"{"n":-"#, json!({})),
        (r#"{"n":-4"#, json!({"n": -4})),
        (r#"{"n":4.25e"#, json!({"n": 4.25})),
    ];
    for (text, want) in cases {
        let (_, value) = char_by_char(text);
        assert_eq!(value, want, "{text}");
        assert_eq!(parse_partial_json(text), want, "{text}");
    }
}

#[test]
fn completed_numbers_match_serde_json_representation() {
    let text = "[0,1,-1,1.0,-0,-0.0,1e2,1E-2,18446744073709551615,-9223372036854775808,\
                18446744073709551616,-9223372036854775809,0.1000000000000000055511151231257827]";
    let (parser, value) = char_by_char(text);
    let want: Value = serde_json::from_str(text).unwrap();
    assert_eq!(value, want);
    let items = value.as_array().unwrap();
    assert!(items[1].is_u64());
    assert!(items[2].is_i64());
    assert!(items[3].is_f64());
    assert!(items[8].is_u64());
    assert!(items[9].is_i64());
    assert!(items[10].is_f64());
    assert!(!is_error(&parser));
    // A top-level number completes at the end of the text.
    assert_eq!(
        char_by_char("1.0").1,
        serde_json::from_str::<Value>("1.0").unwrap()
    );
    assert!(char_by_char("1.0").1.is_f64());
}

#[test]
fn out_of_range_numbers_are_errors() {
    let (parser, seen) = stream(&["[1e30", "0", "0]"]);
    assert_eq!(seen[0], json!([1e30]));
    assert_eq!(seen[1], json!([1e300]));
    assert_eq!(seen[2], json!([]));
    assert!(is_error(&parser));
    assert!(parser.finish().is_err());
    assert_eq!(parse_partial_json("[1e3000]"), json!([]));
}

#[test]
fn huge_number_tokens_appear_when_terminated() {
    let digits = "1".repeat(300);
    let (_, seen) = stream(&["[", &digits[..200], &digits[200..], "]"]);
    assert_eq!(
        seen[1],
        serde_json::from_str::<Value>(&format!("[{}]", &digits[..200])).unwrap()
    );
    assert_eq!(seen[2], json!([]));
    assert_eq!(
        seen[3],
        serde_json::from_str::<Value>(&format!("[{digits}]")).unwrap()
    );
}

#[test]
fn partial_literals_are_completed() {
    let cases = [
        ("t", json!(true)),
        ("tr", json!(true)),
        ("tru", json!(true)),
        ("f", json!(false)),
        ("fals", json!(false)),
        ("n", json!(null)),
        ("nul", json!(null)),
        ("[tr", json!([true])),
        ("[true, f", json!([true, false])),
        (r#"{"a":nu"#, json!({"a": null})),
        (r#"{"a":null,"b":t"#, json!({"a": null, "b": true})),
    ];
    for (text, want) in cases {
        let (parser, value) = char_by_char(text);
        assert_eq!(value, want, "{text}");
        assert_eq!(parse_partial_json(text), want, "{text}");
        assert!(!is_error(&parser), "{text}");
    }
    let (parser, value) = char_by_char("[trux]");
    assert_eq!(value, json!([true]));
    assert!(is_error(&parser));
}

#[test]
fn whitespace_is_allowed_everywhere() {
    let text = " \n\t{ \"a\" :\r [ 1 , \"x\" , { } , [ ] , null ] ,\n \"b\" : -2.5e1 } \n ";
    let (parser, value) = char_by_char(text);
    assert_eq!(value, serde_json::from_str::<Value>(text).unwrap());
    assert!(!is_error(&parser));
    let (_, seen) = stream(&["  ", "\n", " 7", " "]);
    assert_eq!(seen, [json!({}), json!({}), json!(7), json!(7)]);
}

#[test]
fn value_is_untouched_before_the_root_token() {
    let mut parser = PartialJson::new();
    let mut value = json!({"keep": 1});
    parser.push("  \n", &mut value);
    assert_eq!(value, json!({"keep": 1}));
    parser.push("-", &mut value);
    assert_eq!(value, json!({"keep": 1}));
    parser.push("3", &mut value);
    assert_eq!(value, json!(-3));
    let mut parser = PartialJson::new();
    let mut value = json!({"keep": 1});
    parser.push("[", &mut value);
    assert_eq!(value, json!([]));
}

#[test]
fn top_level_scalars() {
    assert_eq!(char_by_char(r#""ab\u00e9"#).1, json!("abé"));
    assert_eq!(char_by_char(r#""ab""#).1, json!("ab"));
    assert_eq!(char_by_char("42").1, json!(42));
    assert_eq!(char_by_char("false ").1, json!(false));
}

#[test]
fn invalid_input_stops_updates() {
    let cases = [
        (r#"{"a":1}x"#, json!({"a": 1})),
        (r#"{"a":1} {"#, json!({"a": 1})),
        (r#"{"a" 1}"#, json!({})),
        (r#"{"a":1,}"#, json!({"a": 1})),
        ("[1,]", json!([1])),
        ("{,}", json!({})),
        ("[01]", json!([0])),
        ("[1.x]", json!([1])),
        ("[-x]", json!([])),
        (r#"["ab\x"]"#, json!(["ab"])),
        ("[\"a\u{1}\"]", json!(["a"])),
        (r#"["a\u12G4"]"#, json!(["a"])),
        ("[é]", json!([])),
        ("[}", json!([])),
        (r#"{"a":]"#, json!({})),
        ("{1:2}", json!({})),
        ("[1 2]", json!([1])),
        ("[nul1]", json!([null])),
    ];
    for (text, want) in cases {
        let (parser, value) = char_by_char(text);
        assert_eq!(value, want, "{text}");
        assert_eq!(parse_partial_json(text), want, "{text}");
        assert!(is_error(&parser), "{text}");
        assert!(parser.finish().is_err(), "{text}");
        // More text changes nothing but is still recorded.
        let mut parser = parser;
        let mut value = value;
        parser.push(r#", "more": [1, 2]}"#, &mut value);
        assert_eq!(value, want, "{text}");
        assert!(parser.text().ends_with("[1, 2]}"));
    }
}

#[test]
fn nesting_limit_matches_serde_json() {
    let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    let expected: Value = serde_json::from_str(&ok).unwrap();
    let (parser, value) = char_by_char(&ok);
    assert_eq!(value, expected);
    assert!(!is_error(&parser));

    let deep = MAX_DEPTH + 1;
    let too_deep = format!("{}{}", "[".repeat(deep), "]".repeat(deep));
    assert!(serde_json::from_str::<Value>(&too_deep).is_err());
    let (parser, _) = char_by_char(&too_deep);
    assert!(is_error(&parser));
}

#[test]
fn duplicate_keys_end_like_serde_json() {
    let text = r#"{"a":1,"b":{"x":2},"a":"s","b":[3],"a":-5}"#;
    let (_, value) = char_by_char(text);
    assert_eq!(value, serde_json::from_str::<Value>(text).unwrap());
    assert_eq!(parse_partial_json(r#"{"a":1,"a":-"#), json!({}));
}

#[test]
fn tampered_value_does_not_panic() {
    let mut parser = PartialJson::new();
    let mut value = json!({});
    parser.push(r#"{"a":[{"b":"x"#, &mut value);
    value = Value::Null;
    parser.push(r#"y"}, 2], "c": 3"#, &mut value);
    assert_eq!(value, json!({"a": [{"b": "y"}, 2], "c": 3}));
    value = json!([1]);
    parser.push("}", &mut value);
    assert!(!is_error(&parser));
}

#[test]
fn text_accumulates_and_finish_parses_exactly() {
    let (parser, value) = stream(&[r#"{"a""#, r#":[1.5,"#, r#""z"]}"#]);
    assert_eq!(parser.text(), r#"{"a":[1.5,"z"]}"#);
    assert_eq!(parser.finish().unwrap(), json!({"a": [1.5, "z"]}));
    assert_eq!(value[2], json!({"a": [1.5, "z"]}));
}

#[test]
fn parse_partial_json_one_shot() {
    assert_eq!(parse_partial_json(r#"{"a":[1,2]}"#), json!({"a": [1, 2]}));
    assert_eq!(parse_partial_json(r#"{"a":[1,2"#), json!({"a": [1, 2]}));
    assert_eq!(
        parse_partial_json(r#"{"path":"src/ma"#),
        json!({"path": "src/ma"})
    );
    assert_eq!(parse_partial_json("[1, 2]"), json!([1, 2]));
    assert_eq!(parse_partial_json(""), json!({}));
    assert_eq!(parse_partial_json("   "), json!({}));
    assert_eq!(parse_partial_json("garbage"), json!({}));
    assert_eq!(parse_partial_json("-"), json!({}));
}

#[test]
fn streams_200_kib_string_byte_by_byte_in_linear_time() {
    let content: String = "abcdefghij\"\\é\n"
        .chars()
        .cycle()
        .take(200 * 1024)
        .collect();
    let text = serde_json::to_string(&json!({ "content": content })).unwrap();
    let started = std::time::Instant::now();
    let (parser, value) = char_by_char(&text);
    let elapsed = started.elapsed();
    assert_eq!(value, json!({ "content": content }));
    assert_eq!(parser.finish().unwrap(), value);
    // Quadratic behaviour would take minutes; linear takes milliseconds.
    assert!(elapsed.as_secs() < 10, "took {elapsed:?}");
}

/// Strings with quotes, backslashes, control characters and non-BMP chars.
fn arb_string() -> impl Strategy<Value = String> {
    let special = prop::sample::select(vec![
        '"', '\\', '/', '\n', '\t', '\u{0}', '\u{1f}', '\u{7f}', 'é', '😀', '\u{2028}', 'u',
    ]);
    prop::collection::vec(prop_oneof![any::<char>(), special, Just('a')], 0..12)
        .prop_map(|chars| chars.into_iter().collect())
}

/// Arbitrary JSON values of bounded size.
fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter_map("finite", |f| serde_json::Number::from_f64(f)
            .map(Value::Number)),
        (-1000i64..1000, 0u32..4).prop_map(|(m, e)| json!(m as f64 / 10f64.powi(e as i32))),
        arb_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((arb_string(), inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

/// Rewrites every non-ASCII char as `\uXXXX` escapes (they only occur inside strings).
fn escape_non_ascii(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04X}"));
            }
        }
    }
    out
}

/// Pushes `text` in chunks of the given sizes (rounded up to char
/// boundaries, cycling), checking each prefix against the one-shot parse.
fn check_chunks(text: &str, sizes: &[usize]) -> Result<(), TestCaseError> {
    let mut parser = PartialJson::new();
    let mut value = json!({});
    let mut at = 0;
    for size in sizes.iter().cycle() {
        if at >= text.len() {
            break;
        }
        let mut end = (at + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        parser.push(&text[at..end], &mut value);
        at = end;
        prop_assert_eq!(
            &value,
            &parse_partial_json(&text[..at]),
            "prefix {:?}",
            &text[..at]
        );
    }
    prop_assert_eq!(value, serde_json::from_str::<Value>(text).unwrap());
    prop_assert!(!is_error(&parser));
    Ok(())
}

/// Pushes `text` char by char, checking every prefix against the one-shot parse.
fn check_every_prefix(text: &str) -> Result<(), TestCaseError> {
    let mut parser = PartialJson::new();
    let mut value = json!({});
    for (at, c) in text.char_indices() {
        let end = at + c.len_utf8();
        parser.push(&text[at..end], &mut value);
        prop_assert_eq!(
            &value,
            &parse_partial_json(&text[..end]),
            "prefix {:?}",
            &text[..end]
        );
    }
    prop_assert_eq!(value, serde_json::from_str::<Value>(text).unwrap());
    prop_assert!(!is_error(&parser));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// Every split of compact, pretty and ASCII-escaped serializations ends at
    /// the exact serde_json value, and every prefix agrees with the one-shot parse.
    #[test]
    fn incremental_matches_one_shot_and_serde_json(
        doc in arb_json(),
        sizes in prop::collection::vec(1usize..24, 1..8),
    ) {
        let compact = serde_json::to_string(&doc).unwrap();
        let pretty = serde_json::to_string_pretty(&doc).unwrap();
        let escaped = escape_non_ascii(&compact);
        check_every_prefix(&compact)?;
        check_every_prefix(&escaped)?;
        check_chunks(&pretty, &sizes)?;
        check_chunks(&escaped, &sizes)?;
        check_chunks(&compact, &[usize::MAX])?;
    }

    /// Arbitrary (mostly invalid) text never panics, and the incremental value
    /// always equals the one-shot partial parse.
    #[test]
    fn arbitrary_text_never_panics(
        text in r#"[\[\]{}",:0-9eE.+\- \\utrfalsn\u{e9}]{0,40}"#,
        sizes in prop::collection::vec(1usize..6, 1..6),
    ) {
        let mut parser = PartialJson::new();
        let mut value = json!({});
        let mut at = 0;
        for size in sizes.iter().cycle() {
            if at >= text.len() {
                break;
            }
            let mut end = (at + size).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            parser.push(&text[at..end], &mut value);
            at = end;
        }
        let mut one_shot = json!({});
        PartialJson::new().push(&text, &mut one_shot);
        prop_assert_eq!(value, one_shot);
        prop_assert_eq!(parser.finish().is_ok(), serde_json::from_str::<Value>(&text).is_ok() && !is_error(&parser));
    }
}
