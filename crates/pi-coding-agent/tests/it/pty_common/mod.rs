//! The pseudo-terminal harness of the interactive end-to-end tests: the real `pi`
//! binary in a pty (`portable-pty`), its output parsed by a terminal emulator
//! (`vt100`), and SSE answers for the loopback mock.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::e2e_common::Scenario;
use pi_test_support::mock_server::MockResponse;
use pi_tui::testing::TestTerminal;
use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};
use serde_json::json;

/// How long any expected screen may take to appear.
pub const TIMEOUT: Duration = Duration::from_secs(30);

pub fn chunk(id: &str, delta: serde_json::Value, finish: Option<&str>) -> String {
    let body = json!({
        "id": id, "object": "chat.completion.chunk", "created": 1_767_225_601, "model": "mock-gpt",
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
    });
    format!("data: {body}\n\n")
}

/// An OpenAI-completions SSE answer streaming `parts` as text.
pub fn text_answer(parts: &[&str], prompt_tokens: u64, completion_tokens: u64) -> Vec<String> {
    let id = "chatcmpl-tui";
    let mut frames = vec![chunk(id, json!({"role": "assistant", "content": ""}), None)];
    frames.extend(parts.iter().map(|p| chunk(id, json!({"content": p}), None)));
    frames.push(chunk(id, json!({}), Some("stop")));
    let usage = json!({
        "id": id, "object": "chat.completion.chunk", "created": 1_767_225_601, "model": "mock-gpt",
        "choices": [],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    });
    frames.push(format!("data: {usage}\n\n"));
    frames.push("data: [DONE]\n\n".to_owned());
    frames
}

pub fn slow(frames: Vec<String>, delay: Duration) -> MockResponse {
    MockResponse::Sse { frames, delay }
}

/// Lines of scrollback the emulator keeps (more than any test prints, so
/// nothing scrolls out of it).
pub const SCROLLBACK: usize = 20_000;

/// `pi` running in a pseudo-terminal.
pub struct Tui {
    /// The terminal emulator: `vt100` with its scrollback, scroll on clear
    /// (as tmux) and `CSI 3 J` (see `pi_tui::testing`).
    pub parser: Arc<Mutex<TestTerminal>>,
    pub raw: Arc<Mutex<Vec<u8>>>,
    pub writer: Box<dyn Write + Send>,
    pub child: Box<dyn Child + Send + Sync>,
    master: Box<dyn MasterPty + Send>,
}

impl Tui {
    pub fn start(s: &Scenario, extra: &[&str], cols: u16, rows: u16) -> Self {
        Self::start_program(env!("CARGO_BIN_EXE_pi"), &[], s, extra, cols, rows)
    }

    /// `program` (a `pi` with extensions of its own) instead of `pi`, with
    /// `env` besides the usual environment.
    pub fn start_program(
        program: &str,
        env: &[(&str, &str)],
        s: &Scenario,
        extra: &[&str],
        cols: u16,
        rows: u16,
    ) -> Self {
        let size = PtySize {
            rows,
            cols,
            pixel_width: 0,
            pixel_height: 0,
        };
        Self::start_sized(program, env, s, extra, size)
    }

    /// [`Tui::start_program`] in a terminal of `size`, which may report its
    /// size in pixels as well.
    pub fn start_sized(
        program: &str,
        env: &[(&str, &str)],
        s: &Scenario,
        extra: &[&str],
        size: PtySize,
    ) -> Self {
        Self::spawn(program, env, s, Some("mock-oai/mock-gpt"), extra, size)
    }

    /// `pi ARGS` with no `--model`, as a user without any configuration starts it.
    pub fn start_without_model(s: &Scenario, extra: &[&str], cols: u16, rows: u16) -> Self {
        let size = PtySize {
            rows,
            cols,
            pixel_width: 0,
            pixel_height: 0,
        };
        Self::spawn(env!("CARGO_BIN_EXE_pi"), &[], s, None, extra, size)
    }

    /// `pi --model MODEL` with `env` besides the usual environment.
    pub fn start_model(
        s: &Scenario,
        model: &str,
        env: &[(&str, &str)],
        cols: u16,
        rows: u16,
    ) -> Self {
        let size = PtySize {
            rows,
            cols,
            pixel_width: 0,
            pixel_height: 0,
        };
        Self::spawn(env!("CARGO_BIN_EXE_pi"), env, s, Some(model), &[], size)
    }

