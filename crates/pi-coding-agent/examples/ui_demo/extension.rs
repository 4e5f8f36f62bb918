//! The demo extension of the `ui_demo` example (also run by the
//! pseudo-terminal test `tests/it/extension_ui_tui.rs`): commands, a shortcut
//! and a `session_before_switch` guard that use the terminal UI.
//!
//! - `/demo-select [default]`: pick one of three options (Esc cancels);
//! - `/demo-confirm`: a yes/no question;
//! - `/demo-input`: a text prompt that closes by itself after 3 seconds;
//! - `/demo-editor`: a multi-line editor (Enter submits);
//! - `/demo-ui`: a status, widgets above and below the editor, the title,
//!   and an info, a warning and an error notification;
//! - `/demo-clear`: the status and widgets removed;
//! - `/demo-guard`: from now on `/new` asks first (and may be cancelled);
//! - `/demo-fail`: a failing command (its error shows in the chat);
//! - F5: a shortcut that notifies (listed in `/hotkeys`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use pi_coding_agent::extensions::{
    CancelResult, CommandContext, DialogOptions, Extension, ExtensionApi, ExtensionError,
    NotifyLevel, SessionBeforeSwitchEvent, WidgetPlacement,
};

const OPTIONS: [&str; 3] = ["alpha", "beta", "gamma"];

/// The demo extension.
#[derive(Default)]
pub struct UiDemo {
    guard: Arc<AtomicBool>,
}

async fn select(args: String, ctx: CommandContext) -> Result<(), ExtensionError> {
    let ui = ctx.ui();
    let mut options: Vec<String> = OPTIONS.iter().map(|o| (*o).to_owned()).collect();
    // An argument moves that option first.
    if let Some(at) = options.iter().position(|o| *o == args.trim()) {
        let first = options.remove(at);
        options.insert(0, first);
    }
    match ui
        .select("Pick a letter", &options, DialogOptions::default())
        .await
    {
        Some(choice) => ui.notify(&format!("Picked {choice}"), Some(NotifyLevel::Info)),
        None => ui.notify("Selection cancelled", Some(NotifyLevel::Warning)),
    }
    Ok(())
}

async fn confirm(ctx: CommandContext) -> Result<(), ExtensionError> {
    let ui = ctx.ui();
    let yes = ui
        .confirm(
            "Proceed?",
            "This only says yes or no",
            DialogOptions::default(),
        )
        .await;
    ui.notify(&format!("Confirmed: {yes}"), Some(NotifyLevel::Info));
    Ok(())
}

async fn input(ctx: CommandContext) -> Result<(), ExtensionError> {
    let ui = ctx.ui();
    let timeout = DialogOptions::with_timeout(Duration::from_secs(3));
    match ui.input("Your name", Some("name"), timeout).await {
        Some(name) => ui.notify(&format!("Hello, {name}"), Some(NotifyLevel::Info)),
        None => ui.notify("No name given", Some(NotifyLevel::Warning)),
    }
    Ok(())
}

async fn editor(ctx: CommandContext) -> Result<(), ExtensionError> {
    let ui = ctx.ui();
    match ui.editor("Edit the note", Some("a note")).await {
        Some(text) => ui.notify(&format!("Note: {text}"), Some(NotifyLevel::Info)),
        None => ui.notify("Note discarded", Some(NotifyLevel::Warning)),
    }
    Ok(())
}

fn show(ctx: &CommandContext) {
    let ui = ctx.ui();
    ui.set_status("demo", Some("● demo status"));
    ui.set_widget(
        "demo-above",
        Some(vec!["▲ widget above the editor".to_owned()]),
        Some(WidgetPlacement::AboveEditor),
    );
    ui.set_widget(
        "demo-below",
        Some(vec!["▼ widget below the editor".to_owned()]),
        Some(WidgetPlacement::BelowEditor),
    );
    ui.set_title("pi ui demo");
    ui.notify("An info line", Some(NotifyLevel::Info));
    ui.notify("A warning line", Some(NotifyLevel::Warning));
    ui.notify("An error line", Some(NotifyLevel::Error));
}

fn clear(ctx: &CommandContext) {
    let ui = ctx.ui();
    ui.set_status("demo", None);
    ui.set_widget("demo-above", None, Some(WidgetPlacement::AboveEditor));
    ui.set_widget("demo-below", None, Some(WidgetPlacement::BelowEditor));
}

impl Extension for UiDemo {
    fn path(&self) -> String {
        "ui-demo".to_owned()
    }

    fn register(&self, api: &mut ExtensionApi<'_>) {
        api.register_command("demo-select", Some("Pick one of three options"), select);
        api.with_completions(|prefix| {
            let items: Vec<(String, String)> = OPTIONS
                .iter()
                .filter(|o| o.starts_with(prefix))
                .map(|o| ((*o).to_owned(), (*o).to_owned()))
                .collect();
            (!items.is_empty()).then_some(items)
        });
        api.register_command("demo-confirm", Some("Ask yes or no"), |_, ctx| confirm(ctx));
        api.register_command("demo-input", Some("Ask for a name (3s)"), |_, ctx| {
            input(ctx)
        });
        api.register_command("demo-editor", Some("Edit a note"), |_, ctx| editor(ctx));
        api.register_command(
            "demo-ui",
            Some("Status, widgets, notifications"),
            |_, ctx| {
                show(&ctx);
                async { Ok(()) }
            },
        );
        api.register_command("demo-clear", Some("Remove status and widgets"), |_, ctx| {
            clear(&ctx);
            async { Ok(()) }
        });
        let guard = Arc::clone(&self.guard);
        api.register_command("demo-guard", Some("Ask before /new"), move |_, ctx| {
            guard.store(true, Ordering::SeqCst);
            ctx.ui()
                .notify("/new now asks first", Some(NotifyLevel::Info));
            async { Ok(()) }
        });
        api.register_command("demo-fail", Some("A command that fails"), |_, _| async {
            Err(ExtensionError::new("the demo failed on purpose"))
        });
        api.register_shortcut("f5", Some("Say hello from the demo"), |ctx| {
            ctx.ui().notify("Hello from F5", Some(NotifyLevel::Info));
            async { Ok(()) }
        });
        let guard = Arc::clone(&self.guard);
        api.on(move |_: SessionBeforeSwitchEvent, ctx| {
            let guard = guard.load(Ordering::SeqCst);
            async move {
                if !guard {
                    return Ok(None);
                }
                let ui = ctx.ui();
                let go = ui
                    .confirm(
                        "New session?",
                        "The demo guards /new",
                        DialogOptions::default(),
                    )
                    .await;
                if !go {
                    ui.notify("New session cancelled by the demo", Some(NotifyLevel::Info));
                }
                Ok(Some(CancelResult { cancel: !go }))
            }
        });
    }
}
