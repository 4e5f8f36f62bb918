//! pi's RpcClient scenarios (`fixtures/capture/rpc_client_scenarios.json`)
//! and pi 0.73.1's captured run of them
//! (`fixtures/pi-0.73.1/rpc-client/captured.json`): a replay of the same
//! commands against `pi --mode rpc` with the same mock answers, and the
//! comparison of a run with pi's (responses exact up to volatile values,
//! events in pi's order).

use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::time::Duration;

use pi_test_support::mock_server::MockResponse;
use regex::Regex;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::e2e_common::{Scenario, fixtures};

/// pi's captured run, by scenario name.
pub fn captured() -> Map<String, Value> {
    let path = fixtures().join("rpc-client/captured.json");
    let text = std::fs::read_to_string(&path).unwrap();
    match serde_json::from_str(&text).unwrap() {
        Value::Object(map) => map,
        other => panic!("{}: not an object: {other}", path.display()),
    }
}

/// The repository's capture scripts.
pub fn capture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/capture")
}

fn mock_responses(scenario: &Value) -> Vec<MockResponse> {
    scenario["responses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| match r.get("frames") {
            Some(Value::Array(frames)) => MockResponse::Sse {
                frames: frames
                    .iter()
                    .map(|f| f.as_str().unwrap().to_owned())
                    .collect(),
                delay: Duration::from_millis(r["delayMs"].as_u64().unwrap_or(0)),
            },
            _ => MockResponse::Body {
                status: u16::try_from(r["status"].as_u64().unwrap()).unwrap(),
                headers: Vec::new(),
                body: r["body"].as_str().unwrap().to_owned(),
            },
        })
        .collect()
}

/// A run's output lines and an index into them.
struct Wire {
    lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    seen: Vec<Value>,
}

impl Wire {
    /// Reads until a line at or after `from` satisfies `done`; its index.
    async fn until(&mut self, from: usize, done: impl Fn(&Value) -> bool) -> usize {
        if let Some(at) = self.seen.iter().skip(from).position(&done) {
            return from + at;
        }
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        loop {
            let line = tokio::time::timeout_at(deadline, self.lines.next_line())
                .await
                .expect("timed out waiting for pi")
                .unwrap()
                .expect("pi exited");
            let value: Value =
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
            self.seen.push(value);
            if self.seen.len() > from && done(&self.seen[self.seen.len() - 1]) {
                return self.seen.len() - 1;
            }
        }
    }

    async fn response(&mut self, id: &str) -> Value {
        let at = self
            .until(0, |v| v["type"] == "response" && v["id"] == id)
            .await;
        self.seen[at].clone()
    }

    /// Reads what arrives within `pause`.
    async fn drain(&mut self, pause: Duration) {
        while let Ok(Ok(Some(line))) = tokio::time::timeout(pause, self.lines.next_line()).await {
            self.seen.push(serde_json::from_str(&line).unwrap());
        }
    }
}

