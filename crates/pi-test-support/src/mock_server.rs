//! A loopback HTTP/1.1 server for tests: it records every request and
//! answers with canned SSE streams or JSON bodies, and can misbehave on
//! purpose (cut a stream, stall, reset).

use std::borrow::Cow;
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// One canned answer.
#[derive(Debug, Clone)]
pub enum MockResponse {
    /// `200 text/event-stream` with these raw SSE frames (each should end with a blank line).
    Sse {
        /// Raw frames, written in order.
        frames: Vec<String>,
        /// Pause before each frame.
        delay: Duration,
    },
    /// A status with a body (JSON error bodies, for instance) and extra headers.
    Body {
        /// HTTP status code.
        status: u16,
        /// Extra headers.
        headers: Vec<(String, String)>,
        /// Body text.
        body: String,
    },
    /// Announces a long SSE body, sends these frames, then closes the
    /// connection early: the client sees a transport error mid-stream.
    CutSse {
        /// Frames sent before the cut.
        frames: Vec<String>,
    },
    /// Sends the SSE head and these frames, then stays silent until the client gives up.
    StallSse {
        /// Frames sent before stalling.
        frames: Vec<String>,
    },
    /// Reads the request and never answers (no status line, no headers).
    StallHeaders,
    /// Reads the request and resets the connection (TCP RST) without answering.
    Reset,
    /// Sends the SSE head and these frames, then resets the connection.
    ResetSse {
        /// Frames sent before the reset.
        frames: Vec<String>,
    },
    /// Sends the SSE head and these frames, then `repeat` again and again,
    /// as fast as the client reads, until it hangs up.
    EndlessSse {
        /// Frames sent first.
        frames: Vec<String>,
        /// The frame sent without end.
        repeat: String,
    },
    /// A body of `len` bytes `x`, written as it goes (never held whole):
    /// a huge error page.
    Filler {
        /// HTTP status code.
        status: u16,
        /// `content-type` header value.
        content_type: String,
        /// Body length.
        len: usize,
    },
    /// Any status, content type and body bytes (HTML pages, invalid UTF-8).
    Raw {
        /// HTTP status code.
        status: u16,
        /// `content-type` header value.
        content_type: String,
        /// Body bytes.
        body: Vec<u8>,
    },
}

impl MockResponse {
    /// An SSE answer with no delay.
    pub fn sse(frames: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self::Sse {
            frames: frames.into_iter().map(Into::into).collect(),
            delay: Duration::ZERO,
        }
    }

    /// A JSON answer with `status`.
    pub fn json(status: u16, body: impl Into<String>) -> Self {
        Self::Body {
            status,
            headers: Vec::new(),
            body: body.into(),
        }
    }
}

/// A request as the server received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedRequest {
    /// Method, e.g. `POST`.
    pub method: String,
    /// Path with query.
    pub path: String,
    /// Headers, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// Body bytes.
    pub body: Vec<u8>,
}

impl RecordedRequest {
    /// The first header called `name` (lower-case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body parsed as JSON (`Null` when it is not JSON).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

#[derive(Default)]
struct Shared {
    responses: VecDeque<MockResponse>,
    fallback: Option<MockResponse>,
    requests: Vec<RecordedRequest>,
    upgrades: Vec<RecordedRequest>,
}

/// A running loopback server; stops when dropped.
pub struct MockServer {
    addr: SocketAddr,
    shared: Arc<Mutex<Shared>>,
    task: JoinHandle<()>,
}

impl MockServer {
    /// Starts a server on 127.0.0.1 that answers requests with `responses`
    /// in order, repeating the last one when they run out.
    pub async fn start(responses: impl IntoIterator<Item = MockResponse>) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let responses: VecDeque<MockResponse> = responses.into_iter().collect();
        let shared = Arc::new(Mutex::new(Shared {
            fallback: responses.back().cloned(),
            responses,
            requests: Vec::new(),
            upgrades: Vec::new(),
        }));
        let state = Arc::clone(&shared);
        let task = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let state = Arc::clone(&state);
                tokio::spawn(async move {
                    if let Err(error) = serve(socket, state).await {
                        tracing::debug!("mock server connection ended: {error}");
                    }
                });
            }
        });
        Ok(Self { addr, shared, task })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .requests
            .clone()
    }

    /// The WebSocket upgrade requests received so far (answered 404, as a
    /// server without WebSockets does; they take no canned answer and are
    /// not in [`MockServer::requests`]).
    pub fn upgrades(&self) -> Vec<RecordedRequest> {
        self.shared
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .upgrades
            .clone()
    }

    /// Queues more answers.
    pub fn push(&self, response: MockResponse) {
        let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        shared.fallback = Some(response.clone());
        shared.responses.push_back(response);
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn read_request(socket: &mut TcpStream) -> std::io::Result<Option<RecordedRequest>> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next().unwrap_or_default().split(' ');
    let method = request_line.next().unwrap_or_default().to_owned();
    let path = request_line.next().unwrap_or_default().to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = buffer[head_end + 4..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Ok(Some(RecordedRequest {
        method,
        path,
        headers,
        body,
    }))
}

/// A header every streamed and `Body` answer carries (value `yes`), for
/// tests of what a client sees of the response headers.
pub const MOCK_HEADER: &str = "x-mock-header";

/// How the server writes the frames of a streamed answer: SSE text as it
/// is (the default), or each raw frame re-encoded (AWS event-stream).
#[derive(Debug, Clone, Copy)]
pub struct StreamEncoding {
    /// The `content-type` of streamed answers.
    pub content_type: &'static str,
    /// One raw SSE frame as the bytes sent.
    pub encode: fn(&str) -> Vec<u8>,
}

static ENCODING: OnceLock<StreamEncoding> = OnceLock::new();

/// Makes every mock server of this test process write streamed answers
/// (`Sse`, `CutSse`, `StallSse`, `ResetSse`) with `encoding`: for a test
/// binary whose wire is not SSE, called once before serving (later calls
/// keep the first encoding).
pub fn use_stream_encoding(encoding: StreamEncoding) {
    let _ = ENCODING.set(encoding);
}

fn sse_head() -> String {
    let content_type = ENCODING
        .get()
        .map_or("text/event-stream", |e| e.content_type);
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncache-control: no-cache\r\n{MOCK_HEADER}: yes\r\nconnection: close\r\n"
    )
}

