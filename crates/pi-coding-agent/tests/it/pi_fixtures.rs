#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Compatibility with real pi 0.73.1 session files: they load without a
//! single skipped line, write back value-equal, and the context rebuilt from
//! them is exactly what pi sent to the provider in the next request.
//!
//! Requests are compared after a wire-neutral decoding written here (role,
//! text parts, thinking, tool calls with id/name/arguments, tool results
//! with id/text), so the test does not depend on the provider encoders.

use std::fs;
use std::path::{Path, PathBuf};

use pi_agent_core::AgentMessage;
use pi_ai::{AssistantContent, Message, UserBlock, UserContent};
use pi_coding_agent::session::{SessionEntry, load_session_file};
use pi_coding_agent::{build_session_context, convert_to_llm};
use pretty_assertions::assert_eq;
use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pi-0.73.1")
}

fn scenario_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("session.jsonl").exists())
        .collect();
    dirs.sort();
    assert_eq!(dirs.len(), 18, "expected the 18 pi 0.73.1 scenarios");
    dirs
}

fn session_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in scenario_dirs() {
        files.push(dir.join("session.jsonl"));
        if dir.join("session.run1.jsonl").exists() {
            files.push(dir.join("session.run1.jsonl"));
        }
    }
    files
}

#[test]
fn every_fixture_session_loads_without_diagnostics() {
    for file in session_files() {
        let loaded = load_session_file(&file).unwrap();
        assert_eq!(loaded.diagnostics, vec![], "{}", file.display());
        assert_eq!(loaded.migrated_from, None);
        assert!(loaded.ends_with_newline);
        let lines = fs::read_to_string(&file).unwrap().lines().count();
        assert_eq!(loaded.entries.len() + 1, lines, "{}", file.display());
        assert_eq!(loaded.header.version, Some(3));
    }
}

#[test]
fn fixture_sessions_write_back_value_equal() {
    for file in session_files() {
        let loaded = load_session_file(&file).unwrap();
        let text = fs::read_to_string(&file).unwrap();
        let originals: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let mut written = vec![serde_json::to_value(&loaded.header).unwrap()];
        for entry in &loaded.entries {
            written.push(serde_json::from_str(&entry.to_line().unwrap()).unwrap());
        }
        assert_eq!(written, originals, "{}", file.display());
    }
}

#[test]
fn fixture_header_ids_are_uuid_v7_and_file_names_follow_pi() {
    for dir in scenario_dirs() {
        let loaded = load_session_file(&dir.join("session.jsonl")).unwrap();
        let id = &loaded.header.id;
        assert_eq!(&id[14..15], "7", "{id} is not a v7 UUID");
        let name = fs::read_to_string(dir.join("session_filename.txt")).unwrap();
        assert_eq!(
            name.trim(),
            pi_coding_agent::session::session_file_name(&loaded.header.timestamp, id)
        );
        let cwd = fs::read_to_string(dir.join("cwd.txt")).unwrap();
        assert_eq!(loaded.header.cwd, cwd.trim());
        for entry in &loaded.entries {
            assert_eq!(entry.id().len(), 8);
            assert!(entry.id().chars().all(|c| c.is_ascii_hexdigit()));
        }
    }
}

/// A wire-neutral view of one message of a request.
#[derive(Debug, Clone, PartialEq)]
enum Neutral {
    User(Vec<String>),
    Assistant {
        thinking: Vec<String>,
        text: Vec<String>,
        calls: Vec<(Option<String>, String, Value)>,
    },
    Tool {
        key: String,
        text: String,
    },
}

fn text_of_blocks(blocks: &[UserBlock]) -> Vec<String> {
    blocks
        .iter()
        .filter_map(|b| b.as_text().map(str::to_owned))
        .collect()
}

/// Our side: the converted messages as the given wire can show them.
/// Failed assistant turns are dropped, as pi-ai's `transformMessages` does
/// before every encoder.
fn project(messages: &[Message], wire: &str) -> Vec<Neutral> {
    let mut out = Vec::new();
    for message in messages {
        match message {
            Message::User(user) => out.push(Neutral::User(match &user.content {
                UserContent::Text(t) => vec![t.clone()],
                UserContent::Blocks(blocks) => text_of_blocks(blocks),
            })),
            Message::Assistant(a) if a.stop_reason.is_failure() => {}
            Message::Assistant(a) => {
                let mut thinking = Vec::new();
                let mut text = Vec::new();
                let mut calls = Vec::new();
                for block in &a.content {
                    match block {
                        AssistantContent::Thinking(t) if wire == "anthropic-messages" => {
                            let sig = t.thinking_signature.clone().unwrap_or_default();
                            thinking.push(if t.redacted == Some(true) {
                                format!("redacted:{sig}")
                            } else {
                                format!("{}|{sig}", t.thinking)
                            });
                        }
                        AssistantContent::Thinking(_) => {}
                        AssistantContent::Text(t) => text.push(t.text.clone()),
                        AssistantContent::ToolCall(c) => {
                            let id = (wire != "google-generative-ai").then(|| c.id.clone());
                            calls.push((id, c.name.clone(), c.arguments.clone()));
                        }
                    }
                }
                if wire == "openai-completions" && !text.is_empty() {
                    text = vec![text.concat()];
                }
                out.push(Neutral::Assistant {
                    thinking,
                    text,
                    calls,
                });
            }
            Message::ToolResult(r) => {
                let key = match wire {
                    "google-generative-ai" => r.tool_name.clone(),
                    "openai-responses" => r.tool_call_id.split('|').next().unwrap().to_owned(),
                    _ => r.tool_call_id.clone(),
                };
                out.push(Neutral::Tool {
                    key,
                    text: text_of_blocks(&r.content).concat(),
                });
            }
        }
    }
    out
}

