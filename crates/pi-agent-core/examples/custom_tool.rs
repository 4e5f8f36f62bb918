//! pi-agent-core on its own: an [`Agent`] with a custom tool (a
//! [`TypedTool`]: its arguments arrive as a Rust struct), driven by a
//! scripted provider (no network, no key). The "model" first calls the
//! `add` tool, then answers with the sum; the example prints every event
//! and the final transcript as pi's JSON.
//!
//! `cargo run -p pi-agent-core --example custom_tool`
//!
//! To talk to a real model instead, register a provider crate (for example
//! `pi_providers_anthropic::register()`), use one of its models and leave
//! `settings.stream_fn` at its default (the global registry).

#![allow(clippy::print_stdout)]

use std::sync::Arc;

use async_trait::async_trait;
use pi_agent_core::{
    Agent, AgentEvent, AgentOptions, AgentToolResult, ToolError, ToolUpdateFn, TypedTool,
};
use pi_ai::CancellationToken;
use pi_ai::scripted::{ScriptedProvider, scripted_model, text_reply, tool_call_reply};
use serde::Deserialize;
use serde_json::{Value, json};

/// Adds two numbers.
struct Add {
    schema: Value,
}

/// `add`'s arguments: the loop validated the JSON against the schema, the
/// [`TypedTool`] adapter deserializes it into this.
#[derive(Deserialize)]
struct AddArgs {
    a: f64,
    b: f64,
}

impl Add {
    fn new() -> Self {
        Self {
            schema: json!({
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"],
            }),
        }
    }
}

#[async_trait]
impl TypedTool for Add {
    type Args = AddArgs;

    fn name(&self) -> &str {
        "add"
    }

    fn label(&self) -> &str {
        "Add"
    }

    fn description(&self) -> &str {
        "Adds two numbers and returns the sum."
    }

    fn parameters(&self) -> &Value {
        &self.schema
    }

    async fn run(
        &self,
        _call_id: &str,
        args: AddArgs,
        _cancel: CancellationToken,
        _on_update: ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError> {
        Ok(AgentToolResult::text((args.a + args.b).to_string()))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The replies the "model" gives, in order.
    let provider = Arc::new(ScriptedProvider::new([
        tool_call_reply(&[("call_1", "add", json!({"a": 2, "b": 3}))]),
        text_reply("2 + 3 = 5"),
    ]));
    let mut options: AgentOptions = AgentOptions::new(scripted_model());
    options.system_prompt = "You add numbers with the add tool.".to_owned();
    options.tools = vec![Arc::new(Add::new())];
    options.settings.stream_fn = provider;
    let agent = Agent::new(options);
    agent.subscribe(|event: &AgentEvent| match event {
        AgentEvent::ToolExecutionStart {
            tool_name, args, ..
        } => println!("tool {tool_name} called with {args}"),
        AgentEvent::ToolExecutionEnd { result, .. } => {
            println!("tool result: {}", json!(result.content));
        }
        AgentEvent::MessageUpdate { .. } => {}
        other => println!("event: {}", other.kind()),
    });
    agent.prompt("What is 2 + 3?").await?;
    println!("\ntranscript:");
    for message in agent.messages() {
        println!("{}", serde_json::to_string(&message)?);
    }
    Ok(())
}
