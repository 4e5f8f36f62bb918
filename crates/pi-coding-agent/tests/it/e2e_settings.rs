//! End-to-end: settings.json as pi 0.73.1 handles it, checked against its
//! captures in fixtures/pi-0.73.1/settings-* (made by
//! fixtures/capture/settings_scenarios.py): unreadable files warn and the
//! run goes on with defaults, a model or thinking change is written back
//! without touching other keys, and `sessionDir` / `PI_CODING_AGENT_SESSION_DIR`
//! choose where sessions go.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;

use std::path::Path;

use e2e_common::{Scenario, capture_answer, fixtures, text};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn pi_capture(path: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(fixtures().join(path)).unwrap()).unwrap()
}

async fn answering(n: usize) -> Scenario {
    Scenario::start(
        (1..=n)
            .map(|i| capture_answer(&format!("Answer {i}.")))
            .collect(),
    )
    .await
}

/// Writes `rel` (`agent/...` or `work/...`) as pi's capture had it.
fn write_file(s: &Scenario, rel: &str, content: &str) -> std::path::PathBuf {
    let path = match rel.split_once('/') {
        Some(("agent", rest)) => s.agent_dir.path().join(rest),
        Some(("work", rest)) => s.work.path().join(rest),
        _ => panic!("{rel}"),
    };
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, content).unwrap();
    path
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreadable_settings_file_warns_naming_it_and_the_run_goes_on() {
    for (case, scope) in [
        ("global-bad-json", "global"),
        ("project-bad-json", "project"),
    ] {
        let pi = pi_capture(&format!("settings-invalid/{case}.json"));
        let s = answering(1).await;
        let mut paths = Vec::new();
        for (rel, content) in pi["files"].as_object().unwrap() {
            paths.push((
                write_file(&s, rel, content.as_str().unwrap()),
                content.clone(),
            ));
        }
        let out = s.run(&["-p", "--model", "mock-oai/mock-gpt", "Hi"]).await;
        // pi: exit 0, the answer, and warnings naming the scope.
        assert_eq!(pi["exit_code"], 0);
        assert_eq!(out.status.code(), Some(0), "{case}");
        assert!(pi["stdout"].as_str().unwrap().starts_with("Answer "));
        assert_eq!(text(&out.stdout), "Answer 1.\n");
        let pi_stderr = pi["stderr"].as_str().unwrap();
        assert!(
            pi_stderr.contains(&format!("{scope} settings)")),
            "{pi_stderr}"
        );
        // Ours: one warning naming the scope, the file, the problem and the defaults.
        let stderr = text(&out.stderr);
        let (path, _) = &paths[0];
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with(&format!(
                "Warning: ({scope} settings) {}: invalid JSON: ",
                path.display()
            )),
            "{stderr}"
        );
        assert!(
            stderr.ends_with("; using the default settings instead of this file\n"),
            "{stderr}"
        );
        // The file is left as it was (pi's `after`).
        for (path, content) in &paths {
            assert_eq!(&json!(std::fs::read_to_string(path).unwrap()), content);
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_settings_file_that_is_no_object_warns_and_is_left_as_it_is() {
    for (content, what) in [("[1, 2]", "an array"), ("null", "null")] {
        let s = answering(2).await;
        let path = write_file(&s, "agent/settings.json", content);
        let out = s.run(&["-p", "--model", "mock-oai/mock-gpt", "Hi"]).await;
        assert_eq!(out.status.code(), Some(0));
        let stderr = text(&out.stderr);
        assert_eq!(
            stderr,
            format!(
                "Warning: (global settings) {}: not a JSON object but {what}; using the default settings instead of this file\n",
                path.display()
            )
        );
        // pi writes an object over it on the next change; here it stays.
        rpc(
            &s,
            &[json!({"id": "1", "type": "set_model", "provider": "mock-oai", "modelId": "mock-gpt-think"})],
        )
        .await;
        assert_eq!(std::fs::read_to_string(&path).unwrap(), content);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn wrongly_typed_settings_are_ignored_silently_as_pi() {
    let pi = pi_capture("settings-invalid/wrong-types.json");
    let s = answering(1).await;
    write_file(
        &s,
        "agent/settings.json",
        pi["files"]["agent/settings.json"].as_str().unwrap(),
    );
    let out = s.run(&["-p", "--model", "mock-oai/mock-gpt", "Hi"]).await;
    assert_eq!(text(&out.stderr), pi["stderr"].as_str().unwrap());
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "Answer 1.\n");
}

/// Runs `pi --mode rpc --model mock-oai/mock-gpt` with `commands`, one at
/// a time (each waits for its response); returns stdout's lines.
async fn rpc(s: &Scenario, commands: &[Value]) -> Vec<Value> {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let mut command = tokio::process::Command::from(s.rpc_command());
    command.kill_on_drop(true);
    let mut child = command.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    for c in commands {
        stdin.write_all(format!("{c}\n").as_bytes()).await.unwrap();
        loop {
            let line = tokio::time::timeout(std::time::Duration::from_secs(30), lines.next_line())
                .await
                .unwrap()
                .unwrap()
                .unwrap();
            let v: Value = serde_json::from_str(&line).unwrap();
            seen.push(v.clone());
            if v["type"] == "response" && v["id"] == c["id"] {
                break;
            }
        }
    }
    drop(stdin);
    child.wait().await.unwrap();
    seen
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_change_is_written_back_as_pi_writes_it() {
    let pi = pi_capture("settings-write-back/runs.json");
    let start = "{\n  \"theme\": \"dark\",\n  \"compaction\": {\n    \"enabled\": true\n  },\n  \"defaultThinkingLevel\": \"low\"\n}";
    let s = answering(1).await;
    let path = write_file(&s, "agent/settings.json", start);

    // A model from the command line is not written (pi: file unchanged).
    let out = s.run(&["-p", "--model", "mock-oai/mock-gpt", "Hi"]).await;
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        pi["print-with-model"]["settings_after"].as_str().unwrap()
    );

    // set_model: the default provider and model join the file, byte for byte as pi's.
    rpc(
        &s,
        &[json!({"id": "1", "type": "set_model", "provider": "mock-oai", "modelId": "mock-gpt-think"})],
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        pi["rpc-set-model-thinking"]["settings_after"]
            .as_str()
            .unwrap()
    );
    assert!(!Path::new(&format!("{}.lock", path.display())).exists());

    // A changed thinking level of a reasoning model becomes the default.
    rpc(&s, &[json!({"id": "1", "type": "set_model", "provider": "mock-oai", "modelId": "mock-gpt-think"}),
              json!({"id": "2", "type": "set_thinking_level", "level": "high"})]).await;
    let now: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(now["defaultThinkingLevel"], "high");
    assert_eq!(now["theme"], "dark");
}

#[tokio::test(flavor = "multi_thread")]
async fn cycling_without_a_settings_file_creates_pis_file() {
    let pi = pi_capture("settings-write-back/runs.json");
    let s = answering(1).await;
    let seen = rpc(&s, &[json!({"id": "1", "type": "cycle_model"})]).await;
    let response = seen.iter().find(|v| v["id"] == "1").unwrap();
    assert_eq!(
        response["data"]["model"]["id"], "mock-gpt-think",
        "{response}"
    );
    assert_eq!(
        std::fs::read_to_string(s.agent_dir.path().join("settings.json")).unwrap(),
        pi["rpc-cycle-no-file"]["settings_after"].as_str().unwrap()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn write_back_goes_to_the_global_file_only() {
    let pi = pi_capture("settings-write-back/runs.json");
    let s = answering(1).await;
    let project = write_file(
        &s,
        "work/.pi/settings.json",
        "{\"defaultModel\": \"mock-gpt\"}",
    );
    rpc(
        &s,
        &[json!({"id": "1", "type": "set_model", "provider": "mock-ant", "modelId": "mock-claude"})],
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(s.agent_dir.path().join("settings.json")).unwrap(),
        pi["rpc-project-layer"]["settings_after"].as_str().unwrap()
    );
    assert_eq!(
        std::fs::read_to_string(project).unwrap(),
        pi["rpc-project-layer"]["project_after"].as_str().unwrap()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreadable_global_file_is_never_overwritten() {
    let s = answering(1).await;
    let path = write_file(&s, "agent/settings.json", "{nope");
    rpc(
        &s,
        &[json!({"id": "1", "type": "set_model", "provider": "mock-ant", "modelId": "mock-claude"})],
    )
    .await;
    assert_eq!(std::fs::read_to_string(path).unwrap(), "{nope");
}

#[tokio::test(flavor = "multi_thread")]
async fn session_dir_comes_from_the_flag_then_the_environment_then_settings() {
    let pi = pi_capture("settings-session-dir/runs.json");
    let s = answering(3).await;
    let root = s.agent_dir.path();
    write_file(
        &s,
        "agent/settings.json",
        &json!({"sessionDir": root.join("from-settings")}).to_string(),
    );
    let run = |extra: Vec<String>, env: Option<std::path::PathBuf>| {
        let mut args: Vec<String> = extra;
        args.extend(["-p", "--model", "mock-oai/mock-gpt", "Hi"].map(String::from));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut command = s.command(&refs);
        command.env_remove("PI_CODING_AGENT_SESSION_DIR");
        if let Some(env) = env {
            command.env("PI_CODING_AGENT_SESSION_DIR", env);
        }
        let out = command.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    };
    let files = |dir: &str| {
        std::fs::read_dir(root.join(dir))
            .map(|d| d.count())
            .unwrap_or(0)
    };
    run(Vec::new(), None);
    assert_eq!(pi["setting"]["files"], json!(["from-settings"]));
    assert_eq!(files("from-settings"), 1);
    run(Vec::new(), Some(root.join("from-env")));
    assert_eq!(pi["env"]["files"], json!(["from-env"]));
    assert_eq!(files("from-env"), 1);
    assert_eq!(files("from-settings"), 1);
    run(
        vec![
            "--session-dir".into(),
            root.join("from-flag").display().to_string(),
        ],
        Some(root.join("from-env2")),
    );
    assert_eq!(pi["flag"]["env2_exists"], false);
    assert_eq!(files("from-flag"), 1);
    assert!(!root.join("from-env2").exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn shell_settings_reach_the_bash_tool() {
    // pi's recorded bash round trip, with a prefix and a shell from settings.json.
    let s = Scenario::fixture("b-bash-oai").await;
    write_file(
        &s,
        "agent/settings.json",
        &json!({"shellPath": "/bin/sh", "shellCommandPrefix": "echo FROM-PREFIX"}).to_string(),
    );
    let out = s
        .run(&[
            "-p",
            "--model",
            "mock-oai/mock-gpt",
            "List the files in the current directory.",
        ])
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The tool result sent back to the model starts with the prefix's output.
    let second = s.requests()[1].json();
    let tool_message = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap()
        .clone();
    let content = tool_message["content"].to_string();
    assert!(content.contains("FROM-PREFIX\\n"), "{content}");
    assert!(content.contains("notes.txt"), "{content}");
}

#[tokio::test(flavor = "multi_thread")]
async fn queue_modes_and_auto_switches_are_written_back_as_pi() {
    let s = answering(1).await;
    let path = write_file(
        &s,
        "agent/settings.json",
        "{\"compaction\": {\"reserveTokens\": 1000}, \"theme\": \"dark\"}",
    );
    rpc(
        &s,
        &[
            json!({"id": "1", "type": "set_steering_mode", "mode": "all"}),
            json!({"id": "2", "type": "set_follow_up_mode", "mode": "all"}),
            json!({"id": "3", "type": "set_auto_compaction", "enabled": false}),
            json!({"id": "4", "type": "set_auto_retry", "enabled": false}),
        ],
    )
    .await;
    // pi's setters: top-level modes; `enabled` merged into the existing
    // objects — byte for byte what pi wrote for the same commands.
    let pi = pi_capture("settings-write-back/setters.json");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        pi["settings_after"].as_str().unwrap()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_switch_back_to_a_reasoning_model_takes_the_level_saved_in_this_run() {
    let s = answering(1).await;
    let path = write_file(
        &s,
        "agent/settings.json",
        "{\"defaultThinkingLevel\": \"low\"}",
    );
    let model = |id: &str, n: &str| json!({"id": n, "type": "set_model", "provider": "mock-oai", "modelId": id});
    let seen = rpc(
        &s,
        &[
            model("mock-gpt-think", "1"),
            json!({"id": "2", "type": "get_state"}),
            json!({"id": "3", "type": "set_thinking_level", "level": "high"}),
            model("mock-gpt", "4"),
            json!({"id": "5", "type": "get_state"}),
            model("mock-gpt-think", "6"),
            json!({"id": "7", "type": "get_state"}),
        ],
    )
    .await;
    let level = |id: &str| {
        seen.iter()
            .find(|v| v["type"] == "response" && v["id"] == id)
            .unwrap()["data"]["thinkingLevel"]
            .clone()
    };
    // pi's capture of the same commands: from a model without reasoning the
    // settings' default; its setter changed its in-memory default too.
    let pi = pi_capture("settings-write-back/thinking-switch.json");
    for id in ["2", "5", "7"] {
        assert_eq!(level(id), pi["levels"][id], "get_state {id}");
    }
    assert_eq!(level("7"), "high");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        pi["settings_after"].as_str().unwrap()
    );
}
