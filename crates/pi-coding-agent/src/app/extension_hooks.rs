//! The extension runner wired into the agent, as pi's `AgentSession` does:
//! `context` as the agent's `transform_context`, `tool_call` and
//! `tool_result` as its tool hooks, and the run's events forwarded to the
//! extensions (awaited, before the app's own listeners). A hook is
//! installed only when some handler listens, so an app without extensions
//! does no added work per turn.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use async_trait::async_trait;
use pi_agent_core::{
    AfterToolCall, AfterToolCallResult, AgentEvent, AgentListener, AgentSettings, AgentToolResult,
    BeforeToolCall, BeforeToolCallResult, ToolCallContext,
};
use pi_ai::CancellationToken;

use crate::extensions::{
    AfterProviderResponseEvent, AgentEndEvent, AgentStartEvent, ExtensionRunner, Message,
    MessageStartEvent, MessageUpdateEvent, ToolCallEvent, ToolExecutionEndEvent,
    ToolExecutionStartEvent, ToolExecutionUpdateEvent, ToolResultEvent, TurnEndEvent,
    TurnStartEvent,
};
use crate::messages::CodingMessage;

/// `tool_call` and `tool_result` handlers as the agent's tool hooks.
struct ToolHooks(Arc<ExtensionRunner>);

#[async_trait]
impl BeforeToolCall<CodingMessage> for ToolHooks {
    async fn before_tool_call(
        &self,
        context: ToolCallContext<'_, CodingMessage>,
        _cancel: &CancellationToken,
    ) -> Option<BeforeToolCallResult> {
        let event = ToolCallEvent {
            tool_call_id: context.tool_call.id.clone(),
            tool_name: context.tool_call.name.clone(),
            input: context.args.clone(),
        };
        let (result, input) = self.0.emit_tool_call(event).await;
        let changed = (input != *context.args).then_some(input);
        (result.block || changed.is_some()).then(|| BeforeToolCallResult {
            block: result.block,
            reason: result.reason,
            args: changed,
        })
    }
}

#[async_trait]
impl AfterToolCall<CodingMessage> for ToolHooks {
    async fn after_tool_call(
        &self,
        context: ToolCallContext<'_, CodingMessage>,
        result: &AgentToolResult,
        is_error: bool,
        _cancel: &CancellationToken,
    ) -> Option<AfterToolCallResult> {
        let event = ToolResultEvent {
            tool_call_id: context.tool_call.id.clone(),
            tool_name: context.tool_call.name.clone(),
            input: context.args.clone(),
            content: result.content.clone(),
            details: result.details.clone(),
            is_error,
        };
        let patch = self.0.emit_tool_result(event).await?;
        Some(AfterToolCallResult {
            content: patch.content,
            details: patch.details,
            is_error: patch.is_error,
            ..Default::default()
        })
    }
}

/// `message_end` handlers as the agent's message finalizer.
struct MessageEndHook(Arc<ExtensionRunner>);

#[async_trait]
impl pi_agent_core::FinalizeMessage<CodingMessage> for MessageEndHook {
    async fn finalize(&self, message: &Message, _cancel: &CancellationToken) -> Option<Message> {
        self.0.emit_message_end(message).await
    }
}

/// Installs the hooks some handler listens to.
pub(super) fn install(settings: &mut AgentSettings<CodingMessage>, runner: &Arc<ExtensionRunner>) {
    if runner.has_handlers("context") {
        settings.transform_context = Some(crate::extensions::context_transform(runner));
    }
    if runner.has_handlers("tool_call") {
        settings.before_tool_call = Some(Arc::new(ToolHooks(Arc::clone(runner))));
    }
    if runner.has_handlers("tool_result") {
        settings.after_tool_call = Some(Arc::new(ToolHooks(Arc::clone(runner))));
    }
    if runner.has_handlers("message_end") {
        settings.finalize_message = Some(Arc::new(MessageEndHook(Arc::clone(runner))));
    }
    if runner.has_handlers("before_provider_request") {
        let runner = Arc::clone(runner);
        settings.stream_options.on_payload =
            Some(pi_ai::PayloadHook::new(move |payload, _model| {
                let runner = Arc::clone(&runner);
                async move { Some(runner.emit_before_provider_request(payload).await) }
            }));
    }
    if runner.has_handlers("after_provider_response") {
        let runner = Arc::clone(runner);
        settings.stream_options.on_response = Some(pi_ai::ResponseHook::new(move |response| {
            let runner = Arc::clone(&runner);
            async move {
                runner
                    .emit(AfterProviderResponseEvent {
                        status: response.status,
                        headers: response.headers,
                    })
                    .await;
            }
        }));
    }
}

