//! The terminal loop: one `tokio::select!` over terminal events (keys,
//! pastes, resizes), the app's events, a tick timer that only runs while
//! something animates, and the next frame's deadline. Renders are
//! coalesced to at most one frame per 16 ms; nothing runs while idle.

use std::collections::VecDeque;
use std::io::{self, Stdout, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use pi_agent_core::PromptInput;
use pi_tui::crossterm::event::{Event, EventStream};
use pi_tui::renderer::InlineRenderer;
use pi_tui::terminal::{SessionOptions, TerminalSession};
use pi_tui::theme::{ColorMode, Theme};
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::mpsc;

use super::action::{Action, Effect};
use super::events::forward_app_events;
use super::extension_ui::TerminalUi;
use super::ui::{LookOptions, Ui};
use crate::app::{App, InputSource};
use crate::messages::CodingMessage;

/// The shortest time between two frames.
pub const FRAME: Duration = Duration::from_millis(16);
/// The animation tick (spinner frames).
const TICK: Duration = Duration::from_millis(80);

/// The theme for this terminal: `dark` or `light` from `COLORFGBG`, the
/// colour mode from the environment (`NO_COLOR`, `TERM=dumb`, ...).
pub fn detect_theme() -> Arc<Theme> {
    let name = Theme::default_name(std::env::var("COLORFGBG").ok().as_deref());
    let mode = ColorMode::detect();
    Arc::new(Theme::builtin(name, mode).unwrap_or_else(|| Theme::dark(mode)))
}

struct Screen {
    renderer: InlineRenderer<Stdout>,
    dirty: bool,
    last_frame: Instant,
}

impl Screen {
    fn draw(&mut self, ui: &mut Ui) -> io::Result<()> {
        let (width, rows) = (self.renderer.cols(), self.renderer.rows());
        if ui.view.reprint {
            self.renderer.clear_all()?;
        }
        let commits = ui.take_commits(width);
        if !commits.is_empty() {
            self.renderer.commit(&commits);
        }
        let live = ui.live_lines(width, rows);
        self.renderer.draw(&live)?;
        self.dirty = false;
        self.last_frame = Instant::now();
        Ok(())
    }
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
    // The extensions get the terminal as their UI; `session_start` runs
    // while the loop already draws (a handler may open a dialog), and the
    // first prompt waits for it.
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
    };
    let title = app
        .cwd
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let _ = write!(screen.renderer.writer_mut(), "\x1b]0;π - {title}\x07");
    let mut events = EventStream::new();
    let mut next_tick = Instant::now() + TICK;
    // SIGTERM and SIGHUP end the session cleanly (terminal restored).
    let mut terminate = signal(SignalKind::terminate())?;
    let mut hangup = signal(SignalKind::hangup())?;
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
            event = events.next() => {
                let Some(Ok(event)) = event else { break };
                match event {
                    Event::Key(key) => {
                        let effect = ui.handle_key(key);
                        apply(effect, &mut ui, &mut screen, &mut session, &mut events)?;
                    }
                    Event::Paste(text) => ui.handle_paste(&text),
                    Event::Resize(cols, rows) => {
                        let width = usize::from(cols).max(1);
                        let commits = ui.take_commits(width);
                        screen.renderer.commit(&commits);
                        let live = ui.live_lines(width, usize::from(rows).max(1));
                        screen.renderer.resize(cols, rows, &live)?;
                    }
                    _ => {}
                }
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
        if let Some(title) = ui.take_title() {
            let out = screen.renderer.writer_mut();
            write!(out, "\x1b]0;{title}\x07")?;
            out.flush()?;
        }
    }
    let width = screen.renderer.cols();
    let commits = ui.take_commits(width);
    screen.renderer.commit(&commits);
    let live = ui.live_lines(width, screen.renderer.rows());
    screen.renderer.finish(&live)?;
    drop(session);
    Ok(())
}

/// Carries out what a key asked for.
fn apply(
    effect: Effect,
    ui: &mut Ui,
    screen: &mut Screen,
    session: &mut Option<TerminalSession>,
    events: &mut EventStream,
) -> io::Result<()> {
    match effect {
        Effect::None => {}
        Effect::Quit => ui.quit = true,
        Effect::Suspend => {
            let live = ui.live_lines(screen.renderer.cols(), screen.renderer.rows());
            screen.renderer.finish(&live)?;
            if let Some(session) = session {
                session.suspend().map_err(io::Error::other)?;
            }
            screen.renderer.forget();
        }
        Effect::ExternalEditor => {
            let live = ui.live_lines(screen.renderer.cols(), screen.renderer.rows());
            screen.renderer.finish(&live)?;
            // Dropping the session restores the terminal for the editor (a
            // new one must not be entered before: the old one's drop would
            // leave raw mode again).
            *session = None;
            // The event reader must not compete with the editor for the terminal.
            *events = EventStream::new();
            let edited = external_edit(&ui.editor.text());
            *session =
                Some(TerminalSession::enter(SessionOptions::default()).map_err(io::Error::other)?);
            screen.renderer.forget();
            match edited {
                Ok(Some(text)) => ui.editor.set_text(&text),
                Ok(None) => {}
                Err(message) => ui
                    .transcript
                    .notice(super::blocks::Notice::Warning(message)),
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

/// Ctrl+G: edits `text` in `$VISUAL` / `$EDITOR` (a temp file
/// `pi-editor-<ms>.pi.md`); the new text when the editor exits with 0.
fn external_edit(text: &str) -> Result<Option<String>, String> {
    let command = std::env::var("VISUAL")
        .or_else(|_| std::env::var("EDITOR"))
        .ok()
        .filter(|c| !c.trim().is_empty())
        .ok_or("No editor configured. Set $VISUAL or $EDITOR environment variable.")?;
    let path = std::env::temp_dir().join(format!("pi-editor-{}.pi.md", pi_ai::now_ms()));
    std::fs::write(&path, text).map_err(|e| e.to_string())?;
    let mut parts = command.split_whitespace();
    let program = parts.next().unwrap_or_default();
    let status = std::process::Command::new(program)
        .args(parts)
        .arg(&path)
        .status();
    let result = match status {
        Ok(s) if s.success() => std::fs::read_to_string(&path)
            .map(|t| Some(t.strip_suffix('\n').unwrap_or(&t).to_owned()))
            .map_err(|e| e.to_string()),
        Ok(_) => Ok(None),
        Err(e) => Err(format!("{program}: {e}")),
    };
    let _ = std::fs::remove_file(&path);
    result
}
