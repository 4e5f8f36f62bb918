//! The `ui_demo` example's second extension (also run by
//! `tests/it/extension_ui_tui.rs`): what an extension draws itself.
//!
//! - the tool `demo_render` (`{"item": ..}`) draws its call and result
//!   with render hooks (Ctrl+O shows the result's items);
//! - the tool `demo_broken` has hooks that fail: pi's fallback is drawn
//!   (the tool's name, the result's text);
//! - the tool `demo_frame` draws its whole card (`RenderShell::SelfDrawn`);
//! - `/demo-note`: a custom message drawn by a message renderer;
//! - `/demo-counter`: a component in the editor's place (Up / Down count,
//!   Enter finishes, Esc cancels);
//! - `/demo-overlay`: a component over the screen (`y` / `n`, Esc);
//! - `/demo-footer`: the footer replaced, or restored when run again.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use async_trait::async_trait;
use pi_agent_core::{AgentTool, AgentToolResult, ToolError, ToolUpdateFn};
use pi_ai::CancellationToken;
use pi_coding_agent::extensions::{
    CommandContext, Extension, ExtensionApi, ExtensionComponent, ExtensionError, ExtensionKey,
    NewCustomMessage, NotifyLevel, RenderShell, RenderTheme,
};
use serde_json::{Value, json};

/// The render demo extension.
#[derive(Default)]
pub struct RenderDemo {
    footer: Arc<AtomicBool>,
}

/// A tool that answers `<name> ran with <item>` and two detail items.
struct DemoTool {
    name: &'static str,
    parameters: Value,
}

impl DemoTool {
    fn new(name: &'static str) -> Arc<Self> {
        Arc::new(Self {
            name,
            parameters: json!({
                "type": "object",
                "properties": {"item": {"type": "string"}},
            }),
        })
    }
}

#[async_trait]
impl AgentTool for DemoTool {
    fn name(&self) -> &str {
        self.name
    }

    fn label(&self) -> &str {
        self.name
    }

    fn description(&self) -> &str {
        "A demo tool drawn by its extension"
    }

    fn parameters(&self) -> &Value {
        &self.parameters
    }

    async fn execute(
        &self,
        _call_id: &str,
        args: Value,
        _cancel: CancellationToken,
        _on_update: ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError> {
        let item = args["item"].as_str().unwrap_or("nothing");
        let mut result = AgentToolResult::text(format!("{} ran with {item}", self.name));
        result.details = json!({"items": ["first detail", "second detail"]});
        Ok(result)
    }
}

/// Counts with Up and Down; Enter resolves the count, Esc `null`.
struct Counter(i64);

impl ExtensionComponent for Counter {
    fn render(&mut self, width: usize, theme: &dyn RenderTheme) -> Vec<String> {
        vec![
            theme.fg("border", &"─".repeat(width)),
            format!(
                " {} {}",
                theme.fg("accent", &theme.bold("Counter:")),
                self.0
            ),
            theme.fg("dim", " ↑/↓ count · enter done · esc cancel"),
            theme.fg("border", &"─".repeat(width)),
        ]
    }

    fn handle_key(&mut self, key: &ExtensionKey) -> Option<Value> {
        if key.is("up") {
            self.0 += 1;
        } else if key.is("down") {
            self.0 -= 1;
        } else if key.is("enter") {
            return Some(json!(self.0));
        } else if key.is("escape") {
            return Some(Value::Null);
        }
        None
    }
}

/// A yes / no box over the screen.
struct Question;

impl ExtensionComponent for Question {
    fn render(&mut self, width: usize, theme: &dyn RenderTheme) -> Vec<String> {
        let inner = width.saturating_sub(2);
        // Pads the plain text, then styles it.
        let row = |text: &str, style: &dyn Fn(&str) -> String| {
            let pad = inner.saturating_sub(text.chars().count());
            format!("│{}{}│", style(text), " ".repeat(pad))
        };
        vec![
            format!("╭{}╮", "─".repeat(inner)),
            row(" Overlay question", &|t| theme.bold(t)),
            row(" Keep going? (y/n)", &str::to_owned),
            format!("╰{}╯", "─".repeat(inner)),
        ]
    }

