//! `pi` inside a real tmux server (its own socket, no user config): keys sent
//! with `send-keys`, the pane and its history read with `capture-pane`.
//! tmux keeps a scrollback, re-wraps on resize and encodes modified keys
//! itself, which `vt100` does not.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::e2e_common::Scenario;

/// How long any expected pane may take to appear.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// A tmux server with one window running `pi`.
pub struct TmuxPi {
    socket: PathBuf,
    _dir: tempfile::TempDir,
}

impl TmuxPi {
    /// Starts `pi` (the loopback mock's model, `extra` arguments) in a
    /// `cols` x `rows` tmux window with `options` set first (for example
    /// `extended-keys on`). `None` when tmux is missing outside CI.
    pub fn start(
        s: &Scenario,
        extra: &[&str],
        options: &[(&str, &str)],
        cols: u16,
        rows: u16,
    ) -> Option<Self> {
        pi_test_support::external::tmux()?;
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("tmux.sock");
        let conf = dir.path().join("tmux.conf");
        let mut text = String::from("set -g history-limit 50000\nset -g status off\n");
        for (option, value) in options {
            text.push_str(&format!("set -g {option} {value}\n"));
        }
        std::fs::write(&conf, text).unwrap();
        let sessions = s.sessions_dir();
        let mut pi = vec![
            env!("CARGO_BIN_EXE_pi").to_owned(),
            "--session-dir".to_owned(),
            sessions.to_str().unwrap().to_owned(),
            "--model".to_owned(),
            "mock-oai/mock-gpt".to_owned(),
        ];
        pi.extend(extra.iter().map(|a| (*a).to_owned()));
        let env = [
            ("HOME", s.agent_dir.path().to_str().unwrap()),
            ("PI_CODING_AGENT_DIR", s.agent_dir.path().to_str().unwrap()),
            ("TZ", "UTC"),
        ];
        let tmux = Self { socket, _dir: dir };
        let (cols, rows) = (cols.to_string(), rows.to_string());
        let mut args = vec![
            "-f",
            conf.to_str().unwrap(),
            "new-session",
            "-d",
            "-x",
            &cols,
            "-y",
            &rows,
            "-c",
            s.work.path().to_str().unwrap(),
        ];
        let env_args: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        for e in &env_args {
            args.extend(["-e", e.as_str()]);
        }
        args.extend(pi.iter().map(String::as_str));
        let out = tmux.run(&args);
        assert!(out.status.success(), "tmux new-session: {out:?}");
        // The window keeps its size whatever clients attach (none do).
        tmux.run(&["set", "-g", "window-size", "manual"]);
        Some(tmux)
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .env_remove("TMUX")
            .output()
            .unwrap()
    }

    /// Sends keys in tmux's key names (`Enter`, `S-Enter`, `C-c`, ...).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "0"];
        args.extend_from_slice(keys);
        let out = self.run(&args);
        assert!(out.status.success(), "send-keys: {out:?}");
    }

    /// Types `text` literally.
    pub fn type_text(&self, text: &str) {
        let out = self.run(&["send-keys", "-t", "0", "-l", text]);
        assert!(out.status.success(), "send-keys: {out:?}");
    }

    /// The visible pane.
    pub fn screen(&self) -> String {
        let out = self.run(&["capture-pane", "-p", "-t", "0"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The pane's history and the visible pane (lines joined where tmux
    /// wrapped them: `-J`).
    pub fn everything(&self) -> String {
        let out = self.run(&["capture-pane", "-p", "-J", "-S", "-", "-E", "-", "-t", "0"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Resizes the window.
    pub fn resize(&self, cols: u16, rows: u16) {
        let out = self.run(&[
            "resize-window",
            "-t",
            "0",
            "-x",
            &cols.to_string(),
            "-y",
            &rows.to_string(),
        ]);
        assert!(out.status.success(), "resize-window: {out:?}");
    }

    pub fn wait_screen(&self, ok: impl Fn(&str) -> bool, what: &str) -> String {
        self.wait(|| self.screen(), ok, what)
    }

    pub fn wait_all(&self, ok: impl Fn(&str) -> bool, what: &str) -> String {
        self.wait(|| self.everything(), ok, what)
    }

    fn wait(&self, read: impl Fn() -> String, ok: impl Fn(&str) -> bool, what: &str) -> String {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let text = read();
            if ok(&text) {
                return text;
            }
            if Instant::now() > deadline {
                panic!("timed out waiting for {what}; pane:\n{text}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// True while `pi` runs in the pane.
    pub fn alive(&self) -> bool {
        let out = self.run(&["list-panes", "-t", "0", "-F", "#{pane_dead}"]);
        out.status.success() && String::from_utf8_lossy(&out.stdout).trim() == "0"
    }
}

impl Drop for TmuxPi {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}
