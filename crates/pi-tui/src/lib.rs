//! pi-tui: the generic terminal widget layer of pi-rs.
//!
//! # The model
//!
//! * A **component** ([`Component`]) renders itself into lines for a given width:
//!   `render(width) -> Vec<String>`. Each string is exactly one terminal row, may carry ANSI SGR
//!   styling, is never wider than `width` (components clamp, they never fail on a narrow
//!   terminal) and leaves no style open at its end. Components know nothing about the terminal,
//!   so tests render them into plain vectors (and snapshot them).
//! * The **[`renderer::InlineRenderer`]** owns the terminal's normal screen (no alternate
//!   screen). Finished lines are [`commit`](renderer::InlineRenderer::commit)ted once into the
//!   terminal's own scrollback, above the live region, and never touched again. The **live
//!   region** (streaming answer, running tools, editor, footer, ...) is redrawn with
//!   [`draw`](renderer::InlineRenderer::draw), which rewrites only the lines that changed since
//!   the previous frame, with relative cursor moves, in one write wrapped in synchronized
//!   output (DEC 2026). Work per frame is proportional to the live region, not the transcript.
//! * [`terminal::TerminalSession`] puts the terminal in raw mode with bracketed paste and the
//!   kitty keyboard protocol, and restores it on drop, on suspend and on panic.
//! * Styling comes from [`theme::Theme`] (pi's 51 tokens, `dark` and `light`); in
//!   [`theme::ColorMode::NoColor`] every style helper returns plain text.
//! * [`text`] measures and cuts styled text by terminal cells (graphemes, East-Asian width).
//!
//! The widgets: [`editor::Editor`] (pi's multi-line prompt editor), [`markdown::Markdown`]
//! (incremental, with [`highlight`]ed code blocks), [`loader::Loader`] (spinner),
//! [`boxed::BoxComponent`] (padding and background), [`select::SelectList`],
//! [`input::Input`] (one-line input of the selectors) and [`fuzzy`] matching; [`image`] draws
//! images inline (kitty graphics, iTerm2) or names them where the terminal cannot.
//!
//! # The two places that take input instead of the editor
//!
//! A screen shows its input components in pi's two UI slots: the **editor slot**
//! ([`slot::EditorSlot`]: one component in the editor's place, as pi's selectors, dialogs
//! and `custom()`) and the **overlay stack** ([`overlay::OverlayStack`]: components drawn
//! on top at an anchor, pi's `showOverlay` / `hideOverlay`). Both hold
//! [`slot::SlotComponent`]s, which answer each key with an [`slot::Outcome`] carrying the
//! screen's own action type.

mod ansi;
pub mod boxed;
pub mod component;
pub mod editor;
pub mod fuzzy;
pub mod highlight;
pub mod image;
pub mod input;
pub mod keybindings;
#[cfg(unix)]
pub mod keys_in;
pub mod loader;
pub mod markdown;
pub mod overlay;
pub mod renderer;
pub mod select;
pub mod slot;
pub mod terminal;
#[cfg(feature = "testing")]
pub mod testing;
pub mod text;
pub mod theme;
pub mod theme_file;

pub use component::{Component, Spacer, Text};
pub use crossterm;
pub use theme::{ColorMode, Theme, Token};
