//! The interactive mode's one object: [`Ui`] joins the parts (header,
//! transcript, queue, status, widgets, editor, footer), the two slots that
//! take input instead of the editor (the editor slot and the overlay stack)
//! and the app. Every `impl Ui` is in this folder:
//!
//! - this file: construction, the chat's reload, and each frame's lines;
//! - `app_events`: the app's events and the results of started work;
//! - `keys`: where a key or paste goes (overlay, slot, extension shortcuts,
//!   key bindings, editor);
//! - `extensions`: what the extensions' `ctx.ui()` asked (sent by
//!   [`super::extension_ui::TerminalUi`]), their commands, shortcuts,
//!   errors and load issues;
//! - `dispatch`: the one dispatcher of [`Action`]s, and what they do to
//!   prompts (`prompts`), sessions (`sessions`), the selectors and
//!   dialogs (`open`), what the session holds (`info`), the look
//!   (`look`), settings (`settings`), logins (`login`) and the changelog
//!   (`changelog`).

mod app_events;
mod changelog;
mod dispatch;
mod ext_parts;
mod extensions;
mod extra_usage;
mod info;
mod keys;
mod login;
mod look;
mod open;
mod prompts;
mod sessions;
mod settings;
mod terminal;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Instant;

use pi_agent_core::AgentMessage;
use pi_ai::{CancellationToken, Message};
use pi_tui::editor::Editor;
use pi_tui::overlay::OverlayStack;
use pi_tui::slot::EditorSlot;
use pi_tui::theme::{Theme, Token};
use tokio::sync::mpsc::UnboundedSender;

use super::action::Action;
use super::blocks::ext_render::ExtRenderers;
use super::blocks::{Notice, RenderCtx};
use super::complete::{Completer, ExtensionCommand, ResourceCommandSource, resource_commands};
use super::events::UiEvent;
use super::oauth_dialog::OAuthDialog;
use super::parts::footer::FooterInfo;
use super::parts::header::Header;
use super::parts::queue::Queue;
use super::parts::status::Status;
use super::parts::widgets::{Placement, Widgets};
use super::transcript::{Transcript, user_text};
use crate::app::App;

pub use look::LookOptions;

/// Where a running `!cmd` block lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BashSlot {
    /// In the chat, at this block index.
    Chat(usize),
    /// In the pending area, at this index.
    Pending(usize),
}

/// The interactive mode's state.
pub struct Ui {
    pub(crate) app: Arc<App>,
    pub(crate) theme: Arc<Theme>,
    /// Key bindings, themes and the settings changed in this run.
    pub(crate) look: look::Look,
    pub(crate) header: Header,
    pub(crate) transcript: Transcript,
    pub(crate) queue: Queue,
    pub(crate) status: Status,
    pub(crate) widgets: Widgets,
    pub(crate) editor: Editor,
    pub(crate) footer: FooterInfo,
    /// The selector or dialog shown instead of the editor.
    pub(crate) slot: EditorSlot<Action>,
    /// Overlays drawn over the live region.
    pub(crate) overlays: OverlayStack<Action>,
    /// How the chat is drawn.
    pub(crate) view: View,
    /// The work started that has not reported back.
    pub(crate) work: Work,
    /// Leave the mode.
    pub(crate) quit: bool,
    /// Context use is unknown until the first answer after a compaction.
    pub(crate) context_unknown: bool,
    /// The last session save error shown (a failing disk repeats it per entry).
    shown_save_error: Option<String>,
    /// The last Ctrl+C (a second one within 500 ms quits).
    last_ctrl_c: Option<Instant>,
    /// The last Esc on an empty editor (a second one opens the tree).
    last_escape: Option<Instant>,
    /// Where the started work reports back.
    pub(crate) tx: UnboundedSender<UiEvent>,
    /// The home folder (shown as `~`).
    pub(crate) home: Option<PathBuf>,
    /// What the extensions set and read.
    pub(crate) ext: extensions::ExtensionState,
}

/// What one frame writes (see [`Ui::frame`]).
#[derive(Debug, Default)]
pub struct Frame {
    /// Clear the screen and the scrollback first: `commits` hold the whole chat.
    pub clear: bool,
    /// Lines for the scrollback.
    pub commits: Vec<String>,
    /// The live region.
    pub live: Vec<String>,
    /// Show the terminal's cursor at the editor's cursor (`showHardwareCursor`).
    pub show_cursor: bool,
    /// The terminal's progress indicator is on (`terminal.showTerminalProgress`
    /// while the agent or a compaction runs).
    pub progress: bool,
    /// A run or compaction started since the last frame (it may have ended
    /// already: the indicator is then turned on and off, as pi does).
    pub progress_started: bool,
}

