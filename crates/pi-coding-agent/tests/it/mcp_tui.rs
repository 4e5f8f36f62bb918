//! MCP in the terminal UI (`pi` in a pseudo-terminal): a project's server
//! waits for the user's yes in a dialog, `/mcp` shows it, and a tool card
//! names the server its tool belongs to.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::e2e_common;
use crate::extension_common;
use crate::mcp_common;
use crate::pty_common;

use std::time::{Duration, Instant};

use e2e_common::Scenario;
use extension_common::{text_answer, tool_answer};
use mcp_common::{fault_def, log_lines};
use pty_common::Tui;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_project_server_starts_once_approved_and_its_cards_name_it() {
    let s = Scenario::start(vec![
        tool_answer(
            "mcp__proj__echo",
            &json!({"text": "from the terminal"}),
            "c1",
        ),
        text_answer("done"),
    ])
    .await;
    let log = s.work.path().join("fault.log");
    std::fs::write(
        s.work.path().join(".mcp.json"),
        json!({"mcpServers": {"proj": fault_def(&log)}}).to_string(),
    )
    .unwrap();
    let mut tui = Tui::start(&s, &[], 100, 36);
    let screen = tui.wait_screen(
        |s| s.contains("Start MCP server \"proj\"?") && s.contains("→ Yes"),
        "the approval dialog",
    );
    assert!(
        screen.contains("mcp_fault_server"),
        "the command is shown: {screen}"
    );
    assert!(screen.contains("(env: MCP_FAULT_LOG)"), "{screen}");
    assert!(log_lines(&log).is_empty(), "nothing runs before the answer");
    tui.send("\r");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !log_lines(&log).iter().any(|l| l.starts_with("start")) {
        assert!(Instant::now() < deadline, "the server never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let approvals = s.agent_dir.path().join("mcp-approvals.json");
    assert!(approvals.is_file(), "the yes is remembered");
    // `/mcp` once it is ready.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        tui.submit("/mcp");
        std::thread::sleep(Duration::from_millis(300));
        if tui.screen().contains("proj (stdio, project): ready") {
            break;
        }
        assert!(Instant::now() < deadline, "{}", tui.screen());
    }
    let screen = tui.screen();
    assert!(screen.contains("tool mcp__proj__echo"), "{screen}");
    tui.submit("echo something");
    let screen = tui.wait_screen(
        |s| s.contains("echo [MCP proj]") && s.contains("from the terminal") && s.contains("done"),
        "the tool card naming the server",
    );
    assert!(
        screen.contains("{\"text\":\"from the terminal\"}"),
        "{screen}"
    );
    assert!(tui.quit().success());
}
