//! A loopback LLM mock for whole-command benchmarks: it reads each request
//! (head, then as many body bytes as announced) without parsing the body,
//! and answers with a canned SSE body chosen by the request path, so it
//! costs every client the same.

use crate::error::TaskError;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;

/// The canned answer of each wire, by the endpoint it is served on.
#[derive(Debug, Clone, Default)]
pub struct Answers {
    /// `POST /v1/chat/completions`.
    pub completions: String,
    /// `POST /v1/messages`.
    pub anthropic: String,
    /// `POST /v1/responses`.
    pub responses: String,
    /// `POST /v1beta/models/...:streamGenerateContent`.
    pub google: String,
}

/// The capture folder suffix of each wire in `fixtures/pi-0.73.1`, with
/// the provider/model of `models.json` that speaks it.
pub const WIRES: [(&str, &str, &str); 4] = [
    ("anthropic-messages", "ant", "mock-ant/mock-claude"),
    ("openai-completions", "oai", "mock-oai/mock-gpt"),
    ("openai-responses", "resp", "mock-resp/mock-resp"),
    ("google-generative-ai", "goog", "mock-goog/mock-gemini"),
];

/// The SSE frames pi 0.73.1 was answered with in its `a-text-<suffix>` capture.
fn recorded_frames(fixtures: &Path, suffix: &str) -> Result<Vec<String>, TaskError> {
    let path = fixtures.join(format!("a-text-{suffix}/responses.jsonl"));
    let text = std::fs::read_to_string(&path).map_err(TaskError::file(&path))?;
    let first = text.lines().next().unwrap_or_default();
    let value: serde_json::Value = serde_json::from_str(first)
        .map_err(|e| TaskError::Invalid(format!("{}: {e}", path.display())))?;
    value["sse"]
        .as_array()
        .map(|frames| {
            frames
                .iter()
                .filter_map(|f| f.as_str().map(str::to_owned))
                .collect()
        })
        .ok_or_else(|| TaskError::Invalid(format!("{}: no sse frames", path.display())))
}

/// The recorded answer of a wire, its middle text delta (the frame holding
/// "a mock model") repeated until the body has at least `bytes` bytes.
pub fn answer(fixtures: &Path, suffix: &str, bytes: usize) -> Result<String, TaskError> {
    let frames = recorded_frames(fixtures, suffix)?;
    let at = frames
        .iter()
        .position(|f| f.contains("a mock model"))
        .ok_or_else(|| TaskError::Invalid(format!("a-text-{suffix}: no middle delta")))?;
    let fixed: usize = frames.iter().map(String::len).sum();
    let repeat = bytes.saturating_sub(fixed).div_ceil(frames[at].len()) + 1;
    let mut body = String::with_capacity(fixed + repeat * frames[at].len());
    for (i, frame) in frames.iter().enumerate() {
        for _ in 0..if i == at { repeat } else { 1 } {
            body.push_str(frame);
        }
    }
    Ok(body)
}

impl Answers {
    /// Every wire's recorded answer, grown to `bytes` bytes (0: as recorded).
    pub fn recorded(fixtures: &Path, bytes: usize) -> Result<Self, TaskError> {
        Ok(Self {
            anthropic: answer(fixtures, "ant", bytes)?,
            completions: answer(fixtures, "oai", bytes)?,
            responses: answer(fixtures, "resp", bytes)?,
            google: answer(fixtures, "goog", bytes)?,
        })
    }

    fn for_path(&self, path: &str) -> &str {
        if path.contains("/chat/completions") {
            &self.completions
        } else if path.contains("/messages") {
            &self.anthropic
        } else if path.contains("/responses") {
            &self.responses
        } else {
            &self.google
        }
    }
}

/// A running mock; it stops with the process.
pub struct Loopback {
    port: u16,
}

impl Loopback {
    /// Listens on 127.0.0.1 (a free port), one thread per connection.
    pub fn start(answers: Answers) -> Result<Self, TaskError> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .map_err(|e| TaskError::Failed(format!("mock server: {e}")))?;
        let port = listener
            .local_addr()
            .map_err(|e| TaskError::Failed(format!("mock server: {e}")))?
            .port();
        let answers = Arc::new(answers);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let answers = Arc::clone(&answers);
                std::thread::spawn(move || serve(stream, &answers));
            }
        });
        Ok(Self { port })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

/// Reads one request (the body counted, never parsed) and answers it.
fn serve(mut stream: TcpStream, answers: &Answers) {
    let mut buffer = Vec::with_capacity(1 << 16);
    let mut chunk = vec![0u8; 1 << 16];
    let head_end = loop {
        let from = buffer.len().saturating_sub(chunk.len() + 3);
        if let Some(at) = buffer[from..].windows(4).position(|w| w == b"\r\n\r\n") {
            break from + at + 4;
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => buffer.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_ascii_lowercase();
    let path = head.split(' ').nth(1).unwrap_or_default().to_owned();
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok());
    let chunked = head.contains("transfer-encoding: chunked");
    let mut seen = buffer.len() - head_end;
    let mut tail = buffer[head_end..].to_vec();
    loop {
        let done = match length {
            Some(length) => seen >= length,
            None => !chunked || tail.ends_with(b"0\r\n\r\n"),
        };
        if done {
            break;
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                seen += n;
                if chunked {
                    tail.extend_from_slice(&chunk[..n]);
                    let keep = tail.len().saturating_sub(8);
                    tail.drain(..keep);
                }
            }
        }
    }
    let body = answers.for_path(&path);
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(body.as_bytes()));
    let _ = stream.shutdown(Shutdown::Write);
    // Let the client close first, so the answer is never cut by a reset.
    let _ = stream.read(&mut chunk);
}

#[cfg(test)]
#[path = "loopback_tests.rs"]
mod tests;
