#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The tools against pi 0.73.1's own tool code: `fixtures/tools-capture/`
//! holds the cases (`cases.json`) and what pi's tool factories answered for
//! them (`expected.json`, written by `capture.mjs` under Node). Each case is
//! replayed here the way the agent loop runs a call: argument preparation
//! (the recorded call and the prepared arguments are compared), schema
//! validation (its error, if any, compared), then execution on the same
//! files (result and the files afterwards compared).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use base64::Engine as _;
use pi_agent_core::{AgentTool, ArgumentValidator, ignore_updates};
use pi_ai::CancellationToken;
use pi_coding_agent::tools::{ImageInputProbe, ToolOptions, create_tool_with_options};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn capture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/tools-capture")
}

fn load(name: &str) -> Vec<Value> {
    let text = fs::read_to_string(capture_dir().join(name)).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Writes the case's files (`name/` is a directory) into `cwd`.
fn set_up(cwd: &Path, files: &Value) {
    let Some(files) = files.as_object() else {
        return;
    };
    for (name, file) in files {
        let path = cwd.join(name);
        if name.ends_with('/') {
            fs::create_dir_all(&path).unwrap();
            continue;
        }
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let bytes = match (file.get("base64"), file.get("text")) {
            (Some(Value::String(b64)), _) => base64::engine::general_purpose::STANDARD
                .decode(b64)
                .unwrap(),
            (_, Some(Value::String(text))) => text.clone().into_bytes(),
            _ => panic!("file {name} has neither text nor base64"),
        };
        fs::write(path, bytes).unwrap();
    }
}

fn tool_for(case: &Value, cwd: &Path) -> Arc<dyn AgentTool> {
    let image_input = case.get("model").map(|model| {
        let images = model["input"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i == "image");
        ImageInputProbe::new(move || Some(images))
    });
    let options = ToolOptions {
        image_input,
        ..ToolOptions::default()
    };
    create_tool_with_options(cwd, case["tool"].as_str().unwrap(), &options).unwrap()
}

/// An `ls` listing with each run of names that are equal once lower-cased
/// put in byte order: pi keeps the directory's order for them, which no
/// capture can fix.
fn canonical_listing(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let key = |s: &str| s.trim_end_matches('/').to_lowercase();
    let mut start = 0;
    while start < lines.len() {
        let mut end = start + 1;
        while end < lines.len() && key(&lines[end]) == key(&lines[start]) {
            end += 1;
        }
        lines[start..end].sort();
        start = end;
    }
    lines
}

async fn replay(case: &Value, expected: &Value) {
    let name = case["name"].as_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    set_up(dir.path(), &case["files"]);
    let tool = tool_for(case, dir.path());

    // Preparation, as the loop does it.
    let mut recorded = case["args"].clone();
    let replaced = tool.prepare_arguments(&mut recorded);
    let prepared = replaced.unwrap_or_else(|| recorded.clone());
    assert_eq!(recorded, expected["recorded"], "{name}: recorded call");
    assert_eq!(prepared, expected["prepared"], "{name}: prepared arguments");

    // Validation of the prepared arguments: the converted arguments, or
    // pi's error text.
    let validation = ArgumentValidator::with_conversion(
        tool.name(),
        tool.parameters(),
        tool.argument_conversion(),
    )
    .validate(&prepared);
    match validation {
        Ok(validated) => {
            assert_eq!(
                validated, expected["validated"],
                "{name}: validated arguments"
            );
            assert_eq!(expected["validation"], Value::Null, "{name}: pi's verdict");
        }
        Err(error) => assert_eq!(
            json!(error.message()),
            expected["validation"],
            "{name}: validation error"
        ),
    }
    if case["validateOnly"] == true {
        return;
    }

    // Execution (pi's capture runs it even where validation would stop the loop).
    let outcome = tool
        .execute(
            "call_1",
            prepared,
            CancellationToken::new(),
            ignore_updates(),
        )
        .await;
    let (mut result, is_error) = match outcome {
        Ok(result) => (serde_json::to_value(&result).unwrap(), false),
        Err(error) => (
            json!({"content": [{"type": "text", "text": error.message()}]}),
            true,
        ),
    };
    if result.get("details").is_none() {
        result["details"] = Value::Null;
    }
    assert_eq!(is_error, expected["isError"], "{name}: error flag");
    if case["tool"] == "ls" {
        let ours = canonical_listing(result["content"][0]["text"].as_str().unwrap());
        let pis = canonical_listing(expected["result"]["content"][0]["text"].as_str().unwrap());
        assert_eq!(ours, pis, "{name}: listing");
    } else {
        assert_eq!(result, expected["result"], "{name}: result");
    }
    for (file, content) in expected["files"].as_object().unwrap() {
        let ours = fs::read_to_string(dir.path().join(file)).unwrap();
        assert_eq!(ours, content.as_str().unwrap(), "{name}: {file} afterwards");
    }
}

#[tokio::test]
async fn tools_answer_as_pi_did_for_every_captured_case() {
    let cases = load("cases.json");
    let expected = load("expected.json");
    assert_eq!(cases.len(), expected.len(), "capture out of date");
    for (case, expected) in cases.iter().zip(&expected) {
        assert_eq!(case["name"], expected["name"], "capture out of date");
        replay(case, expected).await;
    }
}

#[test]
fn the_capture_is_reproducible_with_pis_package() {
    // Re-running pi's tools must give the committed capture (pi's package
    // as `.ci/setup` installs it).
    let Some(package) = pi_test_support::external::pi_package() else {
        return;
    };
    let dist = package.join("dist");
    let out_dir = tempfile::tempdir().unwrap();
    let script = out_dir.path().join("capture.mjs");
    fs::copy(capture_dir().join("capture.mjs"), &script).unwrap();
    fs::copy(
        capture_dir().join("cases.json"),
        out_dir.path().join("cases.json"),
    )
    .unwrap();
    let status = std::process::Command::new("node")
        .arg(&script)
        .arg(dist)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let mut fresh: Vec<Value> =
        serde_json::from_str(&fs::read_to_string(out_dir.path().join("expected.json")).unwrap())
            .unwrap();
    let mut committed = load("expected.json");
    for capture in fresh.iter_mut().chain(committed.iter_mut()) {
        if capture["name"].as_str().unwrap().starts_with("ls-") {
            let text = &mut capture["result"]["content"][0]["text"];
            *text = json!(canonical_listing(text.as_str().unwrap()).join("\n"));
        }
    }
    assert_eq!(fresh, committed);
}
