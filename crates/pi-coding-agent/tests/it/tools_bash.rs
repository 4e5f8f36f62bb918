#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The `bash` tool: output, partial updates as pi streams them, exit codes,
//! timeout and cancellation killing the whole process group, and tail
//! truncation with the full output in a temp file.

use crate::tools_common::text;
use std::fs;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pi_agent_core::{AgentTool, AgentToolResult, ToolError, ToolUpdateFn, ignore_updates};
use pi_ai::CancellationToken;
use pi_coding_agent::tools::{BashTool, ShellConfig};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn bash(cwd: &Path) -> BashTool {
    BashTool::with_shell(
        cwd,
        ShellConfig {
            program: "/bin/bash".into(),
            args: vec!["-c".into()],
        },
    )
}

async fn run(tool: &BashTool, command: &str) -> Result<AgentToolResult, ToolError> {
    tool.execute(
        "call_1",
        json!({ "command": command }),
        CancellationToken::new(),
        ignore_updates(),
    )
    .await
}

fn recorder() -> (ToolUpdateFn, Arc<Mutex<Vec<Value>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let update: ToolUpdateFn = Arc::new(move |partial: AgentToolResult| {
        sink.lock()
            .unwrap()
            .push(serde_json::to_value(partial).unwrap());
    });
    (update, seen)
}

/// Whether a process is gone (or a zombie waiting to be reaped).
fn is_dead(pid: &str) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

#[tokio::test]
async fn stdout_and_stderr_are_returned_without_details() {
    let dir = tempfile::tempdir().unwrap();
    let result = run(&bash(dir.path()), "echo out; echo err >&2")
        .await
        .unwrap();
    let output = text(&result);
    assert!(
        output == "out\nerr\n" || output == "err\nout\n",
        "{output:?}"
    );
    assert_eq!(result.details, Value::Null);
}

#[tokio::test]
async fn runs_in_the_working_directory_with_the_updates_pi_sends() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("notes.txt"), "x").unwrap();
    fs::create_dir(dir.path().join("src")).unwrap();
    let (update, seen) = recorder();
    let result = bash(dir.path())
        .execute(
            "c",
            json!({"command": "ls"}),
            CancellationToken::new(),
            update,
        )
        .await
        .unwrap();
    // fixtures/pi-0.73.1/h-json-bash-oai: the same `ls`, the same events.
    assert_eq!(
        serde_json::to_value(&result).unwrap(),
        json!({"content": [{"type": "text", "text": "notes.txt\nsrc\n"}]})
    );
    assert_eq!(
        *seen.lock().unwrap(),
        vec![
            json!({"content": []}),
            json!({"content": [{"type": "text", "text": "notes.txt\nsrc\n"}], "details": {}}),
        ]
    );
}

#[tokio::test]
async fn partial_output_streams_before_the_command_ends() {
    let dir = tempfile::tempdir().unwrap();
    let (update, seen) = recorder();
    let result = bash(dir.path())
        .execute(
            "c",
            json!({"command": "echo one; sleep 0.4; echo two"}),
            CancellationToken::new(),
            update,
        )
        .await
        .unwrap();
    assert_eq!(text(&result), "one\ntwo\n");
    let texts: Vec<Value> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|u| u["content"].clone())
        .collect();
    assert_eq!(
        texts,
        vec![
            json!([]),
            json!([{"type": "text", "text": "one\n"}]),
            json!([{"type": "text", "text": "one\ntwo\n"}]),
        ]
    );
}

#[tokio::test]
async fn exit_codes_and_empty_output() {
    let dir = tempfile::tempdir().unwrap();
    let tool = bash(dir.path());
    let err = run(&tool, "echo oops; exit 3").await.unwrap_err();
    assert_eq!(err.message(), "oops\n\n\nCommand exited with code 3");
    let err = run(&tool, "exit 1").await.unwrap_err();
    assert_eq!(err.message(), "(no output)\n\nCommand exited with code 1");
    let result = run(&tool, "true").await.unwrap();
    assert_eq!(text(&result), "(no output)");
}

#[tokio::test]
async fn timeout_kills_the_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let err = bash(dir.path())
        .execute(
            "c",
            json!({"command": "echo started; sleep 100 & echo $! > bg.pid; wait", "timeout": 0.5}),
            CancellationToken::new(),
            ignore_updates(),
        )
        .await
        .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        err.message(),
        "started\n\n\nCommand timed out after 0.5 seconds"
    );
    let pid = fs::read_to_string(dir.path().join("bg.pid")).unwrap();
    let pid = pid.trim();
    let deadline = Instant::now() + Duration::from_secs(3);
    while !is_dead(pid) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(is_dead(pid), "background sleep {pid} survived the timeout");
}

#[tokio::test]
async fn cancel_aborts_the_command_quickly() {
    let dir = tempfile::tempdir().unwrap();
    let tool = bash(dir.path());
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let err = tool
        .execute(
            "c",
            json!({"command": "echo working; sleep 100"}),
            cancel,
            ignore_updates(),
        )
        .await
        .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(err.message(), "working\n\n\nCommand aborted");
}