/// Replays scenario `name` of pi's capture against `pi --mode rpc`: the
/// same commands, waits and mock answers. Returns the run in the capture's
/// shape, with this run's directories written as pi's `<root>/...`.
pub async fn replay(name: &str, scenario: &Value) -> Value {
    let s = Scenario::start(mock_responses(scenario)).await;
    if let Some(settings) = scenario.get("settings").filter(|v| !v.is_null()) {
        std::fs::write(
            s.agent_dir.path().join("settings.json"),
            settings.to_string(),
        )
        .unwrap();
    }
    let sessions = s.sessions_dir();
    let mut args = vec![
        "--mode".to_owned(),
        "rpc".to_owned(),
        "--model".to_owned(),
        "mock-oai/mock-gpt".to_owned(),
        "--session-dir".to_owned(),
        sessions.display().to_string(),
    ];
    args.extend(
        scenario["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_owned()),
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut command = tokio::process::Command::from(s.command(&args));
    command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true);
    let mut child = command.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut wire = Wire {
        lines: BufReader::new(child.stdout.take().unwrap()).lines(),
        seen: Vec::new(),
    };
    let mut steps: Vec<Value> = Vec::new();
    let mut started = Map::new();
    let (mut cursor, mut next_id) = (0, 0);
    for step in scenario["steps"].as_array().unwrap() {
        let kind = step["kind"].as_str().unwrap();
        match kind {
            "call" | "start" => {
                next_id += 1;
                let id = format!("req_{next_id}");
                let mut sent = step["command"].clone();
                sent["id"] = json!(id);
                // Values pi took from an earlier response come from this run's.
                for (field, path) in step
                    .get("refs")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                {
                    let path = path.as_array().unwrap();
                    let at = usize::try_from(path[0].as_u64().unwrap()).unwrap();
                    let mut value = &steps[at]["response"]["data"];
                    for key in &path[1..] {
                        value = match key.as_u64() {
                            Some(index) => &value[usize::try_from(index).unwrap()],
                            None => &value[key.as_str().unwrap()],
                        };
                    }
                    sent[field] = value.clone();
                }
                stdin
                    .write_all(format!("{sent}\n").as_bytes())
                    .await
                    .unwrap();
                stdin.flush().await.unwrap();
                if kind == "start" {
                    started.insert(
                        step["name"].as_str().unwrap().to_owned(),
                        json!(steps.len()),
                    );
                    steps.push(json!({"kind": kind, "method": step["method"], "id": id}));
                    tokio::time::sleep(Duration::from_millis(50)).await;
                } else {
                    let response = wire.response(&id).await;
                    steps.push(
                        json!({"kind": kind, "method": step["method"], "response": response}),
                    );
                }
            }
            "join" => {
                let at = started[step["name"].as_str().unwrap()].as_u64().unwrap();
                let at = usize::try_from(at).unwrap();
                let id = steps[at]["id"].as_str().unwrap().to_owned();
                steps[at]["response"] = wire.response(&id).await;
                steps.push(json!({"kind": kind}));
            }
            "event" => {
                let wanted = step["type"].clone();
                cursor = wire.until(cursor, |v| v["type"] == wanted).await + 1;
                steps.push(json!({"kind": kind}));
            }
            "sleep" => {
                tokio::time::sleep(Duration::from_millis(step["ms"].as_u64().unwrap())).await;
                steps.push(json!({"kind": kind}));
            }
            other => panic!("{name}: unknown step {other}"),
        }
    }
    wire.drain(Duration::from_millis(300)).await;
    drop(stdin);
    let _ = tokio::time::timeout(Duration::from_secs(10), child.wait()).await;
    let run = json!({"steps": steps, "wire": wire.seen, "requests": requests(&s)});
    let text = run
        .to_string()
        .replace(&sessions.display().to_string(), "<root>/sessions")
        .replace(&s.work.path().display().to_string(), "<root>/work")
        .replace(&s.agent_dir.path().display().to_string(), "<root>/agent");
    serde_json::from_str(&text).unwrap()
}

fn requests(s: &Scenario) -> Vec<Value> {
    s.requests()
        .iter()
        .map(|r| {
            let body: Value = serde_json::from_slice(&r.body).unwrap();
            let messages: Vec<Value> = body["messages"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["role"] != "system")
                .cloned()
                .collect();
            json!({"messages": messages})
        })
        .collect()
}

static PORT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"127\.0\.0\.1:\d+").unwrap());
static STAMP: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\d{4}-\d\d-\d\dT[\d-]+Z_[0-9a-f-]{36}").unwrap());
static WORDS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(word\d+ )+").unwrap());

