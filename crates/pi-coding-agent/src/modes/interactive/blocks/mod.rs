//! The transcript's blocks, one per thing pi shows in its chat: user
//! messages, assistant messages, tool cards, `!cmd` blocks, summary and
//! custom cards, and notices (status, warning, error and info lines).
//! Each renders to lines for a width (with its leading blank line) and
//! caches them until it changes or the width or display flags change.

pub mod assistant;
pub mod bash;
pub mod cards;
pub mod diff;
pub mod ext_render;
pub mod images;
pub mod notice;
pub mod tool;
pub mod tool_views;
pub mod user;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use pi_tui::theme::Theme;

pub use assistant::AssistantBlock;
pub use bash::BashBlock;
pub use cards::{CustomCard, SummaryCard};
pub use notice::Notice;
pub use tool::ToolCard;
pub use user::UserBlock;

/// What every block's rendering depends on besides its own state.
pub struct RenderCtx<'a> {
    /// Colours.
    pub theme: &'a Arc<Theme>,
    /// Ctrl+O: tool output, summaries and bash blocks expanded.
    pub expanded: bool,
    /// Ctrl+T: thinking shown as `Thinking...`.
    pub hide_thinking: bool,
    /// The home directory (paths shown with `~`).
    pub home: Option<PathBuf>,
    /// The clock for running timers and spinners.
    pub now: Instant,
    /// How images are drawn (protocol, cell size, width), or only named.
    pub images: pi_tui::image::Display,
    /// The indentation of markdown code blocks (`markdown.codeBlockIndent`).
    pub code_indent: String,
}

/// One block of the transcript.
pub enum BlockKind {
    /// A user message.
    User(UserBlock),
    /// An assistant message (text and thinking; tool calls are cards).
    Assistant(AssistantBlock),
    /// A tool call and its result.
    Tool(ToolCard),
    /// A user shell command (`!cmd`, `!!cmd`).
    Bash(BashBlock),
    /// A compaction or branch summary.
    Summary(SummaryCard),
    /// A custom message with `display` set.
    Custom(CustomCard),
    /// A status, warning, error or info text.
    Notice(Notice),
}

/// A block with its render cache.
pub struct Block {
    /// The block.
    pub kind: BlockKind,
    cache: Option<CacheKey>,
    lines: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
struct CacheKey {
    width: usize,
    expanded: bool,
    hide_thinking: bool,
    images: pi_tui::image::Display,
}

impl Block {
    /// A block.
    pub fn new(kind: BlockKind) -> Self {
        Self {
            kind,
            cache: None,
            lines: Vec::new(),
        }
    }

    /// Drops the cached lines (after a change).
    pub fn invalidate(&mut self) {
        self.cache = None;
    }

    /// Frees the cached lines (a committed block is not drawn again).
    pub fn release(&mut self) {
        self.cache = None;
        self.lines = Vec::new();
    }

    /// True when the block will not change any more.
    pub fn is_finished(&self) -> bool {
        match &self.kind {
            BlockKind::Assistant(a) => a.is_finished(),
            BlockKind::Tool(t) => t.is_finished(),
            BlockKind::Bash(b) => b.is_finished(),
            BlockKind::User(_)
            | BlockKind::Summary(_)
            | BlockKind::Custom(_)
            | BlockKind::Notice(_) => true,
        }
    }

    /// True while the block shows a timer or spinner.
    pub fn is_animating(&self) -> bool {
        match &self.kind {
            BlockKind::Tool(t) => t.is_animating(),
            BlockKind::Bash(b) => !b.is_finished(),
            _ => false,
        }
    }

    /// The lines of the last [`Block::render`].
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// How many leading lines of the last [`Block::render`] can no longer change: the settled
    /// start of an answer, none of anything else (a live status line can still be replaced).
    pub fn stable_lines(&self) -> usize {
        match &self.kind {
            BlockKind::Assistant(a) => a.stable_lines().min(self.lines.len()),
            BlockKind::User(_)
            | BlockKind::Tool(_)
            | BlockKind::Bash(_)
            | BlockKind::Summary(_)
            | BlockKind::Custom(_)
            | BlockKind::Notice(_) => 0,
        }
    }

    /// The block's lines for `width` (cached).
    pub fn render(&mut self, ctx: &RenderCtx<'_>, width: usize) -> &[String] {
        let key = CacheKey {
            width,
            expanded: ctx.expanded,
            hide_thinking: ctx.hide_thinking,
            images: ctx.images,
        };
        if self.cache != Some(key) || self.is_animating() {
            self.lines = match &mut self.kind {
                BlockKind::User(b) => b.render(ctx, width),
                BlockKind::Assistant(b) => b.render(ctx, width),
                BlockKind::Tool(b) => b.render(ctx, width),
                BlockKind::Bash(b) => b.render(ctx, width),
                BlockKind::Summary(b) => b.render(ctx, width),
                BlockKind::Custom(b) => b.render(ctx, width),
                BlockKind::Notice(b) => b.render(ctx, width),
            };
            self.cache = Some(key);
        }
        &self.lines
    }
}
