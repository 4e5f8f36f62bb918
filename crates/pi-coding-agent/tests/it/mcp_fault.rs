//! MCP through the agent loop against the fault server
//! (`examples/mcp_fault_server.rs`): the model (the loopback mock) calls a
//! server's tool, the call reaches the server, its result reaches the next
//! request; and what goes wrong (a hang cancelled by abort, a crash, a
//! line of garbage, a 50 MB result, a changed tool list, a timeout) is
//! handled and reported.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::extension_common;
use crate::mcp_common;

use std::time::Duration;

use extension_common::{text_answer, tool_answer};
use mcp_common::{Mcp, fault_def, log_lines};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_call_reaches_the_server_and_its_result_the_next_request() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let mut mcp = Mcp::start(
        vec![
            tool_answer("mcp__fault__echo", &json!({"text": "hello MCP"}), "c1"),
            text_answer("done"),
        ],
        json!({"fault": fault_def(&log)}),
    )
    .await;
    let server = mcp.wait_state("fault", "ready").await;
    assert_eq!(server["transport"], "stdio");
    assert_eq!(server["serverInfo"], "mcp-fault-server 1.0.0");
    assert!(
        server["protocolVersion"]
            .as_str()
            .unwrap()
            .starts_with("20")
    );
    let tools: Vec<&str> = server["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(tools.contains(&"mcp__fault__echo"), "{tools:?}");
    mcp.prompt("say hello").await;
    assert!(mcp.tool_names(0).contains(&"mcp__fault__echo".to_owned()));
    assert_eq!(mcp.tool_result(1, "c1"), "hello MCP");
    assert!(log_lines(&log).contains(&"call echo".to_owned()));
    // The session records the result with the server in its details.
    let end = mcp
        .lines_of("tool_execution_end")
        .pop()
        .expect("a tool_execution_end");
    assert_eq!(end["result"]["details"]["server"], "fault");
    assert_eq!(end["isError"], false);
    mcp.close().await;
    // pi stopped the server: its process is gone (no second start either).
    assert_eq!(
        log_lines(&log)
            .iter()
            .filter(|l| l.starts_with("start"))
            .count(),
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_notifications_are_tool_updates() {
    let dir = tempfile::tempdir().unwrap();
    let mut mcp = Mcp::start(
        vec![
            tool_answer("mcp__fault__progress", &json!({"steps": 3}), "c1"),
            text_answer("done"),
        ],
        json!({"fault": fault_def(&dir.path().join("log"))}),
    )
    .await;
    mcp.wait_state("fault", "ready").await;
    mcp.prompt("go").await;
    let updates: Vec<String> = mcp
        .lines_of("tool_execution_update")
        .iter()
        .map(|u| {
            u["partialResult"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    // The server works between its notifications; the SDK hands them over
    // concurrently (one may overtake another): pi shows progress only as
    // it grows.
    assert_eq!(
        updates.first().map(String::as_str),
        Some("step 1 (1/3)"),
        "{:#?}",
        mcp.rpc.seen
    );
    assert!(
        updates
            .iter()
            .all(|u| ["step 1 (1/3)", "step 2 (2/3)", "step 3 (3/3)"].contains(&u.as_str())),
        "{updates:?}"
    );
    let steps: Vec<char> = updates.iter().map(|u| u.chars().nth(5).unwrap()).collect();
    assert!(steps.windows(2).all(|w| w[0] < w[1]), "{updates:?}");
    assert_eq!(mcp.tool_result(1, "c1"), "done");
    mcp.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abort_cancels_a_hanging_call_on_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let mut mcp = Mcp::start(
        vec![tool_answer("mcp__fault__hang", &json!({}), "c1")],
        json!({"fault": fault_def(&log)}),
    )
    .await;
    mcp.wait_state("fault", "ready").await;
    let called = log.clone();
    mcp.rpc
        .prompt("hang", |line| {
            if line["type"] != "tool_execution_start" {
                return None;
            }
            // Esc once the call is on the server.
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            while !log_lines(&called).contains(&"call hang".to_owned()) {
                assert!(std::time::Instant::now() < deadline, "the call never came");
                std::thread::sleep(Duration::from_millis(10));
            }
            Some(json!({"type": "abort"}))
        })
        .await;
    let end = mcp.lines_of("tool_execution_end").pop().unwrap();
    assert_eq!(end["isError"], true, "{end}");
    // The server heard `notifications/cancelled` for the call.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !log_lines(&log).iter().any(|l| l.starts_with("cancelled")) {
        assert!(
            std::time::Instant::now() < deadline,
            "no cancellation: {:?}",
            log_lines(&log)
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    mcp.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_past_the_server_timeout_fails_and_is_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let mut def = fault_def(&log);
    def["timeout"] = json!(300);
    let mut mcp = Mcp::start(
        vec![
            tool_answer("mcp__fault__hang", &json!({}), "c1"),
            text_answer("done"),
        ],
        json!({"fault": def}),
    )
    .await;
    mcp.wait_state("fault", "ready").await;
    mcp.prompt("hang").await;
    assert_eq!(
        mcp.tool_result(1, "c1"),
        "MCP tool hang on fault timed out after 0.3s (its \"timeout\")"
    );
    mcp.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_is_reported_and_the_next_call_restarts_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let mut mcp = Mcp::start(
        vec![
            tool_answer("mcp__fault__crash", &json!({}), "c1"),
            text_answer("it crashed"),
            tool_answer("mcp__fault__echo", &json!({"text": "back"}), "c2"),
            text_answer("done"),
        ],
        json!({"fault": fault_def(&log)}),
    )
    .await;
    mcp.wait_state("fault", "ready").await;
    mcp.prompt("crash").await;
    let error = mcp.tool_result(1, "c1");
    assert!(error.starts_with("MCP server fault: "), "{error}");
    let failed = mcp.wait_state("fault", "failed").await;
    let reason = failed["error"].as_str().unwrap();
    assert!(
        reason.contains("exit status: 3") && reason.contains("crashing as asked"),
        "{reason}"
    );
    // Reported once, as a warning (rpc: a notify request).
    mcp.rpc.settle(200).await;
    let notices: Vec<String> = mcp
        .lines_of("extension_ui_request")
        .iter()
        .filter(|l| l["method"] == "notify")
        .map(|l| l["message"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(
        notices[0].starts_with("MCP server fault exited (exit status: 3)")
            && notices[0].ends_with("it restarts on its next use"),
        "{notices:?}"
    );
    mcp.prompt("again").await;
    assert_eq!(mcp.tool_result(3, "c2"), "back");
    let starts = log_lines(&log)
        .iter()
        .filter(|l| l.starts_with("start"))
        .count();
    assert_eq!(starts, 2, "{:?}", log_lines(&log));
    mcp.wait_state("fault", "ready").await;
    mcp.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_on_stdout_does_not_break_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let mut mcp = Mcp::start(
        vec![
            tool_answer("mcp__fault__garbage", &json!({}), "c1"),
            text_answer("ok"),
            tool_answer("mcp__fault__echo", &json!({"text": "still here"}), "c2"),
            text_answer("done"),
        ],
        json!({"fault": fault_def(&log)}),
    )
    .await;
    mcp.wait_state("fault", "ready").await;
    mcp.prompt("garbage").await;
    // Either the SDK skips the line and the call answers, or the
    // connection fails; the model gets a result either way.
    let first = mcp.tool_result(1, "c1");
    assert!(
        first == "after garbage" || first.starts_with("MCP server fault: "),
        "{first}"
    );
    mcp.prompt("again").await;
    assert_eq!(mcp.tool_result(3, "c2"), "still here");
    mcp.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_50_mb_result_is_truncated_as_pi_truncates_tool_output() {
    let dir = tempfile::tempdir().unwrap();
    let mut mcp = Mcp::start(
        vec![
            tool_answer("mcp__fault__big", &json!({"mb": 50}), "c1"),
            text_answer("done"),
        ],
        json!({"fault": fault_def(&dir.path().join("log"))}),
    )
    .await;
    mcp.wait_state("fault", "ready").await;
    mcp.prompt("big").await;
    let text = mcp.tool_result(1, "c1");
    assert!(
        text.starts_with(&format!("line {:>26}\nline {:>26}\n", 0, 1)),
        "{}",
        &text[..text.len().min(300)]
    );
    let notice = text.rsplit("\n\n").next().unwrap();
    assert!(
        notice.starts_with(
            "[Output truncated: 1600 of 1638401 lines (50.0KB of 50.0MB). Full output saved to: "
        ),
        "{notice}"
    );
    assert!(text.len() < 60 * 1024, "{}", text.len());
    let end = mcp.lines_of("tool_execution_end").pop().unwrap();
    let path = end["result"]["details"]["fullOutputPath"].as_str().unwrap();
    assert_eq!(std::fs::metadata(path).unwrap().len(), 50 * 1024 * 1024);
    std::fs::remove_file(path).unwrap();
    mcp.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_tool_list_changes_the_tools_offered() {
    let dir = tempfile::tempdir().unwrap();
    let mut mcp = Mcp::start(
        vec![
            tool_answer("mcp__fault__toggle", &json!({}), "c1"),
            text_answer("toggled"),
            tool_answer("mcp__fault__extra", &json!({}), "c2"),
            text_answer("done"),
        ],
        json!({"fault": fault_def(&dir.path().join("log"))}),
    )
    .await;
    mcp.wait_state("fault", "ready").await;
    mcp.prompt("toggle").await;
    assert!(!mcp.tool_names(0).contains(&"mcp__fault__extra".to_owned()));
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let server = mcp.server("fault").await;
        if server["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "mcp__fault__extra")
        {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{server}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    mcp.prompt("extra").await;
    assert!(mcp.tool_names(2).contains(&"mcp__fault__extra".to_owned()));
    assert_eq!(mcp.tool_result(3, "c2"), "extra tool");
    mcp.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allow_and_deny_lists_choose_the_tools_and_no_mcp_starts_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let mut def = fault_def(&log);
    def["includeTools"] = json!(["echo", "hang", "big"]);
    def["excludeTools"] = json!(["hang"]);
    let off_log = dir.path().join("off.log");
    let mut off = fault_def(&off_log);
    off["disabled"] = json!(true);
    let mut mcp = Mcp::start(vec![], json!({"fault": def.clone(), "off": off})).await;
    let server = mcp.wait_state("fault", "ready").await;
    assert_eq!(mcp.server("off").await["state"], "disabled");
    assert!(
        log_lines(&off_log).is_empty(),
        "a disabled server never starts"
    );
    let tools: Vec<&str> = server["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, vec!["mcp__fault__big", "mcp__fault__echo"]);
    mcp.close().await;

    let off = tempfile::tempdir().unwrap();
    let log = off.path().join("log");
    let mut mcp = Mcp::start_with(
        vec![],
        Some(json!({"fault": fault_def(&log)})),
        |_| {},
        vec![("no-mcp".to_owned(), json!(true))],
    )
    .await;
    assert_eq!(mcp.report().await, json!({"servers": [], "problems": []}));
    mcp.close().await;
    assert!(log_lines(&log).is_empty(), "{:?}", log_lines(&log));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn project_servers_wait_for_approval_and_rpc_says_how_to_give_it() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let def = fault_def(&log);
    let mut mcp = Mcp::start_with(
        vec![],
        None,
        |s| {
            std::fs::create_dir_all(s.work.path().join(".pi")).unwrap();
            std::fs::write(
                s.work.path().join(".pi/mcp.json"),
                json!({"mcpServers": {"proj": def}}).to_string(),
            )
            .unwrap();
        },
        Vec::new(),
    )
    .await;
    let server = mcp.server("proj").await;
    assert_eq!(server["state"], "not approved");
    assert_eq!(server["scope"], "project");
    mcp.rpc.settle(200).await;
    let notices: Vec<String> = mcp
        .lines_of("extension_ui_request")
        .iter()
        .filter(|l| l["method"] == "notify")
        .map(|l| l["message"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        notices,
        vec![
            "MCP: project server proj not started: not approved for this project; approve with /mcp approve in an interactive pi here"
        ]
    );
    assert!(log_lines(&log).is_empty(), "not started");
    // `/mcp approve` (a command: any mode runs it) approves and starts it.
    let answer = mcp
        .rpc
        .call(json!({"type": "prompt", "message": "/mcp approve proj"}))
        .await;
    assert_eq!(answer["success"], true, "{answer}");
    mcp.wait_state("proj", "ready").await;
    let approvals =
        std::fs::read_to_string(mcp.scenario.agent_dir.path().join("mcp-approvals.json")).unwrap();
    assert!(approvals.contains("\"proj\""), "{approvals}");
    assert!(
        !approvals.contains("mcp_fault_server"),
        "no definition saved"
    );
    mcp.close().await;
}

/// The median of `samples`.
fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// `tools/call echo` round trips to the fault server, spoken by hand: one
/// JSON line out, one back (the server's own time plus the pipes).
async fn raw_round_trips(count: usize) -> Vec<Duration> {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let mut child = tokio::process::Command::new(mcp_common::fault_server())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}});
    stdin
        .write_all(format!("{init}\n").as_bytes())
        .await
        .unwrap();
    lines.next_line().await.unwrap().unwrap();
    let ready = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    stdin
        .write_all(format!("{ready}\n").as_bytes())
        .await
        .unwrap();
    let mut samples = Vec::with_capacity(count);
    for id in 1..=count {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                          "params": {"name": "echo", "arguments": {"text": "ping"}}});
        let started = std::time::Instant::now();
        stdin
            .write_all(format!("{call}\n").as_bytes())
            .await
            .unwrap();
        let answer = lines.next_line().await.unwrap().unwrap();
        samples.push(started.elapsed());
        assert!(answer.contains("ping"), "{answer}");
    }
    samples
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_trip_adds_little_over_the_server_s_own_time() {
    use pi_coding_agent::mcp::config::{McpConfig, Scope};
    use pi_coding_agent::mcp::server::{Server, State};
    const CALLS: usize = 300;
    let raw = median(raw_round_trips(CALLS).await);
    let dir = tempfile::tempdir().unwrap();
    let mut config = McpConfig::default();
    config.add_file(
        &dir.path().join("mcp.json"),
        Scope::User,
        &json!({"mcpServers": {"fault": {"command": mcp_common::fault_server()}}}).to_string(),
    );
    let def = config.servers.remove(0);
    let server = Server::new(
        def,
        dir.path().to_path_buf(),
        State::Starting,
        std::sync::Arc::new(|_, _| {}),
    );
    let call = || {
        server.call_tool(
            "echo",
            json!({"text": "ping"}),
            pi_ai::CancellationToken::new(),
            pi_agent_core::ignore_updates(),
        )
    };
    call().await.unwrap(); // starts it
    let mut samples = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let started = std::time::Instant::now();
        let result = call().await.unwrap();
        samples.push(started.elapsed());
        assert_eq!(result.content[0].as_text(), Some("ping"));
    }
    let ours = median(samples);
    let added = ours.saturating_sub(raw);
    #[allow(clippy::print_stderr)]
    {
        eprintln!(
            "tools/call echo round trip: by hand {raw:?}, through pi-rs {ours:?}, added {added:?}"
        );
    }
    // The release build adds well under 1 ms (docs/performance.md); the
    // dev profile, unoptimized, is allowed a few.
    let limit = if cfg!(debug_assertions) { 5 } else { 1 };
    assert!(added < Duration::from_millis(limit), "added {added:?}");
    server.stop().await;
}