fn str_of(v: &Value, key: &str) -> String {
    v[key].as_str().unwrap_or_default().to_owned()
}

fn texts_of_parts(content: &Value, part_type: &str) -> Vec<String> {
    match content {
        Value::String(s) => vec![s.clone()],
        Value::Array(parts) => parts
            .iter()
            .filter(|p| p["type"] == part_type)
            .map(|p| str_of(p, "text"))
            .collect(),
        _ => Vec::new(),
    }
}

fn tool_result_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().map(|p| str_of(p, "text")).collect(),
        _ => String::new(),
    }
}

fn decode_anthropic(body: &Value) -> Vec<Neutral> {
    let mut out = Vec::new();
    for message in body["messages"].as_array().unwrap() {
        let blocks = message["content"].as_array().cloned().unwrap_or_default();
        if message["role"] == "user" {
            let mut texts = Vec::new();
            for block in &blocks {
                match block["type"].as_str() {
                    Some("tool_result") => out.push(Neutral::Tool {
                        key: str_of(block, "tool_use_id"),
                        text: tool_result_text(&block["content"]),
                    }),
                    Some("text") => texts.push(str_of(block, "text")),
                    other => panic!("unexpected user block {other:?}"),
                }
            }
            if !texts.is_empty() {
                out.push(Neutral::User(texts));
            }
        } else {
            let (mut thinking, mut text, mut calls) = (Vec::new(), Vec::new(), Vec::new());
            for block in &blocks {
                match block["type"].as_str() {
                    Some("thinking") => thinking.push(format!(
                        "{}|{}",
                        str_of(block, "thinking"),
                        str_of(block, "signature")
                    )),
                    Some("redacted_thinking") => {
                        thinking.push(format!("redacted:{}", str_of(block, "data")));
                    }
                    Some("text") => text.push(str_of(block, "text")),
                    Some("tool_use") => calls.push((
                        Some(str_of(block, "id")),
                        str_of(block, "name"),
                        block["input"].clone(),
                    )),
                    other => panic!("unexpected assistant block {other:?}"),
                }
            }
            out.push(Neutral::Assistant {
                thinking,
                text,
                calls,
            });
        }
    }
    out
}

