#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Tool declarations: names and parameter schemas (property names, types,
//! required lists, `additionalProperties`, key order) equal what pi 0.73.1
//! sends; only the description texts are our own.

use std::fs;
use std::path::Path;

use pi_coding_agent::tools::{ALL_TOOLS, DEFAULT_TOOLS, create_tools};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// Blanks every `description` value (keeping the key and its position), so
/// two schemas compare on everything but wording.
fn blank_descriptions(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = if k == "description" && v.is_string() {
                        json!("")
                    } else {
                        blank_descriptions(v)
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(blank_descriptions).collect()),
        other => other.clone(),
    }
}

/// `name -> parameters` of the tools pi declared in the first request of
/// `fixtures/pi-0.73.1/a-text-oai`.
fn pi_tools() -> Vec<(String, Value)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/pi-0.73.1/a-text-oai/requests.jsonl");
    let first = fs::read_to_string(path).unwrap();
    let request: Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    request["body"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let f = &t["function"];
            (
                f["name"].as_str().unwrap().to_owned(),
                f["parameters"].clone(),
            )
        })
        .collect()
}

#[test]
fn default_tool_schemas_equal_pi() {
    let tools = create_tools(Path::new("/tmp"), &DEFAULT_TOOLS).unwrap();
    let pi = pi_tools();
    let names: Vec<&str> = pi.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, DEFAULT_TOOLS);
    for (tool, (name, pi_schema)) in tools.iter().zip(&pi) {
        assert_eq!(tool.name(), name);
        // Serialized text, so key order counts too.
        assert_eq!(
            serde_json::to_string_pretty(&blank_descriptions(tool.parameters())).unwrap(),
            serde_json::to_string_pretty(&blank_descriptions(pi_schema)).unwrap(),
            "schema of {name}"
        );
        // Our descriptions are our own words.
        assert_ne!(tool.parameters(), pi_schema, "{name}");
    }
}

#[test]
fn search_tool_schemas_follow_pi() {
    // pi's grep, find and ls schemas (core/tools/{grep,find,ls}.ts), with
    // descriptions blanked.
    let expected = [
        json!({"type": "object", "required": ["pattern"], "properties": {
            "pattern": {"type": "string", "description": ""},
            "path": {"type": "string", "description": ""},
            "glob": {"type": "string", "description": ""},
            "ignoreCase": {"type": "boolean", "description": ""},
            "literal": {"type": "boolean", "description": ""},
            "context": {"type": "number", "description": ""},
            "limit": {"type": "number", "description": ""}
        }}),
        json!({"type": "object", "required": ["pattern"], "properties": {
            "pattern": {"type": "string", "description": ""},
            "path": {"type": "string", "description": ""},
            "limit": {"type": "number", "description": ""}
        }}),
        json!({"type": "object", "properties": {
            "path": {"type": "string", "description": ""},
            "limit": {"type": "number", "description": ""}
        }}),
    ];
    let tools = create_tools(Path::new("/tmp"), &ALL_TOOLS[4..]).unwrap();
    for (tool, expected) in tools.iter().zip(expected) {
        assert_eq!(
            serde_json::to_string(&blank_descriptions(tool.parameters())).unwrap(),
            serde_json::to_string(&expected).unwrap(),
            "schema of {}",
            tool.name()
        );
    }
}

#[test]
fn declarations_carry_name_description_and_schema() {
    for tool in create_tools(Path::new("/tmp"), &ALL_TOOLS).unwrap() {
        let declared = tool.to_tool();
        assert_eq!(declared.name, tool.name());
        assert_eq!(declared.description, tool.description());
        assert_eq!(&declared.parameters, tool.parameters());
    }
}
