//! Comparing a run with pi 0.73.1's capture: the run's volatile values
//! rewritten as the capture scripts rewrote pi's, then the rpc lines, the
//! responses, the requests and the session files side by side.

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::NEUTRAL_PKG;
use crate::e2e_common::{Scenario, comparable_entry, comparable_request};
use crate::extension_common::{captures, pi_example, request_bodies};

/// The request bodies are pi's (system prompt text, tool descriptions and
/// summarization instructions aside), after `neutral`. A split turn's two summary
/// requests go out at once: their order is the network's (in pi too), so
/// adjacent summary requests are compared in a fixed order.
pub fn assert_requests(scenario: &Scenario, name: &str, neutral: &Neutral) {
    let ours: Vec<Value> = request_bodies(scenario)
        .iter()
        .map(|b| comparable_request(&neutral.value(b)))
        .collect();
    let pi: Vec<Value> = pi_example(name, "requests.jsonl")
        .iter()
        .map(|b| comparable_request(&neutral.theirs(b)))
        .collect();
    assert_eq!(
        summaries_sorted(ours),
        summaries_sorted(pi),
        "{name}: requests"
    );
}

/// `bodies` with each run of adjacent summary requests sorted.
fn summaries_sorted(mut bodies: Vec<Value>) -> Vec<Value> {
    let summary = |body: &Value| {
        body["messages"]
            .as_array()
            .and_then(|m| m.last())
            .is_some_and(|m| m.to_string().contains("<conversation>"))
    };
    let mut at = 0;
    while at < bodies.len() {
        let run = bodies[at..].iter().take_while(|b| summary(b)).count();
        bodies[at..at + run].sort_by_key(Value::to_string);
        at += run.max(1);
    }
    bodies
}

/// Rewrites a run's volatile values the way the capture scripts did: the
/// scratch dirs to `<root>/{work,agent,sessions}`, the mock's port to
/// 18777, pi's package dir to [`NEUTRAL_PKG`], session file names to
/// `session.N.jsonl` (N in order of first mention, then of creation).
pub struct Neutral {
    pairs: Vec<(String, String)>,
    names: Vec<String>,
    extra: Vec<(regex::Regex, String)>,
}

/// pi's session file names.
fn session_name_pattern() -> regex::Regex {
    regex::Regex::new(
        r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl",
    )
    .unwrap()
}

impl Neutral {
    /// The rewriting for `scenario`, with the session names that `seen`
    /// (every line in and out) mention, in that order.
    pub fn new(scenario: &Scenario, seen: &[&[Value]]) -> Self {
        let real = |p: &Path| {
            p.canonicalize()
                .unwrap_or_else(|_| p.to_path_buf())
                .display()
                .to_string()
        };
        let mut pairs = vec![
            (real(&scenario.sessions_dir()), "<root>/sessions".to_owned()),
            (real(scenario.agent_dir.path()), "<root>/agent".to_owned()),
            (real(scenario.work.path()), "<root>/work".to_owned()),
            (scenario.server.url(), "http://127.0.0.1:18777".to_owned()),
        ];
        for (ours, neutral) in pairs.clone() {
            let plain = ours.replace("/private/", "/");
            if plain != ours {
                pairs.push((plain, neutral));
            }
        }
        if let Some(package) = pi_test_support::external::pi_package() {
            pairs.push((real(&package), NEUTRAL_PKG.to_owned()));
            // As given too: `.tools` may be a link (a worktree's to the
            // main checkout's), and pi-rs names the path it was given.
            let given = package.display().to_string();
            if given != real(&package) {
                pairs.push((given, NEUTRAL_PKG.to_owned()));
            }
        }
        // Longest first: the sessions dir is inside the agent dir.
        pairs.sort_by_key(|(ours, _)| std::cmp::Reverse(ours.len()));
        let pattern = session_name_pattern();
        let mut names: Vec<String> = Vec::new();
        for line in seen.iter().flat_map(|l| l.iter()) {
            for found in pattern.find_iter(&line.to_string()) {
                if !names.iter().any(|n| n == found.as_str()) {
                    names.push(found.as_str().to_owned());
                }
            }
        }
        for file in scenario.session_files() {
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            if !names.contains(&name) {
                names.push(name);
            }
        }
        Self {
            pairs,
            names,
            extra: Vec::new(),
        }
    }

