//! Tool cards and custom messages drawn through extension hooks, and pi's
//! fallback when a hook is absent, fails or panics.

use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;
use pi_agent_core::{AgentTool, AgentToolResult, ToolError, ToolUpdateFn};
use pi_ai::CancellationToken;
use pi_tui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pi_tui::slot::{Outcome, SlotComponent};
use pi_tui::theme::{ColorMode, Theme};
use serde_json::{Value, json};

use super::super::{CustomCard, RenderCtx, ToolCard};
use crate::extensions::{
    ExtensionComponent, ExtensionError, ExtensionKey, RegisteredTool, RenderShell, RenderTheme,
};
use crate::messages::CustomMessage;
use crate::modes::interactive::selectors::ext_custom::{ExtCustom, extension_key};

struct Noop(&'static str);

#[async_trait]
impl AgentTool for Noop {
    fn name(&self) -> &str {
        self.0
    }

    fn label(&self) -> &str {
        self.0
    }

    fn description(&self) -> &str {
        ""
    }

    fn parameters(&self) -> &Value {
        &Value::Null
    }

    async fn execute(
        &self,
        _: &str,
        _: Value,
        _: CancellationToken,
        _: ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError> {
        Ok(AgentToolResult::text(""))
    }
}

fn tool(name: &'static str) -> RegisteredTool {
    RegisteredTool {
        tool: Arc::new(Noop(name)),
        prompt_snippet: None,
        prompt_guidelines: Vec::new(),
        extension_path: "test".into(),
        render_call: None,
        render_result: None,
        render_shell: RenderShell::Default,
    }
}

fn draw(card: &mut ToolCard, expanded: bool) -> Vec<String> {
    let theme = Arc::new(Theme::dark(ColorMode::NoColor));
    let ctx = RenderCtx {
        theme: &theme,
        expanded,
        hide_thinking: false,
        home: None,
        now: Instant::now(),
        images: pi_tui::image::Display::default(),
        code_indent: "  ".to_owned(),
    };
    card.render(&ctx, 30)
        .iter()
        .map(|l| l.trim_end().to_owned())
        .collect()
}

fn settled(name: &str, hooks: RegisteredTool, text: &str) -> ToolCard {
    let mut card = ToolCard::new("call_1", name, json!({"item": "apple"})).with_hooks(hooks);
    card.start(json!({"item": "apple"}), Instant::now());
    card.set_result(&AgentToolResult::text(text), false, false, Instant::now());
    card
}

#[test]
fn hooks_draw_the_header_and_the_result_in_the_box() {
    let mut hooks = tool("fruit");
    hooks
        .set_render_call(|args, ctx| {
            assert_eq!(ctx.width, 28);
            Ok(vec![format!(
                "fruit {}",
                args["item"].as_str().unwrap_or("")
            )])
        })
        .set_render_result(|result, options, ctx| {
            assert!(!options.is_partial && ctx.execution_started && ctx.args_complete);
            let text = result.content[0].as_text().unwrap_or("").to_owned();
            Ok(vec![format!("got {text} expanded={}", options.expanded)])
        });
    let mut card = settled("fruit", hooks, "ok");
    assert_eq!(
        draw(&mut card, false),
        ["", "", " fruit apple", " got ok expanded=false", ""]
    );
    assert_eq!(draw(&mut card, true)[3], " got ok expanded=true");
}

#[test]
fn failing_hooks_fall_back_to_the_name_and_the_text() {
    let mut hooks = tool("fruit");
    hooks
        .set_render_call(|_, _| Err(ExtensionError::new("broken")))
        .set_render_result(|_, _, _| panic!("a hook that panics"));
    let mut card = settled("fruit", hooks, "line one\nline two");
    assert_eq!(
        draw(&mut card, false),
        ["", "", " fruit", " line one", " line two", ""]
    );
}

#[test]
fn an_absent_hook_falls_back_for_its_slot_only() {
    let mut hooks = tool("fruit");
    hooks.set_render_result(|_, _, _| Ok(vec!["custom result".into()]));
    let mut card = settled("fruit", hooks, "raw");
    assert_eq!(draw(&mut card, false)[2..4], [" fruit", " custom result"]);

    let mut hooks = tool("fruit");
    hooks.set_render_call(|_, _| Ok(vec!["custom call".into()]));
    let mut card = settled("fruit", hooks, "raw");
    assert_eq!(draw(&mut card, false)[2..4], [" custom call", " raw"]);

    // Before a result only the header is drawn.
    let mut hooks = tool("fruit");
    hooks.set_render_call(|_, _| Ok(vec!["custom call".into()]));
    let mut card = ToolCard::new("call_1", "fruit", json!({})).with_hooks(hooks);
    assert_eq!(draw(&mut card, false), ["", "", " custom call", ""]);
}

#[test]
fn an_overridden_builtin_falls_back_to_its_own_card() {
    let mut hooks = tool("ls");
    hooks.set_render_call(|_, _| Err(ExtensionError::new("broken")));
    let mut card = ToolCard::new("call_1", "ls", json!({"path": "src"})).with_hooks(hooks);
    card.set_result(
        &AgentToolResult::text("a.rs\nb.rs"),
        false,
        false,
        Instant::now(),
    );
    let lines = draw(&mut card, false);
    assert_eq!(lines[2], " ls src");
    assert!(lines.iter().any(|l| l.contains("a.rs")), "{lines:?}");
}

#[test]
fn a_self_drawn_card_has_no_box() {
    let mut hooks = tool("frame");
    hooks
        .set_render_shell(RenderShell::SelfDrawn)
        .set_render_call(|_, ctx| Ok(vec!["=".repeat(ctx.width)]))
        .set_render_result(|_, _, _| Ok(vec!["a\nb".into()]));
    let mut card = settled("frame", hooks, "");
    assert_eq!(draw(&mut card, false), ["", &"=".repeat(30), "a", "b"]);
}

#[test]
fn message_renderers_replace_the_card_unless_they_decline_or_fail() {
    let theme = Arc::new(Theme::dark(ColorMode::NoColor));
    let ctx = RenderCtx {
        theme: &theme,
        expanded: false,
        hide_thinking: false,
        home: None,
        now: Instant::now(),
        images: pi_tui::image::Display::default(),
        code_indent: "  ".to_owned(),
    };
    let message = CustomMessage {
        custom_type: "note".into(),
        content: "hello".into(),
        display: true,
        ..Default::default()
    };
    let mut drawn = CustomCard::new("note", "hello").with_renderer(
        Arc::new(
            |m: &CustomMessage, ctx: &crate::extensions::MessageRenderContext<'_>| {
                Ok(Some(vec![format!(
                    "* {} {}",
                    m.custom_type,
                    ctx.theme.bold("x")
                )]))
            },
        ),
        message.clone(),
    );
    assert_eq!(drawn.render(&ctx, 30), ["", "* note x"]);
    let default = CustomCard::new("note", "hello").render(&ctx, 30);
    let mut declined =
        CustomCard::new("note", "hello").with_renderer(Arc::new(|_, _| Ok(None)), message.clone());
    assert_eq!(declined.render(&ctx, 30), default);
    let mut failing = CustomCard::new("note", "hello")
        .with_renderer(Arc::new(|_, _| Err(ExtensionError::new("no"))), message);
    assert_eq!(failing.render(&ctx, 30), default);
    assert!(default.iter().any(|l| l.contains("[note]")));
}

struct Echo;

impl ExtensionComponent for Echo {
    fn render(&mut self, width: usize, theme: &dyn RenderTheme) -> Vec<String> {
        vec![theme.fg("accent", &"x".repeat(width + 5))]
    }

    fn handle_key(&mut self, key: &ExtensionKey) -> Option<Value> {
        key.is("ctrl+enter").then(|| json!(key.id))
    }
}

#[tokio::test]
async fn a_custom_component_resolves_its_value_or_none_when_dropped() {
    let theme = Arc::new(Theme::dark(ColorMode::NoColor));
    let (reply, answer) = tokio::sync::oneshot::channel();
    let mut shown = ExtCustom::new(Box::new(Echo), Arc::clone(&theme), reply);
    assert_eq!(SlotComponent::<()>::render(&mut shown, 4, 10), ["xxxx"]);
    let key = |code, mods| KeyEvent::new(code, mods);
    assert_eq!(
        SlotComponent::<()>::handle_key(&mut shown, &key(KeyCode::Char('a'), KeyModifiers::NONE)),
        Outcome::Stay
    );
    let done = key(KeyCode::Enter, KeyModifiers::CONTROL);
    assert_eq!(
        SlotComponent::<()>::handle_key(&mut shown, &done),
        Outcome::Cancel
    );
    assert_eq!(answer.await.ok().flatten(), Some(json!("ctrl+enter")));

    let (reply, answer) = tokio::sync::oneshot::channel();
    drop(ExtCustom::new(Box::new(Echo), theme, reply));
    assert_eq!(answer.await.ok().flatten(), None);
}

#[test]
fn terminal_keys_get_pis_ids() {
    let id = |code, mods| extension_key(&KeyEvent::new(code, mods)).map(|k| k.id);
    assert_eq!(
        id(KeyCode::Esc, KeyModifiers::NONE).as_deref(),
        Some("escape")
    );
    assert_eq!(
        id(
            KeyCode::Char('P'),
            KeyModifiers::CONTROL | KeyModifiers::SHIFT
        )
        .as_deref(),
        Some("ctrl+shift+p")
    );
    assert_eq!(
        id(KeyCode::BackTab, KeyModifiers::SHIFT).as_deref(),
        Some("shift+tab")
    );
    let typed = extension_key(&KeyEvent::new(KeyCode::Char('Q'), KeyModifiers::SHIFT));
    assert_eq!(typed.and_then(|k| k.text).as_deref(), Some("Q"));
}
