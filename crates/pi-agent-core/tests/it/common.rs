//! Helpers shared by the integration tests: a compact event description
//! for snapshots, a recording sink, closure-backed tools and agent setup.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use futures::future::BoxFuture;
use pi_agent_core::{
    Agent, AgentEvent, AgentMessage, AgentOptions, AgentTool, AgentToolResult, CustomMessage,
    ToolError, ToolUpdateFn,
};
use pi_ai::scripted::{ScriptedProvider, scripted_model};
use pi_ai::{
    AssistantMessage, AssistantMessageEvent, CancellationToken, Message, UserBlock, UserContent,
};
use serde_json::{Value, json};

fn quote(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

fn blocks_text(blocks: &[UserBlock]) -> String {
    blocks
        .iter()
        .map(|b| b.as_text().unwrap_or("<image>"))
        .collect::<Vec<_>>()
        .join("")
}

/// A one-line summary of an assistant message.
pub fn describe_assistant(message: &AssistantMessage) -> String {
    let mut line = format!("assistant stop={:?}", message.stop_reason).to_lowercase();
    let text = message.text();
    if !text.is_empty() {
        line.push_str(&format!(" text={}", quote(&text)));
    }
    let calls: Vec<String> = message
        .tool_calls()
        .map(|c| format!("{}:{}", c.id, c.name))
        .collect();
    if !calls.is_empty() {
        line.push_str(&format!(" calls=[{}]", calls.join(", ")));
    }
    if let Some(error) = &message.error_message {
        line.push_str(&format!(" error={}", quote(error)));
    }
    line
}

/// A one-line summary of any agent message.
pub fn describe_message<C: CustomMessage>(message: &AgentMessage<C>) -> String {
    match message {
        AgentMessage::Standard(Message::User(user)) => match &user.content {
            UserContent::Text(text) => format!("user {}", quote(text)),
            UserContent::Blocks(blocks) => format!("user {}", quote(&blocks_text(blocks))),
        },
        AgentMessage::Standard(Message::Assistant(assistant)) => describe_assistant(assistant),
        AgentMessage::Standard(Message::ToolResult(result)) => format!(
            "toolResult {} {} error={} {}",
            result.tool_call_id,
            result.tool_name,
            result.is_error,
            quote(&blocks_text(&result.content))
        ),
        AgentMessage::Custom(custom) => format!("custom role={}", custom.role()),
    }
}

fn describe_update(event: &AssistantMessageEvent) -> String {
    match event {
        AssistantMessageEvent::TextDelta {
            content_index,
            delta,
            ..
        }
        | AssistantMessageEvent::ThinkingDelta {
            content_index,
            delta,
            ..
        }
        | AssistantMessageEvent::ToolCallDelta {
            content_index,
            delta,
            ..
        } => format!("{}[{content_index}] {}", event.kind(), quote(delta)),
        AssistantMessageEvent::TextStart { content_index, .. }
        | AssistantMessageEvent::TextEnd { content_index, .. }
        | AssistantMessageEvent::ThinkingStart { content_index, .. }
        | AssistantMessageEvent::ThinkingEnd { content_index, .. }
        | AssistantMessageEvent::ToolCallStart { content_index, .. }
        | AssistantMessageEvent::ToolCallEnd { content_index, .. } => {
            format!("{}[{content_index}]", event.kind())
        }
        AssistantMessageEvent::Start { .. }
        | AssistantMessageEvent::Done { .. }
        | AssistantMessageEvent::Error { .. } => event.kind().to_owned(),
    }
}

/// A one-line summary of an event: its type and the fields a test cares
/// about (no timestamps, so snapshots are stable).
pub fn describe<C: CustomMessage>(event: &AgentEvent<C>) -> String {
    let kind = event.kind();
    match event {
        AgentEvent::AgentStart | AgentEvent::TurnStart => kind.to_owned(),
        AgentEvent::AgentEnd { messages } => {
            let roles: Vec<&str> = messages.iter().map(AgentMessage::role).collect();
            format!("{kind} messages=[{}]", roles.join(", "))
        }
        AgentEvent::TurnEnd {
            message,
            tool_results,
        } => {
            let ids: Vec<&str> = tool_results
                .iter()
                .map(|r| r.tool_call_id.as_str())
                .collect();
            format!(
                "{kind} {} results=[{}]",
                describe_assistant(message),
                ids.join(", ")
            )
        }
        AgentEvent::MessageStart { message } => match message.as_assistant() {
            // The partial at `start` is empty; its content is not interesting.
            Some(assistant) if assistant.content.is_empty() => format!("{kind} assistant"),
            _ => format!("{kind} {}", describe_message(message)),
        },
        AgentEvent::MessageEnd { message } => format!("{kind} {}", describe_message(message)),
        AgentEvent::MessageUpdate {
            assistant_message_event,
            ..
        } => format!("{kind} {}", describe_update(assistant_message_event)),
        AgentEvent::ToolExecutionStart {
            tool_call_id,
            tool_name,
            args,
        } => format!("{kind} {tool_call_id} {tool_name} {args}"),
        AgentEvent::ToolExecutionUpdate {
            tool_call_id,
            tool_name,
            partial_result,
            ..
        } => format!(
            "{kind} {tool_call_id} {tool_name} {}",
            quote(&blocks_text(&partial_result.content))
        ),
        AgentEvent::ToolExecutionEnd {
            tool_call_id,
            tool_name,
            result,
            is_error,
        } => format!(
            "{kind} {tool_call_id} {tool_name} error={is_error} {}",
            quote(&blocks_text(&result.content))
        ),
    }
}

/// Events collected by a sink or a listener.
#[derive(Clone)]
pub struct Recorder<C = pi_agent_core::NoCustom> {
    events: Arc<Mutex<Vec<AgentEvent<C>>>>,
}

impl<C: CustomMessage> Default for Recorder<C> {
    fn default() -> Self {
        Self {
            events: Arc::new(Mutex::new(Vec::new())),
        }
    }
}

impl<C: CustomMessage> Recorder<C> {
    /// A sink for the low-level loop.
    pub fn sink(&self) -> impl FnMut(AgentEvent<C>) -> futures::future::Ready<()> + Send + use<C> {
        let events = Arc::clone(&self.events);
        move |event| {
            events.lock().unwrap().push(event);
            futures::future::ready(())
        }
    }

    /// A listener for an [`Agent`].
    pub fn listener(&self) -> impl Fn(&AgentEvent<C>) + Send + Sync + 'static + use<C> {
        let events = Arc::clone(&self.events);
        move |event: &AgentEvent<C>| events.lock().unwrap().push(event.clone())
    }

    /// The events so far.
    pub fn events(&self) -> Vec<AgentEvent<C>> {
        self.events.lock().unwrap().clone()
    }

    /// One line per event.
    pub fn lines(&self) -> String {
        self.events()
            .iter()
            .map(describe)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The event types in order.
    pub fn kinds(&self) -> Vec<&'static str> {
        self.events().iter().map(AgentEvent::kind).collect()
    }
}