/// Values that differ from run to run, replaced by placeholders: ids,
/// timestamps, ports, session file names, the streamed words of an
/// aborted answer (how many arrive before the abort is timing).
fn normalize(value: &Value, key: Option<&str>) -> Value {
    const VOLATILE: [&str; 8] = [
        "timestamp",
        "id",
        "entryId",
        "parentId",
        "sessionId",
        "firstKeptEntryId",
        "toolCallId",
        "responseId",
    ];
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), normalize(v, Some(k))))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|v| normalize(v, None)).collect()),
        Value::Null => Value::Null,
        _ if key.is_some_and(|k| VOLATILE.contains(&k)) => {
            json!(format!("<{}>", key.unwrap_or_default()))
        }
        Value::String(text) => {
            let text = PORT.replace_all(text, "127.0.0.1:PORT");
            let text = STAMP.replace_all(&text, "<stamp_uuid>");
            json!(WORDS.replace_all(&text, "<words>"))
        }
        other => other.clone(),
    }
}

/// An event as compared: normalized; the streaming assistant message of
/// `message_start` keeps only its role and content (its stop reason is
/// 0.85's `pending`, and the response id may already be known: see
/// docs/payload-differences.md, "rpc mode").
fn comparable_event(event: &Value) -> Value {
    let mut event = normalize(event, None);
    if event["type"] == "message_start" && event["message"]["role"] == "assistant" {
        event["message"] = json!({"role": "assistant", "content": event["message"]["content"]});
    }
    event
}

/// The events of a run in order, without the streamed deltas and tool
/// output updates (how many arrive is timing): each as its type, and
/// `message_update` as `update:<its event type>`.
fn event_kinds(wire: &Value) -> Vec<String> {
    wire.as_array()
        .unwrap()
        .iter()
        .filter(|v| v["type"] != "response" && v["type"] != "tool_execution_update")
        .filter_map(|v| {
            if v["type"] == "message_update" {
                let kind = v["assistantMessageEvent"]["type"]
                    .as_str()
                    .unwrap_or_default();
                (!kind.ends_with("_delta")).then(|| format!("update:{kind}"))
            } else {
                Some(v["type"].as_str().unwrap_or_default().to_owned())
            }
        })
        .collect()
}

/// Compares `run` with pi's capture of scenario `name`: every response,
/// the order of events, and every event other than `message_update`.
pub fn assert_same(name: &str, pi: &Value, run: &Value) {
    let pi_calls: Vec<&Value> = pi["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["kind"] == "call" || s["kind"] == "start")
        .collect();
    let calls: Vec<&Value> = run["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["kind"] == "call" || s["kind"] == "start")
        .collect();
    assert_eq!(pi_calls.len(), calls.len(), "{name}: number of calls");
    for (expected, actual) in pi_calls.iter().zip(&calls) {
        pretty_assertions::assert_eq!(
            normalize(&expected["response"], None),
            normalize(&actual["response"], None),
            "{name}: response to {}",
            expected["method"]
        );
    }
    pretty_assertions::assert_eq!(
        event_kinds(&pi["wire"]),
        event_kinds(&run["wire"]),
        "{name}: events"
    );
    let events = |wire: &Value| -> Vec<Value> {
        wire.as_array()
            .unwrap()
            .iter()
            .filter(|v| v["type"] != "response" && v["type"] != "message_update")
            .filter(|v| v["type"] != "tool_execution_update")
            .map(comparable_event)
            .collect()
    };
    for (expected, actual) in events(&pi["wire"]).iter().zip(events(&run["wire"])) {
        pretty_assertions::assert_eq!(expected, &actual, "{name}: event {}", expected["type"]);
    }
    let tool_results = |requests: &Value| -> Vec<Value> {
        requests
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|r| r["messages"].as_array().unwrap().clone())
            .filter(|m| m["role"] == "tool")
            .map(|m| m["content"].clone())
            .collect()
    };
    assert_eq!(
        tool_results(&pi["requests"]),
        tool_results(&run["requests"]),
        "{name}: tool results the model sees"
    );
}
