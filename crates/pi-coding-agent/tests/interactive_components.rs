//! Snapshots of every transcript component and state of the interactive
//! mode, rendered into strings at widths 80 and 40 (no-colour theme for
//! readability; a few in truecolor with the escapes made visible).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pi_agent_core::{AgentMessage, AgentToolResult};
use pi_ai::{
    Api, AssistantContent, AssistantMessage, Provider, StopReason, TextContent, ThinkingContent,
    ToolCall, Usage,
};
use pi_coding_agent::messages::{BashExecutionMessage, CodingMessage};
use pi_coding_agent::modes::interactive::blocks::bash::BashRecord;
use pi_coding_agent::modes::interactive::blocks::cards::SummaryKind;
use pi_coding_agent::modes::interactive::blocks::{
    AssistantBlock, BashBlock, Block, BlockKind, CustomCard, Notice, RenderCtx, SummaryCard,
    ToolCard, UserBlock,
};
use pi_coding_agent::modes::interactive::footer::{FooterInfo, UsageTotals, render_footer};
use pi_coding_agent::modes::interactive::transcript::Transcript;
use pi_tui::theme::{ColorMode, Theme};
use serde_json::{Value, json};

fn plain() -> Arc<Theme> {
    Arc::new(Theme::dark(ColorMode::NoColor))
}

fn color() -> Arc<Theme> {
    Arc::new(Theme::dark(ColorMode::TrueColor))
}

struct Opts {
    expanded: bool,
    hide_thinking: bool,
    now: Instant,
}

fn opts() -> Opts {
    Opts {
        expanded: false,
        hide_thinking: false,
        now: Instant::now(),
    }
}

