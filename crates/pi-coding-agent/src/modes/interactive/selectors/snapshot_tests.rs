//! Snapshots of every selector's states: initial, filtered, empty, long
//! lists (scrolled) and narrow terminals.

use std::sync::{Arc, Mutex};

use pi_tui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pi_tui::text::visible_width;
use pi_tui::theme::{ColorMode, Theme};
use serde_json::json;

use super::choice::{Choice, TextPrompt};
use super::fork::ForkSelector;
use super::model::ModelSelector;
use super::scoped::ScopedModels;
use super::tree::TreeSelector;
use super::tree_rows::{Filter, build_items};
use super::{Action, Outcome, SlotComponent};
use crate::modes::interactive::action::{ChoiceKind, TextKind};
use crate::session::SessionEntry;

fn theme() -> Arc<Theme> {
    Arc::new(Theme::dark(ColorMode::NoColor))
}

fn model(provider: &str, id: &str) -> pi_ai::Model {
    serde_json::from_value(json!({
        "id": id, "name": format!("Model {id}"), "api": "openai-completions",
        "provider": provider, "baseUrl": "", "contextWindow": 1000, "maxTokens": 100,
    }))
    .unwrap()
}

fn models() -> Vec<pi_ai::Model> {
    vec![
        model("zeta", "z-large"),
        model("openai", "gpt-4o"),
        model("openai", "gpt-4o-mini"),
        model("anthropic", "claude-sonnet"),
        model("anthropic", "claude-haiku"),
    ]
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn typed(s: &mut dyn SlotComponent<Action>, text: &str) {
    for c in text.chars() {
        s.handle_key(&key(KeyCode::Char(c)));
    }
}

fn screen(s: &mut dyn SlotComponent<Action>, width: usize, rows: usize) -> String {
    let lines = s.render(width, rows);
    for line in &lines {
        assert!(visible_width(line) <= width, "{line:?} wider than {width}");
    }
    lines.join("\n")
}

#[test]
fn model_selector_states() {
    let current = model("openai", "gpt-4o");
    let mut s = ModelSelector::new(theme(), &current, models(), Vec::new(), None);
    insta::assert_snapshot!("model_initial", screen(&mut s, 80, 24));
    typed(&mut s, "claude");
    insta::assert_snapshot!("model_filtered", screen(&mut s, 80, 24));
    typed(&mut s, "qqq");
    insta::assert_snapshot!("model_no_match", screen(&mut s, 80, 24));
    assert!(matches!(s.handle_key(&key(KeyCode::Enter)), Outcome::Stay));
    let scoped = vec![model("anthropic", "claude-haiku"), current.clone()];
    let mut s = ModelSelector::new(theme(), &current, models(), scoped, None);
    insta::assert_snapshot!("model_scoped", screen(&mut s, 80, 24));
    s.handle_key(&key(KeyCode::Tab));
    s.handle_key(&key(KeyCode::Down));
    let Outcome::Done(Action::Model(chosen)) = s.handle_key(&key(KeyCode::Enter)) else {
        panic!("a model")
    };
    // All models: the current one first, then by provider.
    assert_eq!(chosen.id, "claude-sonnet");
    let many: Vec<pi_ai::Model> = (0..40)
        .map(|i| model("bulk", &format!("model-{i:02}")))
        .collect();
    let mut s = ModelSelector::new(theme(), &many[20], many.clone(), Vec::new(), Some("model"));
    insta::assert_snapshot!("model_long", screen(&mut s, 80, 24));
    insta::assert_snapshot!("model_narrow", screen(&mut s, 24, 24));
}

fn entry(value: serde_json::Value) -> SessionEntry {
    serde_json::from_value(value).unwrap()
}

fn session_entries() -> Vec<SessionEntry> {
    let usage = json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}});
    let assistant = |id: &str, parent: &str, content: serde_json::Value, stop: &str| {
        entry(
            json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:01Z",
            "message": {"role": "assistant", "content": content, "api": "openai-completions",
                "provider": "p", "model": "m", "usage": usage, "stopReason": stop, "timestamp": 2}}),
        )
    };
    let user = |id: &str, parent: Option<&str>, text: &str| {
        entry(
            json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:00Z",
            "message": {"role": "user", "content": text, "timestamp": 1}}),
        )
    };
    vec![
        entry(
            json!({"type": "model_change", "id": "m0", "parentId": null, "timestamp": "2026-01-01T00:00:00Z",
            "provider": "p", "modelId": "m"}),
        ),
        user("u1", Some("m0"), "List the files\nin src"),
        assistant(
            "a1",
            "u1",
            json!([{"type": "toolCall", "id": "c1", "name": "bash",
            "arguments": {"command": "ls src"}}]),
            "toolUse",
        ),
        entry(
            json!({"type": "message", "id": "r1", "parentId": "a1", "timestamp": "2026-01-01T00:00:02Z",
            "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
                "content": [{"type": "text", "text": "main.rs"}], "isError": false, "timestamp": 3}}),
        ),
        assistant(
            "a2",
            "r1",
            json!([{"type": "text", "text": "There is main.rs."}]),
            "stop",
        ),
        user("u2", Some("a2"), "Explain main.rs"),
        assistant("a3", "u2", json!([]), "aborted"),
        user("u3", Some("a2"), "Delete main.rs"),
        assistant(
            "a4",
            "u3",
            json!([{"type": "text", "text": "Deleted."}]),
            "stop",
        ),
        entry(
            json!({"type": "branch_summary", "id": "b1", "parentId": "a4", "timestamp": "2026-01-01T00:00:05Z",
            "fromId": "a4", "summary": "The user tried\ndeleting files."}),
        ),
        entry(
            json!({"type": "compaction", "id": "c9", "parentId": "b1", "timestamp": "2026-01-01T00:00:06Z",
            "summary": "s", "firstKeptEntryId": "u3", "tokensBefore": 45600}),
        ),
        entry(
            json!({"type": "label", "id": "l1", "parentId": "c9", "timestamp": "2026-01-01T00:00:07Z",
            "targetId": "u2", "label": "explain"}),
        ),
    ]
}

