//! Selectors and session navigation end to end, in a pseudo-terminal
//! against the loopback mock: the model selector (Ctrl+L), the session
//! picker (`/resume`, `pi -r`) and the session tree with a branch summary.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;
use crate::pty_common;

use e2e_common::Scenario;
use pi_test_support::mock_server::MockResponse;
use pty_common::{Tui, text_answer};
use serde_json::Value;

fn answer(text: &str) -> MockResponse {
    MockResponse::sse(text_answer(&[text], 10, 3))
}

/// Runs `pi -p <prompt>` (`-c` continues the last session).
async fn print_run(s: &Scenario, prompt: &str, continued: bool) {
    let mut args = vec!["--model", "mock-oai/mock-gpt"];
    if continued {
        args.push("-c");
    }
    args.extend(["-p", prompt]);
    let out = s.run(&args).await;
    assert!(out.status.success(), "{}", e2e_common::text(&out.stderr));
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_l_switches_the_model_for_the_next_request() {
    let s = Scenario::start(vec![answer("Thinking model here.")]).await;
    let mut tui = Tui::start(&s, &[], 90, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.send("\x0c");
    tui.wait_screen(|s| s.contains("Model Name: Mock GPT"), "the model selector");
    tui.send("gpt-think");
    let screen = tui.wait_screen(
        |s| s.contains("→ mock-gpt-think [mock-oai]"),
        "the filtered list",
    );
    assert!(!screen.contains("mock-claude"), "{screen}");
    tui.send("\r");
    tui.wait_screen(|s| s.contains("Model: mock-gpt-think"), "the switch notice");
    tui.submit("Which model are you?");
    tui.wait_all(|s| s.contains("Thinking model here."), "the answer");
    let requests = s.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].json()["model"], "mock-gpt-think");
    let settings: Value = serde_json::from_str(
        &std::fs::read_to_string(s.agent_dir.path().join("settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(settings["defaultModel"], "mock-gpt-think");
    assert_eq!(settings["defaultProvider"], "mock-oai");
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn resume_picks_one_session_of_three_and_shows_its_history() {
    let s = Scenario::start(vec![
        answer("Answer about alpha."),
        answer("Answer about beta."),
        answer("Answer about gamma."),
    ])
    .await;
    for topic in ["alpha", "beta", "gamma"] {
        print_run(&s, &format!("Tell me about {topic}"), false).await;
    }
    assert_eq!(s.session_files().len(), 3);
    let mut tui = Tui::start(&s, &[], 100, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("/resume");
    let screen = tui.wait_screen(
        |s| s.contains("Resume Session (Current Folder)") && s.contains("Tell me about alpha"),
        "the session picker",
    );
    assert!(screen.contains("Tell me about gamma"), "{screen}");
    // Fuzzy tokens match ids and paths too: a phrase picks exactly one.
    tui.send("\"about beta\"");
    tui.wait_screen(
        |s| !s.contains("Tell me about gamma") && s.contains("› Tell me about beta"),
        "the filtered picker",
    );
    tui.send("\r");
    let all = tui.wait_all(
        |a| a.contains("Answer about beta.") && a.contains("Resumed session"),
        "the resumed history",
    );
    assert!(!all.contains("Answer about alpha."), "{all}");
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn pi_r_opens_the_picker_and_escape_leaves() {
    let s = Scenario::start(vec![answer("Only answer.")]).await;
    print_run(&s, "The only session", false).await;
    let mut tui = Tui::start(&s, &["-r"], 100, 30);
    tui.wait_screen(
        |s| s.contains("Resume Session") && s.contains("The only session"),
        "the startup picker",
    );
    tui.send("\x1b");
    assert!(tui.wait_exit().success());
    assert_eq!(s.session_files().len(), 1, "no new session file");
}

#[tokio::test(flavor = "multi_thread")]
async fn tree_to_an_earlier_message_with_a_branch_summary() {
    let s = Scenario::start(vec![
        answer("First answer."),
        answer("Second answer."),
        answer("The user asked a second question."),
    ])
    .await;
    print_run(&s, "first question", false).await;
    print_run(&s, "second question", true).await;
    let mut tui = Tui::start(&s, &["-c"], 100, 40);
    tui.wait_all(|a| a.contains("Second answer."), "the continued session");
    tui.submit("/tree");
    tui.wait_screen(
        |s| s.contains("Session Tree") && s.contains("› • assistant: Second answer."),
        "the tree on the leaf",
    );
    tui.send("\x1b[A");
    tui.wait_screen(
        |s| s.contains("› • user: second question"),
        "the earlier message",
    );
    tui.send("\r");
    tui.wait_screen(|s| s.contains("Summarize branch?"), "the summary question");
    tui.send("\x1b[B");
    tui.wait_screen(
        |s| s.contains("→ Summarize") && !s.contains("→ No summary"),
        "Summarize",
    );
    tui.send("\r");
    let all = tui.wait_all(
        |a| {
            a.contains("Navigated to selected point")
                && a.contains("Branch summary (ctrl+o to expand)")
        },
        "the summary card",
    );
    assert!(all.contains("[branch]"), "{all}");
    // The user message goes back into the editor.
    tui.wait_screen(|s| s.contains("second question"), "the editor text");
    let requests = s.requests();
    assert_eq!(requests.len(), 3);
    let body = requests[2].json().to_string();
    // The branch left behind is what follows the chosen message (pi's
    // common ancestor is the message itself).
    assert!(body.contains("[Assistant]: Second answer."), "{body}");
    assert!(!body.contains("first question"), "{body}");
    assert!(body.contains("summary of this branch"), "{body}");
    // The session file has the branch summary at the first answer.
    let file = &s.session_files()[0];
    let entries = e2e_common::jsonl(file);
    let summary = entries
        .iter()
        .find(|e| e["type"] == "branch_summary")
        .expect("a branch_summary entry");
    let first_answer = entries
        .iter()
        .find(|e| e["message"]["role"] == "assistant")
        .unwrap();
    assert_eq!(summary["parentId"], first_answer["id"]);
    assert!(
        summary["summary"]
            .as_str()
            .unwrap()
            .contains("The user asked a second question."),
        "{summary}"
    );
    tui.send("\x03");
    tui.wait_screen(|s| !s.contains("second question"), "the cleared editor");
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn double_escape_opens_the_tree_and_fork_starts_a_new_session() {
    let s = Scenario::start(vec![answer("First answer."), answer("Second answer.")]).await;
    print_run(&s, "first question", false).await;
    print_run(&s, "second question", true).await;
    let mut tui = Tui::start(&s, &["-c"], 100, 40);
    tui.wait_all(|a| a.contains("Second answer."), "the continued session");
    // Two presses (one read of two Esc bytes is a single Esc for the terminal).
    tui.send("\x1b");
    std::thread::sleep(std::time::Duration::from_millis(120));
    tui.send("\x1b");
    tui.wait_screen(|s| s.contains("Session Tree"), "the tree after double Esc");
    tui.send("\x1b");
    tui.wait_screen(|s| !s.contains("Session Tree"), "the editor back");
    tui.submit("/fork");
    tui.wait_screen(
        |s| s.contains("Fork from Message") && s.contains("› second question"),
        "the fork selector on the last message",
    );
    tui.send("\r");
    tui.wait_all(|a| a.contains("Forked to new session"), "the fork notice");
    assert_eq!(s.session_files().len(), 2, "a new session file");
    tui.send("\x03");
    tui.wait_screen(|s| !s.contains("second question"), "the cleared editor");
    assert!(tui.quit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn import_asks_then_switches_to_the_file() {
    let s = Scenario::start(vec![answer("Imported answer.")]).await;
    print_run(&s, "a question to import", false).await;
    let original = s.session_files().remove(0);
    let outside = s.work.path().join("exported.jsonl");
    std::fs::rename(&original, &outside).unwrap();
    let mut tui = Tui::start(&s, &[], 100, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("/import exported.jsonl");
    tui.wait_screen(
        |s| {
            s.contains("Import session")
                && s.contains("Replace current session with exported.jsonl?")
        },
        "the confirmation",
    );
    tui.send("\r");
    let all = tui.wait_all(
        |a| a.contains("Session imported from: exported.jsonl") && a.contains("Imported answer."),
        "the imported history",
    );
    assert!(all.contains("a question to import"), "{all}");
    assert_eq!(
        s.session_files(),
        vec![s.sessions_dir().join("exported.jsonl")],
        "copied into the session directory"
    );
    assert!(outside.exists(), "the imported file stays");
    assert!(tui.quit().success());
}