fn show(lines: &[String]) -> String {
    lines
        .iter()
        .map(|l| l.replace('\x1b', "␛").trim_end().to_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

fn render_with(theme: &Arc<Theme>, kind: BlockKind, width: usize, o: &Opts) -> String {
    let ctx = RenderCtx {
        theme,
        expanded: o.expanded,
        hide_thinking: o.hide_thinking,
        home: Some(PathBuf::from("/home/user")),
        now: o.now,
    };
    let mut block = Block::new(kind);
    let lines = block.render(&ctx, width).to_vec();
    for line in &lines {
        assert!(
            pi_tui::text::visible_width(line) <= width,
            "line wider than {width}: {line:?}"
        );
    }
    show(&lines)
}

/// Renders `make()` at widths 80 and 40 into one snapshot.
fn both(make: impl Fn() -> BlockKind, o: &Opts) -> String {
    let theme = plain();
    format!(
        "--- 80 ---\n{}\n--- 40 ---\n{}",
        render_with(&theme, make(), 80, o),
        render_with(&theme, make(), 40, o)
    )
}

fn assistant(
    content: Vec<AssistantContent>,
    stop: StopReason,
    error: Option<&str>,
) -> AssistantMessage {
    AssistantMessage {
        content,
        api: Api::from("openai-completions"),
        provider: Provider::from("mock-oai"),
        model: "mock-gpt".into(),
        response_model: None,
        response_id: None,
        diagnostics: None,
        usage: Usage::default(),
        stop_reason: stop,
        deferred: None,
        error_message: error.map(str::to_owned),
        raw_stop_reason: None,
        end_turn: None,
        timestamp: 0,
        extra: Default::default(),
    }
}

fn text(t: &str) -> AssistantContent {
    AssistantContent::Text(TextContent {
        text: t.into(),
        ..Default::default()
    })
}

fn thinking(t: &str) -> AssistantContent {
    AssistantContent::Thinking(ThinkingContent {
        thinking: t.into(),
        ..Default::default()
    })
}

const ANSWER: &str = "# Plan\n\nThe **answer** has `code`, a [link](https://example.com) and a list:\n\n- first item that is long enough to wrap at forty columns\n- second\n\n```rust\nfn main() {}\n```";

#[test]
fn header_and_user_message() {
    let o = opts();
    insta::assert_snapshot!(
        "header",
        both(
            || BlockKind::Notice(Notice::Header {
                version: "0.1.0".into()
            }),
            &o
        )
    );
    let expanded = Opts {
        expanded: true,
        ..opts()
    };
    insta::assert_snapshot!(
        "header_expanded",
        both(
            || BlockKind::Notice(Notice::Header {
                version: "0.1.0".into()
            }),
            &expanded
        )
    );
    insta::assert_snapshot!(
        "user",
        both(
            || BlockKind::User(UserBlock::new(
                "Explain **this** file, please: it is long enough to wrap.",
                true
            )),
            &o
        )
    );
    insta::assert_snapshot!(
        "user_color",
        render_with(
            &color(),
            BlockKind::User(UserBlock::new("hi", true)),
            40,
            &o
        )
    );
}

#[test]
fn assistant_states() {
    let o = opts();
    insta::assert_snapshot!(
        "assistant_markdown",
        both(
            || BlockKind::Assistant(AssistantBlock::settled(&assistant(
                vec![text(ANSWER)],
                StopReason::Stop,
                None
            ))),
            &o
        )
    );
    let with_thinking = || {
        BlockKind::Assistant(AssistantBlock::settled(&assistant(
            vec![
                thinking("Let me think about the user's question."),
                text("Done."),
            ],
            StopReason::Stop,
            None,
        )))
    };
    insta::assert_snapshot!("assistant_thinking", both(with_thinking, &o));
    let hidden = Opts {
        hide_thinking: true,
        ..opts()
    };
    insta::assert_snapshot!("assistant_thinking_hidden", both(with_thinking, &hidden));
    insta::assert_snapshot!(
        "assistant_aborted",
        both(
            || BlockKind::Assistant(AssistantBlock::settled(&assistant(
                vec![text("Partial")],
                StopReason::Aborted,
                Some("Request was aborted")
            ))),
            &o
        )
    );
    insta::assert_snapshot!(
        "assistant_error",
        both(
            || BlockKind::Assistant(AssistantBlock::settled(&assistant(
                vec![],
                StopReason::Error,
                Some("500 Internal Server Error")
            ))),
            &o
        )
    );
    // Streaming: deltas appended to their parts.
    let mut streaming = AssistantBlock::streaming();
    streaming.push(0, true, "Thinking hard");
    streaming.push(1, false, "Hello ");
    streaming.push(1, false, "**world**");
    insta::assert_snapshot!(
        "assistant_streaming",
        render_with(&plain(), BlockKind::Assistant(streaming), 40, &o)
    );
}

fn result(text: &str, details: Value) -> AgentToolResult {
    AgentToolResult {
        content: vec![pi_ai::UserBlock::text(text)],
        details,
    }
}

fn numbered(n: usize) -> String {
    (1..=n)
        .map(|i| format!("line {i}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn card(name: &str, args: Value, out: Option<(&str, Value, bool)>, t0: Instant) -> BlockKind {
    let mut card = ToolCard::new("call_1", name, args.clone());
    card.start(args, t0);
    if let Some((text, details, is_error)) = out {
        card.set_result(
            &result(text, details),
            is_error,
            false,
            t0 + Duration::from_millis(3100),
        );
    }
    BlockKind::Tool(card)
}

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

fn bash_record(output: &str, exit: Option<i64>, cancelled: bool, exclude: bool) -> BashRecord {
    BashRecord::from_message(&BashExecutionMessage {
        command: "make build".into(),
        output: output.into(),
        exit_code: exit,
        cancelled,
        truncated: exit == Some(2),
        full_output_path: (exit == Some(2)).then(|| "/tmp/pi-bash-9.log".into()),
        timestamp: 0,
        exclude_from_context: exclude.then_some(true),
        extra: Default::default(),
    })
}

#[test]
fn bash_blocks() {
    let o = opts();
    insta::assert_snapshot!(
        "bash_ok",
        both(
            || BlockKind::Bash(BashBlock::done(bash_record("hi\n", Some(0), false, false))),
            &o
        )
    );
    insta::assert_snapshot!(
        "bash_long_exit",
        both(
            || BlockKind::Bash(BashBlock::done(bash_record(
                &numbered(25),
                Some(2),
                false,
                false
            ))),
            &o
        )
    );
    let expanded = Opts {
        expanded: true,
        ..opts()
    };
    insta::assert_snapshot!(
        "bash_long_expanded",
        render_with(
            &plain(),
            BlockKind::Bash(BashBlock::done(bash_record(
                &numbered(25),
                Some(0),
                false,
                false
            ))),
            40,
            &expanded
        )
    );
    insta::assert_snapshot!(
        "bash_cancelled_excluded",
        both(
            || BlockKind::Bash(BashBlock::done(bash_record("partial", None, true, true))),
            &o
        )
    );
    let t0 = Instant::now();
    insta::assert_snapshot!(
        "bash_running",
        render_with(
            &plain(),
            BlockKind::Bash(BashBlock::running("sleep 5", false, t0)),
            40,
            &Opts { now: t0, ..opts() }
        )
    );
    insta::assert_snapshot!(
        "bash_color",
        render_with(
            &color(),
            BlockKind::Bash(BashBlock::done(bash_record("ok", Some(1), false, false))),
            30,
            &o
        )
    );
}

#[test]
fn cards_and_notices() {
    let o = opts();
    let compaction = || {
        BlockKind::Summary(SummaryCard::new(
            SummaryKind::Compaction(12345),
            "## Goal\nShip the TUI.",
        ))
    };
    insta::assert_snapshot!("compaction_collapsed", both(compaction, &o));
    let expanded = Opts {
        expanded: true,
        ..opts()
    };
    insta::assert_snapshot!("compaction_expanded", both(compaction, &expanded));
    insta::assert_snapshot!(
        "branch_collapsed",
        both(
            || BlockKind::Summary(SummaryCard::new(SummaryKind::Branch, "Tried X.")),
            &o
        )
    );
    insta::assert_snapshot!(
        "custom",
        both(
            || BlockKind::Custom(CustomCard::new("reminder", "Remember to run the tests.")),
            &o
        )
    );
    insta::assert_snapshot!(
        "notices",
        [
            render_with(
                &plain(),
                BlockKind::Notice(Notice::Status("Thinking level: high".into())),
                40,
                &o
            ),
            render_with(
                &plain(),
                BlockKind::Notice(Notice::Warning(
                    "Nothing to compact (no messages yet)".into()
                )),
                40,
                &o
            ),
            render_with(
                &plain(),
                BlockKind::Notice(Notice::Error("Compaction failed: boom".into())),
                40,
                &o
            ),
            render_with(
                &plain(),
                BlockKind::Notice(Notice::Success("✓ New session started".into())),
                40,
                &o
            ),
            render_with(
                &plain(),
                BlockKind::Notice(Notice::panel(
                    "Keyboard Shortcuts",
                    "| Key | Action |\n|-----|--------|\n| `Enter` | Send |"
                )),
                40,
                &o
            ),
        ]
        .join("\n~~~\n")
    );
}

fn assistant_message(
    content: Vec<AssistantContent>,
    stop: StopReason,
) -> AgentMessage<CodingMessage> {
    AgentMessage::Standard(pi_ai::Message::Assistant(assistant(content, stop, None)))
}

#[test]
fn transcript_commits_in_order_and_statuses_replace_each_other() {
    let theme = plain();
    let ctx = RenderCtx {
        theme: &theme,
        expanded: false,
        hide_thinking: false,
        home: None,
        now: Instant::now(),
    };
    let now = Instant::now();
    let mut t = Transcript::new();
    t.status("Thinking level: low");
    t.status("Thinking level: high");
    // A trailing status stays live (the next one replaces it).
    assert!(t.take_committable(&ctx, 40).is_empty());
    let call = AssistantContent::ToolCall(ToolCall {
        id: "c1".into(),
        name: "bash".into(),
        arguments: json!({"command": "ls"}),
        ..Default::default()
    });
    t.add_message(
        &assistant_message(vec![text("Listing."), call], StopReason::ToolUse),
        now,
    );
    let first = show(&t.take_committable(&ctx, 40));
    // The status and the assistant text are final; the card waits for its result.
    assert!(first.contains("Thinking level: high"), "{first}");
    assert!(!first.contains("Thinking level: low"), "{first}");
    assert!(first.contains("Listing."), "{first}");
    assert!(!first.contains("$ ls"), "{first}");
    let mut live = Vec::new();
    t.live_lines(&ctx, 40, 100, &mut live);
    assert!(show(&live).contains("$ ls"));
    t.tool_result("c1", &result("a\nb", Value::Null), false, false, now);
    let second = show(&t.take_committable(&ctx, 40));
    assert!(second.contains("$ ls") && second.contains('b'), "{second}");
    assert!(t.take_committable(&ctx, 40).is_empty(), "committed once");
    insta::assert_snapshot!("transcript_commits", format!("{first}\n~~~\n{second}"));
}

fn footer(info: &FooterInfo) -> String {
    let theme = plain();
    format!(
        "--- 80 ---\n{}\n--- 40 ---\n{}",
        show(&render_footer(&theme, info, 80)),
        show(&render_footer(&theme, info, 40))
    )
}

#[test]
fn footers() {
    let base = FooterInfo {
        cwd: "~/src/pi-rs".into(),
        branch: Some("main".into()),
        session_name: None,
        totals: UsageTotals::default(),
        context_percent: Some(0.0),
        context_window: 128_000,
        auto_compact: true,
        model: Some("mock-gpt".into()),
        provider: "mock-oai".into(),
        reasoning: false,
        thinking: "off".into(),
        several_providers: false,
    };
    insta::assert_snapshot!("footer_fresh", footer(&base));
    let busy = FooterInfo {
        session_name: Some("refactor".into()),
        totals: UsageTotals {
            input: 4_700,
            output: 44,
            cache_read: 3_800,
            cache_write: 1_200,
            cost: 0.0094,
        },
        context_percent: Some(1.74),
        reasoning: true,
        thinking: "medium".into(),
        several_providers: true,
        ..base.clone()
    };
    insta::assert_snapshot!("footer_usage", footer(&busy));
    let warn = FooterInfo {
        context_percent: Some(75.0),
        ..busy.clone()
    };
    let theme = color();
    insta::assert_snapshot!(
        "footer_warning_color",
        show(&render_footer(&theme, &warn, 80))
    );
    let full = FooterInfo {
        context_percent: Some(95.3),
        auto_compact: false,
        ..busy.clone()
    };
    insta::assert_snapshot!(
        "footer_error_color",
        show(&render_footer(&theme, &full, 80))
    );
    let unknown = FooterInfo {
        context_percent: None,
        model: None,
        ..base
    };
    insta::assert_snapshot!("footer_unknown", footer(&unknown));
    for width in [1, 5, 19] {
        for line in render_footer(&plain(), &busy, width) {
            assert!(pi_tui::text::visible_width(&line) <= width, "{line:?}");
        }
    }
}

#[test]
fn narrow_terminals_never_overflow() {
    let t0 = Instant::now();
    let o = Opts { now: t0, ..opts() };
    let theme = color();
    for width in [1, 2, 5, 10, 19] {
        let kinds = vec![
            BlockKind::Notice(Notice::Header {
                version: "0.1.0".into(),
            }),
            BlockKind::User(UserBlock::new("supercalifragilistic 漢字漢字漢字", true)),
            BlockKind::Assistant(AssistantBlock::settled(&assistant(
                vec![text(ANSWER)],
                StopReason::Stop,
                None,
            ))),
            card(
                "bash",
                json!({"command": "echo 漢字"}),
                Some(("漢字漢字漢字漢字", Value::Null, false)),
                t0,
            ),
            card(
                "edit",
                json!({"path": "a.rs"}),
                Some(("ok", json!({"diff": "-1 a\n+1 b"}), false)),
                t0,
            ),
            BlockKind::Bash(BashBlock::done(bash_record(
                &numbered(30),
                Some(1),
                false,
                false,
            ))),
            BlockKind::Summary(SummaryCard::new(SummaryKind::Compaction(5), "x")),
        ];
        for kind in kinds {
            // render_with asserts every line fits.
            render_with(&theme, kind, width, &o);
        }
    }
}