/// Labels saved by the tree: (entry id, label).
type SavedLabels = Arc<Mutex<Vec<(String, Option<String>)>>>;

fn tree(selected: Option<&str>) -> (TreeSelector, SavedLabels) {
    let entries = session_entries();
    let refs: Vec<&SessionEntry> = entries.iter().collect();
    let labels = |id: &str| (id == "u2").then(|| "explain".to_owned());
    let items = build_items(&refs, &labels, None);
    let saved = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&saved);
    let labeler = Box::new(move |id: &str, label: Option<&str>| {
        log.lock()
            .unwrap()
            .push((id.to_owned(), label.map(str::to_owned)));
        Ok(())
    });
    let tree = TreeSelector::new(
        theme(),
        items,
        Some("l1"),
        selected,
        Filter::Default,
        labeler,
    );
    (tree, saved)
}

#[test]
fn tree_selector_states() {
    let (mut t, saved) = tree(None);
    insta::assert_snapshot!("tree_default", screen(&mut t, 100, 30));
    t.handle_key(&ctrl('a'));
    insta::assert_snapshot!("tree_all", screen(&mut t, 100, 30));
    t.handle_key(&ctrl('u'));
    insta::assert_snapshot!("tree_user_only", screen(&mut t, 100, 30));
    t.handle_key(&ctrl('d'));
    typed(&mut t, "main");
    insta::assert_snapshot!("tree_search", screen(&mut t, 100, 30));
    typed(&mut t, "zzz");
    insta::assert_snapshot!("tree_no_match", screen(&mut t, 100, 30));
    t.handle_key(&key(KeyCode::Esc));
    t.handle_key(&ctrl('l'));
    insta::assert_snapshot!("tree_labeled", screen(&mut t, 100, 30));
    t.handle_key(&ctrl('l'));
    // Label the selected entry.
    t.handle_key(&KeyEvent::new(KeyCode::Char('L'), KeyModifiers::SHIFT));
    typed(&mut t, "done");
    insta::assert_snapshot!("tree_label_edit", screen(&mut t, 100, 30));
    t.handle_key(&key(KeyCode::Enter));
    assert_eq!(saved.lock().unwrap().len(), 1);
    assert!(screen(&mut t, 100, 30).contains("[explaindone]"));
    insta::assert_snapshot!("tree_narrow", screen(&mut t, 30, 30));
    assert!(matches!(t.handle_key(&key(KeyCode::Esc)), Outcome::Cancel));
}

#[test]
fn tree_folds_and_selects() {
    let (mut t, _) = tree(Some("u2"));
    // u3's branch (with the leaf) comes first; u2 starts the other branch.
    t.handle_key(&ctrl('a'));
    t.handle_key(&ctrl('a'));
    t.handle_key(&KeyEvent::new(KeyCode::Left, KeyModifiers::CONTROL));
    insta::assert_snapshot!("tree_folded", screen(&mut t, 100, 30));
    let Outcome::Done(Action::TreeTarget(id)) = t.handle_key(&key(KeyCode::Enter)) else {
        panic!("a target")
    };
    assert_eq!(id, "u2");
}