impl Frame {
    /// Hands the frame to `renderer` and draws it.
    pub fn draw<W: std::io::Write>(
        &self,
        renderer: &mut pi_tui::renderer::InlineRenderer<W>,
    ) -> std::io::Result<()> {
        if self.clear {
            renderer.clear_all();
        }
        renderer.set_show_cursor(self.show_cursor);
        renderer.commit(&self.commits);
        renderer.draw(&self.live)
    }
}

/// How the chat is drawn (Ctrl+O, Ctrl+T).
#[derive(Debug, Default)]
pub(crate) struct View {
    /// Every block expanded.
    pub expanded: bool,
    /// Thinking blocks hidden.
    pub hide_thinking: bool,
    /// The whole chat must be printed again.
    pub reprint: bool,
    /// Only the chat's last screenful must be printed again (while a
    /// resize goes on; the whole chat follows once it settles).
    pub reprint_tail: bool,
    /// How images are drawn (`terminal.showImages`, the terminal's
    /// protocol and cell size, `terminal.imageWidthCells`).
    pub images: pi_tui::image::Display,
    /// The agent or a compaction runs (pi's terminal progress is on).
    pub working: bool,
    /// The agent or a compaction started since the last frame.
    pub work_started: bool,
    /// The lines drawn since the last full redraw (`terminal.clearOnShrink`).
    pub drawn: terminal::DrawnLines,
    /// The Anthropic extra-usage warning was shown in this run.
    pub extra_usage_warned: Arc<AtomicBool>,
    /// The indentation of markdown code blocks (`markdown.codeBlockIndent`).
    pub code_indent: String,
}

/// The work the UI started that has not reported back.
#[derive(Default)]
pub(crate) struct Work {
    /// A prompt run (with its retries and compactions), a compaction or a
    /// tree move is in progress.
    pub running: bool,
    /// Where the running `!cmd` block is: the chat (index) or the pending area.
    pub bash: Option<BashSlot>,
    /// Cancels the running branch summary.
    pub summary_cancel: Option<CancellationToken>,
    /// The running subscription login's dialog, while it is shown.
    pub oauth: Weak<Mutex<OAuthDialog>>,
}

impl Ui {
    /// The state for `app`, with the chat of its session so far.
    pub fn new(app: Arc<App>, theme: Arc<Theme>, tx: UnboundedSender<UiEvent>) -> Self {
        let mut editor = Editor::new(Arc::clone(&theme));
        editor.set_cursor_marker(true);
        let models = app
            .registry()
            .available_models(app.cli_api_key.as_deref(), &app.auth)
            .iter()
            .map(|m| format!("{}/{}", m.provider.as_str(), m.id))
            .collect();
        let runner = Arc::clone(&app.extensions);
        let commands: Arc<dyn Fn() -> Vec<ExtensionCommand> + Send + Sync> = Arc::new(move || {
            runner
                .commands()
                .iter()
                .map(|c| ExtensionCommand {
                    name: c.name.clone(),
                    description: c.description.clone(),
                    completions: c.completions.clone(),
                })
                .collect()
        });
        let ext = extensions::ExtensionState::default();
        let look = look::Look::default();
        look.skill_commands
            .store(app.settings.enable_skill_commands(), Ordering::Relaxed);
        let (resources_app, skill_commands) = (Arc::clone(&app), Arc::clone(&look.skill_commands));
        let resource_source: ResourceCommandSource = Arc::new(move || {
            resource_commands(
                &resources_app.resources(),
                skill_commands.load(Ordering::Relaxed),
            )
        });
        editor.set_autocomplete(Box::new(
            Completer::new(app.cwd.clone())
                .with_models(models)
                .with_extension_command_source(commands)
                .with_resource_command_source(resource_source)
                .with_providers(ext.mirror.autocomplete.clone()),
        ));
        let renderers = Arc::new(ExtRenderers::from_runner(&app.extensions));
        let mut ui = Self {
            app,
            theme,
            look,
            header: Header::default(),
            transcript: Transcript::with_renderers(renderers),
            queue: Queue::default(),
            status: Status::Idle,
            widgets: Widgets::default(),
            editor,
            footer: FooterInfo::default(),
            slot: EditorSlot::new(),
            overlays: OverlayStack::new(),
            view: View::default(),
            work: Work::default(),
            quit: false,
            context_unknown: false,
            shown_save_error: None,
            last_ctrl_c: None,
            last_escape: None,
            tx,
            home: dirs::home_dir(),
            ext,
        };
        ui.view.code_indent = ui.app.settings.code_block_indent().to_owned();
        ui.header.quiet = ui.app.settings.quiet_startup();
        ui.show_header();
        ui.show_resources();
        ui.load_session();
        ui.init_footer();
        ui.update_border();
        ui
    }

