//! What an extension adds while the app runs (docs/extensions.md, "While
//! pi runs"): a tool registered from a handler is offered from the next
//! request on (unless `--tools` left it out) and can be taken away again;
//! a command registered then runs; an rpc command of the extension's own
//! answers in pi's response shape, and its failure is an error response.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::e2e_common;
use crate::extension_common;

use std::sync::Arc;

use async_trait::async_trait;
use e2e_common::Scenario;
use extension_common::{InProcessRpc, text_answer, tool_answer};
use pi_agent_core::{AgentTool, AgentToolResult, ToolError, ToolUpdateFn};
use pi_ai::CancellationToken;
use pi_coding_agent::app::{SessionChoice, StartOptions, build_app};
use pi_coding_agent::extensions::*;
use serde_json::{Value, json};

struct Late(Value);

#[async_trait]
impl AgentTool for Late {
    fn name(&self) -> &str {
        "late"
    }
    fn label(&self) -> &str {
        "late"
    }
    fn description(&self) -> &str {
        "Registered after load."
    }
    fn parameters(&self) -> &Value {
        &self.0
    }
    async fn execute(
        &self,
        _call_id: &str,
        _args: Value,
        _cancel: CancellationToken,
        _on_update: ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError> {
        Ok(AgentToolResult::text("late result"))
    }
}

/// Registers `late` at session start, `/drop-late` to remove it, and the
/// rpc commands `live_echo` and `live_fail`.
fn extension() -> FnExtension {
    FnExtension::new("<live>", |api| {
        let handle = api.handle();
        api.on::<SessionStartEvent, _, _>(move |_, _| {
            let handle = handle.clone();
            async move {
                let mut tool = RegisteredTool::new(Arc::new(Late(json!({"type": "object"}))));
                tool.prompt_snippet = Some("A tool that came late".to_owned());
                handle.add_tool(tool);
                let dropper = handle.clone();
                handle.register_command("drop-late", Some("Removes late"), move |_, _| {
                    let dropper = dropper.clone();
                    async move {
                        assert!(dropper.unregister_tool("late"));
                        Ok(())
                    }
                });
                Ok(None)
            }
        });
        api.register_rpc_command("live_echo", |line, _| async move {
            Ok(Some(json!({"got": line["value"]})))
        });
        api.register_rpc_command("live_fail", |_, _| async move {
            Err(ExtensionError::new("no such luck"))
        });
    })
}

async fn start(s: &Scenario, tools: Option<Vec<String>>) -> InProcessRpc {
    let mut set = ExtensionSet::default();
    set.push(extension());
    let app = build_app(StartOptions {
        cwd: s.work.path().to_path_buf(),
        model: Some("mock-oai/mock-gpt".to_owned()),
        session: SessionChoice::InMemory,
        agent_dir: Some(s.agent_dir.path().to_path_buf()),
        tools,
        extensions: set,
        ..StartOptions::default()
    })
    .unwrap();
    InProcessRpc::start(app)
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_registered_while_running_is_offered_called_and_removed() {
    let s = Scenario::start(vec![
        tool_answer("late", &json!({}), "c1"),
        text_answer("done"),
        text_answer("again"),
    ])
    .await;
    let mut rpc = start(&s, None).await;
    rpc.prompt("call late", |_| None).await;
    let bodies: Vec<Value> = s.requests().iter().map(|r| r.json()).collect();
    assert!(tool_names(&bodies[0]).contains(&"late".to_owned()));
    let system = bodies[0]["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("- late: A tool that came late"), "{system}");
    assert!(bodies[1].to_string().contains("late result"));
    let answer = rpc
        .call(json!({"type": "prompt", "message": "/drop-late"}))
        .await;
    assert_eq!(answer["success"], true, "{answer}");
    let commands = rpc.call(json!({"type": "get_commands"})).await;
    assert!(commands.to_string().contains("drop-late"), "{commands}");
    rpc.prompt("and now", |_| None).await;
    let last = s.requests().last().unwrap().json();
    assert!(!tool_names(&last).contains(&"late".to_owned()), "{last}");
    assert!(
        !last["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("- late:")
    );
    rpc.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_leaves_out_a_tool_registered_later() {
    let s = Scenario::start(vec![text_answer("hi")]).await;
    let mut rpc = start(&s, Some(vec!["read".to_owned()])).await;
    rpc.prompt("hello", |_| None).await;
    assert_eq!(tool_names(&s.requests()[0].json()), vec!["read"]);
    rpc.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rpc_commands_of_an_extension_answer_in_pi_s_shape() {
    let s = Scenario::start(vec![]).await;
    let mut rpc = start(&s, None).await;
    let ok = rpc.call(json!({"type": "live_echo", "value": 7})).await;
    assert_eq!(
        ok,
        json!({"id": "c1", "type": "response", "command": "live_echo", "success": true,
               "data": {"got": 7}})
    );
    let failed = rpc.call(json!({"type": "live_fail"})).await;
    assert_eq!(
        failed,
        json!({"id": "c2", "type": "response", "command": "live_fail", "success": false,
               "error": "no such luck"})
    );
    let unknown = rpc.call(json!({"type": "live_nothing"})).await;
    assert_eq!(unknown["error"], "Unknown command: live_nothing");
    let seen = rpc.close().await;
    assert!(
        seen.iter()
            .any(|l| l["type"] == "extension_error" && l["event"] == "rpc:live_fail"),
        "the failure is reported"
    );
}
