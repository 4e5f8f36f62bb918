//! Examples that steer the conversation: user messages from commands
//! (steer, follow-up), input transforms, compaction from a handler,
//! presets of model, tools and instructions, and the model's status.

use serde_json::{Value, json};

use super::setup;
use crate::extension_common::ts::{
    Neutral, Run, assert_kinds, assert_requests, assert_responses, assert_sequence_of,
    assert_sessions, check, check_with, pi_lines, start, stop, wait_idle, write,
};
use crate::extension_common::{command, text_answer, text_answer_with_usage, tool_answer};

const UI: &str = "extension_ui_request";
const TOOL_END: &str = "tool_execution_end";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_user_message_sends_steers_and_follows_up() {
    let name = "send-user-message";
    let Some((scenario, file)) = setup(name).await else {
        return;
    };
    let server = &scenario.server;
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    rpc.call(json!({"type": "get_commands"})).await;
    command(&mut rpc, "/ask").await;
    server.push(text_answer("Answer 1."));
    command(&mut rpc, "/ask What is 2+2?").await;
    wait_idle(&mut rpc, |_| Vec::new()).await;
    server.push(text_answer("Answer 2."));
    command(&mut rpc, "/askwith Name three colors").await;
    wait_idle(&mut rpc, |_| Vec::new()).await;
    let slow = json!({"command": "sleep 1 && echo slow"});
    server.push(tool_answer("bash", &slow, "call_1"));
    server.push(text_answer("After the steer."));
    server.push(text_answer("After the follow-up."));
    rpc.send(json!({"type": "prompt", "message": "Run the slow command."}))
        .await;
    // On the tool's start, three commands without waiting (c6, c7, c8).
    let mut sent = false;
    wait_idle(&mut rpc, |line| {
        if line["type"] != "tool_execution_start" || sent {
            return Vec::new();
        }
        sent = true;
        [
            "/steer Focus on the output.",
            "/followup And then?",
            "/ask Are you busy?",
        ]
        .iter()
        .zip(6..)
        .map(|(text, n)| json!({"id": format!("c{n}"), "type": "prompt", "message": text}))
        .collect()
    })
    .await;
    let ran = stop(rpc, hosts).await;
    // The three commands run at once while the tool runs: the order of
    // their answers, notifications and queue updates among each other is
    // one of pi's scheduling (each kind is compared in order below);
    // bash's partial results depend on its output timing.
    let racy = ["c6", "c7", "c8"];
    let calm = |lines: &[Value]| -> Vec<Value> {
        lines
            .iter()
            .filter(|l| {
                let kind = l["type"].as_str().unwrap_or_default();
                let id = l["id"].as_str().unwrap_or_default();
                let racy_answer = kind == "response" && racy.contains(&id);
                !(racy_answer || ["tool_execution_update", "queue_update", UI].contains(&kind))
            })
            .cloned()
            .collect()
    };
    let neutral = Neutral::new(&scenario, &[&ran.lines, &ran.sent]);
    assert_sequence_of(&calm(&ran.lines), &calm(&pi_lines(name)), name);
    assert_kinds(&ran.lines, name, &neutral, &["queue_update", TOOL_END]);
    // The racy commands' notifications in any order.
    let notes = |lines: &[Value]| -> Vec<String> {
        let mut notes: Vec<String> = lines
            .iter()
            .filter(|l| l["type"] == UI)
            .map(|l| format!("{} {}", l["message"], l["notifyType"]))
            .collect();
        notes.sort();
        notes
    };
    assert_eq!(notes(&ran.lines), notes(&pi_lines(name)));
    assert_requests(&scenario, name, &neutral);
    assert_sessions(&scenario, name, &neutral);
    assert_responses(&ran.lines, name, &neutral, &["get_commands"]);
    let answers = |lines: &[Value]| -> Vec<String> {
        let mut answers: Vec<String> = lines
            .iter()
            .filter(|l| l["type"] == "response" && l["command"] == "prompt")
            .map(Value::to_string)
            .collect();
        answers.sort();
        answers
    };
    assert_eq!(answers(&ran.lines), answers(&pi_lines(name)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_transform_handles_and_rewrites_input() {
    let name = "input-transform";
    let Some((scenario, file)) = setup(name).await else {
        return;
    };
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    command(&mut rpc, "ping").await;
    command(&mut rpc, "?quick ").await;
    command(&mut rpc, "time").await;
    scenario.server.push(text_answer("Answer 1."));
    rpc.prompt("?quick What is TypeScript?", |_| None).await;
    scenario.server.push(text_answer("Answer 2."));
    rpc.prompt("Normal question.", |_| None).await;
    let ran = stop(rpc, hosts).await;
    let neutral = Neutral::new(&scenario, &[&ran.lines, &ran.sent]).with(
        r"\d{1,2}/\d{1,2}/\d{4}, \d{1,2}:\d\d:\d\d\s?[AP]M",
        "<local time>",
    );
    check_with(&scenario, name, &ran, &[UI], &neutral);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trigger_compact_compacts_from_turn_end_and_a_command() {
    let name = "trigger-compact";
    let Some((scenario, file)) = setup(name).await else {
        return;
    };
    let settings = json!({"compaction": {"keepRecentTokens": 1}});
    let run = Run {
        settings: Some(&settings),
        ..Run::default()
    };
    let (mut rpc, hosts) = start(&scenario, &[file], run).await;
    let server = &scenario.server;
    let summary = "## Goal\nTalk.\n## Progress\nSummary.";
    rpc.call(json!({"type": "get_commands"})).await;
    server.push(text_answer("Answer 1."));
    rpc.prompt("First question.", |_| None).await;
    // Over the example's 100000 tokens: its turn_end handler compacts,
    // which ends the run without agent_end.
    server.push(text_answer_with_usage("Big answer.", 110_000));
    server.push(text_answer(summary));
    server.push(text_answer(summary));
    rpc.call(json!({"type": "prompt", "message": "Second question."}))
        .await;
    rpc.until(|l| l["type"] == "compaction_end", |_| None).await;
    rpc.settle(1500).await;
    server.push(text_answer("Answer 5."));
    rpc.prompt("Third question.", |_| None).await;
    server.push(text_answer(summary));
    server.push(text_answer(summary));
    let before = rpc.seen.len();
    command(&mut rpc, "/trigger-compact Keep it tiny.").await;
    // The compaction may end before the command's response (see below):
    // then waiting for its end again would wait for nothing.
    if !rpc.seen[before..]
        .iter()
        .any(|l| l["type"] == "compaction_end")
    {
        rpc.until(|l| l["type"] == "compaction_end", |_| None).await;
    }
    rpc.settle(500).await;
    server.push(text_answer("Answer 8."));
    rpc.prompt("Fourth question.", |_| None).await;
    let ran = stop(rpc, hosts).await;
    // `/trigger-compact`'s answer (c5) comes once its compaction started;
    // whether before or after that compaction ends is a race between the
    // host's answer and two summary requests (pi answers in the same tick).
    let start = |lines: &[Value]| {
        let c5 = lines.iter().position(|l| l["id"] == "c5").unwrap();
        let started = lines
            .iter()
            .rposition(|l| l["type"] == "compaction_start")
            .unwrap();
        assert!(c5 > started, "c5 answered before its compaction started");
        lines
            .iter()
            .filter(|l| l["id"] != "c5")
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_sequence_of(&start(&ran.lines), &start(&pi_lines(name)), name);
    let neutral = Neutral::new(&scenario, &[&ran.lines, &ran.sent]);
    assert_kinds(&ran.lines, name, &neutral, &[UI, "compaction_start"]);
    assert_requests(&scenario, name, &neutral);
    assert_sessions(&scenario, name, &neutral);
    assert_responses(&ran.lines, name, &neutral, &["get_commands"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn preset_switches_model_tools_and_instructions() {
    let name = "preset";
    let Some((scenario, file)) = setup(name).await else {
        return;
    };
    let presets = json!({
        "fast": {"provider": "mock-oai", "model": "mock-gpt", "thinkingLevel": "off",
                 "tools": ["read", "bash"], "instructions": "Answer fast."},
        "deep": {"provider": "mock-oai", "model": "mock-gpt-think", "thinkingLevel": "high",
                 "tools": ["read", "grep", "nosuch"], "instructions": "Think deeply before answering."},
        "ghost": {"provider": "mock-oai", "model": "no-such-model"},
    });
    let agent = scenario.agent_dir.path();
    write(
        &agent.join("presets.json"),
        &serde_json::to_string_pretty(&presets).unwrap(),
    );
    let local = json!({"local": {"instructions": "Project preset: be brief."}});
    write(
        &scenario.work.path().join(".pi/presets.json"),
        &local.to_string(),
    );
    let run = Run {
        flags: vec![("preset".to_owned(), json!("fast"))],
        ..Run::default()
    };
    let (mut rpc, hosts) = start(&scenario, &[file], run).await;
    let server = &scenario.server;
    rpc.call(json!({"type": "get_commands"})).await;
    rpc.call(json!({"type": "get_state"})).await;
    server.push(text_answer("Answer 1."));
    rpc.prompt("First question.", |_| None).await;
    command(&mut rpc, "/preset nosuch").await;
    command(&mut rpc, "/preset deep").await;
    let state = rpc.call(json!({"type": "get_state"})).await;
    assert_eq!(state["data"]["thinkingLevel"], "high", "{state}");
    server.push(text_answer("Answer 2."));
    rpc.prompt("Second question.", |_| None).await;
    command(&mut rpc, "/preset ghost").await;
    command(&mut rpc, "/preset local").await;
    server.push(text_answer("Answer 3."));
    rpc.prompt("Third question.", |_| None).await;
    command(&mut rpc, "/preset").await;
    let ran = stop(rpc, hosts).await;
    let neutral = check(&scenario, name, &ran, &[UI, "thinking_level_changed"]);
    assert_responses(&ran.lines, name, &neutral, &["get_commands"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_status_follows_model_changes() {
    let name = "model-status";
    let Some((scenario, file)) = setup(name).await else {
        return;
    };
    // Only the mock's openai-completions provider, with a third model.
    let path = scenario.agent_dir.path().join("models.json");
    let mut models: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut oai = models["providers"]["mock-oai"].clone();
    oai["models"].as_array_mut().unwrap().push(json!(
        {"id": "mock-gpt-mini", "name": "Mock GPT Mini", "contextWindow": 128000, "maxTokens": 4096}));
    models["providers"] = json!({"mock-oai": oai});
    std::fs::write(&path, models.to_string()).unwrap();
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    let think = json!({"type": "set_model", "provider": "mock-oai", "modelId": "mock-gpt-think"});
    rpc.call(think).await;
    rpc.call(json!({"type": "cycle_model"})).await;
    scenario.server.push(text_answer("Answer 1."));
    rpc.prompt("Hello.", |_| None).await;
    rpc.call(json!({"type": "cycle_model"})).await;
    let ran = stop(rpc, hosts).await;
    check(&scenario, name, &ran, &[UI, "thinking_level_changed"]);
}
