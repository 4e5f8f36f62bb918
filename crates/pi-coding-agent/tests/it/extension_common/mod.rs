//! Test support for extensions: an app with Rust extensions on the
//! loopback mock, driven in process through rpc mode (the same protocol a
//! client speaks to `pi --mode rpc`), and the mock answers pi's extension
//! captures (`fixtures/pi-0.73.1/extensions/`) were made with.

pub mod ts;

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use pi_coding_agent::app::{App, SessionChoice, StartOptions, build_app};
use pi_coding_agent::extensions::ExtensionSet;
use pi_test_support::mock_server::MockResponse;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

use crate::e2e_common::{Scenario, comparable_body, comparable_entry};
use pretty_assertions::assert_eq;

/// pi's extension captures.
pub fn captures() -> std::path::PathBuf {
    crate::e2e_common::fixtures().join("extensions")
}

/// An app on `scenario`'s mock with `extensions`, `settings` written to
/// its agent dir first (when given), on `model`.
pub fn app_with(
    scenario: &Scenario,
    extensions: ExtensionSet,
    settings: Option<&Value>,
    model: &str,
) -> Arc<App> {
    if let Some(settings) = settings {
        std::fs::write(
            scenario.agent_dir.path().join("settings.json"),
            settings.to_string(),
        )
        .unwrap();
    }
    build_app(StartOptions {
        cwd: scenario.work.path().to_path_buf(),
        model: Some(model.to_owned()),
        session: SessionChoice::New,
        session_dir: Some(scenario.sessions_dir()),
        agent_dir: Some(scenario.agent_dir.path().to_path_buf()),
        extensions,
        ..StartOptions::default()
    })
    .unwrap()
}

/// A text answer as the capture's mock sends it: an empty first delta,
/// the text, `stop`, usage, `[DONE]`.
pub fn text_answer(text: &str) -> MockResponse {
    MockResponse::sse(frames(Some(text), None, "stop"))
}

/// A text answer whose usage chunk reports `prompt_tokens` (and 20
/// completion tokens).
pub fn text_answer_with_usage(text: &str, prompt_tokens: u64) -> MockResponse {
    let usage = json!({"prompt_tokens": prompt_tokens, "completion_tokens": 20,
                       "total_tokens": prompt_tokens + 20});
    MockResponse::sse(frames_with(Some(text), None, "stop", usage))
}

/// A tool call answer as the capture's mock sends it.
pub fn tool_answer(name: &str, args: &Value, call_id: &str) -> MockResponse {
    MockResponse::sse(frames(None, Some((name, args, call_id)), "tool_calls"))
}

/// The start of a text answer that then stalls (the client aborts).
pub fn stall_answer(text: &str) -> MockResponse {
    let mut frames = frames(Some(text), None, "stop");
    frames.truncate(2);
    MockResponse::StallSse { frames }
}

fn frames(text: Option<&str>, tool: Option<(&str, &Value, &str)>, finish: &str) -> Vec<String> {
    let usage = json!({"prompt_tokens": 500, "completion_tokens": 20, "total_tokens": 520});
    frames_with(text, tool, finish, usage)
}

fn frames_with(
    text: Option<&str>,
    tool: Option<(&str, &Value, &str)>,
    finish: &str,
    usage: Value,
) -> Vec<String> {
    let chunk = |choices: Value, usage: Option<Value>| {
        let mut body = json!({"id": "chatcmpl-mock", "object": "chat.completion.chunk",
                              "created": 1_767_225_601, "model": "mock", "choices": choices});
        if let Some(usage) = usage {
            body["usage"] = usage;
        }
        format!("data: {body}\n\n")
    };
    let mut out = vec![chunk(
        json!([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": null}]),
        None,
    )];
    if let Some(text) = text {
        out.push(chunk(
            json!([{"index": 0, "delta": {"content": text}, "finish_reason": null}]),
            None,
        ));
    }
    if let Some((name, args, id)) = tool {
        out.push(chunk(
            json!([{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": id, "type": "function",
                "function": {"name": name, "arguments": args.to_string()}}]}, "finish_reason": null}]),
            None,
        ));
    }
    out.push(chunk(
        json!([{"index": 0, "delta": {}, "finish_reason": finish}]),
        None,
    ));
    out.push(chunk(json!([]), Some(usage)));
    out.push("data: [DONE]\n\n".to_owned());
    out
}

/// Collects rpc output lines into a channel.
struct LineSink {
    lines: mpsc::UnboundedSender<Value>,
    buffer: Vec<u8>,
}

