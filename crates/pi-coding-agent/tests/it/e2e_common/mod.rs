//! Runs the real `pi` binary against a loopback mock provider that replays
//! the SSE answers recorded in `fixtures/pi-0.73.1/<scenario>/responses.jsonl`.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use pi_test_support::mock_server::{MockResponse, MockServer, RecordedRequest};
use serde_json::Value;

/// The repository's pi 0.73.1 fixtures.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pi-0.73.1")
}

/// Parses a JSONL file.
pub fn jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The mock answers of a fixture scenario.
pub fn recorded_responses(scenario: &str) -> Vec<MockResponse> {
    jsonl(&fixtures().join(scenario).join("responses.jsonl"))
        .into_iter()
        .map(|r| match r.get("sse") {
            Some(Value::Array(frames)) => {
                MockResponse::sse(frames.iter().map(|f| f.as_str().unwrap().to_owned()))
            }
            _ => MockResponse::Body {
                status: u16::try_from(r["status"].as_u64().unwrap()).unwrap(),
                headers: Vec::new(),
                body: r["body"].to_string(),
            },
        })
        .collect()
}

/// A scenario: mock server, agent dir with the fixture models.json pointed
/// at it, and a workspace like the one pi ran in.
pub struct Scenario {
    pub server: MockServer,
    pub agent_dir: tempfile::TempDir,
    pub work: tempfile::TempDir,
}

impl Scenario {
    pub async fn start(responses: Vec<MockResponse>) -> Self {
        let server = MockServer::start(responses).await.unwrap();
        let agent_dir = tempfile::tempdir().unwrap();
        let models = std::fs::read_to_string(fixtures().join("models.json")).unwrap();
        std::fs::write(
            agent_dir.path().join("models.json"),
            models.replace("http://127.0.0.1:18777", &server.url()),
        )
        .unwrap();
        let work = tempfile::tempdir().unwrap();
        std::fs::write(work.path().join("notes.txt"), "alpha\nbeta\ngamma\n").unwrap();
        std::fs::create_dir(work.path().join("src")).unwrap();
        std::fs::write(work.path().join("src/main.py"), "print(\"hi\")\n").unwrap();
        Self {
            server,
            agent_dir,
            work,
        }
    }

    pub async fn fixture(scenario: &str) -> Self {
        Self::start(recorded_responses(scenario)).await
    }

    pub fn sessions_dir(&self) -> PathBuf {
        self.agent_dir.path().join("test-sessions")
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pi"));
        command
            .args(args)
            .current_dir(self.work.path())
            .env("PI_CODING_AGENT_DIR", self.agent_dir.path())
            .env_remove("OPENAI_API_KEY")
            .env_remove("ANTHROPIC_API_KEY")
            .env("TZ", "UTC")
            .stdin(Stdio::null());
        command
    }

    /// `pi --mode rpc --model mock-oai/mock-gpt` with `--session-dir` set,
    /// stdin and stdout piped (wrap it in `tokio::process::Command::from`
    /// for async tests).
    pub fn rpc_command(&self) -> Command {
        let dir = self.sessions_dir();
        let mut command = self.command(&[
            "--session-dir",
            dir.to_str().unwrap(),
            "--mode",
            "rpc",
            "--model",
            "mock-oai/mock-gpt",
        ]);
        command.stdin(Stdio::piped()).stdout(Stdio::piped());
        command
    }

    /// Runs `pi ARGS` (with `--session-dir` set) to completion.
    pub async fn run(&self, args: &[&str]) -> Output {
        let dir = self.sessions_dir();
        let mut full = vec!["--session-dir", dir.to_str().unwrap()];
        full.extend_from_slice(args);
        let mut command = self.command(&full);
        tokio::task::spawn_blocking(move || command.output().unwrap())
            .await
            .unwrap()
    }

    /// `pi --model mock-oai/mock-gpt --session SESSION ARGS` (not run).
    pub fn on_session(&self, session: &Path, args: &[&str]) -> Command {
        let mut full = vec![
            "--model",
            "mock-oai/mock-gpt",
            "--session",
            session.to_str().unwrap(),
        ];
        full.extend_from_slice(args);
        self.command(&full)
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.server.requests()
    }

    pub fn session_files(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(self.sessions_dir())
            .map(|d| d.map(|e| e.unwrap().path()).collect())
            .unwrap_or_default();
        files.sort();
        files
    }
}

fn strip_descriptions(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("description");
            map.values_mut().for_each(strip_descriptions);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_descriptions),
        _ => {}
    }
}