/// The `fullOutputPath` of a result's details.
fn full_output_path(result: &pi_agent_core::AgentToolResult) -> String {
    result.details["fullOutputPath"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn the_full_output_log_stops_at_its_bound() {
    let dir = tempfile::tempdir().unwrap();
    let result = run(&bash(dir.path()), "head -c 300000000 /dev/zero; echo end")
        .await
        .unwrap();
    let path = full_output_path(&result);
    let len = fs::metadata(&path).unwrap().len();
    let note = "\n[pi: the log stops here, at 256 MiB; the command's later output is not kept]\n";
    assert_eq!(len, (256 << 20) + note.len() as u64);
    fs::remove_file(&path).unwrap();
}

#[tokio::test]
async fn long_output_keeps_the_tail_and_saves_everything() {
    let dir = tempfile::tempdir().unwrap();
    let result = run(&bash(dir.path()), "seq 1 5000").await.unwrap();
    let path = full_output_path(&result);
    let name = Path::new(&path).file_name().unwrap().to_str().unwrap();
    assert!(
        name.len() == "pi-bash-.log".len() + 16
            && name.starts_with("pi-bash-")
            && name.ends_with(".log")
            && name[8..24].chars().all(|c| c.is_ascii_hexdigit()),
        "{name}"
    );
    let full: String = (1..=5000).map(|i| format!("{i}\n")).collect();
    assert_eq!(fs::read_to_string(&path).unwrap(), full);
    // Private: a command's output may hold secrets (it was 0644).
    let mode = std::os::unix::fs::PermissionsExt::mode(&fs::metadata(&path).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600);

    // pi counts lines with split("\n"): 5000 lines plus the empty one after
    // the final newline; the last 2000 of those are kept.
    let kept: String = (3002..=5000).map(|i| format!("{i}\n")).collect();
    assert_eq!(
        text(&result),
        format!("{kept}\n\n[Showing lines 3002-5001 of 5001. Full output: {path}]")
    );
    let truncation = &result.details["truncation"];
    assert_eq!(truncation["truncatedBy"], "lines");
    assert_eq!(truncation["totalLines"], 5001);
    assert_eq!(truncation["outputLines"], 2000);
    fs::remove_file(path).unwrap();
}

#[tokio::test]
async fn an_overlong_last_line_keeps_its_end() {
    let dir = tempfile::tempdir().unwrap();
    let result = run(&bash(dir.path()), "head -c 100000 /dev/zero | tr '\\0' a")
        .await
        .unwrap();
    let path = full_output_path(&result);
    assert_eq!(
        text(&result),
        format!(
            "{}\n\n[Showing last 50.0KB of line 1 (line is 97.7KB). Full output: {path}]",
            "a".repeat(51_200)
        )
    );
    assert_eq!(result.details["truncation"]["lastLinePartial"], true);
    assert_eq!(fs::read(&path).unwrap().len(), 100_000);
    fs::remove_file(path).unwrap();
}

#[tokio::test]
async fn very_long_output_is_bounded_in_memory_and_complete_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    // About 2.9 MB, far past the in-memory tail.
    let result = run(&bash(dir.path()), "seq 1 400000").await.unwrap();
    let path = full_output_path(&result);
    let kept: String = (398_002..=400_000).map(|i| format!("{i}\n")).collect();
    assert_eq!(
        text(&result),
        format!("{kept}\n\n[Showing lines 398002-400001 of 400001. Full output: {path}]")
    );
    let full = fs::read_to_string(&path).unwrap();
    assert_eq!(full.lines().count(), 400_000);
    assert!(full.ends_with("399999\n400000\n"));
    fs::remove_file(path).unwrap();
}

#[tokio::test]
async fn a_missing_working_directory_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let gone = dir.path().join("gone");
    let err = run(&bash(&gone), "true").await.unwrap_err();
    assert_eq!(
        err.message(),
        format!(
            "Working directory does not exist: {}\nCannot execute bash commands.",
            gone.display()
        )
    );
}

#[test]
fn detected_shell_runs_with_dash_c() {
    let shell = ShellConfig::detect();
    assert_eq!(shell.args, vec!["-c".to_owned()]);
    let name = shell
        .program
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    assert!(["bash", "zsh", "sh"].contains(&name.as_str()), "{name}");
}

#[tokio::test]
async fn settings_shell_path_and_command_prefix_apply_as_in_pi() {
    let dir = tempfile::tempdir().unwrap();
    // shellPath names the shell; shellCommandPrefix runs first, on its own line.
    let tool = BashTool::with_settings(
        dir.path(),
        Some("/bin/sh"),
        Some("export GREETING=prefixed".to_owned()),
    );
    let result = run(&tool, "echo \"$GREETING $0\"").await.unwrap();
    assert_eq!(text(&result), "prefixed /bin/sh\n");

    // pi's error for a shellPath that does not exist, on every call.
    let tool = BashTool::with_settings(dir.path(), Some("/nonexistent/shell"), None);
    let err = run(&tool, "true").await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "Custom shell path not found: /nonexistent/shell"
    );

    // Without settings the detected shell runs the command as given.
    let tool = BashTool::with_settings(dir.path(), None, None);
    let result = run(&tool, "echo plain").await.unwrap();
    assert_eq!(text(&result), "plain\n");
}
