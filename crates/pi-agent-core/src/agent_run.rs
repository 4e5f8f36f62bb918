//! How an [`Agent`] runs the loop: the run lifecycle, the event sink that
//! updates the state and awaits the listeners, and error normalization.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures::FutureExt;

use pi_ai::{
    AssistantContent, AssistantMessage, CancellationToken, Message, SharedMessage, StopReason,
    now_ms,
};

use crate::agent::{Agent, lock};
use crate::agent_loop::{SharedPrefix, run_continue, run_prompts};
use crate::agent_types::{AgentError, AgentState};
use crate::config::{AgentContext, AgentLoopConfig, AgentLoopError};
use crate::events::{AgentEvent, AgentEventSink};
use crate::finalize;
use crate::hooks::FinalizeMessage;
use crate::message::{AgentMessage, CustomMessage};
use crate::tool_exec::panic_text;

impl<C: CustomMessage> Agent<C> {
    /// Marks a run active (after `check` accepted the state) and returns its token.
    pub(crate) fn begin_run(
        &self,
        busy: AgentError,
        check: impl FnOnce(&AgentState<C>) -> Result<(), AgentError>,
    ) -> Result<CancellationToken, AgentError> {
        let mut active = lock(&self.active);
        if active.is_some() {
            return Err(busy);
        }
        let mut state = lock(&self.state);
        check(&state)?;
        let cancel = CancellationToken::new();
        *active = Some(cancel.clone());
        state.is_streaming = true;
        state.streaming_message = None;
        state.error = None;
        drop(state);
        drop(active);
        self.running.send_replace(true);
        Ok(cancel)
    }

    /// Runs the loop with this agent's state and settings; normalizes a loop
    /// error into the event sequence of a failed turn.
    pub(crate) async fn execute_run(
        &self,
        cancel: CancellationToken,
        prompts: Option<Vec<AgentMessage<C>>>,
        skip_initial_steering: bool,
    ) {
        // Ends the run even if the caller drops this future midway.
        let _finish = FinishRun(self);
        let (context, prefix, config) = self.loop_inputs(skip_initial_steering);
        let mut sink = AgentSink {
            agent: self,
            cancel: cancel.clone(),
        };
        let result = match prompts {
            Some(prompts) => {
                run_prompts(prompts, context, prefix, &config, &mut sink, cancel.clone()).await
            }
            None => run_continue(context, prefix, &config, &mut sink, cancel.clone()).await,
        };
        if let Err(error) = result {
            let finalize = config.finalize_message.as_ref();
            self.normalize_failure(&error, cancel.is_cancelled(), finalize, &mut sink)
                .await;
        }
    }

    /// The run's context and loop configuration. For a run whose converter
    /// converts in place
    /// ([`crate::ConvertToLlm::convert_borrowed`]) and that has no hook that
    /// reads the transcript, the transcript stays in the state (the prefix)
    /// and the context holds no copy of it; otherwise the context holds one
    /// copy.
    fn loop_inputs(
        &self,
        skip_initial_steering: bool,
    ) -> (
        AgentContext<C>,
        Option<SharedPrefix<'_, C>>,
        AgentLoopConfig<C>,
    ) {
        let config = self.loop_config(skip_initial_steering);
        // `finalize_message` does not need the copy: it sees only the
        // message about to end, which the run holds itself, and its
        // replacement reaches the state through that message's
        // `message_end`, so the shared prefix (the messages before the run)
        // is never changed by it.
        let in_place = config.transform_context.is_none()
            && config.before_tool_call.is_none()
            && config.after_tool_call.is_none()
            && config.should_stop_after_turn.is_none();
        let state = lock(&self.state);
        // Whether the converter converts in place, asked of no messages (a
        // failing conversion is reported at the call, as a copy's would be).
        let prefix =
            (in_place && config.convert_to_llm.convert_borrowed(&[]).is_some()).then(|| {
                SharedPrefix {
                    state: &self.state,
                    count: state.messages.len(),
                }
            });
        let messages = match prefix {
            Some(_) => Vec::new(),
            None => {
                // Room for the run's prompts and first turns, so neither this
                // copy nor the run's appends reallocate the transcript.
                let mut messages = Vec::with_capacity(state.messages.len() + 64);
                messages.extend(state.messages.iter().cloned());
                messages
            }
        };
        let context = AgentContext {
            system_prompt: state.system_prompt.clone(),
            messages,
            tools: state.tools.clone(),
        };
        (context, prefix, config)
    }

    /// The loop configuration of a run: the model and thinking level of the
    /// state, the hooks and options of the settings.
    fn loop_config(&self, skip_initial_steering: bool) -> AgentLoopConfig<C> {
        let (model, reasoning) = {
            let state = lock(&self.state);
            (state.model.clone(), state.thinking_level)
        };
        let settings = lock(&self.settings);
        let steering = Arc::clone(&self.steering);
        let skip = AtomicBool::new(skip_initial_steering);
        let follow_up = Arc::clone(&self.follow_up);
        AgentLoopConfig {
            model,
            reasoning,
            thinking_budgets: settings.thinking_budgets,
            stream_options: settings.stream_options.clone(),
            stream_fn: Arc::clone(&settings.stream_fn),
            transform_context: settings.transform_context.clone(),
            convert_to_llm: Arc::clone(&settings.convert_to_llm),
            get_api_key: settings.get_api_key.clone(),
            get_steering_messages: Some(Arc::new(move || {
                if skip.swap(false, Ordering::Relaxed) {
                    return Vec::new();
                }
                lock(&steering).drain()
            })),
            get_follow_up_messages: Some(Arc::new(move || lock(&follow_up).drain())),
            tool_execution: settings.tool_execution,
            before_tool_call: settings.before_tool_call.clone(),
            after_tool_call: settings.after_tool_call.clone(),
            should_stop_after_turn: settings.should_stop_after_turn.clone(),
            finalize_message: settings.finalize_message.clone(),
        }
    }

