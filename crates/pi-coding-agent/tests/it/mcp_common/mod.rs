//! Test support for MCP: an app with the MCP extension on the loopback
//! mock model, driven in process through rpc mode, its servers configured
//! in the agent dir's `mcp.json` (or the project's files), and the fault
//! server (`examples/mcp_fault_server.rs`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pi_coding_agent::app::{SessionChoice, StartOptions, build_app};
use pi_coding_agent::extensions::ExtensionSet;
use pi_coding_agent::mcp::McpExtension;
use pi_test_support::mock_server::MockResponse;
use serde_json::{Value, json};

use crate::e2e_common::Scenario;
use crate::extension_common::InProcessRpc;

/// The fault server's binary (it does not use the library).
pub fn fault_server() -> PathBuf {
    crate::examples_common::example("mcp_fault_server", false)
}

/// The fault server's definition, logging to `log`.
pub fn fault_def(log: &Path) -> Value {
    json!({"command": fault_server(), "env": {"MCP_FAULT_LOG": log}})
}

/// An app with the MCP extension, `servers` in the agent dir's
/// `mcp.json`, in rpc mode; `flags` are extension flag values.
pub struct Mcp {
    pub scenario: Scenario,
    pub rpc: InProcessRpc,
}

impl Mcp {
    /// Starts with `responses` from the mock model.
    pub async fn start(responses: Vec<MockResponse>, servers: Value) -> Self {
        Self::start_with(responses, Some(servers), |_| {}, Vec::new()).await
    }

    /// Starts after `prepare` set up the scenario's folders (project
    /// files), with `servers` (if any) in the agent dir's `mcp.json`.
    pub async fn start_with(
        responses: Vec<MockResponse>,
        servers: Option<Value>,
        prepare: impl FnOnce(&Scenario),
        flags: Vec<(String, Value)>,
    ) -> Self {
        let scenario = Scenario::start(responses).await;
        if let Some(servers) = servers {
            std::fs::write(
                scenario.agent_dir.path().join("mcp.json"),
                json!({ "mcpServers": servers }).to_string(),
            )
            .unwrap();
        }
        prepare(&scenario);
        let mut set = ExtensionSet::default();
        set.push(McpExtension::new());
        let app = build_app(StartOptions {
            cwd: scenario.work.path().to_path_buf(),
            model: Some("mock-oai/mock-gpt".to_owned()),
            session: SessionChoice::New,
            session_dir: Some(scenario.sessions_dir()),
            agent_dir: Some(scenario.agent_dir.path().to_path_buf()),
            extensions: set,
            extension_flags: flags,
            ..StartOptions::default()
        })
        .unwrap();
        let rpc = InProcessRpc::start(app);
        Self { scenario, rpc }
    }

    /// The `get_mcp_servers` report.
    pub async fn report(&mut self) -> Value {
        let response = self.rpc.call(json!({"type": "get_mcp_servers"})).await;
        assert_eq!(response["success"], true, "{response}");
        response["data"].clone()
    }

    /// The report's entry of server `name`.
    pub async fn server(&mut self, name: &str) -> Value {
        let report = self.report().await;
        report["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no server {name} in {report}"))
    }

    /// Waits (at most 60 s) until server `name` is in `state`; its entry.
    pub async fn wait_state(&mut self, name: &str, state: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let server = self.server(name).await;
            if server["state"] == state {
                return server;
            }
            assert!(
                Instant::now() < deadline,
                "{name} never got {state}: {server}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Runs a prompt to its end.
    pub async fn prompt(&mut self, text: &str) {
        self.rpc.prompt(text, |_| None).await;
    }

    /// The request bodies the model got.
    pub fn bodies(&self) -> Vec<Value> {
        self.scenario.requests().iter().map(|r| r.json()).collect()
    }

    /// The tool names offered in request `index`.
    pub fn tool_names(&self, index: usize) -> Vec<String> {
        self.bodies()[index]["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The text of the tool result for call `id` in request `index`.
    pub fn tool_result(&self, index: usize, id: &str) -> String {
        let body = &self.bodies()[index];
        let message = body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
            .unwrap_or_else(|| panic!("no result for {id} in request {index}: {body}"));
        match &message["content"] {
            Value::String(text) => text.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join(""),
            other => other.to_string(),
        }
    }

    /// The rpc lines seen so far of `kind`.
    pub fn lines_of(&self, kind: &str) -> Vec<Value> {
        self.rpc
            .seen
            .iter()
            .filter(|l| l["type"] == kind)
            .cloned()
            .collect()
    }

    /// Ends rpc mode and the app (servers are stopped).
    pub async fn close(self) -> Vec<Value> {
        self.rpc.close().await
    }
}

/// The lines of the fault server's log.
pub fn log_lines(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}
