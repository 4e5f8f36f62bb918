//! `finalize_message`: its replacement, given before a message's
//! `message_end`, is what the event, the transcript (tools, next call),
//! `turn_end`, `agent_end` and the agent's state hold from then on.

use std::sync::Arc;

use pi_agent_core::{Agent, AgentEvent, AgentMessage, AgentToolResult, HookError, NoCustom};
use pi_ai::scripted::{text_reply, tool_call_reply};
use pi_ai::{AssistantContent, CancellationToken, Message, UserBlock};
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::{FnTool, Recorder, agent_with, any_object, describe_message, provider, seen};

/// Redacts user text, rewrites tool-call arguments `{"x":1}` to `{"x":2}`,
/// marks final assistant text and tool results.
fn rewrite(message: &AgentMessage) -> Option<AgentMessage> {
    match message {
        AgentMessage::Standard(Message::User(user)) => {
            let text = match &user.content {
                pi_ai::UserContent::Text(text) => text.clone(),
                pi_ai::UserContent::Blocks(blocks) => {
                    blocks.iter().filter_map(UserBlock::as_text).collect()
                }
            };
            text.contains("secret")
                .then(|| AgentMessage::user_text(text.replace("secret", "[redacted]")))
        }
        AgentMessage::Standard(Message::Assistant(assistant)) => {
            let mut assistant = assistant.clone();
            for block in &mut assistant.content {
                match block {
                    AssistantContent::ToolCall(call) => call.arguments = json!({"x": 2}),
                    AssistantContent::Text(text) => text.text.push_str(" (final)"),
                    AssistantContent::Thinking(_) => {}
                }
            }
            Some(Message::Assistant(assistant).into())
        }
        AgentMessage::Standard(Message::ToolResult(result)) => {
            let mut result = result.clone();
            result.content = vec![UserBlock::text(format!("{} (final)", result.text()))];
            Some(Message::ToolResult(result).into())
        }
        AgentMessage::Custom(never) => match *never {},
    }
}

fn echo_agent(scripted: &Arc<pi_ai::scripted::ScriptedProvider>) -> Agent {
    let agent = agent_with::<NoCustom>(scripted);
    let echo = FnTool::arc("echo", any_object(), |args, _, _| {
        Box::pin(async move { Ok(AgentToolResult::text(args.to_string())) })
    });
    agent.set_tools(vec![echo]);
    agent
}

fn lines(messages: &[AgentMessage]) -> Vec<String> {
    messages.iter().map(describe_message).collect()
}

#[tokio::test]
async fn the_replacement_reaches_tools_turn_end_agent_end_state_and_the_next_call() {
    // Without other hooks the agent converts its state in place; with a
    // transform_context it converts a copy: both see the replacement.
    for copy in [false, true] {
        let scripted = provider([
            tool_call_reply(&[("call_1", "echo", json!({"x": 1}))]),
            text_reply("done"),
        ]);
        let agent = echo_agent(&scripted);
        agent.update_settings(|s| {
            s.finalize_message = Some(Arc::new(rewrite));
            if copy {
                s.transform_context = Some(Arc::new(
                    |messages: Vec<AgentMessage>, _: CancellationToken| async move {
                        Ok::<_, HookError>(messages)
                    },
                ));
            }
        });
        let recorder = Recorder::default();
        agent.subscribe(recorder.listener());
        agent.prompt("my secret plan").await.unwrap();

        let expected = [
            "user \"my [redacted] plan\"",
            "assistant stop=tooluse calls=[call_1:echo]",
            "toolResult call_1 echo error=false \"{\\\"x\\\":2} (final)\"",
            "assistant stop=stop text=\"done (final)\"",
        ];
        assert_eq!(lines(&agent.messages()), expected, "copy={copy}");
        // The tool ran with the replaced call; the next call saw the replacements.
        let calls = scripted.calls();
        assert_eq!(seen(&calls[0]), expected[..1], "copy={copy}");
        assert_eq!(seen(&calls[1]), expected[..3], "copy={copy}");
        let replayed = calls[1].messages[1].clone();
        let Message::Assistant(replayed) = replayed else {
            panic!("not an assistant message: {replayed:?}");
        };
        assert_eq!(
            replayed.tool_calls().next().unwrap().arguments,
            json!({"x": 2})
        );
        // turn_end and agent_end carry the replacements too.
        let events = recorder.events();
        let turn_end = events.iter().find_map(|event| match event {
            AgentEvent::TurnEnd {
                message,
                tool_results,
            } => Some((message, tool_results)),
            _ => None,
        });
        let (message, tool_results) = turn_end.unwrap();
        assert_eq!(message, &replayed, "copy={copy}");
        assert_eq!(tool_results[0].text(), "{\"x\":2} (final)", "copy={copy}");
        let Some(AgentEvent::AgentEnd { messages }) = events.last() else {
            panic!("no agent_end");
        };
        assert_eq!(messages, &agent.messages(), "copy={copy}");
        insta::assert_snapshot!(format!("finalize_events_copy_{copy}"), recorder.lines());
    }
}

#[tokio::test]
async fn steering_follow_up_and_error_messages_are_finalized_too() {
    let scripted = provider([text_reply("one"), text_reply("two")]);
    let agent = agent_with::<NoCustom>(&scripted);
    agent.update_settings(|s| s.finalize_message = Some(Arc::new(rewrite)));
    agent.follow_up(AgentMessage::user_text("another secret"));
    agent.prompt("hi").await.unwrap();
    assert_eq!(
        seen(&scripted.calls()[1])[2..],
        ["user \"another [redacted]\""]
    );

    // A failing hook's normalized error message.
    agent.update_settings(|s| {
        s.convert_to_llm = Arc::new(|_: &[AgentMessage]| Err(HookError::new("no conversion")));
        s.finalize_message = Some(Arc::new(|message: &AgentMessage| {
            let mut assistant = message.as_assistant()?.clone();
            assistant.error_message = Some("finalized".into());
            Some(Message::Assistant(assistant).into())
        }));
    });
    let recorder = Recorder::default();
    agent.subscribe(recorder.listener());
    agent.prompt("fails").await.unwrap();
    assert_eq!(agent.error().as_deref(), Some("finalized"));
    let last = agent.messages().pop().unwrap();
    assert_eq!(
        describe_message(&last),
        "assistant stop=error error=\"finalized\""
    );
    let Some(AgentEvent::AgentEnd { messages }) = recorder.events().pop() else {
        panic!("no agent_end");
    };
    assert_eq!(messages, [last]);
}

#[tokio::test]
async fn a_replacement_of_another_role_is_ignored() {
    let scripted = provider([
        tool_call_reply(&[("call_1", "echo", json!({"x": 1}))]),
        text_reply("done"),
    ]);
    let agent = echo_agent(&scripted);
    agent.update_settings(|s| {
        s.finalize_message = Some(Arc::new(|message: &AgentMessage| {
            // Every message "becomes" an assistant message; only the
            // assistant's own replacement has its role.
            let Some(original) = message.as_assistant() else {
                return Some(Message::Assistant(text_reply("replaced")).into());
            };
            let mut assistant = original.clone();
            assistant.content.push(AssistantContent::text(" + kept"));
            Some(Message::Assistant(assistant).into())
        }));
    });
    agent.prompt("go").await.unwrap();
    assert_eq!(
        lines(&agent.messages()),
        [
            "user \"go\"",
            "assistant stop=tooluse text=\" + kept\" calls=[call_1:echo]",
            "toolResult call_1 echo error=false \"{\\\"x\\\":1}\"",
            "assistant stop=stop text=\"done + kept\"",
        ]
    );
}