type ToolFn = dyn Fn(
        Value,
        CancellationToken,
        ToolUpdateFn,
    ) -> BoxFuture<'static, Result<AgentToolResult, ToolError>>
    + Send
    + Sync;

/// A tool backed by a closure.
pub struct FnTool {
    name: String,
    parameters: Value,
    run: Box<ToolFn>,
}

impl FnTool {
    /// A tool named `name` with this schema.
    pub fn arc(
        name: &str,
        parameters: Value,
        run: impl Fn(
            Value,
            CancellationToken,
            ToolUpdateFn,
        ) -> BoxFuture<'static, Result<AgentToolResult, ToolError>>
        + Send
        + Sync
        + 'static,
    ) -> Arc<dyn AgentTool> {
        Arc::new(Self {
            name: name.to_owned(),
            parameters,
            run: Box::new(run),
        })
    }
}

#[async_trait]
impl AgentTool for FnTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn label(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        "a test tool"
    }

    fn parameters(&self) -> &Value {
        &self.parameters
    }

    async fn execute(
        &self,
        _call_id: &str,
        args: Value,
        cancel: CancellationToken,
        on_update: ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError> {
        (self.run)(args, cancel, on_update).await
    }
}

/// A schema accepting any object.
pub fn any_object() -> Value {
    json!({"type": "object"})
}

/// A tool that sleeps `ms` milliseconds, then answers `"<name> done"`.
pub fn sleep_tool(name: &str, ms: u64) -> Arc<dyn AgentTool> {
    let text = format!("{name} done");
    FnTool::arc(name, any_object(), move |_, _, _| {
        let text = text.clone();
        Box::pin(async move {
            tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
            Ok(AgentToolResult::text(text))
        })
    })
}

/// An agent whose model calls go to `provider`.
pub fn agent_with<C: CustomMessage>(provider: &Arc<ScriptedProvider>) -> Agent<C> {
    let mut options = AgentOptions::new(scripted_model());
    options.settings.stream_fn = Arc::clone(provider) as Arc<dyn pi_ai::StreamFunction>;
    Agent::new(options)
}

/// A scripted provider that streams each block in one delta.
pub fn provider(replies: impl IntoIterator<Item = AssistantMessage>) -> Arc<ScriptedProvider> {
    Arc::new(ScriptedProvider::new(replies).with_chunk_size(1000))
}

/// The text a provider call saw, one line per message.
pub fn seen(context: &pi_ai::Context) -> Vec<String> {
    context
        .messages
        .iter()
        .map(|m| describe_message::<pi_agent_core::NoCustom>(&AgentMessage::Standard(m.clone())))
        .collect()
}