/// The run events that reach extensions through the agent's listener.
const RUN_EVENTS: [&str; 9] = [
    "agent_start",
    "agent_end",
    "turn_start",
    "turn_end",
    "message_start",
    "message_update",
    "tool_execution_start",
    "tool_execution_update",
    "tool_execution_end",
];

/// Forwards the run's events to the extensions (pi's `_emitExtensionEvent`;
/// `message_end` goes through [`MessageEndHook`], where it may replace the
/// message).
pub(super) struct RunEvents {
    runner: Arc<ExtensionRunner>,
    turn_index: AtomicU32,
}

impl RunEvents {
    /// A forwarder, or `None` when no handler listens to a run event.
    pub(super) fn new(runner: &Arc<ExtensionRunner>) -> Option<Self> {
        RUN_EVENTS
            .iter()
            .any(|name| runner.has_handlers(name))
            .then(|| Self {
                runner: Arc::clone(runner),
                turn_index: AtomicU32::new(0),
            })
    }
}

#[async_trait]
impl AgentListener<CodingMessage> for RunEvents {
    async fn on_event(&self, event: &AgentEvent<CodingMessage>, _cancel: &CancellationToken) {
        let runner = &self.runner;
        if !runner.has_handlers(event.kind()) {
            if let AgentEvent::AgentStart = event {
                self.turn_index.store(0, Ordering::SeqCst);
            } else if let AgentEvent::TurnEnd { .. } = event {
                self.turn_index.fetch_add(1, Ordering::SeqCst);
            }
            return;
        }
        match event {
            AgentEvent::AgentStart => {
                self.turn_index.store(0, Ordering::SeqCst);
                runner.emit(AgentStartEvent {}).await;
            }
            AgentEvent::AgentEnd { messages } => {
                runner.set_run_ending(true);
                runner
                    .emit(AgentEndEvent {
                        messages: messages.clone().into(),
                    })
                    .await;
                runner.set_run_ending(false);
            }
            AgentEvent::TurnStart => {
                runner
                    .emit(TurnStartEvent {
                        turn_index: self.turn_index.load(Ordering::SeqCst),
                        timestamp: pi_ai::now_ms(),
                    })
                    .await;
            }
            AgentEvent::TurnEnd {
                message,
                tool_results,
            } => {
                let tool_results: Vec<Message> = tool_results
                    .iter()
                    .map(|r| Message::from(pi_ai::Message::ToolResult(r.clone())))
                    .collect();
                runner
                    .emit(TurnEndEvent {
                        turn_index: self.turn_index.fetch_add(1, Ordering::SeqCst),
                        message: Arc::new(Message::from(pi_ai::Message::Assistant(
                            message.clone(),
                        ))),
                        tool_results: tool_results.into(),
                    })
                    .await;
            }
            AgentEvent::MessageStart { message } => {
                runner
                    .emit(MessageStartEvent {
                        message: Arc::new(message.clone()),
                    })
                    .await;
            }
            AgentEvent::MessageUpdate {
                assistant_message_event,
                message,
            } => {
                let partial = Message::from(pi_ai::Message::Assistant(message.snapshot()));
                runner
                    .emit(MessageUpdateEvent {
                        message: Arc::new(partial),
                        assistant_message_event: Arc::new(assistant_message_event.clone()),
                    })
                    .await;
            }
            AgentEvent::MessageEnd { .. } => {}
            AgentEvent::ToolExecutionStart {
                tool_call_id,
                tool_name,
                args,
            } => {
                runner
                    .emit(ToolExecutionStartEvent {
                        tool_call_id: tool_call_id.clone(),
                        tool_name: tool_name.clone(),
                        args: args.clone(),
                    })
                    .await;
            }
            AgentEvent::ToolExecutionUpdate {
                tool_call_id,
                tool_name,
                args,
                partial_result,
            } => {
                runner
                    .emit(ToolExecutionUpdateEvent {
                        tool_call_id: tool_call_id.clone(),
                        tool_name: tool_name.clone(),
                        args: args.clone(),
                        partial_result: partial_result.clone(),
                    })
                    .await;
            }
            AgentEvent::ToolExecutionEnd {
                tool_call_id,
                tool_name,
                result,
                is_error,
            } => {
                runner
                    .emit(ToolExecutionEndEvent {
                        tool_call_id: tool_call_id.clone(),
                        tool_name: tool_name.clone(),
                        result: result.clone(),
                        is_error: *is_error,
                    })
                    .await;
            }
        }
    }
}
