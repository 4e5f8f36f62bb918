//! The `ui` requests of a host that map onto [`crate::extensions::ExtensionUi`]
//! one to one: dialogs, notifications, statuses, widgets as lines, the
//! editor's text, the working row, themes.

use std::time::Duration;

use serde_json::{Value, json};

use super::calls::{error, str_arg};
use super::protocol::RemoteError;
use crate::extensions::{DialogOptions, ExtensionContext, NotifyLevel, WidgetPlacement};

fn dialog(options: &Value) -> DialogOptions {
    DialogOptions {
        timeout: options
            .get("timeout")
            .and_then(Value::as_u64)
            .map(Duration::from_millis),
        signal: None,
    }
}

/// `ctx.ui` calls.
pub(super) async fn ui_call(ctx: &ExtensionContext, params: &Value) -> Result<Value, RemoteError> {
    let method = str_arg(params, "method")?;
    let args = params
        .get("args")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let arg = |i: usize| args.get(i).unwrap_or(&Value::Null);
    let text = |i: usize| arg(i).as_str().unwrap_or_default().to_owned();
    let ui = ctx.ui();
    Ok(match method {
        "select" => {
            let options: Vec<String> = arg(1)
                .as_array()
                .map(|o| {
                    o.iter()
                        .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            json!(ui.select(&text(0), &options, dialog(arg(2))).await)
        }
        "confirm" => json!(ui.confirm(&text(0), &text(1), dialog(arg(2))).await),
        "input" => json!(ui.input(&text(0), arg(1).as_str(), dialog(arg(2))).await),
        "editor" => json!(ui.editor(&text(0), arg(1).as_str()).await),
        "notify" => {
            let level: Option<NotifyLevel> = serde_json::from_value(arg(1).clone()).ok();
            ui.notify(&text(0), level);
            Value::Null
        }
        "setStatus" => {
            ui.set_status(&text(0), arg(1).as_str());
            Value::Null
        }
        "setWidget" => {
            let lines: Option<Vec<String>> = serde_json::from_value(arg(1).clone()).ok();
            let placement: Option<WidgetPlacement> = arg(2)
                .get("placement")
                .and_then(|p| serde_json::from_value(p.clone()).ok());
            ui.set_widget(&text(0), lines, placement);
            Value::Null
        }
        "setTitle" => {
            ui.set_title(&text(0));
            Value::Null
        }
        "setEditorText" => {
            match arg(0).as_str() {
                Some(text) => ui.set_editor_text(text),
                None => ui.set_editor_text_undefined(),
            }
            Value::Null
        }
        "getEditorText" => json!(ui.editor_text()),
        "pasteToEditor" => {
            ui.paste_to_editor(&text(0));
            Value::Null
        }
        "setWorkingMessage" => {
            ui.set_working_message(arg(0).as_str());
            Value::Null
        }
        "setHiddenThinkingLabel" => {
            ui.set_hidden_thinking_label(arg(0).as_str());
            Value::Null
        }
        "setToolsExpanded" => {
            ui.set_tools_expanded(arg(0).as_bool().unwrap_or(false));
            Value::Null
        }
        "getToolsExpanded" => json!(ui.tools_expanded()),
        "setWorkingVisible" => {
            ui.set_working_visible(arg(0).as_bool().unwrap_or(true));
            Value::Null
        }
        "setWorkingIndicator" => {
            let indicator = arg(0)
                .as_object()
                .map(|options| crate::extensions::WorkingIndicator {
                    frames: options
                        .get("frames")
                        .and_then(Value::as_array)
                        .map(|f| {
                            f.iter()
                                .filter_map(|v| v.as_str().map(str::to_owned))
                                .collect()
                        })
                        .unwrap_or_default(),
                    interval: options
                        .get("intervalMs")
                        .and_then(Value::as_u64)
                        .map(Duration::from_millis),
                });
            ui.set_working_indicator(indicator);
            Value::Null
        }
        "setFooter" => {
            ui.set_footer(None);
            Value::Null
        }
        "setHeader" => {
            ui.set_header(None);
            Value::Null
        }
        "setEditorComponent" => {
            ui.set_editor_component(None);
            Value::Null
        }
        "getAllThemes" => json!(
            ui.themes()
                .into_iter()
                .map(|name| json!({ "name": name, "path": Value::Null }))
                .collect::<Vec<_>>()
        ),
        "setTheme" => match ui.set_theme(&text(0)) {
            Ok(()) => json!({ "success": true }),
            Err(e) => json!({ "success": false, "error": e.to_string() }),
        },
        other => {
            return Err(error(format!(
                "ctx.ui.{other} is not supported by pi-rs yet"
            )));
        }
    })
}
