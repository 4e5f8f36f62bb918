//! Examples that bring resources or reach outside: project rules in the
//! system prompt, skills and prompt templates from `resources_discover`,
//! the provider payload log, plan mode, and subagents (pi-rs started by
//! the extension).

use serde_json::{Value, json};

use super::setup;
use crate::extension_common::ts::{
    Neutral, Run, answers, assert_responses, check, check_with, start, stop, wait_idle,
    without_times, write,
};
use crate::extension_common::{
    captures, command, request_bodies, system_prompt, text_answer, tool_answer,
};

const UI: &str = "extension_ui_request";
const TOOL_END: &str = "tool_execution_end";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_rules_lists_the_rules_in_the_system_prompt() {
    let name = "claude-rules";
    let Some((scenario, file)) = setup(name).await else {
        return;
    };
    let rules = scenario.work.path().join(".claude/rules");
    write(&rules.join("testing.md"), "# Testing\nWrite tests first.\n");
    write(
        &rules.join("frontend/react.md"),
        "# React\nUse function components.\n",
    );
    write(&rules.join("notes.txt"), "not a rule\n");
    scenario.server.push(text_answer("Answer 1."));
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    rpc.prompt("Hello.", |_| None).await;
    let ran = stop(rpc, hosts).await;
    check(&scenario, name, &ran, &[UI]);
    // What the example appends to the system prompt is pi's exactly.
    let pi = system_prompt(&crate::extension_common::pi_example(name, "requests.jsonl")[0]);
    let ours = system_prompt(&request_bodies(&scenario)[0]);
    let added = &pi[pi.find("\n\n## Project Rules").unwrap()..];
    assert!(ours.ends_with(added), "{ours}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dynamic_resources_adds_a_skill_and_a_template() {
    let name = "dynamic-resources";
    let Some((scenario, file)) = setup(name).await else {
        return;
    };
    scenario.server.push(text_answer("Answer 1."));
    scenario.server.push(text_answer("Answer 2."));
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    rpc.call(json!({"type": "get_commands"})).await;
    rpc.prompt("/dynamic", |_| None).await;
    rpc.prompt("/skill:dynamic-resources", |_| None).await;
    let ran = stop(rpc, hosts).await;
    let neutral = check(&scenario, name, &ran, &[UI]);
    assert_responses(&ran.lines, name, &neutral, &["get_commands"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provider_payload_logs_requests_and_responses() {
    let name = "provider-payload";
    let Some((scenario, file)) = setup(name).await else {
        return;
    };
    std::fs::create_dir(scenario.work.path().join(".pi")).unwrap();
    scenario.server.push(text_answer("Answer 1."));
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    rpc.prompt("Hello.", |_| None).await;
    let ran = stop(rpc, hosts).await;
    let neutral = check(&scenario, name, &ran, &[UI]);
    let log =
        std::fs::read_to_string(scenario.work.path().join(".pi/provider-payload.log")).unwrap();
    let pi_log = std::fs::read_to_string(
        captures()
            .join("examples")
            .join(name)
            .join("provider-payload.log"),
    )
    .unwrap();
    // The payload as sent (pretty-printed), then the status and headers of
    // the answer: ours are the mock's, pi's were its capture mock's.
    let (payload, answer) = log.rsplit_once("\n\n[").unwrap();
    let (pi_payload, pi_answer) = pi_log.rsplit_once("\n\n[").unwrap();
    let payload: Value = serde_json::from_str(payload).unwrap();
    let pi_payload: Value = serde_json::from_str(pi_payload).unwrap();
    let comparable = crate::e2e_common::comparable_request;
    assert_eq!(
        comparable(&neutral.value(&payload)),
        comparable(&pi_payload)
    );
    assert_eq!(payload, request_bodies(&scenario)[0]);
    let headers = r#"{"cache-control":"no-cache","connection":"close","content-type":"text/event-stream","x-mock-header":"yes"}"#;
    assert_eq!(answer, format!("200] {headers}\n\n"));
    assert!(pi_answer.starts_with("200] {"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_mode_plans_then_executes() {
    let name = "plan-mode";
    let Some((scenario, file)) = setup(name).await else {
        return;
    };
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    rpc.call(json!({"type": "get_commands"})).await;
    command(&mut rpc, "/todos").await;
    command(&mut rpc, "/plan").await;
    let server = &scenario.server;
    server.push(tool_answer(
        "bash",
        &json!({"command": "rm -rf src"}),
        "call_1",
    ));
    server.push(tool_answer("bash", &json!({"command": "ls"}), "call_2"));
    let plan =
        "Plan:\n1. Read the config loader\n2. Update the parser module\n3. Run the test suite\n";
    server.push(text_answer(plan));
    server.push(text_answer("Read it. [DONE:1]"));
    rpc.send(json!({"type": "prompt", "message": "Plan the refactor."}))
        .await;
    let mut execute = answers(vec![json!({"value": "Execute the plan (track progress)"})]);
    wait_idle(&mut rpc, |line| execute(line).into_iter().collect()).await;
    command(&mut rpc, "/todos").await;
    server.push(text_answer("Updated and tested. [DONE:2] [DONE:3]"));
    rpc.prompt("Continue.", |_| None).await;
    rpc.settle(500).await;
    command(&mut rpc, "/todos").await;
    let ran = stop(rpc, hosts).await;
    let neutral = check(&scenario, name, &ran, &[UI, TOOL_END]);
    assert_responses(&ran.lines, name, &neutral, &["get_commands"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subagent_delegates_to_pi_rs() {
    let name = "subagent";
    let Some(package) = pi_test_support::external::pi_package() else {
        return;
    };
    let scenario = crate::extension_common::ts::scenario().await;
    let file = package.join("examples/extensions/subagent/index.ts");
    let agent = "---\nname: echoer\ndescription: Repeats the task back\ntools: read\nmodel: mock-oai/mock-gpt\n---\n\nYou repeat the task back in one sentence.\n";
    write(&scenario.agent_dir.path().join("agents/echoer.md"), agent);
    let server = &scenario.server;
    let echo = json!({"agent": "echoer", "task": "Say hi"});
    server.push(tool_answer("subagent", &echo, "call_1"));
    server.push(text_answer("Hi from the subagent."));
    let nobody = json!({"agent": "nobody", "task": "Say hi"});
    server.push(tool_answer("subagent", &nobody, "call_2"));
    server.push(tool_answer("subagent", &json!({}), "call_3"));
    server.push(text_answer("The subagent said hi."));
    let run = Run {
        pi_executable: Some(env!("CARGO_BIN_EXE_pi").into()),
        ..Run::default()
    };
    let (mut rpc, hosts) = start(&scenario, &[file], run).await;
    rpc.prompt("Delegate a greeting.", |_| None).await;
    let ran = stop(rpc, hosts).await;
    let neutral = Neutral::new(&scenario, &[&ran.lines, &ran.sent]).with(
        r"[^\s:]*/pi-subagent-[A-Za-z0-9]{6}",
        "<root>/tmp/pi-subagent-XXXXXX",
    );
    check_with(&scenario, name, &ran, &[UI], &neutral);
    // pi's tool_execution_end carries the object the tool returned as it
    // is, with the `isError: true` the example puts there for a failed
    // agent; pi-rs's result has pi's typed fields (content, details):
    // compared without it (docs/extensions.md).
    let ends = |lines: &[Value], ours: bool| -> Vec<Value> {
        lines
            .iter()
            .filter(|l| l["type"] == TOOL_END)
            .map(|l| {
                let mut l = if ours { neutral.value(l) } else { l.clone() };
                l["result"].as_object_mut().unwrap().remove("isError");
                without_times(&l)
            })
            .collect()
    };
    let pi = crate::extension_common::ts::pi_lines(name);
    assert_eq!(ends(&ran.lines, true), ends(&pi, false));
}