    /// Also rewrites what `pattern` matches to `with`.
    pub fn with(mut self, pattern: &str, with: &str) -> Self {
        self.extra
            .push((regex::Regex::new(pattern).unwrap(), with.to_owned()));
        self
    }

    /// Our `text` rewritten.
    pub fn text(&self, text: &str) -> String {
        let mut text = text.to_owned();
        for (i, name) in self.names.iter().enumerate() {
            text = text.replace(name, &format!("session.{}.jsonl", i + 1));
        }
        for (ours, neutral) in &self.pairs {
            text = text.replace(ours, neutral);
        }
        self.extra_text(&text)
    }

    /// `text` with the patterns of [`Neutral::with`] rewritten (all that
    /// is left to do to pi's captures).
    fn extra_text(&self, text: &str) -> String {
        let mut text = text.to_owned();
        for (pattern, with) in &self.extra {
            text = pattern.replace_all(&text, with.as_str()).into_owned();
        }
        text
    }

    /// Every string (and key) in our `value` rewritten.
    pub fn value(&self, value: &Value) -> Value {
        map_strings(value, &|s| self.text(s))
    }

    /// Every string in pi's `value` rewritten by the patterns of
    /// [`Neutral::with`].
    pub fn theirs(&self, value: &Value) -> Value {
        map_strings(value, &|s| self.extra_text(s))
    }

    /// Our session files in the capture's numbering: `session.N.jsonl`.
    pub fn session_files(&self, scenario: &Scenario) -> Vec<(String, PathBuf)> {
        let mut files: Vec<(String, PathBuf)> = scenario
            .session_files()
            .into_iter()
            .map(|f| {
                let name = f.file_name().unwrap().to_string_lossy().into_owned();
                (self.text(&name), f)
            })
            .collect();
        files.sort();
        files
    }
}

/// `value` with `f` applied to every string and key.
fn map_strings(value: &Value, f: &dyn Fn(&str) -> String) -> Value {
    match value {
        Value::String(s) => Value::String(f(s)),
        Value::Array(items) => Value::Array(items.iter().map(|v| map_strings(v, f)).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (f(k), map_strings(v, f))).collect())
        }
        other => other.clone(),
    }
}

/// Ours or pi's.
#[derive(Clone, Copy)]
enum Side {
    Ours,
    Theirs,
}

impl Neutral {
    fn side(&self, side: Side, value: &Value) -> Value {
        match side {
            Side::Ours => self.value(value),
            Side::Theirs => self.theirs(value),
        }
    }
}

/// The lines of `kind` (`extension_ui_request` without ids), rewritten,
/// without times.
fn pick(lines: &[Value], kind: &str, neutral: &Neutral, side: Side) -> Vec<Value> {
    lines
        .iter()
        .filter(|l| l["type"] == kind)
        .map(|l| {
            let mut l = l.clone();
            if kind == "extension_ui_request" {
                l.as_object_mut().unwrap().remove("id");
            }
            without_times(&neutral.side(side, &l))
        })
        .collect()
}