    /// The startup header as the chat's first block (none when `quietStartup`).
    fn show_header(&mut self) {
        if let Some(block) = self.header.shown_block() {
            self.transcript.notice(block);
        }
    }

    /// pi's loaded-resources listing below the header (context files,
    /// skills, prompt templates, extensions), when there are any and the
    /// startup is not quiet.
    fn show_resources(&mut self) {
        if self.header.quiet {
            return;
        }
        let resources = self.app.resources();
        let runner = &self.app.extensions;
        let extensions: Vec<_> = runner
            .extension_paths()
            .iter()
            // pi-rs's own (`<mcp>`) are part of the app, not loaded resources.
            .filter(|path| !(path.starts_with('<') && path.ends_with('>')))
            .map(|path| (path.clone(), runner.source_info_of(path)))
            .collect();
        let sections = super::parts::resources::sections(
            &resources,
            &extensions,
            &self.app.cwd,
            self.home.as_deref(),
        );
        if !sections.is_empty() {
            self.transcript.notice(Notice::Resources(sections));
        }
    }

    /// Shows the current session's chat (a resumed session's history), seeds
    /// the editor's history with its prompts and notes its compactions.
    pub fn load_session(&mut self) {
        let now = Instant::now();
        let app = Arc::clone(&self.app);
        let editor = &mut self.editor;
        let transcript = &mut self.transcript;
        app.agent.with_state(|state| {
            transcript.load_history(state.messages.iter(), now);
            for message in &state.messages {
                if let AgentMessage::Standard(Message::User(user)) = message {
                    let text = user_text(&user.content);
                    if !text.is_empty() {
                        editor.add_to_history(&text);
                    }
                }
            }
        });
        let (_, compactions) = self.app.session().message_and_compaction_counts();
        if compactions > 0 {
            let times = if compactions == 1 {
                "1 time".to_owned()
            } else {
                format!("{compactions} times")
            };
            self.transcript
                .status(&format!("Session compacted {times}"));
        }
    }

    /// Shows the current session from scratch (after a switch or a move in
    /// the tree): header, history, footer; the screen is printed again.
    pub(super) fn reload_chat(&mut self) {
        let label = self.transcript.hidden_thinking_label();
        self.transcript = Transcript::with_renderers(self.transcript.renderers());
        self.transcript.set_hidden_thinking_label(label);
        self.show_header();
        self.show_resources();
        self.load_session();
        self.init_footer();
        self.update_border();
        self.view.reprint = true;
    }

    /// The footer's session-wide data (totals over every assistant entry).
    pub fn init_footer(&mut self) {
        self.footer = FooterInfo::for_session(&self.app, self.home.as_deref());
        self.refresh_footer();
    }

    /// Model, thinking level and context use, read again.
    pub fn refresh_footer(&mut self) {
        self.footer.refresh(&self.app, self.context_unknown);
    }

    /// The editor's rule colour: bash mode, else the thinking level's.
    pub fn update_border(&mut self) {
        let token = if self.editor.text().trim_start().starts_with('!') {
            Token::BashMode
        } else {
            match self.footer.thinking.as_str() {
                "minimal" => Token::ThinkingMinimal,
                "low" => Token::ThinkingLow,
                "medium" => Token::ThinkingMedium,
                "high" => Token::ThinkingHigh,
                "xhigh" => Token::ThinkingXhigh,
                _ => Token::ThinkingOff,
            }
        };
        self.editor.set_border_token(token);
    }

    /// True while something on screen animates (the tick timer runs).
    pub fn is_animating(&self) -> bool {
        self.status.is_shown()
            || self.transcript.is_animating()
            || self.queue.is_animating()
            || self.dialog_counts_down()
    }

