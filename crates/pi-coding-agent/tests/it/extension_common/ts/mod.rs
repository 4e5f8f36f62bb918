//! pi's TypeScript example extensions run through the extension host, in
//! rpc mode in process, and the comparison of what pi-rs did with pi
//! 0.73.1's captures (`fixtures/pi-0.73.1/extensions/examples/<name>/`),
//! the run's volatile values (paths, session file names, dialog ids)
//! rewritten as the capture scripts rewrote pi's.

use std::path::{Path, PathBuf};

use pi_coding_agent::extensions::ExtensionSet;
use pi_coding_agent::extensions::host::{self, HostHandle, HostOptions};
use pi_coding_agent::extensions::loader::{DiscoveryOptions, discover};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use pi_coding_agent::app::{SessionChoice, StartOptions, build_app};

use super::{InProcessRpc, ui_response};
use crate::e2e_common::Scenario;

mod compare;
pub use compare::*;

/// Where pi's package was installed when the captures were made.
pub const NEUTRAL_PKG: &str = "/usr/lib/node_modules/@mariozechner/pi-coding-agent";

/// pi's example `name` (a `.ts` file or a folder under
/// `examples/extensions/`); `None` (after saying why) without pi's package.
pub fn example_path(name: &str) -> Option<PathBuf> {
    let package = pi_test_support::external::pi_package()?;
    let dir = package.join("examples/extensions");
    let file = dir.join(format!("{name}.ts"));
    Some(if file.is_file() { file } else { dir.join(name) })
}

/// Our own capture extensions (`fixtures/capture/extensions/`).
pub fn capture_extension(file: &str) -> PathBuf {
    crate::e2e_common::fixtures()
        .join("../capture/extensions")
        .join(file)
}

/// How a hosted run starts (the capture's command line).
pub struct Run<'a> {
    /// `settings.json` of the agent dir.
    pub settings: Option<&'a Value>,
    /// `--model`.
    pub model: &'a str,
    /// Values of extension flags given on the command line (`--preset fast`).
    pub flags: Vec<(String, Value)>,
    /// The `pi` extensions start (`None`: the test binary itself).
    pub pi_executable: Option<PathBuf>,
}

impl Default for Run<'_> {
    fn default() -> Self {
        Self {
            settings: None,
            model: "mock-oai/mock-gpt",
            flags: Vec::new(),
            pi_executable: None,
        }
    }
}

/// rpc mode on an app with the script extensions `paths` (as `-e` names
/// them: files, or folders loaded through their entry), through the host,
/// as pi-rs's command line starts them.
pub async fn start(
    scenario: &Scenario,
    paths: &[PathBuf],
    run: Run<'_>,
) -> (InProcessRpc, Vec<HostHandle>) {
    if let Some(settings) = run.settings {
        std::fs::write(
            scenario.agent_dir.path().join("settings.json"),
            settings.to_string(),
        )
        .unwrap();
    }
    let named: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let found = discover(&DiscoveryOptions {
        cwd: scenario.work.path().to_path_buf(),
        agent_dir: scenario.agent_dir.path().to_path_buf(),
        explicit: named.clone(),
        configured: Vec::new(),
        no_extensions: false,
    });
    assert_eq!(found.missing, Vec::<String>::new());
    let started = host::start(
        &found.files,
        HostOptions {
            cwd: scenario.work.path().to_path_buf(),
            agent_dir: scenario.agent_dir.path().to_path_buf(),
            mode: "rpc".into(),
            output_to_terminal: false,
            pi_executable: run.pi_executable,
        },
    )
    .await;
    assert_eq!(started.warnings, Vec::<String>::new());
    assert_eq!(started.errors, Vec::<String>::new());
    assert_eq!(started.extensions.len(), found.files.len());
    let app = build_app(StartOptions {
        cwd: scenario.work.path().to_path_buf(),
        model: Some(run.model.to_owned()),
        session: SessionChoice::New,
        session_dir: Some(scenario.sessions_dir()),
        agent_dir: Some(scenario.agent_dir.path().to_path_buf()),
        extensions: ExtensionSet(started.extensions),
        extension_paths: named,
        extension_flags: run.flags,
        hosted_scripts: found.files,
        ..StartOptions::default()
    })
    .unwrap();
    (InProcessRpc::start(app), started.handles)
}

/// What a run sent and wrote.
pub struct Ran {
    /// Every rpc output line.
    pub lines: Vec<Value>,
    /// Every line sent to rpc mode.
    pub sent: Vec<Value>,
}

/// Closes rpc mode and stops the hosts.
pub async fn stop(rpc: InProcessRpc, hosts: Vec<HostHandle>) -> Ran {
    let sent = rpc.sent.clone();
    let lines = rpc.close().await;
    for host in hosts {
        host.stop().await;
    }
    Ran { lines, sent }
}