/// `value` without its `timestamp` numbers (message times, and the
/// `Date.now()` extensions put in `details`).
pub fn without_times(value: &Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(without_times).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, v)| !(k.as_str() == "timestamp" && v.is_number()))
                .map(|(k, v)| (k.clone(), without_times(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// pi's rpc lines of example `name`, each extension's display requests of
/// a doubled `session_start` once: pi 0.73.1's rpc mode binds extensions
/// twice after a new session, a switch or a fork, pi-rs once
/// (`docs/extensions.md`).
pub fn pi_lines(name: &str) -> Vec<Value> {
    let mut lines = pi_example(name, "rpc.jsonl");
    let changes = ["new_session", "switch_session", "fork"];
    let mut at = 0;
    while at < lines.len() {
        let line = &lines[at];
        let changed = line["type"] == "response"
            && changes.contains(&line["command"].as_str().unwrap_or_default())
            && line["data"]["cancelled"] == false;
        if changed {
            let display = |l: &Value| {
                l["type"] == "extension_ui_request"
                    && !["select", "confirm", "input", "editor"]
                        .contains(&l["method"].as_str().unwrap_or_default())
            };
            let block = lines[..at].iter().rev().take_while(|l| display(l)).count();
            let without_id = |l: &Value| {
                let mut l = l.clone();
                l.as_object_mut().unwrap().remove("id");
                l
            };
            let (first, second) = (at - block, at - block / 2);
            let halves_equal = block % 2 == 0
                && lines[first..second]
                    .iter()
                    .map(without_id)
                    .eq(lines[second..at].iter().map(without_id));
            if block > 0 && halves_equal {
                lines.drain(second..at);
                at = second;
            }
        }
        at += 1;
    }
    lines
}

/// Our rpc lines of each of `kinds` are pi's (after `neutral`).
pub fn assert_kinds(ours: &[Value], name: &str, neutral: &Neutral, kinds: &[&str]) {
    let pi = pi_lines(name);
    for kind in kinds {
        assert_eq!(
            pick(ours, kind, neutral, Side::Ours),
            pick(&pi, kind, neutral, Side::Theirs),
            "{name}: {kind} lines"
        );
    }
}

/// Our responses to the commands of types `commands` are pi's (after
/// `neutral`), in order.
pub fn assert_responses(ours: &[Value], name: &str, neutral: &Neutral, commands: &[&str]) {
    let pi = pi_lines(name);
    let of = |lines: &[Value], side: Side| -> Vec<Value> {
        pick(lines, "response", neutral, side)
            .into_iter()
            .filter(|l| commands.contains(&l["command"].as_str().unwrap_or_default()))
            .collect()
    };
    assert_eq!(
        of(ours, Side::Ours),
        of(&pi, Side::Theirs),
        "{name}: responses to {commands:?}"
    );
}

/// The order of our rpc lines (types, with the method of a dialog
/// request and the command of a response) is pi's, `message_update`s
/// aside (their number depends on streaming).
pub fn assert_sequence(ours: &[Value], name: &str) {
    assert_sequence_of(ours, &pi_lines(name), name);
}

/// [`assert_sequence`] of `ours` against `pi` (lines chosen by the caller).
pub fn assert_sequence_of(ours: &[Value], pi: &[Value], name: &str) {
    let shape = |lines: &[Value]| -> Vec<String> {
        lines
            .iter()
            .filter(|l| l["type"] != "message_update")
            .map(|l| {
                let detail = l
                    .get("method")
                    .or_else(|| l.get("command"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                format!("{} {detail}", l["type"].as_str().unwrap_or_default())
                    .trim_end()
                    .to_owned()
            })
            .collect()
    };
    assert_eq!(
        shape(ours).join("\n"),
        shape(pi).join("\n"),
        "{name}: the order of the rpc lines"
    );
}

/// Our session files are pi's (`session.jsonl`, or `session.N.jsonl`
/// when pi wrote several), entry ids and times aside.
pub fn assert_sessions(scenario: &Scenario, name: &str, neutral: &Neutral) {
    let dir = captures().join("examples").join(name);
    let mut theirs: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f.starts_with("session") && f.ends_with(".jsonl"))
        .collect();
    theirs.sort();
    let ours = neutral.session_files(scenario);
    let our_names: Vec<String> = if theirs == ["session.jsonl"] && ours.len() == 1 {
        vec!["session.jsonl".to_owned()]
    } else {
        ours.iter().map(|(n, _)| n.clone()).collect()
    };
    assert_eq!(our_names, theirs, "{name}: session files");
    for ((_, path), file) in ours.iter().zip(&theirs) {
        let comparable = |lines: Vec<Value>, side: Side| -> Vec<Value> {
            // Entry ids (random) as their place in the file.
            let ids: Vec<String> = lines
                .iter()
                .filter_map(|l| l["id"].as_str().map(str::to_owned))
                .collect();
            let place = |s: &str| match ids.iter().position(|id| id == s) {
                Some(n) => format!("<entry {n}>"),
                None => s.to_owned(),
            };
            lines
                .iter()
                .map(|l| {
                    let entry = comparable_entry(&neutral.side(side, l));
                    without_times(&map_strings(&entry, &place))
                })
                .collect()
        };
        assert_eq!(
            comparable(crate::e2e_common::jsonl(path), Side::Ours),
            comparable(pi_example(name, file), Side::Theirs),
            "{name}: {file}"
        );
    }
}