    /// Advances spinners and countdowns; true when the frame changed.
    pub fn tick(&mut self, now: Instant) -> bool {
        let spinner = self.status.tick(now);
        spinner
            || self.dialog_counts_down()
            || self.transcript.is_animating()
            || (!self.status.is_shown() && self.queue.is_animating())
    }

    /// The terminal told its cell size (the reply to `CSI 16 t`): images are
    /// laid out again with it (the whole chat is printed again) when it
    /// differs from the one assumed.
    pub fn set_cell_size(&mut self, width_px: u32, height_px: u32) {
        if width_px == 0 || height_px == 0 {
            return;
        }
        let cell = pi_tui::image::CellSize {
            width_px,
            height_px,
        };
        if cell != self.view.images.cell {
            self.view.images.cell = cell;
            self.view.reprint = true;
        }
    }

    /// The next frame clears the screen and the scrollback and prints the
    /// whole chat again (a resize: pi lays the transcript out anew).
    pub fn request_reprint(&mut self) {
        self.view.reprint = true;
    }

    /// The next frame clears the screen and the scrollback and prints only
    /// the chat's last screenful again (cheap, for each step of a resize;
    /// [`Ui::request_reprint`] follows once the size settles).
    pub fn request_tail_reprint(&mut self) {
        self.view.reprint_tail = true;
    }

    /// The next frame for a terminal `width` x `rows`: the lines for the
    /// scrollback (finished blocks, the start of a streaming answer that
    /// scrolled off the screen; every block after a reprint request) and the
    /// live region: the unfinished chat, the queue, the status, the widgets,
    /// the editor (or what takes its place) and the footer, with the
    /// overlays drawn over them.
    pub fn frame(&mut self, width: usize, rows: usize) -> Frame {
        let theme = Arc::clone(&self.theme);
        let mut ctx = self.render_ctx(&theme);
        // An image is drawn in the rows above its last line: all on screen.
        ctx.images.max_rows = rows.saturating_sub(1).max(1);
        let full = std::mem::take(&mut self.view.reprint);
        let tail = std::mem::take(&mut self.view.reprint_tail);
        let clear = full || tail;
        let mut commits = if full {
            self.transcript.committed_lines(&ctx, width)
        } else if tail {
            self.transcript.committed_tail(&ctx, width, rows)
        } else {
            Vec::new()
        };
        commits.extend(self.transcript.take_committable(&ctx, width));
        let mut below = Vec::new();
        self.queue.render(&ctx, width, &mut below);
        if !self.working_hidden() {
            self.status.render(width, &mut below);
        }
        self.widgets
            .render(Placement::AboveEditor, width, &self.theme, &mut below);
        match self.slot.render(width, rows) {
            Some(in_place) => below.extend(in_place),
            None => self.editor_lines(width, rows, &mut below),
        }
        self.widgets
            .render(Placement::BelowEditor, width, &self.theme, &mut below);
        self.footer_lines(width, &mut below);
        let budget = rows.saturating_sub(below.len());
        commits.extend(self.transcript.commit_scrolled(&ctx, width, budget));
        let mut live = Vec::new();
        self.transcript.live_lines(&ctx, width, rows, &mut live);
        live.append(&mut below);
        self.overlays.composite(&mut live, width, rows);
        let mut frame = Frame {
            clear,
            commits,
            live,
            ..Frame::default()
        };
        if self.finish_frame(&mut frame) {
            // `terminal.clearOnShrink`: drawn again from a cleared screen.
            self.view.reprint = true;
            let started = frame.progress_started;
            let mut again = self.frame(width, rows);
            again.progress_started |= started;
            return again;
        }
        frame
    }

    fn render_ctx<'a>(&self, theme: &'a Arc<Theme>) -> RenderCtx<'a> {
        RenderCtx {
            theme,
            expanded: self.view.expanded,
            hide_thinking: self.view.hide_thinking,
            home: self.home.clone(),
            now: Instant::now(),
            images: self.view.images,
            code_indent: self.view.code_indent.clone(),
        }
    }

    /// Adds an error line to the chat.
    pub fn error(&mut self, text: impl Into<String>) {
        self.transcript.notice(Notice::Error(text.into()));
    }

    /// Adds a status line to the chat.
    pub fn status_line(&mut self, text: &str) {
        self.transcript.status(text);
    }
}

#[cfg(test)]
#[path = "ext_parts_tests.rs"]
mod ext_parts_tests;
#[cfg(test)]
#[path = "slots_tests.rs"]
mod slots_tests;
