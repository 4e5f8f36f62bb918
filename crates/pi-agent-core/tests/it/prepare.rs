//! `AgentTool::prepare_arguments`: arguments adapted before validation;
//! changes made in place are what the transcript replays, a returned value
//! is only validated and executed.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use pi_agent_core::{AgentTool, AgentToolResult, ToolError, ToolExecutionMode, ToolUpdateFn};
use pi_ai::scripted::{text_reply, tool_call_reply};
use pi_ai::{CancellationToken, Message};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::{agent_with, provider};

/// Takes `{items: [...]}`; accepts `items` sent as a JSON string (parsed in
/// place) and the older `{item}` shape (turned into a new value).
struct Lister {
    parameters: Value,
    executed: Mutex<Vec<Value>>,
}

#[async_trait]
impl AgentTool for Lister {
    fn name(&self) -> &str {
        "list"
    }
    fn label(&self) -> &str {
        "list"
    }
    fn description(&self) -> &str {
        "lists items"
    }
    fn parameters(&self) -> &Value {
        &self.parameters
    }
    fn prepare_arguments(&self, arguments: &mut Value) -> Option<Value> {
        let items = arguments.get_mut("items")?;
        if let Some(parsed) = items.as_str().and_then(|s| serde_json::from_str(s).ok()) {
            *items = parsed;
        }
        None
    }
    async fn execute(
        &self,
        _call_id: &str,
        args: Value,
        _cancel: CancellationToken,
        _on_update: ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError> {
        self.executed.lock().unwrap().push(args);
        Ok(AgentToolResult::text("listed"))
    }
}

/// Same, plus the older `{item}` shape, returned as a new value.
struct LegacyLister(Lister);

#[async_trait]
impl AgentTool for LegacyLister {
    fn name(&self) -> &str {
        "legacy"
    }
    fn label(&self) -> &str {
        "legacy"
    }
    fn description(&self) -> &str {
        "lists one item"
    }
    fn parameters(&self) -> &Value {
        self.0.parameters()
    }
    fn prepare_arguments(&self, arguments: &mut Value) -> Option<Value> {
        let item = arguments.get("item")?.clone();
        Some(json!({"items": [item]}))
    }
    async fn execute(
        &self,
        call_id: &str,
        args: Value,
        cancel: CancellationToken,
        on_update: ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError> {
        self.0.execute(call_id, args, cancel, on_update).await
    }
}

fn lister() -> Lister {
    Lister {
        parameters: json!({
            "type": "object",
            "properties": {"items": {"type": "array", "items": {"type": "string"}}},
            "required": ["items"],
            "additionalProperties": false
        }),
        executed: Mutex::new(Vec::new()),
    }
}

fn replayed_arguments(message: &Message) -> Vec<Value> {
    match message {
        Message::Assistant(a) => a.tool_calls().map(|c| c.arguments.clone()).collect(),
        other => panic!("expected the assistant message, got {other:?}"),
    }
}

async fn prepared_calls_replay(mode: ToolExecutionMode) {
    let scripted = provider([
        tool_call_reply(&[
            ("call_1", "list", json!({"items": "[\"a\",\"b\"]"})),
            ("call_2", "legacy", json!({"item": "c"})),
            ("call_3", "list", json!({"items": ["d"]})),
        ]),
        text_reply("done"),
        text_reply("again"),
    ]);
    let agent = agent_with::<pi_agent_core::NoCustom>(&scripted);
    let list = Arc::new(lister());
    let legacy = Arc::new(LegacyLister(lister()));
    agent.set_tools(vec![
        Arc::clone(&list) as Arc<dyn AgentTool>,
        Arc::clone(&legacy) as Arc<dyn AgentTool>,
    ]);
    agent.update_settings(|s| s.tool_execution = mode);
    agent.prompt("go").await.unwrap();
    agent.prompt("more").await.unwrap();

    // The tools ran with the prepared arguments.
    assert_eq!(
        *list.executed.lock().unwrap(),
        [json!({"items": ["a", "b"]}), json!({"items": ["d"]})]
    );
    assert_eq!(
        *legacy.0.executed.lock().unwrap(),
        [json!({"items": ["c"]})]
    );

    // In-place changes are replayed (next turn and next prompt); a returned
    // value is not.
    let expected = [
        json!({"items": ["a", "b"]}),
        json!({"item": "c"}),
        json!({"items": ["d"]}),
    ];
    let calls = scripted.calls();
    assert_eq!(replayed_arguments(&calls[1].messages[1]), expected);
    assert_eq!(replayed_arguments(&calls[2].messages[1]), expected);
    let state = agent.messages();
    let recorded = state[1].as_standard().unwrap();
    assert_eq!(replayed_arguments(recorded), expected);
}

#[tokio::test]
async fn prepared_arguments_in_a_parallel_batch() {
    prepared_calls_replay(ToolExecutionMode::Parallel).await;
}

#[tokio::test]
async fn prepared_arguments_in_a_sequential_batch() {
    prepared_calls_replay(ToolExecutionMode::Sequential).await;
}

#[tokio::test]
async fn validation_reports_the_prepared_arguments() {
    let scripted = provider([
        tool_call_reply(&[("call_1", "list", json!({"items": "[{\"n\":1}]"}))]),
        text_reply("done"),
    ]);
    let agent = agent_with::<pi_agent_core::NoCustom>(&scripted);
    agent.set_tools(vec![Arc::new(lister()) as Arc<dyn AgentTool>]);
    agent.prompt("go").await.unwrap();
    let calls = scripted.calls();
    let Message::ToolResult(result) = &calls[1].messages[2] else {
        panic!("expected the tool result");
    };
    let text = result.content[0].as_text().unwrap_or_default().to_owned();
    assert!(
        text.starts_with("Validation failed for tool \"list\""),
        "{text}"
    );
    assert!(
        text.contains("\"items\": [\n    {\n      \"n\": 1"),
        "{text}"
    );
    assert_eq!(
        replayed_arguments(&calls[1].messages[1]),
        [json!({"items": [{"n": 1}]})]
    );
}