    fn spawn(
        program: &str,
        env: &[(&str, &str)],
        s: &Scenario,
        model: Option<&str>,
        extra: &[&str],
        size: PtySize,
    ) -> Self {
        let (cols, rows) = (size.cols, size.rows);
        let pty = native_pty_system().openpty(size).unwrap();
        let mut cmd = CommandBuilder::new(program);
        let sessions = s.sessions_dir();
        cmd.args(["--session-dir", sessions.to_str().unwrap()]);
        if let Some(model) = model {
            cmd.args(["--model", model]);
        }
        cmd.args(extra);
        cmd.cwd(s.work.path());
        cmd.env_clear();
        cmd.env("PATH", std::env::var("PATH").unwrap_or_default());
        cmd.env("HOME", s.agent_dir.path());
        cmd.env("PI_CODING_AGENT_DIR", s.agent_dir.path());
        cmd.env("TERM", "xterm-256color");
        cmd.env("TZ", "UTC");
        for (key, value) in env {
            cmd.env(key, value);
        }
        let child = pty.slave.spawn_command(cmd).unwrap();
        drop(pty.slave);
        let parser = Arc::new(Mutex::new(TestTerminal::new(rows, cols, SCROLLBACK)));
        let raw = Arc::new(Mutex::new(Vec::new()));
        let mut reader = pty.master.try_clone_reader().unwrap();
        let writer = pty.master.take_writer().unwrap();
        let (p, r) = (Arc::clone(&parser), Arc::clone(&raw));
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                p.lock().unwrap().process(&buf[..n]);
                r.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        let mut tui = Self {
            parser,
            raw,
            writer,
            child,
            master: pty.master,
        };
        tui.answer_queries();
        tui
    }

    /// Replies to the device-attributes query crossterm sends at start
    /// (no kitty keyboard protocol), so startup does not wait for a timeout.
    pub fn answer_queries(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if self.raw_contains("\x1b[c") {
                self.send("\x1b[?62;22c");
                return;
            }
            if self.screen().contains("pi v") {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn raw_contains(&self, needle: &str) -> bool {
        let raw = self.raw.lock().unwrap();
        raw.windows(needle.len()).any(|w| w == needle.as_bytes())
    }

    /// Waits until `pi` has written `needle`.
    pub fn wait_raw(&self, needle: &str, what: &str) {
        let deadline = Instant::now() + TIMEOUT;
        while !self.raw_contains(needle) {
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    pub fn screen(&self) -> String {
        self.parser.lock().unwrap().parser().screen().contents()
    }

    /// The scrollback followed by the screen.
    pub fn everything(&self) -> String {
        let mut text = self.parser.lock().unwrap().history().join("\n");
        text.push('\n');
        text
    }

    /// Resizes the terminal (the emulator first, then the pty, which
    /// signals `pi`). Like `vt100`, the emulator does not re-wrap lines.
    pub fn resize(&mut self, cols: u16, rows: u16) {
        self.parser.lock().unwrap().set_size(rows, cols);
        self.master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
    }

    pub fn send(&mut self, text: &str) {
        self.writer.write_all(text.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    /// Types `text` and presses Enter.
    pub fn submit(&mut self, text: &str) {
        self.send(text);
        self.wait_screen(|s| s.contains(text), &format!("the typed text {text:?}"));
        self.send("\r");
    }

    pub fn wait_screen(&self, ok: impl Fn(&str) -> bool, what: &str) -> String {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let screen = self.screen();
            if ok(&screen) {
                return screen;
            }
            if Instant::now() > deadline {
                panic!("timed out waiting for {what}; screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    pub fn wait_all(&self, ok: impl Fn(&str) -> bool, what: &str) -> String {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let all = self.everything();
            if ok(&all) {
                return all;
            }
            if Instant::now() > deadline {
                panic!("timed out waiting for {what}; screen and scrollback:\n{all}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// `/login`, then the API key method and `provider`'s entry, up to
    /// the key prompt (with subscriptions offered, pi asks for the method
    /// first).
    pub fn login_with_api_key(&mut self, provider: &str) {
        self.submit("/login");
        self.wait_screen(
            |s| s.contains("Select authentication method:"),
            "the method step",
        );
        self.send("\x1b[B");
        self.wait_screen(|s| s.contains("→ Use an API key"), "API key selected");
        self.send("\r");
        self.wait_screen(
            |s| s.contains("Select provider to configure:"),
            "the provider list",
        );
        self.send(provider);
        let selected = format!("→ {provider}");
        self.wait_screen(|s| s.contains(&selected), "the provider selected");
        self.send("\r");
        self.wait_screen(|s| s.contains("Enter API key:"), "the key prompt");
    }

    pub fn wait_exit(&mut self) -> portable_pty::ExitStatus {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("pi did not exit; screen:\n{}", self.screen());
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Ctrl+D on the empty editor.
    pub fn quit(&mut self) -> portable_pty::ExitStatus {
        self.send("\x04");
        self.wait_exit()
    }
}

impl Drop for Tui {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

/// The `n` items of a long answer, one markdown list item per delta.
pub fn items(n: usize) -> Vec<String> {
    (1..=n)
        .map(|i| format!("- item {i:03} of the answer\n"))
        .collect()
}

/// The rows of `all` that are items of the long answer, in order.
pub fn item_rows(all: &str) -> Vec<String> {
    all.lines()
        .map(str::trim)
        .filter(|l| l.starts_with("- item "))
        .map(str::to_owned)
        .collect()
}

/// The rows `item_rows` must find for `n` items.
pub fn expected_items(n: usize) -> Vec<String> {
    (1..=n)
        .map(|i| format!("- item {i:03} of the answer"))
        .collect()
}
