//! Skills, prompt templates, SYSTEM.md / APPEND_SYSTEM.md and context files
//! against pi 0.73.1: every scenario of `fixtures/resources/scenarios.json`
//! is built in a scratch root and run through the real binary (print mode
//! and rpc `get_commands`) and through [`Resources::load`]; the request
//! bodies, the command listing, the loaded resources and their diagnostics
//! must equal pi's captures (`fixtures/capture/resources_scenarios.py`).
//! Only our own system prompt text before pi's tail (appended texts,
//! context files, skills block, date, cwd) and the YAML parser's error
//! wording differ (docs/payload-differences.md, "The app").

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;

use std::path::{Path, PathBuf};
use std::process::Stdio;

use clap::Parser;
use e2e_common::{capture_answer, jsonl};
use pi_coding_agent::cli::{Args, expand_short_flags};
use pi_coding_agent::resources::{ResourceOptions, Resources};
use pi_test_support::mock_server::MockServer;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// pi's local time zone in the captures: UTC+14.
const TZ: &str = "Etc/GMT-14";
/// The last line of pi's built-in prompt before its tail.
const PI_BASE_END: &str = "(e.g., tui.md for TUI API details)";
/// The last line of ours.
/// Our built-in text ends, as pi's does, with where the documentation is.
const OUR_BASE_END: &str =
    "- Read the whole relevant file before answering and follow its links to related files";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn scenarios() -> Vec<Value> {
    let text = std::fs::read_to_string(fixtures().join("resources/scenarios.json")).unwrap();
    let spec: Value = serde_json::from_str(&text).unwrap();
    spec["scenarios"].as_array().unwrap().clone()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A scenario's tree: `<root>/agent`, `<root>/home`, `<root>/work`, ...
struct Tree {
    root: tempfile::TempDir,
    cwd: PathBuf,
}

impl Tree {
    fn build(scenario: &Value, models_url: &str) -> Self {
        let root = tempfile::tempdir().unwrap();
        for sub in ["agent", "home", "work"] {
            std::fs::create_dir_all(root.path().join(sub)).unwrap();
        }
        let models = std::fs::read_to_string(fixtures().join("pi-0.73.1/models.json")).unwrap();
        std::fs::write(
            root.path().join("agent/models.json"),
            models.replace("http://127.0.0.1:18777", models_url),
        )
        .unwrap();
        for (dest, src) in scenario["copies"].as_object().unwrap() {
            copy_dir(
                &fixtures().join(src.as_str().unwrap()),
                &root.path().join(dest),
            );
        }
        for (rel, text) in scenario["files"].as_object().unwrap() {
            let path = root.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text.as_str().unwrap()).unwrap();
        }
        let cwd = root.path().join(scenario["cwd"].as_str().unwrap_or("work"));
        std::fs::create_dir_all(&cwd).unwrap();
        Self { root, cwd }
    }

    fn root_text(&self) -> String {
        self.root.path().to_string_lossy().into_owned()
    }

    fn args(&self, scenario: &Value) -> Vec<String> {
        scenario["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().replace("<root>", &self.root_text()))
            .collect()
    }

    /// pi's capture `name` of this scenario, with `<root>` put back.
    fn pi(&self, scenario: &Value, name: &str) -> String {
        let path = fixtures()
            .join("resources")
            .join(scenario["name"].as_str().unwrap())
            .join(name);
        std::fs::read_to_string(&path)
            .unwrap()
            .replace("<root>", &self.root_text())
    }

    fn command(&self, args: &[String]) -> std::process::Command {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_pi"));
        command
            .args(["--no-session", "--model", "mock-oai/mock-gpt"])
            .args(args)
            .current_dir(&self.cwd)
            .env("PI_CODING_AGENT_DIR", self.root.path().join("agent"))
            .env("HOME", self.root.path().join("home"))
            .env("TZ", TZ)
            .env_remove("OPENAI_API_KEY")
            .env_remove("ANTHROPIC_API_KEY");
        command
    }
}

/// The assistant answers pi got, read back from its next requests.
fn pi_answers(requests: &[Value]) -> Vec<String> {
    let mut answers: Vec<String> = requests
        .iter()
        .skip(1)
        .map(|r| {
            let messages = r["messages"].as_array().unwrap();
            messages
                .iter()
                .rev()
                .find(|m| m["role"] == "assistant")
                .map(|m| m["content"].as_str().unwrap().to_owned())
                .unwrap()
        })
        .collect();
    answers.push("Last answer.".into());
    answers
}

fn blank_date(prompt: &str) -> String {
    let re = regex::Regex::new(r"\nCurrent date: \d{4}-\d{2}-\d{2}\n").unwrap();
    re.replace(prompt, "\nCurrent date: <date>\n").into_owned()
}

/// pi's system prompt after its built-in text (all of it for a custom one).
fn pi_tail(prompt: &str) -> &str {
    prompt
        .find(PI_BASE_END)
        .map_or(prompt, |i| &prompt[i + PI_BASE_END.len()..])
}

fn assert_same_system_prompt(ours: &str, pis: &str, name: &str) {
    let (ours, pis) = (blank_date(ours), blank_date(pis));
    let tail = pi_tail(&pis);
    if tail.len() == pis.len() {
        assert_eq!(ours, pis, "{name}: custom system prompt");
        return;
    }
    assert!(
        ours.ends_with(tail),
        "{name}: our prompt must end with pi's tail\n--- ours:\n{ours}\n--- pi's tail:\n{tail}"
    );
    assert!(
        ours[..ours.len() - tail.len()].ends_with(OUR_BASE_END),
        "{name}: pi's tail must follow our built-in text:\n{ours}"
    );
}

/// Print mode: the system prompt and every message sent equal pi's.
async fn check_requests(scenario: &Value) {
    let name = scenario["name"].as_str().unwrap();
    let probe = Tree::build(scenario, "http://unused");
    let pis: Vec<Value> = probe
        .pi(scenario, "requests.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let server = MockServer::start(pi_answers(&pis).iter().map(|a| capture_answer(a)))
        .await
        .unwrap();
    let tree = Tree::build(scenario, &server.url());
    // The same paths as pi's capture, with this tree's root.
    let pis: Vec<Value> = tree
        .pi(scenario, "requests.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut args = vec!["-p".to_owned()];
    args.extend(tree.args(scenario));
    args.extend(
        scenario["prompts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap().to_owned()),
    );
    let mut command = tree.command(&args);
    command.stdin(Stdio::null());
    let out = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours: Vec<Value> = server.requests().iter().map(|r| r.json()).collect();
    assert_eq!(ours.len(), pis.len(), "{name}: number of requests");
    for (i, (ours, pis)) in ours.iter().zip(&pis).enumerate() {
        assert_same_system_prompt(
            ours["messages"][0]["content"].as_str().unwrap(),
            pis["messages"][0]["content"].as_str().unwrap(),
            &format!("{name} request {i}"),
        );
        assert_eq!(
            ours["messages"].as_array().unwrap()[1..],
            pis["messages"].as_array().unwrap()[1..],
            "{name} request {i}: messages"
        );
    }
}

/// rpc `get_commands` answers as pi's.
async fn check_commands(scenario: &Value) {
    let name = scenario["name"].as_str().unwrap();
    let tree = Tree::build(scenario, "http://127.0.0.1:9");
    let mut args = vec!["--mode".to_owned(), "rpc".to_owned()];
    args.extend(tree.args(scenario));
    let mut command = tree.command(&args);
    command.stdin(Stdio::piped()).stdout(Stdio::piped());
    let out = tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut child = command.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"{\"id\":\"c1\",\"type\":\"get_commands\"}\n")
            .unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    let ours: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let pis: Value = serde_json::from_str(&tree.pi(scenario, "commands.json")).unwrap();
    assert_eq!(Value::Array(ours), pis, "{name}: get_commands");
}

/// YAML parser messages are the parser's own (see docs/payload-differences.md).
fn blank_yaml_errors(diagnostics: &mut Value) {
    for d in diagnostics.as_array_mut().unwrap() {
        let path = d["path"].as_str().unwrap_or_default();
        if path.ends_with("invalid-yaml/SKILL.md") {
            d["message"] = json!("<yaml error>");
        }
    }
}

/// What the loader finds equals what pi's loader found.
fn check_loaded(scenario: &Value) {
    let name = scenario["name"].as_str().unwrap();
    let tree = Tree::build(scenario, "http://127.0.0.1:9");
    let mut argv = vec!["pi".to_owned()];
    argv.extend(tree.args(scenario));
    let args = Args::try_parse_from(expand_short_flags(argv.iter().map(Into::into))).unwrap();
    let resources = Resources::load(&ResourceOptions {
        cwd: tree.cwd.clone(),
        agent_dir: tree.root.path().join("agent"),
        home: tree.root.path().join("home"),
        skill_paths: args.skills,
        prompt_template_paths: args.prompt_templates,
        no_skills: args.no_skills,
        no_prompt_templates: args.no_prompt_templates,
        no_context_files: args.no_context_files,
        system_prompt: args.system_prompt,
        append_system_prompt: args.append_system_prompt,
        packages: Default::default(),
    });
    let mut pis: Value = serde_json::from_str(&tree.pi(scenario, "resources.json")).unwrap();
    blank_yaml_errors(&mut pis["skillDiagnostics"]);
    let mut skill_diagnostics = serde_json::to_value(&resources.skills.diagnostics).unwrap();
    blank_yaml_errors(&mut skill_diagnostics);
    let context: Vec<Value> = resources
        .context_files
        .iter()
        .map(|f| json!({"path": f.path, "content": f.content}))
        .collect();
    let ours = json!({
        "skills": resources.skills.skills,
        "skillDiagnostics": skill_diagnostics,
        "prompts": resources.templates.templates,
        "promptDiagnostics": resources.templates.diagnostics,
        "systemPrompt": resources.system_prompt,
        "appendSystemPrompt": resources.append_system_prompt,
        "contextFiles": context,
    });
    assert_eq!(ours, pis, "{name}: loaded resources");
}

#[test]
fn loaded_resources_and_diagnostics_match_pi() {
    for scenario in scenarios() {
        check_loaded(&scenario);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn requests_match_pi() {
    for scenario in scenarios() {
        check_requests(&scenario).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn get_commands_matches_pi() {
    for scenario in scenarios() {
        check_commands(&scenario).await;
    }
}

/// The date is the local one (TZ), not UTC's.
#[tokio::test(flavor = "multi_thread")]
async fn the_date_is_local() {
    let server = MockServer::start(vec![capture_answer("ok")]).await.unwrap();
    let scenario = json!({"name": "date", "copies": {}, "files": {}, "args": []});
    let tree = Tree::build(&scenario, &server.url());
    let expected = (chrono::Utc::now() + chrono::Duration::hours(14))
        .format("%Y-%m-%d")
        .to_string();
    let mut command = tree.command(&["-p".to_owned(), "hi".to_owned()]);
    command.stdin(Stdio::null());
    let out = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let body = server.requests()[0].json();
    let prompt = body["messages"][0]["content"].as_str().unwrap();
    assert!(
        prompt.contains(&format!("\nCurrent date: {expected}\n")),
        "{prompt}"
    );
}

#[test]
fn captures_cover_every_scenario() {
    for scenario in scenarios() {
        let dir = fixtures()
            .join("resources")
            .join(scenario["name"].as_str().unwrap());
        for file in ["requests.jsonl", "commands.json", "resources.json"] {
            assert!(dir.join(file).is_file(), "{}", dir.join(file).display());
        }
        assert!(!jsonl(&dir.join("requests.jsonl")).is_empty());
    }
}

/// The scenario named `name`, and pi's expansion of each of its prompts
/// (the text of the last user message of each captured request).
fn scenario_and_expansions(name: &str) -> (Value, Vec<(String, String)>) {
    let scenario = scenarios().into_iter().find(|s| s["name"] == name).unwrap();
    let requests = jsonl(
        &fixtures()
            .join("resources")
            .join(name)
            .join("requests.jsonl"),
    );
    let pairs = scenario["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .zip(&requests)
        .map(|(prompt, request)| {
            let last = request["messages"].as_array().unwrap().last().unwrap();
            (
                prompt.as_str().unwrap().to_owned(),
                last["content"][0]["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    (scenario, pairs)
}

fn last_user_text(body: &Value) -> String {
    let messages = body["messages"].as_array().unwrap();
    let last = messages.iter().rev().find(|m| m["role"] == "user").unwrap();
    last["content"][0]["text"].as_str().unwrap().to_owned()
}

/// JSON mode expands skills and templates as print mode does.
#[tokio::test(flavor = "multi_thread")]
async fn json_mode_expands_input() {
    let (scenario, pairs) = scenario_and_expansions("prompts");
    let server = MockServer::start((0..3).map(|_| capture_answer("ok")))
        .await
        .unwrap();
    let tree = Tree::build(&scenario, &server.url());
    let mut args = vec!["--mode".to_owned(), "json".to_owned()];
    args.extend(tree.args(&scenario));
    args.extend(pairs[..3].iter().map(|(prompt, _)| prompt.clone()));
    let mut command = tree.command(&args);
    command.stdin(Stdio::null());
    let out = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let sent: Vec<String> = server
        .requests()
        .iter()
        .map(|r| last_user_text(&r.json()))
        .collect();
    let expected: Vec<String> = pairs[..3]
        .iter()
        .map(|(_, expanded)| expanded.replace("<root>", &tree.root_text()))
        .collect();
    assert_eq!(sent, expected);
}

/// rpc `prompt` and `follow_up` expand skills and templates.
#[tokio::test(flavor = "multi_thread")]
async fn rpc_mode_expands_prompts_and_follow_ups() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (scenario, pairs) = scenario_and_expansions("skills-discovery");
    let server = MockServer::start((0..3).map(|_| capture_answer("ok")))
        .await
        .unwrap();
    let tree = Tree::build(&scenario, &server.url());
    let mut args = vec!["--mode".to_owned(), "rpc".to_owned()];
    args.extend(tree.args(&scenario));
    let mut command = tokio::process::Command::from(tree.command(&args));
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true);
    let mut child = command.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // A follow-up sent while idle waits for the next run, then runs after it.
    for (kind, text) in [("follow_up", &pairs[4].0), ("prompt", &pairs[0].0)] {
        let line = json!({"type": kind, "message": text}).to_string();
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
    }
    stdin.flush().await.unwrap();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut ends = 0;
    while ends < 1 {
        let line = tokio::time::timeout_at(deadline, lines.next_line())
            .await
            .expect("timed out")
            .unwrap()
            .expect("pi exited");
        let value: Value = serde_json::from_str(&line).unwrap();
        if value["type"] == "agent_end" {
            ends += 1;
        }
    }
    drop(stdin);
    let sent: Vec<String> = server
        .requests()
        .iter()
        .map(|r| last_user_text(&r.json()))
        .collect();
    let root = tree.root_text();
    assert_eq!(
        sent,
        [
            pairs[0].1.replace("<root>", &root),
            pairs[4].1.replace("<root>", &root)
        ]
    );
}
