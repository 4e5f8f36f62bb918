use std::collections::HashSet;

use serde_json::json;

use super::*;
use crate::session::SessionEntry;

fn entry(value: serde_json::Value) -> SessionEntry {
    serde_json::from_value(value).unwrap()
}

fn user(id: &str, parent: Option<&str>, text: &str) -> SessionEntry {
    entry(
        json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:00Z",
        "message": {"role": "user", "content": text, "timestamp": 1}}),
    )
}

fn assistant(id: &str, parent: &str, text: &str) -> SessionEntry {
    entry(
        json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:01Z",
        "message": {"role": "assistant", "content": [{"type": "text", "text": text}], "api": "openai-completions",
            "provider": "p", "model": "m", "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0,
            "totalTokens": 0, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
            "stopReason": "stop", "timestamp": 2}}),
    )
}

#[test]
fn tool_calls_are_summarized_as_pi() {
    let home = Some("/home/u");
    assert_eq!(
        format_tool_call(
            "read",
            &json!({"path": "/home/u/a.rs", "offset": 5, "limit": 10}),
            home
        ),
        "[read: ~/a.rs:5-14]"
    );
    let long = "x".repeat(60);
    assert_eq!(
        format_tool_call("bash", &json!({"command": long}), None),
        format!("[bash: {}...]", "x".repeat(50))
    );
    assert_eq!(
        format_tool_call("grep", &json!({"pattern": "fn"}), None),
        "[grep: /fn/ in .]"
    );
    assert_eq!(
        format_tool_call("custom", &json!({"a": 1}), None),
        "[custom: {\"a\":1}]"
    );
}

#[test]
fn branches_get_connectors_and_the_active_branch_comes_first() {
    let entries = [
        user("u1", None, "first"),
        assistant("a1", "u1", "answer one"),
        user("u2", Some("a1"), "old branch"),
        assistant("a2", "u2", "old answer"),
        user("u3", Some("a1"), "new branch"),
        assistant("a3", "u3", "new answer"),
        entry(
            json!({"type": "model_change", "id": "m1", "parentId": "a3", "timestamp": "2026-01-01T00:00:02Z",
            "provider": "p", "modelId": "m"}),
        ),
    ];
    let refs: Vec<&SessionEntry> = entries.iter().collect();
    let items = build_items(&refs, &|_| None, None);
    let leaf = Some(5);
    let order = display_order(&items, leaf);
    assert_eq!(order, vec![0, 1, 4, 5, 6, 2, 3], "the leaf's branch first");
    let folded = HashSet::new();
    let view = View {
        filter: Filter::Default,
        tokens: &[],
        folded: &folded,
        leaf,
    };
    let out = layout(&items, &order, &view);
    let shown: Vec<usize> = out.rows.iter().map(|r| r.item).collect();
    assert_eq!(
        shown,
        vec![0, 1, 4, 5, 2, 3],
        "model change hidden by default"
    );
    assert!(out.rows[2].connector && !out.rows[2].is_last);
    assert!(out.rows[4].connector && out.rows[4].is_last);
    assert!(out.foldable(4));
    assert_eq!(out.branch_jump(0, false), 2);
    assert_eq!(out.branch_jump(3, true), 2);

    let all = View {
        filter: Filter::All,
        ..view.clone()
    };
    assert_eq!(layout(&items, &order, &all).rows.len(), 7);
    let users = View {
        filter: Filter::UserOnly,
        ..view.clone()
    };
    assert_eq!(layout(&items, &order, &users).rows.len(), 3);
    let tokens = vec!["old".to_owned()];
    let search = View {
        tokens: &tokens,
        ..view.clone()
    };
    assert_eq!(layout(&items, &order, &search).rows.len(), 2);
    let folded: HashSet<usize> = [2].into();
    let fold = View {
        folded: &folded,
        ..view
    };
    assert_eq!(layout(&items, &order, &fold).rows.len(), 5);
}

#[test]
fn a_parent_cycle_does_not_hang() {
    let entries = [user("a", Some("b"), "x"), user("b", Some("a"), "y")];
    let refs: Vec<&SessionEntry> = entries.iter().collect();
    let items = build_items(&refs, &|_| None, None);
    let order = display_order(&items, Some(0));
    assert_eq!(order.len(), 2);
}

#[test]
fn a_long_chain_needs_no_recursion() {
    let mut entries = vec![user("e0", None, "start")];
    for i in 1..50_000 {
        entries.push(user(&format!("e{i}"), Some(&format!("e{}", i - 1)), "step"));
    }
    let refs: Vec<&SessionEntry> = entries.iter().collect();
    let items = build_items(&refs, &|_| None, None);
    let order = display_order(&items, Some(49_999));
    let folded = HashSet::new();
    let view = View {
        filter: Filter::Default,
        tokens: &[],
        folded: &folded,
        leaf: Some(49_999),
    };
    let out = layout(&items, &order, &view);
    assert_eq!(out.rows.len(), 50_000);
    assert!(out.rows.iter().all(|r| r.indent == 0));
}
