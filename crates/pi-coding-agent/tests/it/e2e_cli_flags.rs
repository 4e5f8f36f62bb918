//! End-to-end: pi 0.73.1's command-line edge cases, checked against its
//! captures in fixtures/pi-0.73.1/cli-* (made by
//! fixtures/capture/settings_scenarios.py): unknown flags, a bad
//! `--thinking`, `-t` / `-nbt`, `--verbose` / `--offline`, `--help`, `-r`
//! without a terminal, `--fork` and `--export`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;

use e2e_common::{Scenario, capture_answer, fixtures, jsonl, text};
use pretty_assertions::assert_eq;
use serde_json::Value;

fn pi_runs(folder: &str) -> Value {
    let path = fixtures().join(folder).join("runs.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn args_of(run: &Value) -> Vec<String> {
    run["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_owned())
        .collect()
}

async fn answering(n: usize) -> Scenario {
    Scenario::start(
        (1..=n)
            .map(|i| capture_answer(&format!("Answer {i}.")))
            .collect(),
    )
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_flags_are_errors_worded_as_pis() {
    let pi = pi_runs("cli-flags");
    for case in [
        "unknown-long",
        "unknown-long-value",
        "unknown-long-eq",
        "unknown-short",
    ] {
        let s = answering(1).await;
        let args = args_of(&pi[case]);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = s.run(&refs).await;
        assert_eq!(
            text(&out.stderr),
            pi[case]["stderr"].as_str().unwrap(),
            "{case}"
        );
        assert_eq!(out.status.code(), Some(1), "{case}");
        assert_eq!(pi[case]["exit_code"], 1);
        assert_eq!(text(&out.stdout), "");
        assert!(s.requests().is_empty(), "{case}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_thinking_level_warns_and_the_run_goes_on() {
    let pi = pi_runs("cli-flags");
    let s = answering(1).await;
    let args = args_of(&pi["bad-thinking"]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = s.run(&refs).await;
    assert_eq!(
        text(&out.stderr),
        pi["bad-thinking"]["stderr"].as_str().unwrap()
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "Answer 1.\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn verbose_and_offline_are_accepted_quietly() {
    let pi = pi_runs("cli-flags");
    let s = answering(1).await;
    let args = args_of(&pi["verbose-offline"]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = s.run(&refs).await;
    assert_eq!(
        text(&out.stderr),
        pi["verbose-offline"]["stderr"].as_str().unwrap()
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "Answer 1.\n");
}

fn tool_names(s: &Scenario) -> Vec<String> {
    let body = s.requests()[0].json();
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn short_tools_and_no_builtin_tools_choose_the_tools() {
    let pi = pi_runs("cli-flags");
    for (case, expected) in [
        ("tools-short", vec!["read", "ls"]),
        ("no-builtin-tools", vec![]),
    ] {
        assert_eq!(pi[case]["exit_code"], 0);
        let s = answering(1).await;
        let args = args_of(&pi[case]);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = s.run(&refs).await;
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(tool_names(&s), expected, "{case}");
    }
    // `-nbt` with `--tools` keeps the named ones.
    let s = answering(1).await;
    let out = s
        .run(&[
            "-nbt",
            "--tools",
            "grep",
            "-p",
            "--model",
            "mock-oai/mock-gpt",
            "Hi",
        ])
        .await;
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(tool_names(&s), ["grep"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn help_lists_the_environment_variables_and_examples() {
    let pi_help = std::fs::read_to_string(fixtures().join("cli-flags/help.txt")).unwrap();
    let s = answering(0).await;
    // Without a terminal, pi prints it on stderr (its stdout belongs to the mode).
    let out = s.command(&["--help"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "");
    let help = text(&out.stderr);
    for needle in [
        "PI_CODING_AGENT_DIR",
        "PI_CODING_AGENT_SESSION_DIR",
        "PI_OFFLINE",
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "--no-builtin-tools",
        "--fork",
        "--export",
        "--models",
        "--verbose",
        "--offline",
    ] {
        assert!(pi_help.contains(needle), "pi's help lacks {needle}");
        assert!(help.contains(needle), "our help lacks {needle}:\n{help}");
    }
    assert!(help.contains("Examples:") && help.contains("Environment variables:"));
}

/// One session made by a first run; returns its file and id.
async fn first_session(s: &Scenario) -> (std::path::PathBuf, String) {
    let out = s
        .run(&["-p", "--model", "mock-oai/mock-gpt", "Remember: pineapple."])
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let file = s.session_files()[0].clone();
    let id = jsonl(&file)[0]["id"].as_str().unwrap().to_owned();
    (file, id)
}

#[tokio::test(flavor = "multi_thread")]
async fn resume_without_a_terminal_runs_nothing_and_takes_no_id() {
    let pi = pi_runs("cli-sessions");
    let s = answering(3).await;
    let (_, id) = first_session(&s).await;
    for case in ["resume-piped", "resume-piped-arg"] {
        assert_eq!(pi[case]["exit_code"], 0);
        assert_eq!(pi[case]["stdout"], "");
        // pi's second case passes an id prefix after -r: it is a message, not an id.
        let args: Vec<String> = args_of(&pi[case])
            .into_iter()
            .map(|a| {
                if a.len() == 8 && a.chars().all(|c| c.is_ascii_hexdigit()) {
                    id[..8].to_owned()
                } else {
                    a
                }
            })
            .collect();
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = s.run(&refs).await;
        assert_eq!(out.status.code(), Some(0), "{case}");
        assert_eq!(text(&out.stdout), "");
        assert_eq!(s.requests().len(), 1, "{case}: no prompt ran");
        assert_eq!(s.session_files().len(), 1);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn fork_copies_a_session_into_a_new_one_as_pi() {
    let pi = pi_runs("cli-sessions");
    let s = answering(2).await;
    let (source, id) = first_session(&s).await;
    let out = s.run(&["--fork", &id[..8], "-p", "Forked?"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "Answer 2.\n");
    let files = s.session_files();
    assert_eq!(files.len(), 2);
    assert_eq!(pi["fork"]["new_files"], 1);
    let forked = files.iter().find(|f| **f != source).unwrap();
    let ours = jsonl(forked);
    let pis = jsonl(&fixtures().join("cli-sessions/forked.jsonl"));
    // The header names the source; the source's entries follow with their ids.
    assert_eq!(ours[0]["parentSession"], source.display().to_string());
    assert!(
        pis[0]["parentSession"]
            .as_str()
            .unwrap()
            .ends_with(".jsonl")
    );
    assert_ne!(ours[0]["id"], id);
    let source_entries = jsonl(&source);
    assert_eq!(&ours[1..source_entries.len()], &source_entries[1..]);
    let shape = |entries: &[Value]| -> Vec<(Value, Value)> {
        entries
            .iter()
            .map(|e| (e["type"].clone(), e["message"]["role"].clone()))
            .collect()
    };
    assert_eq!(shape(&ours), shape(&pis));
    // The prompt went to the model with the copied history.
    assert_eq!(
        s.requests()[1].json()["messages"].as_array().unwrap().len(),
        4
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn fork_refusals_are_pis() {
    let pi = pi_runs("cli-sessions");
    let s = answering(1).await;
    let (_, id) = first_session(&s).await;
    let out = s.run(&["--fork", &id[..8], "-c", "-p", "x"]).await;
    assert_eq!(
        text(&out.stderr),
        pi["fork-conflict"]["stderr"].as_str().unwrap()
    );
    assert_eq!(out.status.code(), Some(1));
    let args = args_of(&pi["fork-missing"]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = s.run(&refs).await;
    assert_eq!(
        text(&out.stderr),
        pi["fork-missing"]["stderr"].as_str().unwrap()
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(s.session_files().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn export_writes_html_and_says_where_as_pi() {
    let pi = pi_runs("cli-sessions");
    let s = answering(1).await;
    let (source, _) = first_session(&s).await;
    let root = s.agent_dir.path();

    let out_path = root.join("out.html");
    let out = s
        .command(&[
            "--export",
            source.to_str().unwrap(),
            out_path.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    // Without a terminal pi prints this on stderr.
    assert_eq!(pi["export"]["stdout"], "");
    assert_eq!(pi["export"]["stderr"], "Exported to: <root>/out.html\n");
    assert_eq!(text(&out.stdout), "");
    assert_eq!(
        text(&out.stderr),
        format!("Exported to: {}\n", out_path.display())
    );
    let html = std::fs::read_to_string(&out_path).unwrap();
    assert!(html.contains("Remember: pineapple.") && html.contains("Answer 1."));

    let out = s
        .command(&["--export", source.to_str().unwrap()])
        .output()
        .unwrap();
    let stem = source.file_stem().unwrap().to_str().unwrap();
    let expected = format!("pi-session-{stem}.html");
    assert!(
        pi["export-default"]["stderr"]
            .as_str()
            .unwrap()
            .starts_with("Exported to: pi-session-")
    );
    assert_eq!(text(&out.stderr), format!("Exported to: {expected}\n"));
    assert!(s.work.path().join(&expected).is_file());

    let missing = root.join("nope.jsonl");
    let out = s
        .command(&["--export", missing.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        pi["export-missing"]["stderr"]
            .as_str()
            .unwrap()
            .replace("<root>/nope.jsonl", &missing.display().to_string())
    );
    assert_eq!(s.requests().len(), 1);
}

/// `pi ARGS` with the repository's extension host (its packages installed
/// by `.ci/setup`): nothing is installed into the user's cache.
async fn run_with_host(s: &e2e_common::Scenario, args: &[&str]) -> std::process::Output {
    let dir = s.sessions_dir();
    let mut full = vec!["--session-dir", dir.to_str().unwrap()];
    full.extend_from_slice(args);
    let mut command = s.command(&full);
    command.env(
        "PI_EXTENSION_HOST_DIR",
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("host"),
    );
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_script_extension_loads_through_the_host_and_one_that_fails_stops_the_run() {
    if pi_test_support::external::node().is_none() {
        return;
    }
    let s = answering(1).await;
    std::fs::write(s.work.path().join("gate.ts"), "export default () => {}").unwrap();
    let out = run_with_host(&s, &["-e", "gate.ts", "-ne", "-p", "Hi"]).await;
    assert_eq!(text(&out.stderr), "");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "Answer 1.\n");
    // As pi 0.73.1: `Error: Failed to load extension "<path>": Failed to
    // load extension: boom`, exit status 1, no request.
    std::fs::write(
        s.work.path().join("bad.ts"),
        "export default function (pi) { throw new Error(\"boom\"); }",
    )
    .unwrap();
    let out = run_with_host(&s, &["-e", "bad.ts", "-ne", "-p", "Hi"]).await;
    assert_eq!(
        text(&out.stderr),
        format!(
            "Error: Failed to load extension \"{}\": Failed to load extension: boom\n",
            s.work.path().join("bad.ts").display()
        )
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(s.requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn without_node_a_script_extension_is_one_warning_and_the_run_goes_on() {
    let s = answering(1).await;
    std::fs::write(s.work.path().join("gate.ts"), "export default () => {}").unwrap();
    let dir = s.sessions_dir();
    let mut command = s.command(&[
        "--session-dir",
        dir.to_str().unwrap(),
        "-e",
        "gate.ts",
        "-ne",
        "-p",
        "Hi",
    ]);
    // No `node` anywhere on PATH.
    command.env("PATH", s.work.path());
    let out = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    assert_eq!(
        text(&out.stderr),
        format!(
            "Warning: Extension {} not loaded: Node.js 20 or newer is needed to run TypeScript extensions (`node` was not found on PATH)\n",
            s.work.path().join("gate.ts").display()
        )
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "Answer 1.\n");
}
