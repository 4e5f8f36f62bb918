//! pi's extension UI protocol in rpc mode: an extension's dialogs become
//! `extension_ui_request` lines on the output and wait for the client's
//! `extension_ui_response` with the same id (or their timeout, or their
//! signal); fire-and-forget calls are requests nobody answers. Field for
//! field as pi 0.73.1 writes them: optional values are left out, never
//! `null`. Extension failures are `extension_error` events.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use serde_json::{Map, Value, json};
use tokio::sync::oneshot;

use crate::app::App;
use crate::extensions::{DialogOptions, ExtensionUi, NotifyLevel, WidgetPlacement, within_dialog};
use crate::modes::{SharedWriter, write_json_line};

/// The rpc client as an extension's UI.
pub(super) struct RpcUi {
    out: SharedWriter,
    pending: Mutex<HashMap<String, oneshot::Sender<Value>>>,
}

impl RpcUi {
    pub(super) fn new(out: SharedWriter) -> Self {
        Self {
            out,
            pending: Mutex::new(HashMap::new()),
        }
    }

    /// Hands a client's `extension_ui_response` to the dialog waiting for
    /// it; an answer nobody waits for (late, unknown id) is dropped, as pi
    /// drops it.
    pub(super) fn answer(&self, response: &Value) {
        let Some(id) = response.get("id").and_then(Value::as_str) else {
            return;
        };
        let waiting = self
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id);
        if let Some(sender) = waiting {
            let _ = sender.send(response.clone());
        }
    }

    /// Writes a request of `method` with `fields`; returns its id.
    fn request(&self, method: &str, fields: Map<String, Value>) -> String {
        let id = uuid::Uuid::new_v4().to_string();
        self.write_request(&id, method, fields);
        id
    }

    /// Writes request `id` of `method` with `fields`.
    fn write_request(&self, id: &str, method: &str, fields: Map<String, Value>) {
        let mut line = Map::new();
        line.insert("type".into(), json!("extension_ui_request"));
        line.insert("id".into(), json!(id));
        line.insert("method".into(), json!(method));
        line.extend(fields);
        write_json_line(&self.out, &Value::Object(line));
    }

    /// Opens a dialog and waits for its answer; `None` when it was
    /// cancelled, timed out or dismissed.
    async fn dialog(
        &self,
        method: &str,
        mut fields: Map<String, Value>,
        dialog: &DialogOptions,
    ) -> Option<Value> {
        if let Some(timeout) = dialog.timeout {
            let ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
            fields.insert("timeout".into(), json!(ms));
        }
        // Waiting before the request is out: a client may answer at once.
        let (sender, receiver) = oneshot::channel();
        let id = uuid::Uuid::new_v4().to_string();
        self.pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.clone(), sender);
        self.write_request(&id, method, fields);
        let answer = within_dialog(dialog, async { receiver.await.ok() }).await;
        self.pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id);
        answer.filter(|a| a.get("cancelled") != Some(&Value::Bool(true)))
    }
}

fn fields(pairs: &[(&str, Option<Value>)]) -> Map<String, Value> {
    pairs
        .iter()
        .filter_map(|(k, v)| v.clone().map(|v| ((*k).to_owned(), v)))
        .collect()
}

fn text_value(answer: Option<Value>) -> Option<String> {
    answer?.get("value")?.as_str().map(str::to_owned)
}

#[async_trait]
impl ExtensionUi for RpcUi {
    fn has_ui(&self) -> bool {
        true
    }

    async fn select(
        &self,
        title: &str,
        options: &[String],
        dialog: DialogOptions,
    ) -> Option<String> {
        let fields = fields(&[
            ("title", Some(json!(title))),
            ("options", Some(json!(options))),
        ]);
        text_value(self.dialog("select", fields, &dialog).await)
    }

    async fn confirm(&self, title: &str, message: &str, dialog: DialogOptions) -> bool {
        let fields = fields(&[
            ("title", Some(json!(title))),
            ("message", Some(json!(message))),
        ]);
        self.dialog("confirm", fields, &dialog)
            .await
            .and_then(|a| a.get("confirmed").and_then(Value::as_bool))
            .unwrap_or(false)
    }

    async fn input(
        &self,
        title: &str,
        placeholder: Option<&str>,
        dialog: DialogOptions,
    ) -> Option<String> {
        let fields = fields(&[
            ("title", Some(json!(title))),
            ("placeholder", placeholder.map(|p| json!(p))),
        ]);
        text_value(self.dialog("input", fields, &dialog).await)
    }

    async fn editor(&self, title: &str, prefill: Option<&str>) -> Option<String> {
        let fields = fields(&[
            ("title", Some(json!(title))),
            ("prefill", prefill.map(|p| json!(p))),
        ]);
        text_value(
            self.dialog("editor", fields, &DialogOptions::default())
                .await,
        )
    }

    fn notify(&self, message: &str, level: Option<NotifyLevel>) {
        let fields = fields(&[
            ("message", Some(json!(message))),
            ("notifyType", level.map(|l| json!(l.as_str()))),
        ]);
        self.request("notify", fields);
    }

    fn set_status(&self, key: &str, text: Option<&str>) {
        let fields = fields(&[
            ("statusKey", Some(json!(key))),
            ("statusText", text.map(|t| json!(t))),
        ]);
        self.request("setStatus", fields);
    }

    fn set_widget(
        &self,
        key: &str,
        lines: Option<Vec<String>>,
        placement: Option<WidgetPlacement>,
    ) {
        // pi sends the placement it was given, `aboveEditor` included.
        let fields = fields(&[
            ("widgetKey", Some(json!(key))),
            ("widgetLines", lines.map(|l| json!(l))),
            ("widgetPlacement", placement.map(|p| json!(p))),
        ]);
        self.request("setWidget", fields);
    }

    fn set_title(&self, title: &str) {
        self.request("setTitle", fields(&[("title", Some(json!(title)))]));
    }

    fn set_editor_text(&self, text: &str) {
        self.request("set_editor_text", fields(&[("text", Some(json!(text)))]));
    }

    fn set_editor_text_undefined(&self) {
        self.request("set_editor_text", fields(&[]));
    }
}

/// Writes every extension failure as pi's `extension_error` event.
pub(super) fn report_errors(app: &App, out: &SharedWriter) {
    let out = Arc::clone(out);
    app.extensions.on_error(Arc::new(move |report| {
        let mut line = Map::new();
        line.insert("type".into(), json!("extension_error"));
        if let Value::Object(fields) = json!(report) {
            line.extend(fields);
        }
        write_json_line(&out, &Value::Object(line));
    }));
}