fn decode_completions(body: &Value) -> Vec<Neutral> {
    let mut out = Vec::new();
    for message in body["messages"].as_array().unwrap() {
        match message["role"].as_str().unwrap() {
            "system" | "developer" => {}
            "user" => out.push(Neutral::User(texts_of_parts(&message["content"], "text"))),
            "assistant" => {
                let text = texts_of_parts(&message["content"], "text");
                let calls = message["tool_calls"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
                    .iter()
                    .map(|c| {
                        let args: Value =
                            serde_json::from_str(c["function"]["arguments"].as_str().unwrap())
                                .unwrap();
                        (Some(str_of(c, "id")), str_of(&c["function"], "name"), args)
                    })
                    .collect();
                out.push(Neutral::Assistant {
                    thinking: Vec::new(),
                    text,
                    calls,
                });
            }
            "tool" => out.push(Neutral::Tool {
                key: str_of(message, "tool_call_id"),
                text: tool_result_text(&message["content"]),
            }),
            other => panic!("unexpected role {other}"),
        }
    }
    out
}

fn decode_responses(body: &Value) -> Vec<Neutral> {
    let mut out: Vec<Neutral> = Vec::new();
    let mut open_assistant = false;
    for item in body["input"].as_array().unwrap() {
        let kind = item["type"].as_str().unwrap_or("message");
        let role = item["role"].as_str().unwrap_or_default();
        let assistant_item = matches!(kind, "function_call" | "reasoning")
            || (kind == "message" && role == "assistant");
        if assistant_item && !open_assistant {
            out.push(Neutral::Assistant {
                thinking: Vec::new(),
                text: Vec::new(),
                calls: Vec::new(),
            });
        }
        open_assistant = assistant_item;
        match (kind, role) {
            ("message", "system" | "developer") => {}
            ("message", "user") => out.push(Neutral::User(texts_of_parts(
                &item["content"],
                "input_text",
            ))),
            ("message", "assistant") => {
                if let Some(Neutral::Assistant { text, .. }) = out.last_mut() {
                    text.extend(texts_of_parts(&item["content"], "output_text"));
                }
            }
            ("function_call", _) => {
                let args: Value =
                    serde_json::from_str(item["arguments"].as_str().unwrap()).unwrap();
                let id = format!("{}|{}", str_of(item, "call_id"), str_of(item, "id"));
                if let Some(Neutral::Assistant { calls, .. }) = out.last_mut() {
                    calls.push((Some(id), str_of(item, "name"), args));
                }
            }
            ("function_call_output", _) => out.push(Neutral::Tool {
                key: str_of(item, "call_id"),
                text: tool_result_text(&item["output"]),
            }),
            other => panic!("unexpected input item {other:?}"),
        }
    }
    out
}

fn decode_google(body: &Value) -> Vec<Neutral> {
    let mut out = Vec::new();
    for content in body["contents"].as_array().unwrap() {
        let parts = content["parts"].as_array().unwrap();
        if content["role"] == "user" {
            let mut texts = Vec::new();
            for part in parts {
                if let Some(response) = part.get("functionResponse") {
                    out.push(Neutral::Tool {
                        key: str_of(response, "name"),
                        text: str_of(&response["response"], "output"),
                    });
                } else {
                    texts.push(str_of(part, "text"));
                }
            }
            if !texts.is_empty() {
                out.push(Neutral::User(texts));
            }
        } else {
            let (mut text, mut calls) = (Vec::new(), Vec::new());
            for part in parts {
                if let Some(call) = part.get("functionCall") {
                    calls.push((None, str_of(call, "name"), call["args"].clone()));
                } else if part.get("thought") != Some(&Value::Bool(true)) {
                    text.push(str_of(part, "text"));
                }
            }
            out.push(Neutral::Assistant {
                thinking: Vec::new(),
                text,
                calls,
            });
        }
    }
    out
}

fn decode(wire: &str, body: &Value) -> Vec<Neutral> {
    match wire {
        "anthropic-messages" => decode_anthropic(body),
        "openai-completions" => decode_completions(body),
        "openai-responses" => decode_responses(body),
        "google-generative-ai" => decode_google(body),
        other => panic!("unknown wire {other}"),
    }
}

/// For request `k` of a scenario, the leaf is the entry just before the
/// assistant message that answered it. Scenarios with retries (g-http500:
/// 4 attempts x 3 HTTP requests each, one error message per attempt) map
/// requests to attempts proportionally.
#[test]
fn rebuilt_context_equals_what_pi_sent_next() {
    let mut checked = 0;
    let mut wires = std::collections::BTreeSet::new();
    for dir in scenario_dirs() {
        let loaded = load_session_file(&dir.join("session.jsonl")).unwrap();
        let assistants: Vec<&SessionEntry> = loaded
            .entries
            .iter()
            .filter(|e| {
                matches!(
                    e.as_message(),
                    Some(AgentMessage::Standard(Message::Assistant(_)))
                )
            })
            .collect();
        let requests: Vec<Value> = fs::read_to_string(dir.join("requests.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert!(!requests.is_empty());
        for (k, request) in requests.iter().enumerate() {
            let attempt = k * assistants.len() / requests.len();
            let leaf = assistants[attempt].parent_id();
            let context = build_session_context(&loaded.entries, leaf);
            let wire = request["wire"].as_str().unwrap();
            let ours = project(&convert_to_llm(&context.messages), wire);
            let theirs = decode(wire, &request["body"]);
            assert!(!theirs.is_empty());
            assert_eq!(ours, theirs, "{} request {}", dir.display(), k + 1);
            wires.insert(wire.to_owned());
            checked += 1;
        }
    }
    assert_eq!(checked, 47);
    assert_eq!(wires.len(), 4);
}

#[test]
fn model_and_thinking_level_are_restored() {
    let loaded = load_session_file(&fixtures().join("f-continue-ant/session.jsonl")).unwrap();
    let leaf = loaded.entries.last().map(SessionEntry::id);
    let context = build_session_context(&loaded.entries, leaf);
    assert_eq!(context.thinking_level, "medium");
    let model = context.model.unwrap();
    assert_eq!(
        (model.provider.as_str(), model.model_id.as_str()),
        ("mock-ant", "mock-claude-think")
    );
    assert_eq!(context.messages.len(), 6);
    // Before the first entry: empty context.
    let empty = build_session_context(&loaded.entries, None);
    assert!(empty.messages.is_empty());
    assert_eq!(empty.thinking_level, "off");
}
