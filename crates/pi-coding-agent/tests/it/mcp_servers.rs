//! MCP against real servers, pinned and installed by `.ci/setup`:
//! `@modelcontextprotocol/server-everything` over stdio and over its
//! streamable HTTP mode on loopback, `@modelcontextprotocol/server-filesystem`
//! and `mcp-server-time` (PyPI). Each through the agent loop with the
//! loopback mock as the model: the model's tool call reaches the server and
//! the result reaches the next request. Without the servers a test says so
//! and passes, except under `CI=true`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::extension_common;
use crate::mcp_common;

use std::path::Path;
use std::time::{Duration, Instant};

use extension_common::{text_answer, tool_answer};
use mcp_common::Mcp;
use pi_test_support::external;
use serde_json::{Value, json};

fn node_server(script: &Path, args: &[&str]) -> Value {
    let mut all = vec![script.display().to_string()];
    all.extend(args.iter().map(|a| (*a).to_owned()));
    json!({"command": "node", "args": all})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_over_stdio_tools_images_structured_env_progress_prompts_resources() {
    let Some(script) = external::mcp_everything() else {
        return;
    };
    let mut def = node_server(&script, &["stdio"]);
    def["env"] = json!({"PI_MCP_FROM_CONFIG": "${PATH}", "PI_MCP_DEFAULTED": "${PI_MCP_UNSET_VAR:-fallback}"});
    let uri = "demo://resource/static/document/architecture.md";
    let mut mcp = Mcp::start(
        vec![
            tool_answer(
                "mcp__everything__echo",
                &json!({"message": "hi there"}),
                "c1",
            ),
            tool_answer("mcp__everything__get-sum", &json!({"a": 2, "b": 40}), "c2"),
            tool_answer("mcp__everything__get-tiny-image", &json!({}), "c3"),
            tool_answer(
                "mcp__everything__get-structured-content",
                &json!({"location": "Chicago"}),
                "c4",
            ),
            tool_answer("mcp__everything__get-env", &json!({}), "c5"),
            tool_answer(
                "mcp__everything__trigger-long-running-operation",
                &json!({"duration": 1, "steps": 2}),
                "c6",
            ),
            tool_answer("mcp__everything__read_resource", &json!({"uri": uri}), "c7"),
            text_answer("done"),
            text_answer("It is sunny."),
        ],
        json!({"everything": def}),
    )
    .await;
    let server = mcp.wait_state("everything", "ready").await;
    assert!(
        server["serverInfo"]
            .as_str()
            .unwrap()
            .contains("everything"),
        "{server}"
    );
    assert!(server["resources"].as_u64().unwrap() > 0, "{server}");
    mcp.prompt("use the tools").await;
    assert_eq!(mcp.tool_result(1, "c1"), "Echo: hi there");
    assert!(
        mcp.tool_result(2, "c2").contains("42"),
        "{}",
        mcp.tool_result(2, "c2")
    );
    // The image is the result's image (this mock model takes no images,
    // so pi's note stands in for it in the request).
    let image_end = mcp
        .lines_of("tool_execution_end")
        .into_iter()
        .find(|l| l["toolCallId"] == "c3")
        .unwrap();
    let blocks = image_end["result"]["content"].as_array().unwrap();
    assert!(
        blocks
            .iter()
            .any(|b| b["type"] == "image" && b["mimeType"] == "image/png"),
        "{image_end}"
    );
    assert!(
        mcp.tool_result(3, "c3")
            .contains("(tool image omitted: model does not support images)")
    );
    let structured = mcp.tool_result(4, "c4");
    assert!(structured.contains("temperature"), "{structured}");
    let env = mcp.tool_result(5, "c5");
    let path = std::env::var("PATH").unwrap();
    assert!(
        env.contains(&format!("\"PI_MCP_FROM_CONFIG\": \"{path}\""))
            || env.contains(&format!("\"PI_MCP_FROM_CONFIG\":\"{path}\"")),
        "{env}"
    );
    assert!(env.contains("fallback"), "{env}");
    let long = mcp.tool_result(6, "c6");
    assert!(long.contains("completed"), "{long}");
    let updates = mcp.lines_of("tool_execution_update");
    assert!(
        updates
            .iter()
            .any(|u| u["toolName"] == "mcp__everything__trigger-long-running-operation"),
        "progress arrives as updates: {updates:?}"
    );
    let doc =
        std::fs::read_to_string(script.parent().unwrap().join("docs/architecture.md")).unwrap();
    let first_line = doc.lines().find(|l| !l.trim().is_empty()).unwrap();
    assert!(mcp.tool_result(7, "c7").contains(first_line.trim()));
    // A prompt of the server is a command; its messages are the prompt.
    let answer = mcp
        .rpc
        .call(json!({"type": "prompt", "message": "/mcp__everything__args-prompt Paris"}))
        .await;
    assert_eq!(answer["success"], true, "{answer}");
    let deadline = Instant::now() + Duration::from_secs(20);
    while mcp.bodies().len() < 9 {
        assert!(
            Instant::now() < deadline,
            "the prompt never reached the model"
        );
        mcp.rpc.settle(50).await;
    }
    let last = mcp.bodies()[8].to_string();
    assert!(last.contains("What's weather in Paris?"), "{last}");
    mcp.rpc.settle(300).await;
    mcp.close().await;
}

/// A free loopback port.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_over_streamable_http_on_loopback() {
    let Some(script) = external::mcp_everything() else {
        return;
    };
    let port = free_port();
    /// Ends the server however the test ends.
    struct Killed(std::process::Child);
    impl Drop for Killed {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let _server = Killed(
        std::process::Command::new("node")
            .arg(&script)
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "the HTTP server never listened");
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut mcp = Mcp::start(
        vec![
            tool_answer("mcp__remote__echo", &json!({"message": "over HTTP"}), "c1"),
            text_answer("done"),
        ],
        json!({"remote": {
            "type": "http",
            "url": format!("http://127.0.0.1:{port}/mcp"),
            "headers": {"X-Pi-Test": "${PATH}"}
        }}),
    )
    .await;
    let server = mcp.wait_state("remote", "ready").await;
    assert_eq!(server["transport"], "http");
    mcp.prompt("echo over http").await;
    assert_eq!(mcp.tool_result(1, "c1"), "Echo: over HTTP");
    mcp.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filesystem_and_time_servers_side_by_side() {
    let (Some(filesystem), Some(time)) = (external::mcp_filesystem(), external::mcp_time()) else {
        return;
    };
    let mut mcp = Mcp::start_with(
        vec![
            tool_answer(
                "mcp__files__read_text_file",
                &json!({"path": "notes.txt"}),
                "c1",
            ),
            tool_answer(
                "mcp__time__get_current_time",
                &json!({"timezone": "UTC"}),
                "c2",
            ),
            text_answer("done"),
        ],
        None,
        |s| {
            let work = s.work.path().canonicalize().unwrap();
            let servers = json!({
                "files": node_server(&filesystem, &[work.to_str().unwrap()]),
                "time": {"command": "python3", "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"],
                         "env": {"PYTHONPATH": time}}
            });
            std::fs::write(
                s.agent_dir.path().join("mcp.json"),
                json!({ "mcpServers": servers }).to_string(),
            )
            .unwrap();
        },
        Vec::new(),
    )
    .await;
    let files = mcp.wait_state("files", "ready").await;
    let time_server = mcp.wait_state("time", "ready").await;
    // Each server negotiated a protocol version the SDK knows.
    for server in [&files, &time_server] {
        let version = server["protocolVersion"].as_str().unwrap();
        assert!(
            ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"].contains(&version),
            "{server}"
        );
    }
    mcp.prompt("read and tell the time").await;
    let text = mcp.tool_result(1, "c1");
    assert!(text.contains("alpha\nbeta\ngamma"), "{text}");
    let now = mcp.tool_result(2, "c2");
    assert!(
        now.contains("\"timezone\": \"UTC\"") || now.contains("\"timezone\":\"UTC\""),
        "{now}"
    );
    mcp.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_headers_take_their_secrets_from_the_environment() {
    use pi_coding_agent::mcp::client::connect;
    use pi_coding_agent::mcp::config::Transport;
    use pi_test_support::mock_server::{MockResponse, MockServer};
    let init = json!({"jsonrpc": "2.0", "id": 0, "result": {
        "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
        "serverInfo": {"name": "mock-mcp", "version": "0.1"}}});
    let refuse = || MockResponse::Body {
        status: 405,
        headers: Vec::new(),
        body: String::new(),
    };
    let server = MockServer::start(vec![
        MockResponse::Body {
            status: 200,
            headers: vec![("mcp-session-id".to_owned(), "session-1".to_owned())],
            body: init.to_string(),
        },
        MockResponse::Body {
            status: 202,
            headers: Vec::new(),
            body: String::new(),
        },
        refuse(),
        refuse(),
        refuse(),
    ])
    .await
    .unwrap();
    let transport = Transport::Http {
        url: format!("{}/mcp", server.url()),
        headers: vec![("Authorization".to_owned(), "Bearer ${PATH}".to_owned())],
    };
    let (connection, child) = connect(&transport, Path::new("."), std::sync::Arc::new(|_| {}))
        .await
        .unwrap();
    assert!(child.is_none());
    assert_eq!(connection.protocol_version, "2025-06-18");
    assert_eq!(connection.server_info.as_deref(), Some("mock-mcp 0.1"));
    let requests = server.requests();
    let path = std::env::var("PATH").unwrap();
    assert_eq!(
        requests[0].header("authorization"),
        Some(format!("Bearer {path}").as_str())
    );
    assert_eq!(requests[0].json()["method"], "initialize");
    assert_eq!(requests[1].header("mcp-session-id"), Some("session-1"));
    assert_eq!(requests[1].json()["method"], "notifications/initialized");
    connection.close().await;
}
