//! Examples that add a tool, a command or a status and need no dialog.

use serde_json::json;

use super::setup;
use crate::extension_common::ts::{Neutral, Run, check, check_with, start, stop};
use crate::extension_common::{command, request_bodies, system_prompt, text_answer, tool_answer};

const UI: &str = "extension_ui_request";
const TOOL_END: &str = "tool_execution_end";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hello_greets_with_its_tool() {
    let Some((scenario, file)) = setup("hello").await else {
        return;
    };
    scenario
        .server
        .push(tool_answer("hello", &json!({"name": "Ada"}), "call_1"));
    scenario.server.push(text_answer("I greeted Ada."));
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    rpc.prompt("Greet Ada.", |_| None).await;
    let ran = stop(rpc, hosts).await;
    check(&scenario, "hello", &ran, &[UI, TOOL_END]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn question_falls_back_without_a_custom_ui() {
    let Some((scenario, file)) = setup("question").await else {
        return;
    };
    let server = &scenario.server;
    let colors = json!({"question": "Which color?", "options": [
        {"label": "Red"}, {"label": "Blue", "description": "The calm one"}]});
    server.push(tool_answer("question", &colors, "call_1"));
    let empty = json!({"question": "Nothing to pick?", "options": []});
    server.push(tool_answer("question", &empty, "call_2"));
    server.push(text_answer("No answer."));
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    rpc.prompt("Ask me to pick a color.", |_| None).await;
    let ran = stop(rpc, hosts).await;
    check(&scenario, "question", &ran, &[UI, TOOL_END]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn structured_output_ends_the_run_after_its_tool() {
    let Some((scenario, file)) = setup("structured-output").await else {
        return;
    };
    let args = json!({"headline": "Release plan", "summary": "Ship on Friday after the tests pass.",
                      "actionItems": ["Run the tests", "Tag the release"]});
    scenario
        .server
        .push(tool_answer("structured_output", &args, "call_1"));
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    rpc.prompt("Give me a structured summary.", |_| None).await;
    let ran = stop(rpc, hosts).await;
    check(
        &scenario,
        "structured-output",
        &ran,
        &[UI, TOOL_END, "agent_end"],
    );
}

/// One `prompt "Hello."` answered `Answer 1.`, the example loaded.
async fn just_hello(name: &str) {
    let Some((scenario, file)) = setup(name).await else {
        return;
    };
    scenario.server.push(text_answer("Answer 1."));
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    rpc.prompt("Hello.", |_| None).await;
    let ran = stop(rpc, hosts).await;
    check(&scenario, name, &ran, &[UI]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn widget_placement_sets_its_widgets_at_startup() {
    just_hello("widget-placement").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn system_prompt_header_shows_the_prompt_length() {
    let name = "system-prompt-header";
    let Some((scenario, file)) = setup(name).await else {
        return;
    };
    scenario.server.push(text_answer("Answer 1."));
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    rpc.prompt("Hello.", |_| None).await;
    let ran = stop(rpc, hosts).await;
    // The length is of pi-rs's own system prompt (its text is pi-rs's).
    let sent = system_prompt(&request_bodies(&scenario)[0]);
    let shown = format!("System: {} chars", sent.encode_utf16().count());
    assert!(
        ran.lines.iter().any(|l| l["statusText"] == shown.as_str()),
        "{shown}"
    );
    let neutral = Neutral::new(&scenario, &[&ran.lines, &ran.sent])
        .with(r"System: \d+ chars", "System: <n> chars");
    check_with(&scenario, name, &ran, &[UI], &neutral);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_line_counts_turns() {
    let Some((scenario, file)) = setup("status-line").await else {
        return;
    };
    let server = &scenario.server;
    server.push(tool_answer(
        "bash",
        &json!({"command": "echo hi"}),
        "call_1",
    ));
    server.push(text_answer("Done."));
    server.push(text_answer("Answer 3."));
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    rpc.prompt("Run echo hi.", |_| None).await;
    rpc.prompt("Again.", |_| None).await;
    let ran = stop(rpc, hosts).await;
    check(&scenario, "status-line", &ran, &[UI, TOOL_END]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notify_runs_at_agent_end() {
    let Some((scenario, file)) = setup("notify").await else {
        return;
    };
    scenario.server.push(text_answer("Answer 1."));
    scenario.server.push(text_answer("Answer 2."));
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    rpc.prompt("Hello.", |_| None).await;
    rpc.prompt("Again.", |_| None).await;
    let ran = stop(rpc, hosts).await;
    check(&scenario, "notify", &ran, &[UI]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn custom_footer_toggles() {
    let Some((scenario, file)) = setup("custom-footer").await else {
        return;
    };
    scenario.server.push(text_answer("Answer 1."));
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    command(&mut rpc, "/footer").await;
    rpc.prompt("Hello.", |_| None).await;
    command(&mut rpc, "/footer").await;
    let ran = stop(rpc, hosts).await;
    check(&scenario, "custom-footer", &ran, &[UI]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn custom_header_restores_the_builtin_one() {
    let Some((scenario, file)) = setup("custom-header").await else {
        return;
    };
    scenario.server.push(text_answer("Answer 1."));
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    rpc.prompt("Hello.", |_| None).await;
    command(&mut rpc, "/builtin-header").await;
    let ran = stop(rpc, hosts).await;
    check(&scenario, "custom-header", &ran, &[UI]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn event_bus_hears_its_own_emits() {
    let Some((scenario, file)) = setup("event-bus").await else {
        return;
    };
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    command(&mut rpc, "/emit").await;
    command(&mut rpc, "/emit deploy finished").await;
    rpc.settle(200).await;
    let ran = stop(rpc, hosts).await;
    check(&scenario, "event-bus", &ran, &[UI]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_name_names_the_session() {
    let Some((scenario, file)) = setup("session-name").await else {
        return;
    };
    scenario.server.push(text_answer("Answer 1."));
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    command(&mut rpc, "/session-name").await;
    rpc.prompt("Hello.", |_| None).await;
    command(&mut rpc, "/session-name My work").await;
    let state = rpc.call(json!({"type": "get_state"})).await;
    assert_eq!(state["data"]["sessionName"], "My work", "{state}");
    command(&mut rpc, "/session-name").await;
    let ran = stop(rpc, hosts).await;
    check(
        &scenario,
        "session-name",
        &ran,
        &[UI, "session_info_changed"],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bookmark_labels_entries() {
    let Some((scenario, file)) = setup("bookmark").await else {
        return;
    };
    scenario.server.push(text_answer("Answer 1."));
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    command(&mut rpc, "/bookmark").await;
    rpc.prompt("Hello.", |_| None).await;
    command(&mut rpc, "/bookmark important").await;
    command(&mut rpc, "/unbookmark").await;
    command(&mut rpc, "/unbookmark").await;
    command(&mut rpc, "/bookmark").await;
    let ran = stop(rpc, hosts).await;
    let neutral =
        Neutral::new(&scenario, &[&ran.lines, &ran.sent]).with(r"bookmark-\d{13}", "bookmark-<ms>");
    check_with(&scenario, "bookmark", &ran, &[UI], &neutral);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn message_renderer_sends_custom_messages() {
    let Some((scenario, file)) = setup("message-renderer").await else {
        return;
    };
    scenario.server.push(text_answer("Answer 1."));
    let (mut rpc, hosts) = start(&scenario, &[file], Run::default()).await;
    command(&mut rpc, "/status Build passed").await;
    command(&mut rpc, "/status warn Disk almost full").await;
    command(&mut rpc, "/status error").await;
    rpc.prompt("What happened?", |_| None).await;
    let ran = stop(rpc, hosts).await;
    check(&scenario, "message-renderer", &ran, &[UI]);
}
