use std::sync::Arc;

use async_trait::async_trait;
use pretty_assertions::assert_eq;
use serde::Deserialize;
use serde_json::{Value, json};

use pi_ai::CancellationToken;

use crate::tool::{
    AgentTool, AgentToolResult, ToolError, ToolExecutionMode, ToolUpdateFn, ignore_updates,
};
use crate::typed_tool::TypedTool;
use crate::validation::ArgumentConversion;

#[derive(Debug, Deserialize)]
struct EchoArgs {
    word: String,
    times: Option<u32>,
}

/// Repeats a word; sequential, TypeBox conversion, and a legacy `text` key.
struct Echo(Value);

#[async_trait]
impl TypedTool for Echo {
    type Args = EchoArgs;

    fn name(&self) -> &str {
        "echo"
    }

    fn description(&self) -> &str {
        "Repeats a word."
    }

    fn parameters(&self) -> &Value {
        &self.0
    }

    fn prepare_arguments(&self, arguments: &mut Value) -> Option<Value> {
        let text = arguments.as_object_mut()?.remove("text")?;
        arguments["word"] = text;
        None
    }

    fn argument_conversion(&self) -> ArgumentConversion {
        ArgumentConversion::TypeBox
    }

    fn execution_mode(&self) -> Option<ToolExecutionMode> {
        Some(ToolExecutionMode::Sequential)
    }

    async fn run(
        &self,
        call_id: &str,
        args: EchoArgs,
        _cancel: CancellationToken,
        _on_update: ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError> {
        let times = args.times.unwrap_or(1) as usize;
        Ok(AgentToolResult::text(format!(
            "{call_id}: {}",
            args.word.repeat(times)
        )))
    }
}

fn echo() -> Arc<dyn AgentTool> {
    Arc::new(Echo(json!({
        "type": "object",
        "properties": {"word": {"type": "string"}, "times": {"type": "number"}},
        "required": ["word"],
    })))
}

#[tokio::test]
async fn typed_arguments_reach_run() {
    let tool = echo();
    let result = tool
        .execute(
            "c1",
            json!({"word": "ab", "times": 2}),
            CancellationToken::new(),
            ignore_updates(),
        )
        .await
        .unwrap();
    assert_eq!(result, AgentToolResult::text("c1: abab"));
}

#[tokio::test]
async fn arguments_that_do_not_deserialize_are_the_tool_error() {
    let error = echo()
        .execute(
            "c1",
            json!({"word": "ab", "times": 2.5}),
            CancellationToken::new(),
            ignore_updates(),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error.message(),
        "Invalid arguments for tool echo: invalid type: floating point `2.5`, expected u32"
    );
}

#[test]
fn hooks_and_declaration_pass_through() {
    let tool = echo();
    assert_eq!(tool.label(), "echo");
    assert_eq!(tool.argument_conversion(), ArgumentConversion::TypeBox);
    assert_eq!(tool.execution_mode(), Some(ToolExecutionMode::Sequential));
    let mut arguments = json!({"text": "hi"});
    assert_eq!(tool.prepare_arguments(&mut arguments), None);
    assert_eq!(arguments, json!({"word": "hi"}));
    assert_eq!(tool.to_tool().name, "echo");
    assert_eq!(tool.to_tool().description, "Repeats a word.");
}
