//! The terminal as an extension's UI (pi's `createExtensionUIContext` in
//! interactive mode). The trait's methods are called from the extensions'
//! tasks, so each one becomes an [`ExtensionCall`] sent to the UI loop;
//! dialogs wait for their answer on a oneshot channel (or for their
//! timeout or signal, which then close them on screen). The editor's text
//! and the tool expansion are read from a mirror the UI keeps current.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError};

use async_trait::async_trait;
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::oneshot;

use serde_json::Value;

use super::events::Opaque;
use super::events::{
    CustomRequest, DialogKind, DialogRequest, ExtensionCall, ExtensionMirror, ExtensionRequest,
    FooterRequest, UiEvent,
};
use crate::extensions::{
    AutocompleteProvider, DialogOptions, EditorComponentFn, ExtensionComponent, ExtensionUi,
    FooterFn, HeaderFn, NotifyLevel, SetThemeError, TerminalInputFn, TerminalInputHandle, WidgetFn,
    WidgetPlacement, WorkingIndicator, within_dialog,
};

/// The interactive terminal as [`ExtensionUi`].
pub struct TerminalUi {
    tx: UnboundedSender<UiEvent>,
    mirror: Arc<ExtensionMirror>,
    next_id: AtomicU64,
}

impl TerminalUi {
    /// A UI that sends its calls to the UI loop over `tx` and reads the
    /// editor's state from `mirror`.
    pub fn new(tx: UnboundedSender<UiEvent>, mirror: Arc<ExtensionMirror>) -> Self {
        Self {
            tx,
            mirror,
            next_id: AtomicU64::new(1),
        }
    }

    fn send(&self, call: ExtensionCall) {
        let _ = self
            .tx
            .send(UiEvent::Extension(ExtensionRequest::new(call)));
    }

    /// Shows a dialog and waits for its answer, its timeout or its signal
    /// (then it is closed on screen and the answer is `None`).
    async fn dialog(&self, kind: DialogKind, options: &DialogOptions) -> Option<String> {
        if options.signal.as_ref().is_some_and(|s| s.is_cancelled()) {
            return None;
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (reply, answer) = oneshot::channel();
        self.send(ExtensionCall::Dialog(DialogRequest {
            id,
            kind,
            timeout: options.timeout,
            reply,
        }));
        let value = within_dialog(options, async { answer.await.ok().flatten() }).await;
        // Closes it when it timed out or was cancelled (no-op when answered).
        self.send(ExtensionCall::CloseDialog(id));
        value
    }
}

#[async_trait]
impl ExtensionUi for TerminalUi {
    fn has_ui(&self) -> bool {
        true
    }

    fn is_terminal(&self) -> bool {
        true
    }

    async fn select(
        &self,
        title: &str,
        options: &[String],
        dialog: DialogOptions,
    ) -> Option<String> {
        let kind = DialogKind::Select {
            title: title.to_owned(),
            options: options.to_vec(),
        };
        self.dialog(kind, &dialog).await
    }

    async fn confirm(&self, title: &str, message: &str, dialog: DialogOptions) -> bool {
        // pi: a select of `Yes` / `No` titled `title\nmessage`.
        let kind = DialogKind::Select {
            title: format!("{title}\n{message}"),
            options: vec!["Yes".to_owned(), "No".to_owned()],
        };
        self.dialog(kind, &dialog).await.as_deref() == Some("Yes")
    }

    async fn input(
        &self,
        title: &str,
        _placeholder: Option<&str>,
        dialog: DialogOptions,
    ) -> Option<String> {
        // pi's input dialog does not show the placeholder either.
        let kind = DialogKind::Input {
            title: title.to_owned(),
        };
        self.dialog(kind, &dialog).await
    }

    async fn editor(&self, title: &str, prefill: Option<&str>) -> Option<String> {
        let kind = DialogKind::Editor {
            title: title.to_owned(),
            prefill: prefill.map(str::to_owned),
        };
        self.dialog(kind, &DialogOptions::default()).await
    }

    fn notify(&self, message: &str, level: Option<NotifyLevel>) {
        self.send(ExtensionCall::Notify(
            message.to_owned(),
            level.unwrap_or_default(),
        ));
    }

    fn set_status(&self, key: &str, text: Option<&str>) {
        self.send(ExtensionCall::Status(
            key.to_owned(),
            text.map(str::to_owned),
        ));
    }

    fn set_widget(
        &self,
        key: &str,
        lines: Option<Vec<String>>,
        placement: Option<WidgetPlacement>,
    ) {
        self.send(ExtensionCall::Widget(
            key.to_owned(),
            lines,
            placement.unwrap_or_default(),
        ));
    }

    fn set_widget_component(
        &self,
        key: &str,
        widget: Option<WidgetFn>,
        placement: Option<WidgetPlacement>,
    ) {
        self.send(ExtensionCall::WidgetComponent(
            key.to_owned(),
            Opaque(widget),
            placement.unwrap_or_default(),
        ));
    }

    fn set_title(&self, title: &str) {
        self.send(ExtensionCall::Title(title.to_owned()));
    }