impl Write for LineSink {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.buffer.extend_from_slice(bytes);
        while let Some(at) = self.buffer.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.buffer.drain(..=at).collect();
            let value = serde_json::from_slice(&line).unwrap_or_else(|e| {
                panic!(
                    "rpc output is not JSON ({e}): {}",
                    String::from_utf8_lossy(&line)
                )
            });
            let _ = self.lines.send(value);
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// An app in rpc mode, in process: commands in, output lines out.
pub struct InProcessRpc {
    input: tokio::io::DuplexStream,
    lines: mpsc::UnboundedReceiver<Value>,
    /// Every output line so far.
    pub seen: Vec<Value>,
    /// Every line sent so far.
    pub sent: Vec<Value>,
    next_id: u32,
    task: tokio::task::JoinHandle<i32>,
    /// The app.
    pub app: Arc<App>,
}

impl InProcessRpc {
    /// Starts rpc mode on `app`.
    pub fn start(app: Arc<App>) -> Self {
        let (input, theirs) = tokio::io::duplex(1 << 16);
        let (sender, lines) = mpsc::unbounded_channel();
        let out: pi_coding_agent::modes::SharedWriter =
            Arc::new(std::sync::Mutex::new(Box::new(LineSink {
                lines: sender,
                buffer: Vec::new(),
            })));
        let task = tokio::spawn(pi_coding_agent::modes::rpc::run(
            Arc::clone(&app),
            tokio::io::BufReader::new(theirs),
            out,
        ));
        Self {
            input,
            lines,
            seen: Vec::new(),
            sent: Vec::new(),
            next_id: 0,
            task,
            app,
        }
    }

    /// Sends `command` with the next id (`c1`, `c2`, ...); returns the id.
    pub async fn send(&mut self, mut command: Value) -> String {
        self.next_id += 1;
        let id = format!("c{}", self.next_id);
        command["id"] = json!(id);
        self.send_raw(command).await;
        id
    }

    /// Sends a line as it is.
    pub async fn send_raw(&mut self, line: Value) {
        let mut text = line.to_string();
        text.push('\n');
        self.input.write_all(text.as_bytes()).await.unwrap();
        self.sent.push(line);
    }

    /// The next output line (fails after 30 s).
    pub async fn next_line(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(30), self.lines.recv())
            .await
            .unwrap_or_else(|_| panic!("no rpc output for 30 s; seen: {:#?}", self.seen))
            .expect("rpc mode ended");
        self.seen.push(line.clone());
        line
    }

    /// Reads lines until `done` holds for one (returned); `on_line` sees
    /// every line first and may answer with a line to send.
    pub async fn until(
        &mut self,
        mut done: impl FnMut(&Value) -> bool,
        mut on_line: impl FnMut(&Value) -> Option<Value>,
    ) -> Value {
        loop {
            let line = self.next_line().await;
            if let Some(reply) = on_line(&line) {
                self.send_raw(reply).await;
            }
            if done(&line) {
                return line;
            }
        }
    }

    /// Sends `command` and returns its response.
    pub async fn call(&mut self, command: Value) -> Value {
        let id = self.send(command).await;
        self.until(|l| is_response(l, &id), |_| None).await
    }

    /// Sends `command` and returns its response; `on_line` may answer any
    /// line first (a dialog, see [`ts::answers`]).
    pub async fn call_answering(
        &mut self,
        command: Value,
        mut on_line: impl FnMut(&Value) -> Option<Value>,
    ) -> Value {
        let id = self.send(command).await;
        loop {
            let line = self.next_line().await;
            if let Some(reply) = on_line(&line) {
                self.send_raw(reply).await;
            }
            if is_response(&line, &id) {
                return line;
            }
        }
    }

    /// Sends a prompt and reads until its response and `agent_end`;
    /// `on_line` may answer any line with a command (its id filled in) or
    /// with an `extension_ui_response` (sent as it is, see [`ui_response`]).
    pub async fn prompt(
        &mut self,
        message: &str,
        mut on_line: impl FnMut(&Value) -> Option<Value>,
    ) {
        let id = self
            .send(json!({"type": "prompt", "message": message}))
            .await;
        let (mut answered, mut ended) = (false, false);
        while !(answered && ended) {
            let line = self.next_line().await;
            answered |= is_response(&line, &id);
            ended |= line["type"] == "agent_end";
            match on_line(&line) {
                Some(reply) if reply["type"] == "extension_ui_response" => {
                    self.send_raw(reply).await;
                }
                Some(command) => {
                    self.send(command).await;
                }
                None => {}
            }
        }
    }

    /// The next output line if one comes within `ms` milliseconds.
    pub async fn line_within(&mut self, ms: u64) -> Option<Value> {
        let line = tokio::time::timeout(Duration::from_millis(ms), self.lines.recv())
            .await
            .ok()??;
        self.seen.push(line.clone());
        Some(line)
    }

    /// Lets late lines arrive for `ms` milliseconds.
    pub async fn settle(&mut self, ms: u64) {
        let deadline = tokio::time::Instant::now() + Duration::from_millis(ms);
        while let Ok(Some(line)) = tokio::time::timeout_at(deadline, self.lines.recv()).await {
            self.seen.push(line);
        }
    }

