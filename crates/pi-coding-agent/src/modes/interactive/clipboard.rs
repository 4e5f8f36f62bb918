//! `/copy`: the platform clipboard tools first (`wl-copy` under Wayland,
//! `xclip` / `xsel` under X11, `pbcopy` on macOS), then OSC 52 (at most
//! 100 kB, written by the terminal loop) when none worked or the session is
//! remote (SSH), as pi does.

use std::io::Write;
use std::process::{Command, Stdio};

use base64::Engine;

/// The largest text sent with OSC 52.
const OSC52_MAX: usize = 100_000;

fn pipe_to(program: &str, args: &[&str], text: &str) -> bool {
    let Ok(mut child) = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    else {
        return false;
    };
    let written = child
        .stdin
        .take()
        .is_some_and(|mut stdin| stdin.write_all(text.as_bytes()).is_ok());
    child.wait().is_ok_and(|s| s.success()) && written
}

/// Copies with a platform tool; true when one succeeded.
pub fn copy_with_tools(text: &str) -> bool {
    if cfg!(target_os = "macos") {
        return pipe_to("pbcopy", &[], text);
    }
    if std::env::var_os("WAYLAND_DISPLAY").is_some() && pipe_to("wl-copy", &[], text) {
        return true;
    }
    std::env::var_os("DISPLAY").is_some()
        && (pipe_to("xclip", &["-selection", "clipboard"], text)
            || pipe_to("xsel", &["--clipboard", "--input"], text))
}

/// True in an SSH session (the local clipboard is not the user's).
pub fn is_remote() -> bool {
    std::env::var_os("SSH_CONNECTION").is_some() || std::env::var_os("SSH_TTY").is_some()
}

/// The OSC 52 sequence that sets the clipboard to `text` (`None` when too long).
pub fn osc52(text: &str) -> Option<String> {
    let encoded = base64::engine::general_purpose::STANDARD.encode(text);
    (encoded.len() <= OSC52_MAX).then(|| format!("\x1b]52;c;{encoded}\x07"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc52_encodes_and_limits() {
        assert_eq!(osc52("hi").as_deref(), Some("\x1b]52;c;aGk=\x07"));
        assert!(osc52(&"x".repeat(200_000)).is_none());
    }
}