/// A request body with the parts listed in docs/payload-differences.md
/// ("The app") blanked: the system prompt text and tool descriptions.
pub fn comparable_body(body: &Value) -> Value {
    let mut body = body.clone();
    for key in ["messages", "input"] {
        let Some(Value::Array(messages)) = body.get_mut(key) else {
            continue;
        };
        for m in messages.iter_mut() {
            if m["role"] == "system" || m["role"] == "developer" {
                m["content"] = Value::String("<system prompt>".into());
            }
        }
    }
    if let Some(system) = body.get_mut("system") {
        *system = Value::String("<system prompt>".into());
    }
    if let Some(instructions) = body.get_mut("instructions") {
        *instructions = Value::String("<system prompt>".into());
    }
    if let Some(system) = body.get_mut("systemInstruction") {
        *system = Value::String("<system prompt>".into());
    }
    // The session id (random per session) keys the prompt cache.
    if let Some(key) = body.get_mut("prompt_cache_key") {
        *key = Value::String("<session id>".into());
    }
    if let Some(tools) = body.get_mut("tools") {
        strip_descriptions(tools);
    }
    body
}

/// A request as [`comparable_body`] makes it, and for a summary request
/// also without the summarization instructions (ours are worded
/// differently, like the system prompt): the conversation and the previous
/// summary stay.
pub fn comparable_request(body: &Value) -> Value {
    let mut body = comparable_body(body);
    if let Some(Value::String(text)) = body.pointer_mut("/messages/1/content/0/text")
        && text.starts_with("<conversation>")
    {
        let cut = ["</previous-summary>\n\n", "</conversation>\n\n"]
            .iter()
            .find_map(|tag| text.rfind(tag).map(|at| at + tag.len()))
            .unwrap();
        text.replace_range(cut.., "<instructions>");
    }
    body
}

/// pi's captured request bodies of a scenario.
pub fn pi_bodies(scenario: &str) -> Vec<Value> {
    jsonl(&fixtures().join(scenario).join("requests.jsonl"))
        .into_iter()
        .map(|r| r["body"].clone())
        .collect()
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A session entry without what differs per run: ids, parent ids, times, cwd.
pub fn comparable_entry(entry: &Value) -> Value {
    let mut entry = entry.clone();
    if let Some(map) = entry.as_object_mut() {
        for key in ["id", "parentId", "timestamp", "cwd", "firstKeptEntryId"] {
            map.remove(key);
        }
        if let Some(Value::Object(message)) = map.get_mut("message") {
            message.remove("timestamp");
            // Google gives calls no ids; they are made up as `<name>_<unix ms>_<n>`.
            let generated = |id: &str| {
                let parts: Vec<&str> = id.rsplitn(3, '_').collect();
                parts.len() == 3
                    && parts[1].len() == 13
                    && parts[1].chars().all(|c| c.is_ascii_digit())
            };
            if let Some(Value::String(id)) = message.get_mut("toolCallId")
                && generated(id)
            {
                *id = "<generated>".into();
            }
            if let Some(Value::Array(blocks)) = message.get_mut("content") {
                for block in blocks {
                    if let Some(Value::String(id)) = block.get_mut("id")
                        && generated(id)
                    {
                        *id = "<generated>".into();
                    }
                }
            }
        }
    }
    entry
}

/// An openai-completions answer as `fixtures/capture/app_scenarios.py`'s
/// mock sends it: the text, `finish_reason: stop`, then a usage chunk
/// (500 prompt + 20 completion tokens) and `[DONE]`.
pub fn capture_answer(text: &str) -> MockResponse {
    let chunk = |body: Value| format!("data: {body}\n\n");
    let base = |choices: Value| {
        serde_json::json!({"id": "chatcmpl-mock", "object": "chat.completion.chunk",
                           "created": 1_767_225_601, "model": "mock", "choices": choices})
    };
    let mut usage = base(serde_json::json!([]));
    usage["usage"] =
        serde_json::json!({"prompt_tokens": 500, "completion_tokens": 20, "total_tokens": 520});
    MockResponse::sse([
        chunk(base(
            serde_json::json!([{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": null}]),
        )),
        chunk(base(
            serde_json::json!([{"index": 0, "delta": {}, "finish_reason": "stop"}]),
        )),
        chunk(usage),
        "data: [DONE]\n\n".to_owned(),
    ])
}

/// Writes `entries` as the only session file of `scenario`'s session
/// directory, its header's `cwd` set to the scenario's workspace.
pub fn install_session(scenario: &Scenario, entries: &[Value]) -> PathBuf {
    let dir = scenario.sessions_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("2026-01-01T00-00-00-000Z_00000000-0000-7000-8000-000000000000.jsonl");
    let mut text = String::new();
    for entry in entries {
        let mut entry = entry.clone();
        if entry["type"] == "session" {
            entry["cwd"] = Value::String(scenario.work.path().to_string_lossy().into_owned());
        }
        text.push_str(&entry.to_string());
        text.push('\n');
    }
    std::fs::write(&path, text).unwrap();
    path
}

/// An openai-completions answer that calls tool `name` with `arguments`
/// (one chunk with the whole call, `finish_reason: tool_calls`, `[DONE]`).
pub fn tool_call_answer(call_id: &str, name: &str, arguments: &Value) -> MockResponse {
    let chunk = |choices: Value| {
        let body = serde_json::json!({"id": "chatcmpl-mock", "object": "chat.completion.chunk",
                                      "created": 1_767_225_601, "model": "mock", "choices": choices});
        format!("data: {body}\n\n")
    };
    MockResponse::sse([
        chunk(
            serde_json::json!([{"index": 0, "delta": {"role": "assistant", "tool_calls": [{
            "index": 0, "id": call_id, "type": "function",
            "function": {"name": name, "arguments": arguments.to_string()}
        }]}, "finish_reason": null}]),
        ),
        chunk(serde_json::json!([{"index": 0, "delta": {}, "finish_reason": "tool_calls"}])),
        "data: [DONE]\n\n".to_owned(),
    ])
}

/// Points `scenario`'s models at `server` (a server started for one run).
pub fn use_server(scenario: &Scenario, server: &MockServer) {
    let models = std::fs::read_to_string(fixtures().join("models.json")).unwrap();
    std::fs::write(
        scenario.agent_dir.path().join("models.json"),
        models.replace("http://127.0.0.1:18777", &server.url()),
    )
    .unwrap();
}

/// A running `pi --mode rpc`, its output lines read on a thread.
pub struct RpcProcess {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<Value>,
    next_id: usize,
}

impl RpcProcess {
    /// Starts `command` (a `pi --mode rpc` command line) with piped stdio.
    pub fn start(mut command: std::process::Command) -> Self {
        command.stdin(Stdio::piped()).stdout(Stdio::piped());
        let mut child = command.spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Ok(value) = serde_json::from_str::<Value>(&line) {
                    let _ = send.send(value);
                }
            }
        });
        Self {
            child,
            stdin,
            lines,
            next_id: 0,
        }
    }

    /// Sends a prompt and returns every line up to its `agent_end`, and the
    /// prompt's responses seen by then (or shortly after).
    pub fn prompt(&mut self, message: &str) -> Vec<Value> {
        self.write(serde_json::json!({"type": "prompt", "message": message}));
        let mut seen = self.read_until(|line| line["type"] == "agent_end");
        // A failed save is a second response, right after the run.
        while let Ok(line) = self
            .lines
            .recv_timeout(std::time::Duration::from_millis(300))
        {
            seen.push(line);
        }
        seen
    }

    /// Writes `command` with the next `id`; returns that id.
    fn write(&mut self, mut command: Value) -> String {
        self.next_id += 1;
        let id = self.next_id.to_string();
        command["id"] = Value::String(id.clone());
        writeln!(self.stdin, "{command}").unwrap();
        id
    }

    /// The lines up to the first that `last` accepts.
    fn read_until(&mut self, last: impl Fn(&Value) -> bool) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(std::time::Duration::from_secs(30))
                .expect("an rpc line");
            let done = last(&line);
            seen.push(line);
            if done {
                return seen;
            }
        }
    }

    /// The process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Sends `command` (an `id` is added) and returns the lines up to its
    /// response.
    pub fn send(&mut self, command: Value) -> Vec<Value> {
        let id = self.write(command);
        self.read_until(|line| line["type"] == "response" && line["id"] == id.as_str())
    }

    /// Closes stdin and waits for the process to exit.
    pub fn finish(mut self) {
        drop(self.stdin);
        self.child.wait().unwrap();
    }
}

