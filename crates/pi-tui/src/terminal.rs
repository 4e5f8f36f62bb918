//! The terminal modes pi needs (raw mode, bracketed paste, kitty keyboard flags or xterm's
//! modifyOtherKeys, hidden cursor), entered once and restored on drop, on suspend and before a
//! panic message prints.
//!
//! The keyboard is set up as pi does: at start the terminal is asked for its kitty keyboard
//! flags (`CSI ? u`) and its device attributes (`CSI c`). The answers arrive with the input
//! ([`crate::keys_in::Input`]) and go to [`TerminalSession::on_reply`]: a kitty reply pushes the
//! kitty flags (disambiguated Shift+Enter, ...); the device attributes coming without it turn on
//! modifyOtherKeys level 2 (`CSI > 4 ; 2 m`), which tmux (`extended-keys on`) and xterm answer
//! with `CSI 27 ; mod ; key ~` reports.

use std::io::{self, Write};
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::event::{
    DisableBracketedPaste, EnableBracketedPaste, KeyboardEnhancementFlags,
    PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::{cursor, execute, terminal};

#[cfg(unix)]
use crate::keys_in::Input;

/// Whether the modes are on (read by the panic hook).
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// Whether kitty flags were pushed (so they are popped on restore).
static KITTY: AtomicBool = AtomicBool::new(false);
/// Whether modifyOtherKeys was turned on (so it is reset on restore).
static MODIFY_OTHER_KEYS: AtomicBool = AtomicBool::new(false);
static HOOK: Once = Once::new();

thread_local! {
    /// How many [`catching_panics`] calls this thread is inside.
    static CAUGHT: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Runs `f`, whose panics the caller catches and reports itself (an
/// extension's handler): while it runs, a panic on this thread leaves the
/// terminal's modes as they are and prints nothing.
pub fn catching_panics<R>(f: impl FnOnce() -> R) -> R {
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            CAUGHT.with(|c| c.set(c.get().saturating_sub(1)));
        }
    }
    CAUGHT.with(|c| c.set(c.get() + 1));
    let _leave = Leave;
    f()
}

/// Whether a panic now is one a [`catching_panics`] caller catches.
fn panic_is_caught() -> bool {
    CAUGHT.with(std::cell::Cell::get) > 0
}

/// Errors entering or leaving terminal modes.
#[derive(Debug, thiserror::Error)]
pub enum TerminalError {
    /// The terminal refused a mode change (not a TTY, closed, ...).
    #[error("terminal I/O failed: {0}")]
    Io(#[from] io::Error),
}

/// Options for [`TerminalSession::enter`].
#[derive(Debug, Clone, Copy)]
pub struct SessionOptions {
    /// Ask for the kitty keyboard protocol (disambiguated Shift+Enter etc.) when supported.
    pub keyboard_enhancement: bool,
    /// Enable xterm modifyOtherKeys level 2 when the kitty protocol is not available (its
    /// `CSI 27;mod;key~` reports are decoded by [`crate::keys_in::InputParser`]).
    pub modify_other_keys: bool,
}

impl Default for SessionOptions {
    fn default() -> Self {
        Self {
            keyboard_enhancement: true,
            modify_other_keys: true,
        }
    }
}

/// The terminal in pi's interactive modes. Dropping it restores the terminal.
#[derive(Debug)]
pub struct TerminalSession {
    options: SessionOptions,
}

impl TerminalSession {
    /// Enters raw mode with bracketed paste and a hidden cursor, asks for the keyboard
    /// protocols (see the module documentation), and installs (once per process) a panic hook
    /// that restores the terminal before the panic message is printed.
    pub fn enter(options: SessionOptions) -> Result<Self, TerminalError> {
        install_panic_hook();
        enter_modes(options)?;
        Ok(Self { options })
    }

    /// The terminal size as (columns, rows).
    pub fn size() -> Result<(u16, u16), TerminalError> {
        Ok(terminal::size()?)
    }

    /// Restores the terminal, stops the process (SIGTSTP, as Ctrl+Z in a shell) and, once the
    /// shell resumes it, enters the modes again. The caller redraws everything afterwards.
    pub fn suspend(&mut self) -> Result<(), TerminalError> {
        restore();
        #[cfg(unix)]
        {
            use nix::sys::signal::{Signal, raise};
            raise(Signal::SIGTSTP).map_err(|e| TerminalError::Io(io::Error::from(e)))?;
        }
        enter_modes(self.options)?;
        Ok(())
    }

    /// Acts on a reply to the start-up queries: pushes the kitty flags when the terminal has
    /// the protocol, else turns on modifyOtherKeys once the device attributes arrive.
    #[cfg(unix)]
    pub fn on_reply(&mut self, reply: &Input) -> Result<(), TerminalError> {
        let mut out = io::stdout();
        match reply {
            Input::KittyFlags(_)
                if self.options.keyboard_enhancement && !KITTY.swap(true, Ordering::SeqCst) =>
            {
                execute!(
                    out,
                    PushKeyboardEnhancementFlags(
                        KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES
                            | KeyboardEnhancementFlags::REPORT_ALTERNATE_KEYS
                    )
                )?;
            }
            Input::DeviceAttributes
                if self.options.modify_other_keys
                    && !KITTY.load(Ordering::SeqCst)
                    && !MODIFY_OTHER_KEYS.swap(true, Ordering::SeqCst) =>
            {
                out.write_all(b"\x1b[>4;2m")?;
                out.flush()?;
            }
            _ => {}
        }
        Ok(())
    }

    /// Turns the keyboard protocols off (before stdin is drained at exit: keys typed then
    /// reach the shell in its own encoding).
    pub fn leave_keyboard_modes(&mut self) {
        leave_keyboard_modes();
    }

    /// Leaves the modes now (also done on drop).
    pub fn restore(&mut self) {
        restore();
    }
}

impl Drop for TerminalSession {
    fn drop(&mut self) {
        restore();
    }
}

fn enter_modes(options: SessionOptions) -> Result<(), TerminalError> {
    terminal::enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    let mut out = io::stdout();
    execute!(out, EnableBracketedPaste, cursor::Hide)?;
    if options.keyboard_enhancement || options.modify_other_keys {
        // The kitty flags, then the device attributes (answered by every terminal).
        out.write_all(b"\x1b[?u\x1b[c")?;
        out.flush()?;
    }
    Ok(())
}

fn leave_keyboard_modes() {
    let mut out = io::stdout();
    if KITTY.swap(false, Ordering::SeqCst) {
        let _ = execute!(out, PopKeyboardEnhancementFlags);
    }
    if MODIFY_OTHER_KEYS.swap(false, Ordering::SeqCst) {
        let _ = out.write_all(b"\x1b[>4;0m");
        let _ = out.flush();
    }
}

/// Restores the terminal if a session is active: pops keyboard flags, resets
/// modifyOtherKeys, disables bracketed paste, shows the cursor, resets styles and leaves raw
/// mode. Safe to call more than once.
pub fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    leave_keyboard_modes();
    let mut out = io::stdout();
    let _ = out.write_all(b"\x1b[>4;0m\x1b[0m\x1b[?2026l");
    let _ = execute!(out, DisableBracketedPaste, cursor::Show);
    let _ = out.flush();
    let _ = terminal::disable_raw_mode();
}

fn install_panic_hook() {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if panic_is_caught() {
                return;
            }
            if ACTIVE.load(Ordering::SeqCst) {
                // Leave the live region intact and start the message on a fresh line.
                let _ = io::stdout().write_all(b"\r\n");
                restore();
            }
            previous(info);
        }));
    });
}
