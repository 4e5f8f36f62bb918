//! Tool batches: parallel and sequential execution, results in call order,
//! updates, validation with coercion, unknown tools, tool errors and hooks.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use pi_agent_core::{
    AfterToolCall, AfterToolCallResult, AgentToolResult, BeforeToolCall, BeforeToolCallResult,
    ToolCallContext, ToolError, ToolExecutionMode,
};
use pi_ai::scripted::{text_reply, tool_call_reply};
use pi_ai::{CancellationToken, UserBlock};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::{FnTool, Recorder, agent_with, any_object, provider, seen, sleep_tool};

fn calls_slow_then_fast() -> pi_ai::AssistantMessage {
    tool_call_reply(&[
        ("call_slow", "slow", json!({})),
        ("call_fast", "fast", json!({})),
    ])
}

#[tokio::test(start_paused = true)]
async fn parallel_tools_finishing_out_of_order_give_results_in_call_order() {
    let scripted = provider([calls_slow_then_fast(), text_reply("both done")]);
    let agent = agent_with::<pi_agent_core::NoCustom>(&scripted);
    agent.set_tools(vec![sleep_tool("slow", 50), sleep_tool("fast", 5)]);
    let recorder = Recorder::default();
    agent.subscribe(recorder.listener());
    agent.prompt("go").await.unwrap();

    // The second model call sees the results in call order.
    assert_eq!(
        seen(&scripted.calls()[1])[2..],
        [
            "toolResult call_slow slow error=false \"slow done\"",
            "toolResult call_fast fast error=false \"fast done\"",
        ]
    );
    insta::assert_snapshot!(recorder.lines());
}

#[tokio::test(start_paused = true)]
async fn sequential_tools_run_one_after_the_other() {
    let scripted = provider([calls_slow_then_fast(), text_reply("both done")]);
    let agent = agent_with::<pi_agent_core::NoCustom>(&scripted);
    agent.set_tools(vec![sleep_tool("slow", 50), sleep_tool("fast", 5)]);
    agent.update_settings(|s| s.tool_execution = ToolExecutionMode::Sequential);
    let recorder = Recorder::default();
    agent.subscribe(recorder.listener());
    agent.prompt("go").await.unwrap();
    insta::assert_snapshot!(recorder.lines());
}

/// A tool that must run alone (pi's `executionMode: "sequential"`).
struct Alone(Arc<dyn pi_agent_core::AgentTool>);

#[async_trait]
impl pi_agent_core::AgentTool for Alone {
    fn name(&self) -> &str {
        self.0.name()
    }
    fn label(&self) -> &str {
        self.0.label()
    }
    fn description(&self) -> &str {
        self.0.description()
    }
    fn parameters(&self) -> &Value {
        self.0.parameters()
    }
    async fn execute(
        &self,
        call_id: &str,
        args: Value,
        cancel: CancellationToken,
        on_update: pi_agent_core::ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError> {
        self.0.execute(call_id, args, cancel, on_update).await
    }
    fn execution_mode(&self) -> Option<ToolExecutionMode> {
        Some(ToolExecutionMode::Sequential)
    }
}

#[tokio::test(start_paused = true)]
async fn one_tool_that_must_run_alone_makes_its_batch_sequential() {
    let run = |alone: bool, mode: ToolExecutionMode| async move {
        let scripted = provider([calls_slow_then_fast(), text_reply("both done")]);
        let agent = agent_with::<pi_agent_core::NoCustom>(&scripted);
        let fast = sleep_tool("fast", 5);
        let fast: Arc<dyn pi_agent_core::AgentTool> =
            if alone { Arc::new(Alone(fast)) } else { fast };
        agent.set_tools(vec![sleep_tool("slow", 50), fast]);
        agent.update_settings(|s| s.tool_execution = mode);
        let recorder = Recorder::default();
        agent.subscribe(recorder.listener());
        agent.prompt("go").await.unwrap();
        recorder.lines()
    };
    let sequential = run(false, ToolExecutionMode::Sequential).await;
    assert_eq!(run(true, ToolExecutionMode::Parallel).await, sequential);
    assert_ne!(run(false, ToolExecutionMode::Parallel).await, sequential);
}

fn bash_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "command": {"type": "string"},
            "timeout": {"type": "integer", "minimum": 1}
        },
        "required": ["command"],
        "additionalProperties": false
    })
}

/// A tool that answers with the arguments it received.
fn echo_tool(name: &str, schema: Value) -> Arc<dyn pi_agent_core::AgentTool> {
    FnTool::arc(name, schema, |args, _, _| {
        Box::pin(async move { Ok(AgentToolResult::text(args.to_string())) })
    })
}