    /// pi 0.85's error path: an assistant message with empty text, stop
    /// reason `aborted` (if the run was cancelled) or `error`, and the
    /// error's text, emitted as `message_start`, `message_end`, `turn_end`,
    /// `agent_end` (with `finalize`'s replacement from `message_end` on).
    async fn normalize_failure(
        &self,
        error: &AgentLoopError,
        aborted: bool,
        finalize: Option<&Arc<dyn FinalizeMessage<C>>>,
        sink: &mut AgentSink<'_, C>,
    ) {
        tracing::warn!("agent run failed: {error}");
        let model = self.model();
        let mut message = AssistantMessage::empty(model.api, model.provider, model.id, now_ms());
        message.content = vec![AssistantContent::text("")];
        message.stop_reason = if aborted {
            StopReason::Aborted
        } else {
            StopReason::Error
        };
        message.error_message = Some(error.to_string());
        let mut agent_message = AgentMessage::from(Message::Assistant(message.clone()));
        sink.emit(AgentEvent::MessageStart {
            message: agent_message.clone(),
        })
        .await;
        let cancel = sink.cancel.clone();
        if let Some(replacement) = finalize::replacement(finalize, &agent_message, &cancel).await {
            if let Some(assistant) = replacement.as_assistant() {
                message = assistant.clone();
            }
            agent_message = replacement;
        }
        sink.emit(AgentEvent::MessageEnd {
            message: agent_message.clone(),
        })
        .await;
        sink.emit(AgentEvent::TurnEnd {
            message,
            tool_results: Vec::new(),
        })
        .await;
        sink.emit(AgentEvent::AgentEnd {
            messages: vec![agent_message],
        })
        .await;
    }

    /// Updates the state for one event (before the listeners see it).
    fn reduce(&self, event: &AgentEvent<C>) {
        let mut state = lock(&self.state);
        match event {
            AgentEvent::MessageStart { message } => {
                if let Some(assistant) = message.as_assistant() {
                    state.streaming_message = Some(SharedMessage::new(assistant.clone()));
                }
            }
            AgentEvent::MessageUpdate { message, .. } => {
                if !state
                    .streaming_message
                    .as_ref()
                    .is_some_and(|current| current.ptr_eq(message))
                {
                    state.streaming_message = Some(message.clone());
                }
            }
            AgentEvent::MessageEnd { message } => {
                // The settled message replaces the streaming partial.
                state.streaming_message = None;
                if state.messages.len() == state.messages.capacity() {
                    // Grow by an eighth, not double: a resumed transcript
                    // arrives exactly sized, and doubling it on the first
                    // message would copy it into twice its size.
                    let more = (state.messages.len() / 8).max(16);
                    state.messages.reserve_exact(more);
                }
                state.messages.push(message.clone());
            }
            AgentEvent::ToolExecutionStart { tool_call_id, .. } => {
                state.pending_tool_calls.insert(tool_call_id.clone());
            }
            AgentEvent::ToolExecutionEnd { tool_call_id, .. } => {
                state.pending_tool_calls.remove(tool_call_id);
            }
            AgentEvent::TurnEnd {
                message,
                tool_results,
            } => {
                if let Some(error) = &message.error_message {
                    state.error = Some(error.clone());
                }
                // Tool calls whose arguments the tools' preparation changed
                // in place are kept in their prepared form, as the loop does.
                if !tool_results.is_empty()
                    && let Some(index) = state.messages.len().checked_sub(tool_results.len() + 1)
                    && let Some(recorded) = state.messages[index].as_assistant()
                    && recorded.timestamp == message.timestamp
                    && recorded.content != message.content
                {
                    state.messages[index] = Message::Assistant(message.clone()).into();
                }
            }
            AgentEvent::AgentEnd { .. } => state.streaming_message = None,
            AgentEvent::AgentStart
            | AgentEvent::TurnStart
            | AgentEvent::ToolExecutionUpdate { .. } => {}
        }
    }

    fn finish_run(&self) {
        {
            let mut state = lock(&self.state);
            state.is_streaming = false;
            state.streaming_message = None;
            state.pending_tool_calls.clear();
        }
        *lock(&self.active) = None;
        self.running.send_replace(false);
    }
}

/// Ends the run when dropped.
struct FinishRun<'a, C: CustomMessage>(&'a Agent<C>);

impl<C: CustomMessage> Drop for FinishRun<'_, C> {
    fn drop(&mut self) {
        self.0.finish_run();
    }
}

/// The Agent's event sink: reduce the state, then await each listener in order.
struct AgentSink<'a, C> {
    agent: &'a Agent<C>,
    cancel: CancellationToken,
}

impl<C: CustomMessage> AgentEventSink<C> for AgentSink<'_, C> {
    async fn emit(&mut self, event: AgentEvent<C>) {
        self.agent.reduce(&event);
        let listeners = Arc::clone(&lock(&self.agent.listeners));
        for (_, listener) in listeners.iter() {
            let handled = AssertUnwindSafe(listener.on_event(&event, &self.cancel))
                .catch_unwind()
                .await;
            if let Err(payload) = handled {
                tracing::error!(
                    event = event.kind(),
                    "agent listener panicked: {}",
                    panic_text(payload.as_ref())
                );
            }
        }
    }
}
