//! The extension UI over rpc: a Rust port of pi's probe
//! (`fixtures/capture/extensions/ui-probe.ts`) runs its `/probe-*`
//! commands in process through rpc mode, answered as pi 0.73.1's capture
//! answered them (`fixtures/pi-0.73.1/extensions/ui/sent.jsonl`), and must
//! write pi's `extension_ui_request` lines and command responses (ids of
//! requests aside: random UUIDs) in pi's order (`ui/rpc.jsonl`), and log
//! pi's results (`ui/log.jsonl`): answers, cancels (pi's `undefined` /
//! `false`), timed dialogs that resolve to their default after their
//! timeout with nothing written, and a late answer ignored.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;
use crate::extension_common;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use e2e_common::{Scenario, jsonl};
use extension_common::{InProcessRpc, app_with, captures, is_response};
use pi_coding_agent::extensions::*;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

type Log = Arc<Mutex<Vec<Value>>>;

/// How long each timed dialog of `/probe-timeout` took to resolve.
type Waits = Arc<Mutex<Vec<Duration>>>;

/// The port of ui-probe.ts: each result is logged as
/// `{"probe", "call", "result", ...extra}`, `None` as `"<undefined>"`.
struct UiProbe(Log, Waits);

fn undefined_or(value: Option<String>) -> Value {
    value.map_or_else(|| json!("<undefined>"), Value::String)
}