#[test]
fn tree_long_session_scrolls() {
    let mut entries = vec![entry(
        json!({"type": "message", "id": "e0", "parentId": null,
        "timestamp": "2026-01-01T00:00:00Z", "message": {"role": "user", "content": "start", "timestamp": 1}}),
    )];
    for i in 1..200 {
        entries.push(entry(json!({"type": "message", "id": format!("e{i}"), "parentId": format!("e{}", i - 1),
            "timestamp": "2026-01-01T00:00:00Z", "message": {"role": "user", "content": format!("step {i}"), "timestamp": 1}})));
    }
    let refs: Vec<&SessionEntry> = entries.iter().collect();
    let items = build_items(&refs, &|_| None, None);
    let mut t = TreeSelector::new(
        theme(),
        items,
        Some("e199"),
        None,
        Filter::Default,
        Box::new(|_, _| Ok(())),
    );
    insta::assert_snapshot!("tree_long", screen(&mut t, 60, 20));
}

#[test]
fn fork_selector_states() {
    let messages: Vec<(String, String)> = (1..=3)
        .map(|i| {
            (
                format!("u{i}"),
                format!("message number {i}\nwith a second line"),
            )
        })
        .collect();
    let mut f = ForkSelector::new(theme(), messages);
    insta::assert_snapshot!("fork_initial", screen(&mut f, 70, 24));
    let many: Vec<(String, String)> = (1..=30)
        .map(|i| (format!("u{i}"), format!("prompt {i}")))
        .collect();
    let mut f = ForkSelector::new(theme(), many);
    f.handle_key(&key(KeyCode::Up));
    insta::assert_snapshot!("fork_long_narrow", screen(&mut f, 30, 24));
    let Outcome::Done(Action::Fork(id)) = f.handle_key(&key(KeyCode::Enter)) else {
        panic!("a fork")
    };
    assert_eq!(id, "u29");
    let mut f = ForkSelector::new(theme(), Vec::new());
    insta::assert_snapshot!("fork_empty", screen(&mut f, 70, 24));
}

#[test]
fn dialogs() {
    let mut c = Choice::new(
        theme(),
        "Summarize branch?",
        &["No summary", "Summarize", "Summarize with custom prompt"],
        ChoiceKind::Summarize("x".into()),
    );
    c.handle_key(&key(KeyCode::Down));
    insta::assert_snapshot!("choice_summarize", screen(&mut c, 60, 24));
    assert_eq!(
        done(c.handle_key(&key(KeyCode::Esc))),
        Some(Action::Choice(ChoiceKind::Summarize("x".into()), None))
    );
    let mut c = Choice::confirm(
        theme(),
        "Import session",
        "Replace current session with a.jsonl?",
        ChoiceKind::Import("a.jsonl".into()),
    );
    insta::assert_snapshot!("confirm_import", screen(&mut c, 60, 24));
    let mut p = TextPrompt::new(
        theme(),
        "Custom summarization instructions",
        TextKind::SummaryInstructions("x".into()),
    );
    typed(&mut p, "focus on tests");
    insta::assert_snapshot!("prompt_instructions", screen(&mut p, 60, 24));
    assert_eq!(
        done(p.handle_key(&key(KeyCode::Enter))),
        Some(Action::Text(
            TextKind::SummaryInstructions("x".into()),
            Some("focus on tests".into())
        ))
    );
}

#[test]
fn scoped_models_states() {
    let saved = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&saved);
    let save = Box::new(move |ids: &[String]| {
        log.lock().unwrap().push(ids.to_vec());
        Ok(())
    });
    let mut s = ScopedModels::new(theme(), models(), Vec::new(), save);
    insta::assert_snapshot!("scoped_all_enabled", screen(&mut s, 100, 24));
    s.handle_key(&key(KeyCode::Down));
    s.handle_key(&key(KeyCode::Enter));
    s.handle_key(&key(KeyCode::Down));
    s.handle_key(&key(KeyCode::Down));
    s.handle_key(&key(KeyCode::Enter));
    insta::assert_snapshot!("scoped_toggled", screen(&mut s, 100, 24));
    s.handle_key(&key(KeyCode::Up));
    s.handle_key(&key(KeyCode::Up));
    s.handle_key(&KeyEvent::new(KeyCode::Up, KeyModifiers::ALT));
    s.handle_key(&ctrl('s'));
    assert_eq!(
        saved.lock().unwrap().last().unwrap(),
        &vec![
            "anthropic/claude-sonnet".to_owned(),
            "openai/gpt-4o".to_owned()
        ]
    );
    typed(&mut s, "nothing");
    insta::assert_snapshot!("scoped_no_match_narrow", screen(&mut s, 40, 24));
}

fn done(outcome: Outcome) -> Option<Action> {
    match outcome {
        Outcome::Done(action) => Some(action),
        _ => None,
    }
}