    fn handle_key(&mut self, key: &ExtensionKey) -> Option<Value> {
        match key.text.as_deref() {
            Some("y") => Some(json!("yes")),
            Some("n") => Some(json!("no")),
            _ => key.is("escape").then_some(Value::Null),
        }
    }
}

fn toggle_footer(ctx: &CommandContext, on: &AtomicBool) {
    let ui = ctx.ui();
    if on.fetch_xor(true, Ordering::SeqCst) {
        ui.set_footer(None);
    } else {
        ui.set_footer(Some(Arc::new(|width, theme| {
            vec![theme.fg("accent", &format!("▶ demo footer, {width} columns"))]
        })));
    }
}

async fn note(ctx: CommandContext) -> Result<(), ExtensionError> {
    let message = NewCustomMessage {
        custom_type: "demo-note".to_owned(),
        content: "A note from the demo".into(),
        display: true,
        details: Some(json!({"mood": "cheerful"})),
    };
    ctx.pi().send_message(message, None, false).await
}

async fn counter(ctx: CommandContext) -> Result<(), ExtensionError> {
    let ui = ctx.ui();
    let value = ui.custom(Box::new(Counter(0)), false).await;
    ui.notify(
        &format!("Counter result: {value:?}"),
        Some(NotifyLevel::Info),
    );
    Ok(())
}

async fn overlay(ctx: CommandContext) -> Result<(), ExtensionError> {
    let ui = ctx.ui();
    let value = ui.custom(Box::new(Question), true).await;
    ui.notify(
        &format!("Overlay result: {value:?}"),
        Some(NotifyLevel::Info),
    );
    Ok(())
}

impl Extension for RenderDemo {
    fn path(&self) -> String {
        "render-demo".to_owned()
    }

    fn register(&self, api: &mut ExtensionApi<'_>) {
        api.register_tool(DemoTool::new("demo_render"))
            .set_render_call(|args, ctx| {
                let t = ctx.theme;
                let item = args["item"].as_str().unwrap_or("…");
                Ok(vec![format!(
                    "{}{}",
                    t.fg("toolTitle", &t.bold("◆ demo_render ")),
                    t.fg("accent", item)
                )])
            })
            .set_render_result(|result, options, ctx| {
                let t = ctx.theme;
                if options.is_partial {
                    return Ok(vec![t.fg("warning", "Processing...")]);
                }
                let mut lines = vec![t.fg("success", "✓ Done")];
                match result.details["items"].as_array() {
                    Some(items) if options.expanded => lines.extend(
                        items
                            .iter()
                            .map(|i| t.fg("dim", &format!("  • {}", i.as_str().unwrap_or("")))),
                    ),
                    _ => lines[0].push_str(&t.fg("muted", " (ctrl+o for details)")),
                }
                Ok(lines)
            });
        api.register_tool(DemoTool::new("demo_broken"))
            .set_render_call(|_, _| Err(ExtensionError::new("no header today")))
            .set_render_result(|_, _, _| Err(ExtensionError::new("no result today")));
        api.register_tool(DemoTool::new("demo_frame"))
            .set_render_shell(RenderShell::SelfDrawn)
            .set_render_call(|args, ctx| {
                let item = args["item"].as_str().unwrap_or("…");
                let title = format!("┏━ demo_frame: {item} ");
                let fill = ctx.width.saturating_sub(title.chars().count());
                Ok(vec![format!("{title}{}", "━".repeat(fill))])
            })
            .set_render_result(|result, _, _| {
                let text = result
                    .content
                    .iter()
                    .filter_map(|b| b.as_text())
                    .collect::<Vec<_>>()
                    .join(" ");
                Ok(vec![format!("┗━ {text}")])
            });
        api.register_message_renderer("demo-note", |message, ctx| {
            let t = ctx.theme;
            let text = match &message.content {
                pi_ai::UserContent::Text(text) => text.clone(),
                pi_ai::UserContent::Blocks(_) => return Ok(None),
            };
            let mut lines = vec![format!("{} {text}", t.fg("accent", "✎ [demo-note]"))];
            if ctx.expanded {
                lines.push(t.fg("dim", &format!("  details: {}", json!(message.details))));
            }
            Ok(Some(lines))
        });
        let footer = Arc::clone(&self.footer);
        api.register_command("demo-footer", Some("Replace the footer"), move |_, ctx| {
            toggle_footer(&ctx, &footer);
            async { Ok(()) }
        });
        api.register_command("demo-note", Some("Send a custom note"), |_, ctx| note(ctx));
        api.register_command("demo-counter", Some("A counter in the editor"), |_, ctx| {
            counter(ctx)
        });
        api.register_command(
            "demo-overlay",
            Some("A question over the screen"),
            |_, ctx| overlay(ctx),
        );
    }
}