/// A scenario as the capture's: the mock, an agent dir with pi's
/// models.json, an empty workspace.
pub async fn scenario() -> Scenario {
    let scenario = Scenario::start(Vec::new()).await;
    std::fs::remove_file(scenario.work.path().join("notes.txt")).unwrap();
    std::fs::remove_dir_all(scenario.work.path().join("src")).unwrap();
    scenario
}

/// What every example's test checks: the order of the rpc lines, the
/// lines of `kinds`, the requests and the session files are pi's.
pub fn check(scenario: &Scenario, name: &str, ran: &Ran, kinds: &[&str]) -> Neutral {
    let neutral = Neutral::new(scenario, &[&ran.lines, &ran.sent]);
    check_with(scenario, name, ran, kinds, &neutral);
    neutral
}

/// [`check`] with a rewriting of its own.
pub fn check_with(scenario: &Scenario, name: &str, ran: &Ran, kinds: &[&str], neutral: &Neutral) {
    assert_sequence(&ran.lines, name);
    assert_kinds(&ran.lines, name, neutral, kinds);
    assert_requests(scenario, name, neutral);
    assert_sessions(scenario, name, neutral);
}

/// Answers the dialogs (select, confirm, input, editor) in order with
/// `answers` (`{"value": ...}`, `{"confirmed": ...}`, `{"cancelled": true}`;
/// `null` leaves that one unanswered), as pi's driver did.
pub fn answers(answers: Vec<Value>) -> impl FnMut(&Value) -> Option<Value> {
    let mut answers = answers.into_iter();
    move |line| {
        let dialog = line["type"] == "extension_ui_request"
            && ["select", "confirm", "input", "editor"].contains(&line["method"].as_str()?);
        if !dialog {
            return None;
        }
        let answer = answers.next().expect("a dialog nobody expected");
        (!answer.is_null()).then(|| ui_response(line, answer))
    }
}

/// Reads lines until a run ended and no other started for 800 ms (pi's
/// driver's `wait_idle`); `on_line` sees every line and may answer it with
/// lines to send as they are (commands with their ids, dialog answers).
pub async fn wait_idle(rpc: &mut InProcessRpc, mut on_line: impl FnMut(&Value) -> Vec<Value>) {
    let mut ended = false;
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        assert!(tokio::time::Instant::now() < deadline, "no idle after 60 s");
        let line = if ended {
            match rpc.line_within(800).await {
                Some(line) => line,
                None => return,
            }
        } else {
            rpc.next_line().await
        };
        match line["type"].as_str() {
            Some("agent_start") => ended = false,
            Some("agent_end") => ended = true,
            _ => {}
        }
        for reply in on_line(&line) {
            rpc.send_raw(reply).await;
        }
    }
}

/// `git ARGS` in `dir` with the capture's fixed identity and dates (so
/// commit hashes are pi's); its output.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let output = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "Pi Capture")
        .env("GIT_AUTHOR_EMAIL", "capture@example.invalid")
        .env("GIT_COMMITTER_NAME", "Pi Capture")
        .env("GIT_COMMITTER_EMAIL", "capture@example.invalid")
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(output.status.success(), "git {args:?}: {output:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// Makes `dir` a git repository on `main` with `files` committed; the
/// repository's own config has the capture's identity (for commits that
/// pi-rs's tools make).
pub fn git_repo(dir: &Path, files: &[(&str, &str)]) {
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.name", "Pi Capture"]);
    git(dir, &["config", "user.email", "capture@example.invalid"]);
    for (name, content) in files {
        write(&dir.join(name), content);
    }
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "initial"]);
}

/// Writes `content` to `path`, making its folders.
pub fn write(path: &Path, content: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

/// Runs `/command args` answering its dialogs with `answers` (see
/// [`answers`]); its response.
pub async fn command_answering(rpc: &mut InProcessRpc, text: &str, replies: Vec<Value>) -> Value {
    let response = rpc
        .call_answering(json!({"type": "prompt", "message": text}), answers(replies))
        .await;
    assert_eq!(response["success"], true, "{response}");
    response
}

/// The `data` of a response line.
pub fn data(response: &Value) -> &Value {
    assert_eq!(response["success"], true, "{response}");
    &response["data"]
}

/// `get_fork_messages`' entry ids.
pub async fn fork_ids(rpc: &mut InProcessRpc) -> Vec<String> {
    let response = rpc.call(json!({"type": "get_fork_messages"})).await;
    data(&response)["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["entryId"].as_str().unwrap().to_owned())
        .collect()
}