/// A small deterministic generator (xorshift), so a failure can be re-run.
pub struct Rng(pub u64);

impl Rng {
    /// The next number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

/// One openai-completions chunk with `content` (as `data: ...` and a blank line).
pub fn completion_chunk(content: &str) -> String {
    let data = serde_json::json!({
        "id": "chatcmpl-f", "object": "chat.completion.chunk", "created": 1, "model": "mock-gpt",
        "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": null}]
    });
    format!("data: {data}\n\n")
}

/// A black `width` x `height` image encoded as `format`.
pub fn image(width: u32, height: u32, format: image::ImageFormat) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    image::DynamicImage::new_rgb8(width, height)
        .write_to(&mut out, format)
        .unwrap();
    out.into_inner()
}

/// Set in a run of this test binary for one test (its name).
const ALONE: &str = "PI_TEST_ALONE";

/// Whether this process runs test `name` of `module` (`module_path!()`)
/// alone. A test whose measure is the whole process's (its peak memory,
/// its children's `getrusage`) must not count what the tests running
/// beside it in this binary use: when not alone, this runs the test binary
/// again for that one test, checks that it passed, and returns false (the
/// caller then returns).
pub fn alone(module: &str, name: &str) -> bool {
    let module = module.split_once("::").map_or(module, |(_, rest)| rest);
    let test = format!("{module}::{name}");
    if std::env::var_os(ALONE).is_some_and(|t| t == test.as_str()) {
        return true;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args([test.as_str(), "--exact", "--nocapture", "--test-threads=1"])
        .env(ALONE, &test)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{test} in a process of its own: {}\n{stdout}\n{stderr}",
        out.status
    );
    // What the run printed (its measurements) is shown with this test's output.
    #[allow(clippy::print_stderr)]
    {
        eprint!("{stderr}");
    }
    false
}
