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

/// `retry.provider.maxRetries` is the HTTP retries of one request (pi hands it
/// to the SDK clients): 0 sends a failing request once, unset keeps the
/// default retries (the agent's own retry is off in both runs).
#[tokio::test(flavor = "multi_thread")]
async fn provider_max_retries_bounds_the_http_retries() {
    use pi_test_support::mock_server::MockResponse;
    let failing = || MockResponse::json(500, r#"{"error":{"message":"boom"}}"#);
    for (provider, requests, ok) in [(json!({"maxRetries": 0}), 1, false), (json!({}), 2, true)] {
        let s = Scenario::start(vec![failing(), capture_answer("Answer after retry.")]).await;
        let settings = json!({"retry": {"enabled": false, "provider": provider}});
        write_file(&s, "agent/settings.json", &settings.to_string());
        let out = s.run(&["-p", "--model", "mock-oai/mock-gpt", "Hi"]).await;
        assert_eq!(s.requests().len(), requests, "{provider}");
        assert_eq!(out.status.success(), ok, "{}", text(&out.stderr));
    }
}

/// `steeringMode` / `followUpMode` are the agent's queue modes from the start
/// (rpc `get_state` reports them).
#[tokio::test(flavor = "multi_thread")]
async fn queue_modes_come_from_the_settings() {
    for (settings, mode) in [
        (json!({"steeringMode": "all", "followUpMode": "all"}), "all"),
        (json!({}), "one-at-a-time"),
    ] {
        let s = answering(0).await;
        write_file(&s, "agent/settings.json", &settings.to_string());
        let mut rpc = e2e_common::RpcProcess::start(s.rpc_command());
        let seen = rpc.send(json!({"id": "1", "type": "get_state"}));
        let state = &seen.last().unwrap()["data"];
        assert_eq!(state["steeringMode"], mode, "{state}");
        assert_eq!(state["followUpMode"], mode, "{state}");
        rpc.finish();
    }
}

/// `thinkingBudgets` sets the token budget a thinking level asks for.
#[tokio::test(flavor = "multi_thread")]
async fn thinking_budgets_reach_the_request() {
    // (The mock's answer is no Anthropic stream: retrying it would only wait.)
    let no_retry = json!({"enabled": false});
    for (settings, budget) in [
        (
            json!({"thinkingBudgets": {"low": 1234}, "retry": no_retry}),
            1234,
        ),
        (json!({"retry": no_retry}), 2048),
    ] {
        let s = answering(1).await;
        write_file(&s, "agent/settings.json", &settings.to_string());
        let args = [
            "-p",
            "--model",
            "mock-ant/mock-claude-think",
            "--thinking",
            "low",
            "Hi",
        ];
        let _ = s.run(&args).await;
        let body = s.requests()[0].json();
        assert_eq!(body["thinking"]["budget_tokens"], budget, "{body}");
    }
}

/// `images.blockImages`: an image read by a tool never reaches the model.
#[tokio::test(flavor = "multi_thread")]
async fn block_images_keeps_images_from_the_model() {
    // A 1x1 PNG.
    const PNG: &[u8] = &[
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
        0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f,
        0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00,
        0x01, 0x00, 0x00, 0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49,
        0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
    ];
    // (Resizing off: this small PNG only has to be passed on.)
    for (settings, blocked) in [
        (
            json!({"images": {"blockImages": true, "autoResize": false}}),
            true,
        ),
        (json!({"images": {"autoResize": false}}), false),
    ] {
        let read = e2e_common::tool_call_answer("call_1", "read", &json!({"path": "pic.png"}));
        let s = Scenario::start(vec![read, capture_answer("A picture.")]).await;
        std::fs::write(s.work.path().join("pic.png"), PNG).unwrap();
        // mock-gpt with image input, so only the setting keeps the image back.
        let models_path = s.agent_dir.path().join("models.json");
        let mut models: Value =
            serde_json::from_str(&std::fs::read_to_string(&models_path).unwrap()).unwrap();
        for model in models["providers"]["mock-oai"]["models"]
            .as_array_mut()
            .unwrap()
        {
            model["input"] = json!(["text", "image"]);
        }
        std::fs::write(&models_path, models.to_string()).unwrap();
        write_file(&s, "agent/settings.json", &settings.to_string());
        let out = s
            .run(&["-p", "--model", "mock-oai/mock-gpt", "Look at pic.png"])
            .await;
        assert!(out.status.success(), "{}", text(&out.stderr));
        let second = String::from_utf8_lossy(&s.requests()[1].body).into_owned();
        assert_eq!(second.contains("image_url"), !blocked, "{second}");
        assert_eq!(
            second.contains("Image reading is disabled."),
            blocked,
            "{second}"
        );
    }
}

/// `images.autoResize` decides whether an `@file` image is resized (pi's
/// `prepareInitialMessage`): a 2400x10 picture is cut to 2000 wide with
/// pi's dimension note, or sent as it is.
#[tokio::test(flavor = "multi_thread")]
async fn auto_resize_applies_to_file_arguments() {
    let mut png = Vec::new();
    image::RgbImage::new(2400, 10)
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    for (settings, resized) in [
        (json!({}), true),
        (json!({"images": {"autoResize": false}}), false),
    ] {
        let s = answering(1).await;
        std::fs::write(s.work.path().join("wide.png"), &png).unwrap();
        let models_path = s.agent_dir.path().join("models.json");
        let mut models: Value =
            serde_json::from_str(&std::fs::read_to_string(&models_path).unwrap()).unwrap();
        for model in models["providers"]["mock-oai"]["models"]
            .as_array_mut()
            .unwrap()
        {
            model["input"] = json!(["text", "image"]);
        }
        std::fs::write(&models_path, models.to_string()).unwrap();
        write_file(&s, "agent/settings.json", &settings.to_string());
        let out = s
            .run(&[
                "-p",
                "--model",
                "mock-oai/mock-gpt",
                "@wide.png",
                "What is it?",
            ])
            .await;
        assert!(out.status.success(), "{}", text(&out.stderr));
        let body = String::from_utf8_lossy(&s.requests()[0].body).into_owned();
        assert!(body.contains("image_url"), "{body}");
        assert_eq!(
            body.contains("[Image: original 2400x10, displayed at 2000x"),
            resized,
            "{body}"
        );
    }
}