#[tokio::test]
async fn invalid_arguments_and_unknown_tools_are_told_to_the_model() {
    let scripted = provider([
        tool_call_reply(&[
            ("call_1", "bash", json!({"timeout": 0, "extra": true})),
            ("call_2", "nope", json!({})),
            ("call_3", "bash", json!({"command": "ls", "timeout": "30"})),
        ]),
        text_reply("ok"),
    ]);
    let agent = agent_with::<pi_agent_core::NoCustom>(&scripted);
    agent.set_tools(vec![echo_tool("bash", bash_schema())]);
    let recorder = Recorder::default();
    agent.subscribe(recorder.listener());
    agent.prompt("run things").await.unwrap();

    let results: Vec<(String, bool)> = agent
        .messages()
        .iter()
        .filter_map(|m| match m {
            pi_agent_core::AgentMessage::Standard(pi_ai::Message::ToolResult(r)) => {
                Some((r.content[0].as_text().unwrap().to_owned(), r.is_error))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        [
            (
                // pi 0.73.1's text for the same schema and arguments.
                "Validation failed for tool \"bash\":\n  - command: must have required properties command\n  - extra: schema is false\n  - root: must not have additional properties\n  - timeout: must be >= 1\n\nReceived arguments:\n{\n  \"timeout\": 0,\n  \"extra\": true\n}".to_owned(),
                true
            ),
            ("Tool nope not found".to_owned(), true),
            // "30" was coerced to the schema's integer before execution.
            (r#"{"command":"ls","timeout":30}"#.to_owned(), false),
        ]
    );
    insta::assert_snapshot!(recorder.lines());
}

#[tokio::test]
async fn tool_errors_panics_and_updates_become_events_and_results() {
    let failing = FnTool::arc("fail", any_object(), |_, _, _| {
        Box::pin(async { Err(ToolError::new("disk full")) })
    });
    let panicking = FnTool::arc("panic", any_object(), |_, _, _| {
        Box::pin(async { panic!("tool bug") })
    });
    let streaming = FnTool::arc("stream", any_object(), |_, _, on_update| {
        Box::pin(async move {
            on_update(AgentToolResult::text("line 1"));
            tokio::task::yield_now().await;
            on_update(AgentToolResult::text("line 1\nline 2"));
            Ok(AgentToolResult::with_details(
                vec![UserBlock::text("line 1\nline 2\n")],
                &json!({"lines": 2}),
            ))
        })
    });
    let scripted = provider([
        tool_call_reply(&[
            ("c1", "fail", json!({})),
            ("c2", "panic", json!({})),
            ("c3", "stream", json!({})),
        ]),
        text_reply("ok"),
    ]);
    let agent = agent_with::<pi_agent_core::NoCustom>(&scripted);
    agent.set_tools(vec![failing, panicking, streaming]);
    let recorder = Recorder::default();
    agent.subscribe(recorder.listener());
    agent.prompt("go").await.unwrap();

    let results: Vec<Value> = agent
        .messages()
        .iter()
        .filter(|m| m.role() == "toolResult")
        .map(|m| {
            let mut json = serde_json::to_value(m).unwrap();
            json.as_object_mut().unwrap().remove("timestamp");
            json
        })
        .collect();
    insta::assert_json_snapshot!("tool_result_messages", results);
    insta::assert_snapshot!(recorder.lines());
}

struct Guard;

#[async_trait]
impl BeforeToolCall<pi_agent_core::NoCustom> for Guard {
    async fn before_tool_call(
        &self,
        context: ToolCallContext<'_, pi_agent_core::NoCustom>,
        _cancel: &CancellationToken,
    ) -> Option<BeforeToolCallResult> {
        let command = context.args["command"].as_str().unwrap_or_default();
        (command.starts_with("rm") || command == "sudo").then(|| BeforeToolCallResult {
            block: true,
            reason: (command == "sudo").then(|| "no sudo here".to_owned()),
            args: None,
        })
    }
}

struct Redact {
    seen: Mutex<Vec<String>>,
}

#[async_trait]
impl AfterToolCall<pi_agent_core::NoCustom> for Redact {
    async fn after_tool_call(
        &self,
        context: ToolCallContext<'_, pi_agent_core::NoCustom>,
        result: &AgentToolResult,
        is_error: bool,
        _cancel: &CancellationToken,
    ) -> Option<AfterToolCallResult> {
        self.seen.lock().unwrap().push(format!(
            "{} {} error={is_error} messages={}",
            context.tool_call.id,
            result.content[0].as_text().unwrap_or_default(),
            context.messages.len()
        ));
        (context.args["command"] == "cat secret").then(|| AfterToolCallResult {
            content: Some(vec![UserBlock::text("[redacted]")]),
            details: None,
            is_error: Some(true),
            terminate: None,
        })
    }
}

#[tokio::test]
async fn before_tool_call_blocks_and_after_tool_call_rewrites() {
    let scripted = provider([
        tool_call_reply(&[
            ("c1", "bash", json!({"command": "rm -rf /"})),
            ("c2", "bash", json!({"command": "sudo"})),
            ("c3", "bash", json!({"command": "cat secret"})),
            ("c4", "bash", json!({"command": "ls"})),
        ]),
        text_reply("ok"),
    ]);
    let agent = agent_with::<pi_agent_core::NoCustom>(&scripted);
    agent.set_tools(vec![echo_tool("bash", bash_schema())]);
    let redact = Arc::new(Redact {
        seen: Mutex::new(Vec::new()),
    });
    agent.update_settings(|s| {
        s.before_tool_call = Some(Arc::new(Guard));
        s.after_tool_call = Some(Arc::clone(&redact) as _);
    });
    let recorder = Recorder::default();
    agent.subscribe(recorder.listener());
    agent.prompt("go").await.unwrap();

    assert_eq!(
        *redact.seen.lock().unwrap(),
        [
            r#"c3 {"command":"cat secret"} error=false messages=2"#,
            r#"c4 {"command":"ls"} error=false messages=2"#,
        ]
    );
    insta::assert_snapshot!(recorder.lines());
}
