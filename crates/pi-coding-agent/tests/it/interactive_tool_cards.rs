//! Snapshots of the tool cards of the interactive mode (every built-in
//! tool, pending/running/done/error, collapsed and expanded) at widths 80
//! and 40.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::interactive_common;

use std::time::{Duration, Instant};

use pi_coding_agent::modes::interactive::blocks::{BlockKind, ToolCard};
use serde_json::{Value, json};

use interactive_common::*;

#[test]
fn tool_cards() {
    let t0 = Instant::now();
    let o = Opts {
        now: t0 + Duration::from_millis(1200),
        ..opts()
    };
    let pending = || {
        let mut card = ToolCard::new(
            "call_1",
            "read",
            json!({"path": "/home/user/src/main.rs", "offset": 5, "limit": 20}),
        );
        card.set_args(json!({"path": "/home/user/src/main.rs", "offset": 5, "limit": 20}));
        BlockKind::Tool(card)
    };
    insta::assert_snapshot!("tool_read_pending", both(pending, &o));
    let read = || {
        card(
            "read",
            json!({"path": "notes.txt"}),
            Some((&numbered(14), Value::Null, false)),
            t0,
        )
    };
    insta::assert_snapshot!("tool_read_collapsed", both(read, &o));
    let expanded = Opts {
        expanded: true,
        ..opts()
    };
    insta::assert_snapshot!(
        "tool_read_expanded",
        render_with(&plain(), read(), 40, &expanded)
    );
    let truncated = json!({"truncation": {"truncated": true, "truncatedBy": "lines", "outputLines": 2000, "totalLines": 5000, "maxLines": 2000}});
    insta::assert_snapshot!(
        "tool_read_truncated",
        render_with(
            &plain(),
            card(
                "read",
                json!({"path": "big.txt"}),
                Some(("a\nb", truncated, false)),
                t0
            ),
            80,
            &o
        )
    );

    let running = || {
        let mut c = ToolCard::new(
            "call_2",
            "bash",
            json!({"command": "cargo test", "timeout": 60}),
        );
        c.start(json!({"command": "cargo test", "timeout": 60}), t0);
        c.set_result(&result(&numbered(3), Value::Null), false, true, t0);
        BlockKind::Tool(c)
    };
    insta::assert_snapshot!("tool_bash_running", both(running, &o));
    let long_line = "x".repeat(100);
    let bash_done = || {
        card(
            "bash",
            json!({"command": "seq 12"}),
            Some((
                &format!("{}\n{long_line}", numbered(12)),
                json!({"fullOutputPath": "/tmp/pi-bash-1.log", "truncation": {"truncated": true, "truncatedBy": "lines", "outputLines": 2000, "totalLines": 9000}}),
                false,
            )),
            t0,
        )
    };
    insta::assert_snapshot!("tool_bash_done", both(bash_done, &o));
    insta::assert_snapshot!(
        "tool_bash_error_color",
        render_with(
            &color(),
            card(
                "bash",
                json!({"command": "false"}),
                Some(("Command exited with code 1", Value::Null, true)),
                t0
            ),
            40,
            &o
        )
    );

    let diff = "  1 fn main() {\n- 2     println!(\"hello world\");\n+ 2     println!(\"hello there\");\n  3 }\n    ...\n+10 // end";
    let edit = || {
        card(
            "edit",
            json!({"path": "src/main.rs"}),
            Some(("Successfully replaced text", json!({"diff": diff}), false)),
            t0,
        )
    };
    insta::assert_snapshot!("tool_edit_diff", both(edit, &o));
    insta::assert_snapshot!(
        "tool_edit_diff_color",
        render_with(&color(), edit(), 80, &o)
    );
    insta::assert_snapshot!(
        "tool_edit_error",
        render_with(
            &plain(),
            card(
                "edit",
                json!({"path": "src/main.rs"}),
                Some(("Could not find the exact text", json!({}), true)),
                t0
            ),
            40,
            &o
        )
    );

    let write = || {
        let mut c = ToolCard::new("call_3", "write", Value::Null);
        c.set_args(json!({"path": "out.txt", "content": numbered(13)}));
        BlockKind::Tool(c)
    };
    insta::assert_snapshot!("tool_write_preview", both(write, &o));
    insta::assert_snapshot!(
        "tool_grep",
        both(
            || card(
                "grep",
                json!({"pattern": "TODO", "path": "src", "glob": "*.rs", "limit": 100}),
                Some((&numbered(17), json!({"matchLimitReached": 100}), false)),
                t0
            ),
            &o
        )
    );
    insta::assert_snapshot!(
        "tool_find",
        both(
            || card(
                "find",
                json!({"pattern": "*.rs"}),
                Some((&numbered(22), Value::Null, false)),
                t0
            ),
            &o
        )
    );
    insta::assert_snapshot!(
        "tool_ls",
        both(
            || card(
                "ls",
                json!({}),
                Some(("src/\nnotes.txt", Value::Null, false)),
                t0
            ),
            &o
        )
    );
    insta::assert_snapshot!(
        "tool_unknown",
        render_with(
            &plain(),
            card(
                "mcp_search",
                json!({"q": "rust"}),
                Some(("found 3", Value::Null, false)),
                t0
            ),
            40,
            &o
        )
    );
    // Untrusted output is sanitized: escapes and control characters go.
    insta::assert_snapshot!(
        "tool_sanitized",
        render_with(
            &plain(),
            card(
                "bash",
                json!({"command": "printf"}),
                Some((
                    "\x1b[31mred\x1b[0m\r\nnext\x07 \u{fffd}",
                    Value::Null,
                    false
                )),
                t0
            ),
            40,
            &o
        )
    );
}

#[test]
fn an_edit_card_shows_its_preview_until_the_result_comes() {
    let args = json!({"path": "notes.txt", "edits": [{"oldText": "beta", "newText": "BETA"}]});
    let diff = " 1 alpha\n-2 beta\n+2 BETA\n 3 gamma";
    let preview = || {
        let mut card = ToolCard::new("call_1", "edit", args.clone());
        card.set_args(args.clone());
        card.set_preview(diff.to_owned());
        BlockKind::Tool(card)
    };
    insta::assert_snapshot!("tool_edit_preview", both(preview, &opts()));
    // The result's diff replaces it; a failed edit shows no diff.
    let failed = || {
        let mut card = ToolCard::new("call_1", "edit", args.clone());
        card.set_preview(diff.to_owned());
        card.start(args.clone(), Instant::now());
        card.set_result(
            &result("Could not find the exact text", Value::Null),
            true,
            false,
            Instant::now(),
        );
        BlockKind::Tool(card)
    };
    let text = render_with(&plain(), failed(), 80, &opts());
    assert!(!text.contains("-2 beta"), "{text}");
    assert!(text.contains("Could not find the exact text"), "{text}");
}