    /// Ends the input, waits for rpc mode to end and the app to shut down.
    pub async fn close(mut self) -> Vec<Value> {
        self.input.shutdown().await.unwrap();
        drop(self.input);
        let code = tokio::time::timeout(Duration::from_secs(30), self.task)
            .await
            .expect("rpc mode did not end")
            .unwrap();
        assert_eq!(code, 0);
        self.app.shutdown().await;
        while let Ok(line) = self.lines.try_recv() {
            self.seen.push(line);
        }
        self.seen
    }
}

/// Whether `line` is the response to command `id`.
pub fn is_response(line: &Value, id: &str) -> bool {
    line["type"] == "response" && line["id"] == id
}

/// The answer to dialog `request` (an `extension_ui_request` line):
/// `answer`'s fields (`{"value": ...}`, `{"confirmed": ...}` or
/// `{"cancelled": true}`) with the request's id.
pub fn ui_response(request: &Value, answer: Value) -> Value {
    let mut reply = json!({"type": "extension_ui_response", "id": request["id"]});
    if let (Some(reply), Value::Object(fields)) = (reply.as_object_mut(), answer) {
        reply.extend(fields);
    }
    reply
}

/// The `extension_ui_request` lines among rpc output `lines`, without
/// their (random) ids.
pub fn ui_requests(lines: &[Value]) -> Vec<Value> {
    lines
        .iter()
        .filter(|l| l["type"] == "extension_ui_request")
        .cloned()
        .map(|mut l| {
            l.as_object_mut().unwrap().remove("id");
            l
        })
        .collect()
}

/// File `file` of pi's capture of example `name`
/// (`examples/<name>/{rpc,sent,requests,session,events}.jsonl`).
pub fn pi_example(name: &str, file: &str) -> Vec<Value> {
    crate::e2e_common::jsonl(&captures().join("examples").join(name).join(file))
}

/// The request bodies `scenario`'s mock received, in order.
pub fn request_bodies(scenario: &Scenario) -> Vec<Value> {
    scenario.requests().iter().map(|r| r.json()).collect()
}

/// The lines of `scenario`'s only session file (header first).
pub fn session_lines(scenario: &Scenario) -> Vec<Value> {
    let files = scenario.session_files();
    assert_eq!(files.len(), 1, "one session file: {files:?}");
    crate::e2e_common::jsonl(&files[0])
}

/// The request bodies match pi's (system prompt text and tool
/// descriptions aside).
pub fn assert_requests(scenario: &Scenario, name: &str) {
    let ours: Vec<Value> = request_bodies(scenario)
        .iter()
        .map(comparable_body)
        .collect();
    let pi: Vec<Value> = pi_example(name, "requests.jsonl")
        .iter()
        .map(comparable_body)
        .collect();
    assert_eq!(ours, pi, "{name}: requests");
}

/// The session file matches pi's (ids, times and cwd aside).
pub fn assert_session(scenario: &Scenario, name: &str) {
    let ours: Vec<Value> = session_lines(scenario)
        .iter()
        .map(comparable_entry)
        .collect();
    let pi: Vec<Value> = pi_example(name, "session.jsonl")
        .iter()
        .map(comparable_entry)
        .collect();
    assert_eq!(ours, pi, "{name}: session");
}

/// The rpc lines of `kind` match pi's, ids of dialogs aside.
pub fn assert_lines(ours: &[Value], name: &str, kind: &str) {
    let pick = |lines: &[Value]| -> Vec<Value> {
        if kind == "extension_ui_request" {
            return ui_requests(lines);
        }
        lines
            .iter()
            .filter(|l| l["type"] == kind)
            .cloned()
            .collect()
    };
    assert_eq!(
        pick(ours),
        pick(&pi_example(name, "rpc.jsonl")),
        "{name}: {kind} lines"
    );
}

/// Runs extension command `text` (a `prompt`, answered once its handler
/// returned, as pi answers it).
pub async fn command(rpc: &mut InProcessRpc, text: &str) {
    let response = rpc.call(json!({"type": "prompt", "message": text})).await;
    assert_eq!(response["success"], true, "{response}");
}

/// Answers the select dialog "No" as pi's driver did.
pub fn answer_no(line: &Value) -> Option<Value> {
    (line["type"] == "extension_ui_request" && line["method"] == "select")
        .then(|| ui_response(line, json!({"value": "No"})))
}

/// The system prompt of a request body.
pub fn system_prompt(body: &Value) -> String {
    body["messages"][0]["content"].as_str().unwrap().to_owned()
}

/// Adds `providers` to the scenario's models.json.
pub fn add_providers(scenario: &Scenario, providers: Value) {
    let path = scenario.agent_dir.path().join("models.json");
    let mut models: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    models["providers"]
        .as_object_mut()
        .unwrap()
        .extend(providers.as_object().unwrap().clone());
    std::fs::write(&path, models.to_string()).unwrap();
}
