//! Helpers shared by the interactive-mode component snapshot tests: themes,
//! render options and builders of blocks.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pi_agent_core::AgentToolResult;
use pi_ai::{
    Api, AssistantContent, AssistantMessage, Provider, StopReason, TextContent, ThinkingContent,
    Usage,
};
use pi_coding_agent::modes::interactive::blocks::{Block, BlockKind, RenderCtx, ToolCard};
use pi_tui::theme::{ColorMode, Theme};
use serde_json::Value;

pub fn plain() -> Arc<Theme> {
    Arc::new(Theme::dark(ColorMode::NoColor))
}

pub fn color() -> Arc<Theme> {
    Arc::new(Theme::dark(ColorMode::TrueColor))
}

pub struct Opts {
    pub expanded: bool,
    pub hide_thinking: bool,
    pub now: Instant,
    pub images: pi_tui::image::Display,
    /// `markdown.codeBlockIndent`.
    pub code_indent: String,
}

pub fn opts() -> Opts {
    Opts {
        expanded: false,
        hide_thinking: false,
        now: Instant::now(),
        images: pi_tui::image::Display::default(),
        code_indent: "  ".to_owned(),
    }
}

pub fn show(lines: &[String]) -> String {
    lines
        .iter()
        .map(|l| l.replace('\x1b', "␛").trim_end().to_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn render_with(theme: &Arc<Theme>, kind: BlockKind, width: usize, o: &Opts) -> String {
    let ctx = RenderCtx {
        theme,
        expanded: o.expanded,
        hide_thinking: o.hide_thinking,
        home: Some(PathBuf::from("/home/user")),
        now: o.now,
        images: o.images,
        code_indent: o.code_indent.clone(),
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
pub fn both(make: impl Fn() -> BlockKind, o: &Opts) -> String {
    let theme = plain();
    format!(
        "--- 80 ---\n{}\n--- 40 ---\n{}",
        render_with(&theme, make(), 80, o),
        render_with(&theme, make(), 40, o)
    )
}

pub fn assistant(
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
        error_class: None,
        raw_stop_reason: None,
        end_turn: None,
        timestamp: 0,
        extra: Default::default(),
    }
}

pub fn text(t: &str) -> AssistantContent {
    AssistantContent::Text(TextContent {
        text: t.into(),
        ..Default::default()
    })
}

pub fn thinking(t: &str) -> AssistantContent {
    AssistantContent::Thinking(ThinkingContent {
        thinking: t.into(),
        ..Default::default()
    })
}

pub const ANSWER: &str = "# Plan\n\nThe **answer** has `code`, a [link](https://example.com) and a list:\n\n- first item that is long enough to wrap at forty columns\n- second\n\n```rust\nfn main() {}\n```";

pub fn result(text: &str, details: Value) -> AgentToolResult {
    AgentToolResult {
        content: vec![pi_ai::UserBlock::text(text)],
        details,
        terminate: None,
    }
}

pub fn numbered(n: usize) -> String {
    (1..=n)
        .map(|i| format!("line {i}"))
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn card(name: &str, args: Value, out: Option<(&str, Value, bool)>, t0: Instant) -> BlockKind {
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
