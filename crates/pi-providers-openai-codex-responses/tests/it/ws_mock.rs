//! A loopback WebSocket server for the Codex transport: it records each
//! handshake's headers and each message received, and answers every
//! message with the next scripted reply (events, then optionally a close
//! frame or silence).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::server::{Request, Response};
use tokio_tungstenite::tungstenite::protocol::CloseFrame;

/// How the server ends a reply.
#[derive(Debug, Clone)]
pub enum Then {
    /// Waits for the next message.
    Wait,
    /// Sends a close frame with this code and reason.
    Close(u16, &'static str),
    /// Stays silent.
    Hang,
}

/// One scripted answer to one message.
#[derive(Debug, Clone)]
pub struct Reply {
    /// Event texts, sent in order.
    pub events: Vec<String>,
    /// What follows them.
    pub then: Then,
}

/// A message the server received.
#[derive(Debug, Clone)]
pub struct Received {
    /// 1-based number of the connection it came on.
    pub connection: usize,
    /// The message as JSON.
    pub message: Value,
}

#[derive(Default)]
struct State {
    handshakes: Vec<(String, Vec<(String, String)>)>,
    messages: Vec<Received>,
    script: VecDeque<Reply>,
    closed: usize,
}

/// A running server; stops when dropped.
pub struct WsMock {
    port: u16,
    state: Arc<Mutex<State>>,
    task: JoinHandle<()>,
}

/// The `data:` payloads of an SSE fixture of this wire, as socket events.
pub fn events_of(file: &str) -> Vec<String> {
    let path = pi_test_support::fixtures::sse_dir("openai-codex-responses").join(file);
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(str::to_owned)
        .collect()
}

impl WsMock {
    /// Starts a server answering with `script` in order.
    pub async fn start(script: impl IntoIterator<Item = Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let state = Arc::new(Mutex::new(State {
            script: script.into_iter().collect(),
            ..State::default()
        }));
        let shared = Arc::clone(&state);
        let task = tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let state = Arc::clone(&shared);
                tokio::spawn(serve(tcp, state));
            }
        });
        Self { port, state, task }
    }

    /// `http://127.0.0.1:PORT` (the model's base URL).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Path and lower-cased headers of every handshake.
    pub fn handshakes(&self) -> Vec<(String, Vec<(String, String)>)> {
        self.state.lock().unwrap().handshakes.clone()
    }

    /// Every message received.
    pub fn messages(&self) -> Vec<Received> {
        self.state.lock().unwrap().messages.clone()
    }

    /// Connections the client closed or dropped.
    pub fn closed(&self) -> usize {
        self.state.lock().unwrap().closed
    }

    /// Waits up to a second for `n` closed connections.
    pub async fn wait_closed(&self, n: usize) -> usize {
        for _ in 0..100 {
            if self.closed() >= n {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        self.closed()
    }
}

impl Drop for WsMock {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The first header called `name` of a handshake.
pub fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

#[allow(clippy::result_large_err)]
async fn serve(tcp: tokio::net::TcpStream, state: Arc<Mutex<State>>) {
    let record = Arc::clone(&state);
    let callback = move |request: &Request, response: Response| {
        let headers = request
            .headers()
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_owned(),
                    v.to_str().unwrap_or_default().to_owned(),
                )
            })
            .collect();
        record
            .lock()
            .unwrap()
            .handshakes
            .push((request.uri().path().to_owned(), headers));
        Ok(response)
    };
    let Ok(mut socket) = tokio_tungstenite::accept_hdr_async(tcp, callback).await else {
        return;
    };
    let connection = state.lock().unwrap().handshakes.len();
    loop {
        let text = match socket.next().await {
            Some(Ok(Message::Text(text))) => text.as_str().to_owned(),
            Some(Ok(Message::Close(_)) | Err(_)) | None => break,
            Some(Ok(_)) => continue,
        };
        let reply = {
            let mut state = state.lock().unwrap();
            state.messages.push(Received {
                connection,
                message: serde_json::from_str(&text).unwrap(),
            });
            state.script.pop_front()
        };
        let Some(reply) = reply else { break };
        for event in reply.events {
            if socket.send(Message::Text(event.into())).await.is_err() {
                break;
            }
        }
        match reply.then {
            Then::Wait => {}
            Then::Close(code, reason) => {
                let frame = CloseFrame {
                    code: code.into(),
                    reason: reason.into(),
                };
                let _ = socket.send(Message::Close(Some(frame))).await;
                break;
            }
            Then::Hang => {
                // Reads until the client goes away, answering nothing.
                while let Some(Ok(message)) = socket.next().await {
                    if message.is_close() {
                        break;
                    }
                }
                break;
            }
        }
    }
    state.lock().unwrap().closed += 1;
}