fn frame_bytes(frame: &str) -> Cow<'_, [u8]> {
    match ENCODING.get() {
        Some(encoding) => Cow::Owned((encoding.encode)(frame)),
        None => Cow::Borrowed(frame.as_bytes()),
    }
}

async fn serve(mut socket: TcpStream, state: Arc<Mutex<Shared>>) -> std::io::Result<()> {
    let Some(request) = read_request(&mut socket).await? else {
        return Ok(());
    };
    if request
        .header("upgrade")
        .is_some_and(|u| u.eq_ignore_ascii_case("websocket"))
    {
        state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .upgrades
            .push(request);
        socket
            .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            .await?;
        return Ok(());
    }
    let response = {
        let mut shared = state.lock().unwrap_or_else(PoisonError::into_inner);
        shared.requests.push(request);
        shared
            .responses
            .pop_front()
            .or_else(|| shared.fallback.clone())
    };
    let Some(response) = response else {
        socket.write_all(b"HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\nconnection: close\r\n\r\n").await?;
        return Ok(());
    };
    match response {
        MockResponse::Sse { frames, delay } => {
            socket
                .write_all(format!("{}\r\n", sse_head()).as_bytes())
                .await?;
            for frame in frames {
                if !delay.is_zero() {
                    tokio::time::sleep(delay).await;
                }
                socket.write_all(&frame_bytes(&frame)).await?;
                socket.flush().await?;
            }
        }
        MockResponse::Body {
            status,
            headers,
            body,
        } => {
            let mut head = format!(
                "HTTP/1.1 {status} Status\r\ncontent-type: application/json\r\ncontent-length: {}\r\n{MOCK_HEADER}: yes\r\nconnection: close\r\n",
                body.len()
            );
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            socket.write_all(head.as_bytes()).await?;
            socket.write_all(body.as_bytes()).await?;
        }
        MockResponse::CutSse { frames } => {
            let sent: usize = frames.iter().map(|f| frame_bytes(f).len()).sum();
            socket
                .write_all(
                    format!("{}content-length: {}\r\n\r\n", sse_head(), sent + 100_000).as_bytes(),
                )
                .await?;
            for frame in frames {
                socket.write_all(&frame_bytes(&frame)).await?;
            }
            socket.flush().await?;
        }
        MockResponse::StallSse { frames } => {
            socket
                .write_all(format!("{}\r\n", sse_head()).as_bytes())
                .await?;
            for frame in frames {
                socket.write_all(&frame_bytes(&frame)).await?;
            }
            socket.flush().await?;
            tokio::time::sleep(Duration::from_secs(3600)).await;
        }
        MockResponse::StallHeaders => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
        }
        MockResponse::Filler {
            status,
            content_type,
            len,
        } => {
            let head = format!(
                "HTTP/1.1 {status} Status\r\ncontent-type: {content_type}\r\ncontent-length: {len}\r\nconnection: close\r\n\r\n"
            );
            socket.write_all(head.as_bytes()).await?;
            let block = vec![b'x'; 64 * 1024];
            let mut left = len;
            while left > 0 {
                let n = left.min(block.len());
                if socket.write_all(&block[..n]).await.is_err() {
                    return Ok(());
                }
                left -= n;
            }
        }
        MockResponse::EndlessSse { frames, repeat } => {
            socket
                .write_all(format!("{}\r\n", sse_head()).as_bytes())
                .await?;
            for frame in frames {
                socket.write_all(&frame_bytes(&frame)).await?;
            }
            // Many frames per write: the client, not the server, is the limit.
            let block = frame_bytes(&repeat).repeat(64 * 1024 / repeat.len().max(1) + 1);
            loop {
                if socket.write_all(&block).await.is_err() {
                    return Ok(());
                }
            }
        }
        MockResponse::Reset => return reset(socket),
        MockResponse::ResetSse { frames } => {
            socket
                .write_all(format!("{}\r\n", sse_head()).as_bytes())
                .await?;
            for frame in frames {
                socket.write_all(&frame_bytes(&frame)).await?;
            }
            socket.flush().await?;
            // Let the client read the frames before the reset discards them.
            tokio::time::sleep(Duration::from_millis(100)).await;
            return reset(socket);
        }
        MockResponse::Raw {
            status,
            content_type,
            body,
        } => {
            let head = format!(
                "HTTP/1.1 {status} Status\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            socket.write_all(head.as_bytes()).await?;
            socket.write_all(&body).await?;
        }
    }
    socket.shutdown().await
}

/// Closes `socket` with a TCP reset instead of an orderly FIN.
fn reset(socket: TcpStream) -> std::io::Result<()> {
    socket.set_zero_linger()?;
    drop(socket);
    Ok(())
}