    fn set_editor_text(&self, text: &str) {
        text.clone_into(
            &mut self
                .mirror
                .editor_text
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        self.send(ExtensionCall::SetEditorText(text.to_owned()));
    }

    fn editor_text(&self) -> String {
        self.mirror
            .editor_text
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn paste_to_editor(&self, text: &str) {
        self.send(ExtensionCall::Paste(text.to_owned()));
    }

    fn set_working_message(&self, message: Option<&str>) {
        self.send(ExtensionCall::WorkingMessage(message.map(str::to_owned)));
    }

    fn set_hidden_thinking_label(&self, label: Option<&str>) {
        self.send(ExtensionCall::HiddenThinkingLabel(label.map(str::to_owned)));
    }

    fn set_tools_expanded(&self, expanded: bool) {
        self.mirror
            .tools_expanded
            .store(expanded, Ordering::Relaxed);
        self.send(ExtensionCall::ToolsExpanded(expanded));
    }

    fn tools_expanded(&self) -> bool {
        self.mirror.tools_expanded.load(Ordering::Relaxed)
    }

    fn set_footer(&self, footer: Option<FooterFn>) {
        self.send(ExtensionCall::Footer(FooterRequest(footer)));
    }

    fn set_header(&self, header: Option<HeaderFn>) {
        self.send(ExtensionCall::Header(Opaque(header)));
    }

    fn set_working_indicator(&self, indicator: Option<WorkingIndicator>) {
        self.send(ExtensionCall::WorkingIndicator(indicator));
    }

    fn set_working_visible(&self, visible: bool) {
        self.send(ExtensionCall::WorkingVisible(visible));
    }

    fn theme_name(&self) -> Option<String> {
        let themes = self
            .mirror
            .themes
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        Some(themes.0.clone())
    }

    fn themes(&self) -> Vec<String> {
        let themes = self
            .mirror
            .themes
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        themes.1.names()
    }

    fn set_theme(&self, name: &str) -> Result<(), SetThemeError> {
        let mut themes = self
            .mirror
            .themes
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mode = themes.2.unwrap_or(pi_tui::theme::ColorMode::TrueColor);
        let theme = themes
            .1
            .load(name, mode)
            .map_err(|e| SetThemeError::Load(e.to_string()))?;
        name.clone_into(&mut themes.0);
        drop(themes);
        self.send(ExtensionCall::Theme(Opaque((name.to_owned(), theme))));
        Ok(())
    }

    fn add_autocomplete_provider(&self, provider: Arc<dyn AutocompleteProvider>) {
        self.mirror.autocomplete.add(provider);
    }

    fn on_terminal_input(&self, listener: TerminalInputFn) -> TerminalInputHandle {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.send(ExtensionCall::TerminalInput(id, Opaque(Some(listener))));
        let tx = self.tx.clone();
        TerminalInputHandle::new(move || {
            let call = ExtensionCall::TerminalInput(id, Opaque(None));
            let _ = tx.send(UiEvent::Extension(ExtensionRequest::new(call)));
        })
    }

    fn request_render(&self) {
        self.send(ExtensionCall::Redraw);
    }

    fn set_editor_component(&self, factory: Option<EditorComponentFn>) {
        self.send(ExtensionCall::EditorComponent(Opaque(factory)));
    }

    async fn custom(&self, component: Box<dyn ExtensionComponent>, overlay: bool) -> Option<Value> {
        let (reply, answer) = oneshot::channel();
        self.send(ExtensionCall::Custom(CustomRequest {
            component,
            overlay,
            reply,
        }));
        answer.await.ok().flatten()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn take(event: UiEvent) -> ExtensionCall {
        match event {
            UiEvent::Extension(request) => request.take().expect("a call"),
            other => panic!("not an extension call: {other:?}"),
        }
    }

    #[tokio::test]
    async fn dialogs_answer_time_out_and_close() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let ui = Arc::new(TerminalUi::new(tx, Arc::default()));
        assert!(ui.has_ui());
        let asking = Arc::clone(&ui);
        let answer = tokio::spawn(async move {
            asking
                .confirm("Sure?", "Really", DialogOptions::default())
                .await
        });
        let ExtensionCall::Dialog(request) = take(rx.recv().await.expect("event")) else {
            panic!("no dialog");
        };
        assert_eq!(
            request.kind,
            DialogKind::Select {
                title: "Sure?\nReally".into(),
                options: vec!["Yes".into(), "No".into()],
            }
        );
        request.reply.send(Some("Yes".into())).expect("waiting");
        assert!(answer.await.expect("task"));
        assert!(matches!(
            take(rx.recv().await.expect("event")),
            ExtensionCall::CloseDialog(_)
        ));

        let timed = ui.input(
            "Name",
            None,
            DialogOptions::with_timeout(Duration::from_millis(20)),
        );
        assert_eq!(timed.await, None);
        assert!(matches!(
            take(rx.recv().await.expect("event")),
            ExtensionCall::Dialog(_)
        ));
        assert!(matches!(
            take(rx.recv().await.expect("event")),
            ExtensionCall::CloseDialog(_)
        ));

        ui.set_editor_text("draft");
        assert_eq!(ui.editor_text(), "draft");
        ui.set_tools_expanded(true);
        assert!(ui.tools_expanded());
    }
}
