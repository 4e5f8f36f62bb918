//! Snapshots of every transcript component and state of the interactive
//! mode, rendered into strings at widths 80 and 40 (no-colour theme for
//! readability; a few in truecolor with the escapes made visible).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::interactive_common;

use std::time::Instant;

use pi_agent_core::AgentMessage;
use pi_ai::{AssistantContent, StopReason, ToolCall};
use pi_coding_agent::messages::{BashExecutionMessage, CodingMessage};
use pi_coding_agent::modes::interactive::blocks::bash::BashRecord;
use pi_coding_agent::modes::interactive::blocks::cards::SummaryKind;
use pi_coding_agent::modes::interactive::blocks::notice::ResourceSection;
use pi_coding_agent::modes::interactive::blocks::{
    AssistantBlock, BashBlock, BlockKind, CustomCard, Notice, RenderCtx, SummaryCard, UserBlock,
};
use pi_coding_agent::modes::interactive::parts::footer::{FooterInfo, UsageTotals, render_footer};
use pi_coding_agent::modes::interactive::transcript::Transcript;
use serde_json::{Value, json};

use interactive_common::*;

#[test]
fn header_and_user_message() {
    let o = opts();
    insta::assert_snapshot!(
        "header",
        both(
            || BlockKind::Notice(Notice::Header {
                version: "0.1.0".into(),
                keys: std::sync::Arc::new(pi_coding_agent::keybindings::defaults())
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
                version: "0.1.0".into(),
                keys: std::sync::Arc::new(pi_coding_agent::keybindings::defaults())
            }),
            &expanded
        )
    );
    let resources = || {
        BlockKind::Notice(Notice::Resources(vec![
            ResourceSection {
                name: "Context",
                compact: "AGENTS.md, ~/AGENTS.md".into(),
                expanded: vec![
                    (None, "/home/user/proj/AGENTS.md".into()),
                    (None, "~/AGENTS.md".into()),
                ],
            },
            ResourceSection {
                name: "Skills",
                compact: "deploy, review".into(),
                expanded: vec![
                    (Some("project".into()), String::new()),
                    (None, "  .pi/skills/deploy/SKILL.md".into()),
                    (Some("user".into()), String::new()),
                    (None, "  ~/.pi/agent/skills/review/SKILL.md".into()),
                ],
            },
        ]))
    };
    insta::assert_snapshot!("resources", both(resources, &o));
    insta::assert_snapshot!("resources_expanded", both(resources, &expanded));
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
        images: pi_tui::image::Display::default(),
        code_indent: "  ".to_owned(),
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
                keys: std::sync::Arc::new(pi_coding_agent::keybindings::defaults()),
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
