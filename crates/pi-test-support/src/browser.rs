//! Headless Chromium driven through the DevTools protocol (CDP) over its WebSocket:
//! a page to open, JavaScript to evaluate in it, screenshots, and every error its
//! console reports (console errors, uncaught exceptions, log entries such as Content
//! Security Policy violations). A few dozen lines of JSON messages instead of a CDP
//! crate: the tests need five commands.
//!
//! ```no_run
//! # async fn demo() {
//! let chromium = pi_test_support::external::chromium().unwrap();
//! let mut browser = pi_test_support::browser::Browser::launch(&chromium).await;
//! browser.open("file:///tmp/page.html").await;
//! let title = browser.eval("document.title").await;
//! assert!(browser.errors().is_empty());
//! # }
//! ```

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// How long one protocol answer may take.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// A headless Chromium with one page, killed when dropped.
pub struct Browser {
    _child: Child,
    _profile: tempfile::TempDir,
    socket: WebSocketStream<MaybeTlsStream<TcpStream>>,
    session: String,
    next_id: u64,
    errors: Vec<String>,
    events: Vec<Value>,
}

impl Browser {
    /// Starts `chromium` headless (a fresh profile, a 1280x900 window) and attaches
    /// to a blank page with its runtime, log and page events on.
    pub async fn launch(chromium: &Path) -> Self {
        let profile = tempfile::tempdir().expect("a profile directory");
        let mut child = Command::new(chromium)
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                "--window-size=1280,900",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("chromium starts");
        let stderr = child.stderr.take().expect("chromium's stderr");
        let mut lines = BufReader::new(stderr).lines();
        let url = tokio::time::timeout(ANSWER_TIMEOUT, async {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(url) = line.strip_prefix("DevTools listening on ") {
                    return Some(url.trim().to_owned());
                }
            }
            None
        })
        .await
        .ok()
        .flatten()
        .expect("chromium prints its DevTools address");
        // Keep reading stderr so that chromium never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        let (socket, _) = tokio_tungstenite::connect_async(url.as_str())
            .await
            .expect("the DevTools socket connects");
        let mut browser = Self {
            _child: child,
            _profile: profile,
            socket,
            session: String::new(),
            next_id: 0,
            errors: Vec::new(),
            events: Vec::new(),
        };
        let target = browser
            .call("Target.createTarget", json!({"url": "about:blank"}))
            .await;
        let target_id = target["targetId"].as_str().expect("a target id").to_owned();
        let attached = browser
            .call(
                "Target.attachToTarget",
                json!({"targetId": target_id, "flatten": true}),
            )
            .await;
        browser.session = attached["sessionId"]
            .as_str()
            .expect("a session id")
            .to_owned();
        for domain in ["Runtime.enable", "Log.enable", "Page.enable"] {
            browser.call(domain, json!({})).await;
        }
        browser
    }

    /// Sends a command (to the page once attached) and returns its result; events
    /// read meanwhile are kept (errors noted).
    pub async fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"id": id, "method": method, "params": params});
        if !self.session.is_empty() {
            message["sessionId"] = Value::String(self.session.clone());
        }
        self.socket
            .send(Message::text(message.to_string()))
            .await
            .expect("a DevTools command is sent");
        loop {
            let value = self.next_message().await;
            if value["id"] == id {
                assert!(
                    value.get("error").is_none(),
                    "{method} failed: {}",
                    value["error"]
                );
                return value["result"].clone();
            }
            self.note(value);
        }
    }

    async fn next_message(&mut self) -> Value {
        self.next_message_within(ANSWER_TIMEOUT).await
    }

    async fn next_message_within(&mut self, timeout: Duration) -> Value {
        loop {
            let message = tokio::time::timeout(timeout, self.socket.next())
                .await
                .expect("chromium answers in time")
                .expect("the DevTools socket stays open")
                .expect("a DevTools message");
            if let Message::Text(text) = message {
                return serde_json::from_str(text.as_str()).expect("DevTools JSON");
            }
        }
    }

    fn note(&mut self, event: Value) {
        let params = &event["params"];
        match event["method"].as_str() {
            Some("Runtime.consoleAPICalled") if params["type"] == "error" => {
                let args: Vec<String> = params["args"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|a| {
                        a["value"]
                            .as_str()
                            .map_or_else(|| a.to_string(), str::to_owned)
                    })
                    .collect();
                self.errors
                    .push(format!("console.error: {}", args.join(" ")));
            }
            Some("Runtime.exceptionThrown") => {
                let details = &params["exceptionDetails"];
                self.errors.push(format!(
                    "exception: {} {}",
                    details["text"].as_str().unwrap_or(""),
                    details["exception"]["description"].as_str().unwrap_or("")
                ));
            }
            Some("Log.entryAdded") if params["entry"]["level"] == "error" => {
                self.errors.push(format!(
                    "log ({}): {}",
                    params["entry"]["source"].as_str().unwrap_or(""),
                    params["entry"]["text"].as_str().unwrap_or("")
                ));
            }
            _ => {}
        }
        self.events.push(event);
    }

    /// Opens `url` and waits for its load event.
    pub async fn open(&mut self, url: &str) {
        self.events.clear();
        self.call("Page.navigate", json!({"url": url})).await;
        if self
            .events
            .iter()
            .any(|e| e["method"] == "Page.loadEventFired")
        {
            return;
        }
        loop {
            // A long page may take a while to load.
            let value = self.next_message_within(4 * ANSWER_TIMEOUT).await;
            let loaded = value["method"] == "Page.loadEventFired";
            self.note(value);
            if loaded {
                return;
            }
        }
    }

    /// Evaluates `expression` in the page (awaiting a promise) and returns its value.
    pub async fn eval(&mut self, expression: &str) -> Value {
        let result = self
            .call(
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
            )
            .await;
        assert!(
            result.get("exceptionDetails").is_none(),
            "{expression} threw: {}",
            result["exceptionDetails"]
        );
        result["result"]["value"].clone()
    }

    /// Waits `ms` milliseconds in the page (timers, debounced handlers, layout).
    pub async fn settle(&mut self, ms: u64) {
        self.eval(&format!("new Promise(r => setTimeout(r, {ms}))"))
            .await;
    }

    /// Evaluates `expression` every 50 ms until it is `true`, for up to 10 s; whether
    /// it became true (what a fixed wait would guess at under load).
    pub async fn wait_until(&mut self, expression: &str) -> bool {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            if self.eval(expression).await == Value::Bool(true) {
                return true;
            }
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// A PNG screenshot of the page's viewport.
    pub async fn screenshot(&mut self) -> Vec<u8> {
        use base64::Engine as _;
        let shot = self
            .call("Page.captureScreenshot", json!({"format": "png"}))
            .await;
        base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().expect("screenshot data"))
            .expect("base64 screenshot")
    }

    /// Every error the page reported so far (console errors, uncaught exceptions,
    /// error log entries such as blocked scripts).
    pub fn errors(&self) -> &[String] {
        &self.errors
    }
}
