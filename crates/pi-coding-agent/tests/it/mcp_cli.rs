//! MCP in the `pi` binary (which loads the MCP extension): print mode
//! skips unapproved project servers with one line saying how to approve
//! them; `--no-mcp` starts nothing; a secret from the environment reaches
//! the server but neither the session file nor the logs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::e2e_common;
use crate::extension_common;
use crate::mcp_common;

use e2e_common::Scenario;
use extension_common::{text_answer, tool_answer};
use mcp_common::{fault_def, log_lines};
use serde_json::{Value, json};

fn write_servers(path: &std::path::Path, servers: &Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, json!({ "mcpServers": servers }).to_string()).unwrap();
}

async fn run(s: &Scenario, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let dir = s.sessions_dir();
    let mut full = vec![
        "--session-dir",
        dir.to_str().unwrap(),
        "--model",
        "mock-oai/mock-gpt",
    ];
    full.extend_from_slice(args);
    let mut command = s.command(&full);
    for (key, value) in env {
        command.env(key, value);
    }
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn print_mode_skips_unapproved_project_servers_with_one_line() {
    let s = Scenario::start(vec![text_answer("hello")]).await;
    let log = s.work.path().join("fault.log");
    write_servers(
        &s.work.path().join(".mcp.json"),
        &json!({"proj": fault_def(&log)}),
    );
    let out = run(&s, &["-p", "hi"], &[]).await;
    assert!(out.status.success(), "{out:?}");
    assert_eq!(e2e_common::text(&out.stdout), "hello\n");
    assert_eq!(
        e2e_common::text(&out.stderr),
        "Warning: MCP: project server proj not started: not approved for this project; approve with /mcp approve in an interactive pi here\n"
    );
    assert!(log_lines(&log).is_empty(), "not started");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_mcp_starts_nothing_and_help_lists_it() {
    let s = Scenario::start(vec![text_answer("hello")]).await;
    let log = s.work.path().join("fault.log");
    write_servers(
        &s.agent_dir.path().join("mcp.json"),
        &json!({"fault": fault_def(&log)}),
    );
    let out = run(&s, &["-p", "--no-mcp", "hi"], &[]).await;
    assert!(out.status.success(), "{out:?}");
    assert_eq!(e2e_common::text(&out.stderr), "");
    assert!(log_lines(&log).is_empty(), "{:?}", log_lines(&log));
    let tools = s.requests()[0].json()["tools"].to_string();
    assert!(!tools.contains("mcp__"), "{tools}");
    let help = run(&s, &["--help"], &[]).await;
    let text = e2e_common::text(&help.stdout) + &e2e_common::text(&help.stderr);
    assert!(text.contains("--no-mcp"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_from_the_environment_stay_out_of_the_session_and_the_logs() {
    let s = Scenario::start(vec![
        tool_answer("mcp__fault__echo", &json!({"text": "public"}), "c1"),
        text_answer("done"),
    ])
    .await;
    let log = s.work.path().join("fault.log");
    let mut def = fault_def(&log);
    def["env"]["FAULT_TOKEN"] = json!("${PI_MCP_TEST_SECRET}");
    write_servers(&s.agent_dir.path().join("mcp.json"), &json!({"fault": def}));
    // Print mode's first request waits for a server it has no tool list of.
    let secret = "s3cr3t-7c1f0e";
    let out = run(
        &s,
        &["-p", "use the echo tool"],
        &[("PI_MCP_TEST_SECRET", secret), ("PI_LOG", "trace")],
    )
    .await;
    assert!(out.status.success(), "{out:?}");
    assert_eq!(e2e_common::text(&out.stdout), "done\n");
    let stderr = e2e_common::text(&out.stderr);
    assert!(stderr.contains("mcp"), "trace logs were written");
    assert!(!stderr.contains(secret), "the logs hold the secret");
    let sessions: String = s
        .session_files()
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect();
    assert!(
        sessions.contains("\"text\":\"public\""),
        "the result is saved"
    );
    for file in s.session_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            !text.contains(secret),
            "{} holds the secret",
            file.display()
        );
    }
    assert!(
        log_lines(&log)[0].ends_with(&format!("token:{secret}")),
        "the server got the secret: {:?}",
        log_lines(&log)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_next_run_offers_the_cached_tools_of_a_server_still_starting() {
    let s = Scenario::start(vec![
        text_answer("first"),
        tool_answer("mcp__fault__echo", &json!({"text": "cached"}), "c1"),
        text_answer("done"),
    ])
    .await;
    let log = s.work.path().join("fault.log");
    write_servers(
        &s.agent_dir.path().join("mcp.json"),
        &json!({"fault": fault_def(&log)}),
    );
    let out = run(&s, &["-p", "hi"], &[]).await;
    assert!(out.status.success(), "{out:?}");
    let cache = s.agent_dir.path().join("mcp-cache");
    assert_eq!(
        std::fs::read_dir(&cache).unwrap().count(),
        1,
        "one list cached"
    );
    // Now the server takes 2 s to answer: the first request offers its
    // cached tools, and the call waits for the server.
    let started = std::time::Instant::now();
    let out = run(&s, &["-p", "echo"], &[("FAULT_START_DELAY_MS", "2000")]).await;
    assert!(out.status.success(), "{out:?}");
    assert_eq!(e2e_common::text(&out.stdout), "done\n");
    assert!(started.elapsed() >= std::time::Duration::from_secs(2));
    let first = s.requests()[1].json();
    assert!(
        first["tools"].to_string().contains("mcp__fault__echo"),
        "{first}"
    );
    let second = s.requests()[2].json().to_string();
    assert!(second.contains("\"content\":\"cached\""), "{second}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quitting_does_not_wait_for_a_server_still_starting() {
    let s = Scenario::start(vec![text_answer("first"), text_answer("second")]).await;
    let log = s.work.path().join("fault.log");
    write_servers(
        &s.agent_dir.path().join("mcp.json"),
        &json!({"fault": fault_def(&log)}),
    );
    // The first run lists the tools (cached); the second has them at once
    // and ends before the slow server answers.
    assert!(run(&s, &["-p", "hi"], &[]).await.status.success());
    let started = std::time::Instant::now();
    let out = run(&s, &["-p", "hi"], &[("FAULT_START_DELAY_MS", "8000")]).await;
    assert!(out.status.success(), "{out:?}");
    assert_eq!(e2e_common::text(&out.stdout), "second\n");
    assert_eq!(
        e2e_common::text(&out.stderr),
        "",
        "no failure reported on quit"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}
