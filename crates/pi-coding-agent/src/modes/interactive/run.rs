//! The terminal loop: one `tokio::select!` over terminal events (keys,
//! pastes, resizes), the app's events, a tick timer that only runs while
//! something animates, and the next frame's deadline. Renders are
//! coalesced to at most one frame per 16 ms; nothing runs while idle.

use std::collections::VecDeque;
use std::io::{self, Stdout, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pi_agent_core::PromptInput;
use pi_tui::crossterm::event::Event;
use pi_tui::keys_in::{Input, InputParser, StdinReader};
use pi_tui::renderer::InlineRenderer;
use pi_tui::terminal::{SessionOptions, TerminalSession};
use pi_tui::theme::{ColorMode, Theme};
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::mpsc;

use super::action::{Action, Effect};
use super::events::{UiEvent, forward_app_events};
use super::extension_ui::TerminalUi;
use super::ui::{LookOptions, Ui};
use crate::app::{App, InputSource};
use crate::messages::CodingMessage;

/// The shortest time between two frames.
pub const FRAME: Duration = Duration::from_millis(16);
/// How long the size must stay the same after a resize before the whole
/// chat is printed again (until then only its last screenful is).
const RESIZE_SETTLE: Duration = Duration::from_millis(200);
/// The animation tick (spinner frames).
const TICK: Duration = Duration::from_millis(80);

/// The theme for this terminal: `dark` or `light` from `COLORFGBG`, the
/// colour mode from the environment (`NO_COLOR`, `TERM=dumb`, ...).
pub fn detect_theme() -> Arc<Theme> {
    let name = Theme::default_name(std::env::var("COLORFGBG").ok().as_deref());
    let mode = ColorMode::detect();
    Arc::new(Theme::builtin(name, mode).unwrap_or_else(|| Theme::dark(mode)))
}

/// pi-tui's terminal progress: indeterminate (OSC 9;4;3), repeated while on
/// (some terminals drop it after a while), and cleared (OSC 9;4;0).
const PROGRESS_ON: &str = "\x1b]9;4;3\x07";
const PROGRESS_OFF: &str = "\x1b]9;4;0;\x07";
const PROGRESS_KEEPALIVE: Duration = Duration::from_secs(1);

struct Screen {
    renderer: InlineRenderer<Stdout>,
    dirty: bool,
    last_frame: Instant,
    /// When the whole chat is printed again after a resize.
    full_reprint_at: Option<Instant>,
    /// When the progress indicator was last sent (while it is on).
    progress_sent: Option<Instant>,
}

impl Screen {
    fn draw(&mut self, ui: &mut Ui) -> io::Result<()> {
        let (width, rows) = (self.renderer.cols(), self.renderer.rows());
        let frame = ui.frame(width, rows);
        frame.draw(&mut self.renderer)?;
        if frame.progress_started {
            self.progress(true)?;
        }
        self.progress(frame.progress)?;
        self.dirty = false;
        self.last_frame = Instant::now();
        Ok(())
    }

    /// Turns the terminal's progress indicator on or off (`terminal.showTerminalProgress`),
    /// sending it again each second while it stays on.
    fn progress(&mut self, on: bool) -> io::Result<()> {
        let sequence = match (on, self.progress_sent) {
            (true, Some(sent)) if sent.elapsed() < PROGRESS_KEEPALIVE => return Ok(()),
            (true, _) => {
                self.progress_sent = Some(Instant::now());
                PROGRESS_ON
            }
            (false, Some(_)) => {
                self.progress_sent = None;
                PROGRESS_OFF
            }
            (false, None) => return Ok(()),
        };
        let out = self.renderer.writer_mut();
        out.write_all(sequence.as_bytes())?;
        out.flush()
    }

    /// The terminal's size changed: as pi, the screen and the scrollback are
    /// cleared and the chat is printed again for the new size. While the
    /// size keeps changing only its last screenful is (a long chat takes
    /// a while to lay out); the whole chat once it settles.
    fn resized(&mut self, ui: &mut Ui) -> io::Result<()> {
        let (cols, rows) = TerminalSession::size().map_err(io::Error::other)?;
        if usize::from(cols).max(1) != self.renderer.cols()
            || usize::from(rows).max(1) != self.renderer.rows()
        {
            self.renderer.resize(cols, rows);
            // Images are sized by the cell size, which a font change alters
            // (kept as it was when the terminal reports no pixels).
            if let Some(cell) = pi_tui::image::CellSize::from_terminal() {
                ui.view.images.cell = cell;
            }
            ui.request_tail_reprint();
            self.full_reprint_at = Some(Instant::now() + RESIZE_SETTLE);
            self.dirty = true;
        }
        Ok(())
    }

    /// After a suspend or the external editor (another program drew on the
    /// terminal, a resize may have gone unsignalled): as pi's forced full
    /// redraw, the screen and the scrollback are cleared and the chat is
    /// printed again at the current size.
    fn redraw_all(&mut self, ui: &mut Ui) -> io::Result<()> {
        let (cols, rows) = TerminalSession::size().map_err(io::Error::other)?;
        self.renderer.forget();
        self.renderer.resize(cols, rows);
        ui.request_reprint();
        self.dirty = true;
        Ok(())
    }

    /// Draws the last frame and leaves the cursor below it (exit, suspend).
    fn finish(&mut self, ui: &mut Ui) -> io::Result<()> {
        let (width, rows) = (self.renderer.cols(), self.renderer.rows());
        let frame = ui.frame(width, rows);
        if frame.clear {
            self.renderer.clear_all();
        }
        self.renderer.commit(&frame.commits);
        self.renderer.finish(&frame.live)
    }
}

/// Routes the extension hosts' output to the UI while it runs.
struct RoutedOutput;

impl RoutedOutput {
    fn start(tx: mpsc::UnboundedSender<Vec<u8>>) -> Self {
        crate::extensions::host::route_output(Some(Box::new(move |chunk| {
            let _ = tx.send(chunk);
        })));
        Self
    }
}

impl Drop for RoutedOutput {
    fn drop(&mut self) {
        crate::extensions::host::route_output(None);
    }
}

/// The text of `bytes` up to an incomplete UTF-8 sequence at its end,
/// which stays for the next chunk (invalid bytes become U+FFFD).
fn take_complete_utf8(bytes: &mut Vec<u8>) -> String {
    let keep = match std::str::from_utf8(bytes) {
        Ok(_) => 0,
        Err(e) if e.error_len().is_none() => bytes.len() - e.valid_up_to(),
        Err(_) => 0,
    };
    let rest = bytes.split_off(bytes.len() - keep);
    let text = String::from_utf8_lossy(bytes).into_owned();
    *bytes = rest;
    text
}

/// Runs the terminal UI until the user quits; returns the exit code.
pub async fn run_tui(
    app: Arc<App>,
    prompts: Vec<PromptInput<CodingMessage>>,
    look: LookOptions,
    pick_session: bool,
) -> i32 {
    match run_inner(app, prompts, look, pick_session).await {
        Ok(()) => 0,
        Err(e) => {
            pi_tui::terminal::restore();
            tracing::error!("terminal error: {e}");
            let _ = writeln!(io::stderr(), "pi: terminal error: {e}");
            1
        }
    }
}

async fn run_inner(
    app: Arc<App>,
    prompts: Vec<PromptInput<CodingMessage>>,
    look: LookOptions,
    pick_session: bool,
) -> io::Result<()> {
    let theme = detect_theme();
    let (tx, mut rx) = mpsc::unbounded_channel();
    forward_app_events(&app, tx.clone());
    let mut ui = Ui::new(Arc::clone(&app), theme, tx.clone());
    ui.install_look(look);
    ui.attach_extensions();
    ui.show_changelog_if_updated();
    tokio::spawn(super::theme_watch::poll(
        std::sync::Arc::clone(&ui.look.theme_file),
        tx.clone(),
    ));
    // As pi: with no usable model the UI still opens, saying how to log
    // in; a session model that could not be restored is named.
    if let Some(warning) = &app.model_fallback {
        ui.transcript
            .notice(super::blocks::Notice::Warning(warning.clone()));
    }
    ui.warn_about_anthropic_extra_usage();
    // The extensions get the terminal as their UI; `session_start` runs
    // while the loop already draws (a handler may open a dialog), and the
    // first prompt waits for it.
    // As pi: inside tmux, a warning when modified Enter keys cannot arrive.
    let warn = tx.clone();
    tokio::spawn(async move {
        if let Some(warning) = super::tmux::keyboard_warning().await {
            let _ = warn.send(UiEvent::Warning(warning));
        }
    });
    let extension_ui = TerminalUi::new(tx, Arc::clone(&ui.ext.mirror));
    let (bound_tx, mut bound) = tokio::sync::oneshot::channel::<()>();
    let binding = Arc::clone(&app);
    tokio::spawn(async move {
        binding
            .bind_extensions(Arc::new(extension_ui), InputSource::Interactive)
            .await;
        let _ = bound_tx.send(());
    });
    let mut binding = true;
    if pick_session {
        ui.dispatch(Action::OpenSessions { startup: true });
    }
    let mut initial: VecDeque<_> = prompts.into();
    let mut session =
        Some(TerminalSession::enter(SessionOptions::default()).map_err(io::Error::other)?);
    let (cols, rows) = TerminalSession::size().map_err(io::Error::other)?;
    let mut screen = Screen {
        renderer: InlineRenderer::new(io::stdout(), cols, rows),
        dirty: true,
        last_frame: Instant::now() - FRAME,
        full_reprint_at: None,
        progress_sent: None,
    };
    let title = app
        .cwd
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let _ = write!(screen.renderer.writer_mut(), "\x1b]0;π - {title}\x07");
    // As pi, where images are drawn: ask the cell size in pixels (`CSI 16 t`;
    // the reply is `Input::CellSize`).
    if ui.view.images.protocol.is_some() {
        let _ = write!(screen.renderer.writer_mut(), "\x1b[16t");
    }
    let mut input = Some(StdinReader::start()?);
    let mut parser = InputParser::new();
    let mut decoded = Vec::new();
    let mut next_tick = Instant::now() + TICK;
    // SIGTERM and SIGHUP end the session cleanly (terminal restored).
    let mut terminate = signal(SignalKind::terminate())?;
    let mut hangup = signal(SignalKind::hangup())?;
    let mut winch = signal(SignalKind::window_change())?;
    // What extension hosts print is written above the live region.
    let (output_tx, mut output_rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let _routed = RoutedOutput::start(output_tx);
    let mut output_tail = Vec::new();
    loop {
        if screen.dirty && screen.last_frame.elapsed() >= FRAME {
            screen.draw(&mut ui)?;
        }
        if ui.quit {
            break;
        }
        if app.extensions.shutdown_requested() && !app.agent.is_streaming() {
            break;
        }
        if !ui.work.running
            && !binding
            && let Some(next) = initial.pop_front()
        {
            ui.start_input(next);
            screen.dirty = true;
            continue;
        }
        let animating = ui.is_animating();
        let frame_at = screen.last_frame + FRAME;
        tokio::select! {
            bytes = read_input(&mut input) => {
                let Some(bytes) = bytes else { break };
                parser.feed(&bytes, &mut decoded);
                for item in decoded.drain(..) {
                    match item {
                        Input::Event(Event::Key(key)) => {
                            let effect = ui.handle_key(key);
                            apply(effect, &mut ui, &mut screen, &mut session, &mut input)?;
                        }
                        Input::Event(Event::Paste(text)) => ui.handle_paste(&text),
                        Input::Event(_) => {}
                        Input::CellSize { width_px, height_px } => {
                            ui.set_cell_size(width_px, height_px);
                        }
                        reply @ (Input::KittyFlags(_) | Input::DeviceAttributes) => {
                            if let Some(session) = &mut session {
                                session.on_reply(&reply).map_err(io::Error::other)?;
                            }
                        }
                    }
                }
                screen.dirty = true;
            }
            _ = winch.recv() => {
                screen.resized(&mut ui)?;
            }
            () = tokio::time::sleep_until(screen.full_reprint_at.unwrap_or(frame_at).into()),
                if screen.full_reprint_at.is_some() => {
                screen.full_reprint_at = None;
                screen.renderer.clear_all();
                ui.request_reprint();
                screen.dirty = true;
            }
            event = rx.recv() => {
                let Some(event) = event else { break };
                ui.handle_event(event);
                // Take what else is queued: one frame for a burst of deltas.
                while let Ok(event) = rx.try_recv() {
                    ui.handle_event(event);
                }
                screen.dirty = true;
            }
            Some(chunk) = output_rx.recv() => {
                output_tail.extend(chunk);
                while let Ok(more) = output_rx.try_recv() {
                    output_tail.extend(more);
                }
                let text = take_complete_utf8(&mut output_tail);
                if !text.is_empty() {
                    screen.renderer.interject(&text)?;
                    screen.dirty = true;
                }
            }
            () = tokio::time::sleep_until(next_tick.into()), if animating => {
                let now = Instant::now();
                next_tick = now + TICK;
                if ui.tick(now) {
                    screen.dirty = true;
                }
            }
            () = tokio::time::sleep_until(frame_at.into()), if screen.dirty => {}
            _ = &mut bound, if binding => binding = false,
            _ = terminate.recv() => ui.quit = true,
            _ = hangup.recv() => ui.quit = true,
        }
        if !animating {
            next_tick = Instant::now() + TICK;
        }
        ui.sync_mirror();
        if screen.progress_sent.is_some() {
            screen.progress(true)?;
        }
        if let Some(title) = ui.take_title() {
            let out = screen.renderer.writer_mut();
            write!(out, "\x1b]0;{title}\x07")?;
            out.flush()?;
        }
    }
    screen.finish(&mut ui)?;
    screen.progress(false)?;
    // As pi: the keyboard protocols off, then what is still coming (key
    // reports of the last keys) is read and dropped, so it does not reach
    // the shell.
    if let Some(session) = &mut session {
        session.leave_keyboard_modes();
    }
    if let Some(input) = &mut input {
        input
            .drain(Duration::from_secs(1), Duration::from_millis(50))
            .await;
    }
    drop(input);
    drop(session);
    Ok(())
}

/// The next bytes of terminal input (never, while the reader is stopped).
async fn read_input(input: &mut Option<StdinReader>) -> Option<Vec<u8>> {
    match input {
        Some(reader) => reader.recv().await,
        None => std::future::pending().await,
    }
}

/// Carries out what a key asked for.
fn apply(
    effect: Effect,
    ui: &mut Ui,
    screen: &mut Screen,
    session: &mut Option<TerminalSession>,
    input: &mut Option<StdinReader>,
) -> io::Result<()> {
    match effect {
        Effect::None => {}
        Effect::Quit => ui.quit = true,
        Effect::Suspend => {
            screen.finish(ui)?;
            if let Some(session) = session {
                session.suspend().map_err(io::Error::other)?;
            }
            screen.redraw_all(ui)?;
        }
        Effect::ExternalEditor => {
            screen.finish(ui)?;
            // Dropping the session restores the terminal for the editor (a
            // new one must not be entered before: the old one's drop would
            // leave raw mode again).
            *session = None;
            // The input reader must not compete with the editor for the terminal.
            *input = None;
            let edited = external_edit(&ui.editor.text());
            *session =
                Some(TerminalSession::enter(SessionOptions::default()).map_err(io::Error::other)?);
            *input = Some(StdinReader::start()?);
            screen.redraw_all(ui)?;
            match edited {
                Ok(Some(text)) => ui.editor.set_text(&text),
                Ok(None) => {}
                Err(message) => ui
                    .transcript
                    .notice(super::blocks::Notice::Warning(message.to_string())),
            }
        }
        Effect::Copy(text) => {
            if let Some(sequence) = super::clipboard::osc52(&text) {
                let out = screen.renderer.writer_mut();
                out.write_all(sequence.as_bytes())?;
                out.flush()?;
            }
        }
    }
    Ok(())
}

/// Why Ctrl+G's external editor gave no text (the warning shown).
#[derive(Debug, thiserror::Error)]
enum ExternalEditError {
    #[error("No editor configured. Set $VISUAL or $EDITOR environment variable.")]
    NoEditor,
    #[error("{0}")]
    File(#[from] io::Error),
    #[error("{program}: {error}")]
    Spawn { program: String, error: io::Error },
}

/// Ctrl+G: edits `text` in `$VISUAL` / `$EDITOR` (a temp file
/// `pi-editor-<ms>.pi.md`); the new text when the editor exits with 0.
fn external_edit(text: &str) -> Result<Option<String>, ExternalEditError> {
    let command = std::env::var("VISUAL")
        .or_else(|_| std::env::var("EDITOR"))
        .ok()
        .filter(|c| !c.trim().is_empty())
        .ok_or(ExternalEditError::NoEditor)?;
    let path = std::env::temp_dir().join(format!("pi-editor-{}.pi.md", pi_ai::now_ms()));
    std::fs::write(&path, text)?;
    let mut parts = command.split_whitespace();
    let program = parts.next().unwrap_or_default();
    let status = std::process::Command::new(program)
        .args(parts)
        .arg(&path)
        .status();
    let result = match status {
        Ok(s) if s.success() => std::fs::read_to_string(&path)
            .map(|t| Some(t.strip_suffix('\n').unwrap_or(&t).to_owned()))
            .map_err(ExternalEditError::File),
        Ok(_) => Ok(None),
        Err(error) => Err(ExternalEditError::Spawn {
            program: program.to_owned(),
            error,
        }),
    };
    let _ = std::fs::remove_file(&path);
    result
}

#[cfg(test)]
mod tests {
    use super::take_complete_utf8;

    #[test]
    fn a_character_split_across_chunks_waits_for_its_rest() {
        let mut bytes = "a→".as_bytes().to_vec();
        let last = bytes.pop().unwrap();
        assert_eq!(take_complete_utf8(&mut bytes), "a");
        assert_eq!(bytes.len(), 2);
        bytes.push(last);
        assert_eq!(take_complete_utf8(&mut bytes), "→");
        assert!(bytes.is_empty());
        let mut bad = vec![b'x', 0xff, b'y'];
        assert_eq!(take_complete_utf8(&mut bad), "x\u{fffd}y");
    }
}