fn record(log: &Log, probe: &str, call: &str, result: Value, extra: Option<(&str, Value)>) {
    let mut line = json!({"probe": probe, "call": call, "result": result});
    if let Some((key, value)) = extra {
        line[key] = value;
    }
    log.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(line);
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

fn none() -> DialogOptions {
    DialogOptions::default()
}

async fn probe_select(log: Log, ctx: CommandContext) -> Result<(), ExtensionError> {
    let (ui, p) = (ctx.ui(), "probe-select");
    record(&log, p, "hasUI", json!(ctx.has_ui()), None);
    let first = ui
        .select(
            "Pick a fruit",
            &strings(&["apple", "banana", "cherry"]),
            none(),
        )
        .await;
    record(&log, p, "select#1", undefined_or(first), None);
    let second = ui
        .select("Pick again", &strings(&["apple", "banana"]), none())
        .await;
    record(&log, p, "select#2", undefined_or(second), None);
    Ok(())
}

async fn probe_confirm(log: Log, ctx: CommandContext) -> Result<(), ExtensionError> {
    let ui = ctx.ui();
    for (n, question) in ["First question.", "Second question.", "Third question."]
        .into_iter()
        .enumerate()
    {
        let answer = ui.confirm("Proceed?", question, none()).await;
        let call = format!("confirm#{}", n + 1);
        record(&log, "probe-confirm", &call, json!(answer), None);
    }
    Ok(())
}

async fn probe_input(log: Log, ctx: CommandContext) -> Result<(), ExtensionError> {
    let (ui, p) = (ctx.ui(), "probe-input");
    let name = ui.input("Your name", Some("type a name"), none()).await;
    record(&log, p, "input#1", undefined_or(name), None);
    let city = ui.input("Your city", Some("type a city"), none()).await;
    record(&log, p, "input#2", undefined_or(city), None);
    let bare = ui.input("No placeholder", None, none()).await;
    record(&log, p, "input#3", undefined_or(bare), None);
    Ok(())
}

async fn probe_editor(log: Log, ctx: CommandContext) -> Result<(), ExtensionError> {
    let (ui, p) = (ctx.ui(), "probe-editor");
    let edited = ui.editor("Edit the text", Some("line 1\nline 2")).await;
    record(&log, p, "editor#1", undefined_or(edited), None);
    let again = ui.editor("Edit again", Some("keep")).await;
    record(&log, p, "editor#2", undefined_or(again), None);
    let empty = ui.editor("Empty editor", None).await;
    record(&log, p, "editor#3", undefined_or(empty), None);
    Ok(())
}

/// Whether at least the probe's 190 ms passed since `start` (pi's probe
/// allows 10 ms of timer slack under its 200 ms timeout); the wait itself
/// goes to `waits`.
fn waited(waits: &Waits, start: Instant) -> Option<(&'static str, Value)> {
    let elapsed = start.elapsed();
    waits
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(elapsed);
    Some((
        "waitedAtLeast200ms",
        json!(elapsed >= Duration::from_millis(190)),
    ))
}

async fn probe_timeout(log: Log, waits: Waits, ctx: CommandContext) -> Result<(), ExtensionError> {
    let (ui, p) = (ctx.ui(), "probe-timeout");
    let timed = || DialogOptions::with_timeout(Duration::from_millis(200));
    let start = Instant::now();
    let select = ui
        .select("Timed select", &strings(&["a", "b"]), timed())
        .await;
    record(
        &log,
        p,
        "select",
        undefined_or(select),
        waited(&waits, start),
    );
    let start = Instant::now();
    let confirm = ui
        .confirm("Timed confirm", "No answer expected.", timed())
        .await;
    record(&log, p, "confirm", json!(confirm), waited(&waits, start));
    let start = Instant::now();
    let input = ui.input("Timed input", Some("nothing"), timed()).await;
    record(&log, p, "input", undefined_or(input), waited(&waits, start));
    Ok(())
}

async fn probe_fire(log: Log, args: String, ctx: CommandContext) -> Result<(), ExtensionError> {
    let (ui, p) = (ctx.ui(), "probe-fire");
    record(&log, p, "args", json!(args), None);
    ui.notify("plain notify", None);
    ui.notify("info notify", Some(NotifyLevel::Info));
    ui.notify("warning notify", Some(NotifyLevel::Warning));
    ui.notify("error notify", Some(NotifyLevel::Error));
    ui.set_status("probe", Some("status on"));
    ui.set_status("probe", None);
    ui.set_widget("probe-above", Some(strings(&["above 1", "above 2"])), None);
    let above = Some(WidgetPlacement::AboveEditor);
    ui.set_widget("probe-above-explicit", Some(strings(&["above 3"])), above);
    let below = Some(WidgetPlacement::BelowEditor);
    ui.set_widget("probe-below", Some(strings(&["below 1"])), below);
    ui.set_widget("probe-above", None, None);
    ui.set_title("probe title");
    ui.set_editor_text("editor text from probe");
    ui.paste_to_editor("pasted text from probe");
    ui.set_working_message(Some("working..."));
    record(&log, p, "getEditorText", json!(ui.editor_text()), None);
    record(
        &log,
        p,
        "getToolsExpanded",
        json!(ui.tools_expanded()),
        None,
    );
    // The probe's last call, `ctx.ui.custom(factory)`, has no Rust form:
    // a custom component is a TypeScript object drawn by pi's terminal UI
    // (rpc answers it with `undefined` at once and writes nothing). Its
    // log line is left out of the comparison.
    Ok(())
}

impl Extension for UiProbe {
    fn path(&self) -> String {
        "<ui-probe>".to_owned()
    }

    fn register(&self, api: &mut ExtensionApi<'_>) {
        let log = Arc::clone(&self.0);
        api.register_command("probe-select", None, move |_, ctx| {
            probe_select(Arc::clone(&log), ctx)
        });
        let log = Arc::clone(&self.0);
        api.register_command("probe-confirm", None, move |_, ctx| {
            probe_confirm(Arc::clone(&log), ctx)
        });
        let log = Arc::clone(&self.0);
        api.register_command("probe-input", None, move |_, ctx| {
            probe_input(Arc::clone(&log), ctx)
        });
        let log = Arc::clone(&self.0);
        api.register_command("probe-editor", None, move |_, ctx| {
            probe_editor(Arc::clone(&log), ctx)
        });
        let (log, waits) = (Arc::clone(&self.0), Arc::clone(&self.1));
        api.register_command("probe-timeout", None, move |_, ctx| {
            probe_timeout(Arc::clone(&log), Arc::clone(&waits), ctx)
        });
        let log = Arc::clone(&self.0);
        api.register_command("probe-fire", None, move |args, ctx| {
            probe_fire(Arc::clone(&log), args, ctx)
        });
    }
}

/// A line without the random `id` of an `extension_ui_request` (command
/// responses keep theirs: `c1`, `c2`, ... on both sides).
fn without_request_id(line: &Value) -> Value {
    let mut line = line.clone();
    if line["type"] == "extension_ui_request"
        && let Some(fields) = line.as_object_mut()
    {
        fields.remove("id");
    }
    line
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ui_probe_over_rpc_does_what_pi_0_73_1_did() {
    let dir = captures().join("ui");
    let pi_out = jsonl(&dir.join("rpc.jsonl"));
    let pi_sent = jsonl(&dir.join("sent.jsonl"));
    let pi_requests: Vec<&Value> = pi_out
        .iter()
        .filter(|l| l["type"] == "extension_ui_request")
        .collect();
    // pi's answer to its request number k, if it sent one.
    let answer_to = |k: usize| {
        pi_sent
            .iter()
            .find(|s| s["type"] == "extension_ui_response" && s["id"] == pi_requests[k]["id"])
    };

    let scenario = Scenario::start(Vec::new()).await;
    let (log, waits): (Log, Waits) = (Arc::default(), Arc::default());
    let mut extensions = ExtensionSet::default();
    extensions.push(UiProbe(Arc::clone(&log), Arc::clone(&waits)));
    let app = app_with(&scenario, extensions, None, "mock-oai/mock-gpt");
    let mut rpc = InProcessRpc::start(app);

    // Our requests' ids, in order (request k answers as pi answered its k-th).
    let mut ids: Vec<Value> = Vec::new();
    for prompt in pi_sent.iter().filter(|s| s["type"] == "prompt") {
        let first = ids.len();
        let id = rpc
            .send(json!({"type": "prompt", "message": prompt["message"]}))
            .await;
        rpc.until(
            |line| is_response(line, &id),
            |line| {
                if line["type"] != "extension_ui_request" {
                    return None;
                }
                let k = ids.len();
                ids.push(line["id"].clone());
                if line.get("timeout").is_some() {
                    // A timed dialog: left to time out.
                    return None;
                }
                let mut answer = answer_to(k)?.clone();
                answer["id"] = line["id"].clone();
                Some(answer)
            },
        )
        .await;
        if prompt["message"] == "/probe-timeout" {
            // The late answer pi's driver sent, to the timed select.
            for (k, id) in ids.iter().enumerate().skip(first) {
                if let Some(late) = answer_to(k) {
                    let mut late = late.clone();
                    late["id"] = id.clone();
                    rpc.send_raw(late).await;
                }
            }
            rpc.settle(300).await;
        }
    }
    let seen = rpc.close().await;

    let ours: Vec<Value> = seen.iter().map(without_request_id).collect();
    let pi: Vec<Value> = pi_out.iter().map(without_request_id).collect();
    assert_eq!(ours, pi, "requests and responses, in order");

    // Each timed dialog resolved to its default after its timeout (with
    // nothing written meanwhile: the lines above are all there is).
    let waits = waits.lock().unwrap_or_else(PoisonError::into_inner).clone();
    assert_eq!(waits.len(), 3, "three timed dialogs");
    for wait in &waits {
        assert!(
            *wait >= Duration::from_millis(200),
            "resolved after {wait:?}"
        );
    }

    let ours = log.lock().unwrap_or_else(PoisonError::into_inner).clone();
    let pi_log: Vec<Value> = jsonl(&dir.join("log.jsonl"))
        .into_iter()
        .filter(|l| l.get("probe").is_some() && l["call"] != "custom")
        .collect();
    assert_eq!(ours, pi_log, "the probe's results");
}
