//! The low-level loop: per turn, `transform_context` then `convert_to_llm`
//! then the stream function; tool calls run as a batch; steering and
//! follow-up queues are polled; every step is emitted as an [`AgentEvent`].

use std::panic::AssertUnwindSafe;
use std::sync::Mutex;

use futures::StreamExt;

use pi_ai::{
    AssistantContent, AssistantMessage, AssistantMessageEvent, AssistantMessageEventStream,
    CancellationToken, Context, ContextRef, Message, MessagesRef, Model, SimpleStreamOptions,
    StopReason, StreamOptions, now_ms,
};

use crate::agent::lock;
use crate::agent_types::AgentState;
use crate::hooks::HookError;

use crate::config::{AgentContext, AgentLoopConfig, AgentLoopError};
use crate::events::{AgentEvent, AgentEventSink};
use crate::message::{AgentMessage, CustomMessage};
use crate::tool_exec::{ToolBatch, ToolSet, panic_text};

mod records;

/// The `errorMessage` of a model call that is not made because the run
/// was already aborted (pi's OpenAI and Anthropic clients word it so).
pub const PRE_ABORTED_MESSAGE: &str = "Request was aborted.";

/// Runs the agent on `context` plus `prompts` until the assistant stops
/// without tool calls and no steering or follow-up message is queued.
///
/// Emits `agent_start`, `turn_start` and the prompts' `message_start` /
/// `message_end`, then the turns, then `agent_end`. Returns the messages the
/// run added (prompts included). A failing `transform_context` or
/// `convert_to_llm`, or a stream function that breaks its contract, stops
/// the run with an error and no `agent_end` (the [`crate::Agent`] turns it
/// into an error message). Provider failures are not errors: they end the
/// turn with an assistant message whose stop reason is `error` or `aborted`.
pub async fn run_agent_loop<C: CustomMessage>(
    prompts: Vec<AgentMessage<C>>,
    context: AgentContext<C>,
    config: &AgentLoopConfig<C>,
    emit: &mut impl AgentEventSink<C>,
    cancel: CancellationToken,
) -> Result<Vec<AgentMessage<C>>, AgentLoopError> {
    run_prompts(prompts, context, None, config, emit, cancel).await
}

/// The transcript a run starts from, left where it is (in a
/// [`crate::Agent`]'s state): the run holds only the messages it adds, and
/// each model call converts the first `count` messages of the state's
/// transcript in place, borrowing them, under the state's lock.
pub(crate) struct SharedPrefix<'a, C> {
    /// The agent's state.
    pub(crate) state: &'a Mutex<AgentState<C>>,
    /// How many messages of its transcript come before the run's own.
    pub(crate) count: usize,
}

/// [`run_agent_loop`], where `context.messages` follows the transcript
/// `prefix` points at. A prefix is given only for a converter that converts
/// in place ([`crate::ConvertToLlm::convert_borrowed`]), without
/// `transform_context`, without tool-call hooks and without
/// `should_stop_after_turn` (which get the whole transcript): nothing else
/// in the loop reads the messages before the run.
pub(crate) async fn run_prompts<'a, C: CustomMessage>(
    prompts: Vec<AgentMessage<C>>,
    context: AgentContext<C>,
    prefix: Option<SharedPrefix<'a, C>>,
    config: &'a AgentLoopConfig<C>,
    emit: &mut impl AgentEventSink<C>,
    cancel: CancellationToken,
) -> Result<Vec<AgentMessage<C>>, AgentLoopError> {
    let mut run = Run::new(context, config, cancel, prompts.len());
    run.share(prefix);
    emit.emit(AgentEvent::AgentStart).await;
    emit.emit(AgentEvent::TurnStart).await;
    for prompt in prompts {
        run.add_message(prompt, emit).await;
    }
    run.run(emit).await?;
    Ok(run.new_messages)
}

/// Continues from `context` without a new prompt (retries, resumed
/// sessions). The context must be non-empty and must not end with an
/// assistant message (the last message has to convert to a user or
/// toolResult message). Emits `agent_start` and `turn_start`, then the turns.
pub async fn run_agent_loop_continue<C: CustomMessage>(
    context: AgentContext<C>,
    config: &AgentLoopConfig<C>,
    emit: &mut impl AgentEventSink<C>,
    cancel: CancellationToken,
) -> Result<Vec<AgentMessage<C>>, AgentLoopError> {
    run_continue(context, None, config, emit, cancel).await
}

/// [`run_agent_loop_continue`], where `context.messages` follows the
/// transcript `prefix` points at (see [`run_prompts`]).
pub(crate) async fn run_continue<'a, C: CustomMessage>(
    context: AgentContext<C>,
    prefix: Option<SharedPrefix<'a, C>>,
    config: &'a AgentLoopConfig<C>,
    emit: &mut impl AgentEventSink<C>,
    cancel: CancellationToken,
) -> Result<Vec<AgentMessage<C>>, AgentLoopError> {
    let ends_with_assistant = |last: Option<&AgentMessage<C>>| match last {
        None => Err(AgentLoopError::NothingToContinue),
        Some(last) if last.as_assistant().is_some() => Err(AgentLoopError::ContinueFromAssistant),
        Some(_) => Ok(()),
    };
    match &prefix {
        Some(prefix) => {
            let state = lock(prefix.state);
            ends_with_assistant(state.messages.get(..prefix.count).and_then(<[_]>::last))?;
        }
        None => ends_with_assistant(context.messages.last())?,
    }
    let mut run = Run::new(context, config, cancel, 0);
    run.share(prefix);
    emit.emit(AgentEvent::AgentStart).await;
    emit.emit(AgentEvent::TurnStart).await;
    run.run(emit).await?;
    Ok(run.new_messages)
}

/// Why a run given a [`SharedPrefix`] could not convert its transcript in place.
const NOT_IN_PLACE: &str = "convert_to_llm stopped converting in place during the run";

/// What calling the stream function gave: its stream, or the panic it raised.
type Called = std::thread::Result<AssistantMessageEventStream>;

/// Calls the stream function, catching a panic.
fn catch(call: impl FnOnce() -> AssistantMessageEventStream) -> Called {
    std::panic::catch_unwind(AssertUnwindSafe(call))
}

/// The state of one run: the loop's own copy of the transcript, the new
/// messages, and the parts of the model context that do not change per turn.
struct Run<'a, C> {
    config: &'a AgentLoopConfig<C>,
    cancel: CancellationToken,
    messages: Vec<AgentMessage<C>>,
    /// How many messages of the transcript come before `messages` (the run
    /// does not hold them): 0 but for [`run_prompts`] with a prefix.
    base: usize,
    /// Where those messages are: the agent's state (see [`SharedPrefix`]).
    shared: Option<&'a Mutex<AgentState<C>>>,
    new_messages: Vec<AgentMessage<C>>,
    tools: ToolSet,
    llm_context: Context,
    /// How many messages of `messages` `llm_context.messages` holds the
    /// conversion of, kept across turns for a per-message converter while
    /// `transform_context` (if any) leaves the messages as they are (earlier messages of a run's transcript
    /// never change; only the assistant message appended after a call is
    /// replaced, before the next one).
    converted: usize,
}

impl<'a, C: CustomMessage> Run<'a, C> {
    fn new(
        context: AgentContext<C>,
        config: &'a AgentLoopConfig<C>,
        cancel: CancellationToken,
        prompts: usize,
    ) -> Self {
        let AgentContext {
            system_prompt,
            mut messages,
            tools,
        } = context;
        // Room for this run's messages, so appending never copies the
        // transcript (exact: the amortized `reserve` would double it).
        messages.reserve_exact(prompts + 16);
        let declared: Vec<pi_ai::Tool> = tools.iter().map(|t| t.to_tool()).collect();
        let llm_context = Context {
            system_prompt: (!system_prompt.is_empty()).then_some(system_prompt),
            messages: Vec::new(),
            tools: (!declared.is_empty()).then_some(declared),
            extra: pi_ai::ExtraFields::new(),
        };
        Self {
            config,
            cancel,
            messages,
            base: 0,
            shared: None,
            new_messages: Vec::with_capacity(prompts + 8),
            tools: ToolSet::new(tools),
            llm_context,
            converted: 0,
        }
    }

    /// Leaves the transcript before the run where `prefix` points (see
    /// [`SharedPrefix`]); `None`: the run's context holds it.
    fn share(&mut self, prefix: Option<SharedPrefix<'a, C>>) {
        if let Some(prefix) = prefix {
            self.shared = Some(prefix.state);
            self.base = prefix.count;
        }
    }

    fn poll(source: Option<&crate::config::MessageSource<C>>) -> Vec<AgentMessage<C>> {
        source.map(|poll| poll()).unwrap_or_default()
    }

    async fn run(&mut self, emit: &mut impl AgentEventSink<C>) -> Result<(), AgentLoopError> {
        let config = self.config;
        let mut first_turn = true;
        // The user may have typed while the run was being set up.
        let mut pending = Self::poll(config.get_steering_messages.as_ref());
        loop {
            let mut has_more_tool_calls = true;
            while has_more_tool_calls || !pending.is_empty() {
                if first_turn {
                    first_turn = false;
                } else {
                    emit.emit(AgentEvent::TurnStart).await;
                }
                for message in std::mem::take(&mut pending) {
                    self.add_message(message, emit).await;
                }

                let message = self.stream_assistant_response(emit).await?;
                self.new_messages
                    .push(Message::Assistant(message.clone()).into());
                if message.stop_reason.is_failure() {
                    emit.emit(AgentEvent::TurnEnd {
                        message,
                        tool_results: Vec::new(),
                    })
                    .await;
                    emit.emit(AgentEvent::AgentEnd {
                        messages: self.new_messages.clone(),
                    })
                    .await;
                    return Ok(());
                }

                has_more_tool_calls = false;
                let mut message = message;
                let mut tool_results = Vec::new();
                let mut steering = Vec::new();
                if message.tool_calls().next().is_some() {
                    let batch = ToolBatch {
                        config,
                        tools: &self.tools,
                        messages: &self.messages,
                        assistant: &message,
                        cancel: &self.cancel,
                    };
                    let outcome = batch.execute(emit).await;
                    if !outcome.prepared_arguments.is_empty() {
                        self.record_prepared_arguments(&mut message, outcome.prepared_arguments);
                    }
                    // A batch whose results all ask to terminate makes no
                    // further model call (queued messages still do).
                    has_more_tool_calls = !outcome.terminate;
                    steering = outcome.steering;
                    tool_results = outcome.results;
                    for result in &tool_results {
                        let result = AgentMessage::from(Message::ToolResult(result.clone()));
                        self.messages.push(result.clone());
                        self.new_messages.push(result);
                    }
                }
                if self.end_turn(message, tool_results, emit).await {
                    emit.emit(AgentEvent::AgentEnd {
                        messages: self.new_messages.clone(),
                    })
                    .await;
                    return Ok(());
                }
                pending = if steering.is_empty() {
                    Self::poll(config.get_steering_messages.as_ref())
                } else {
                    steering
                };
            }
            // The agent would stop here; follow-ups start another round.
            pending = Self::poll(config.get_follow_up_messages.as_ref());
            if pending.is_empty() {
                break;
            }
        }
        emit.emit(AgentEvent::AgentEnd {
            messages: self.new_messages.clone(),
        })
        .await;
        Ok(())
    }

    /// One model call: transform, convert, stream, and settle the message
    /// into the transcript before `message_end`.
    async fn stream_assistant_response(
        &mut self,
        emit: &mut impl AgentEventSink<C>,
    ) -> Result<AssistantMessage, AgentLoopError> {
        let config = self.config;
        let model = &config.model;
        if self.cancel.is_cancelled() {
            // The run was aborted (e.g. during tools): no request, as a
            // provider would end an already-cancelled call.
            let mut message = AssistantMessage::empty(
                model.api.clone(),
                model.provider.clone(),
                &model.id,
                now_ms(),
            );
            message.stop_reason = StopReason::Aborted;
            message.error_message = Some(PRE_ABORTED_MESSAGE.to_owned());
            return Ok(self.settle(message, false, emit).await);
        }

        // A `transform_context` that leaves the messages as they are keeps
        // the per-message conversion going; one that changes them has its
        // output converted whole, and the next call starts over.
        let transformed = match &config.transform_context {
            Some(transform) => {
                let shared = std::sync::Arc::new(std::mem::take(&mut self.messages));
                let result = transform
                    .transform_shared(std::sync::Arc::clone(&shared), &self.cancel)
                    .await;
                self.messages =
                    std::sync::Arc::try_unwrap(shared).unwrap_or_else(|kept| (*kept).clone());
                result.map_err(AgentLoopError::TransformContext)?
            }
            None => None,
        };
        let incremental = transformed.is_none() && config.convert_to_llm.per_message();
        if let Some(transformed) = &transformed {
            self.converted = 0;
            self.llm_context.messages = config
                .convert_to_llm
                .convert(transformed)
                .await
                .map_err(AgentLoopError::ConvertToLlm)?;
        } else if self.shared.is_some() {
            // Converted in place at the call, below.
        } else if incremental {
            if self.converted > self.messages.len() && self.base == 0 {
                self.llm_context.messages.clear();
                self.converted = 0;
            }
            let fresh = config
                .convert_to_llm
                .convert(self.messages.get(self.converted..).unwrap_or_default())
                .await
                .map_err(AgentLoopError::ConvertToLlm)?;
            if self.llm_context.messages.is_empty() {
                // The first call: take the conversion as it is, no copy.
                self.llm_context.messages = fresh;
            } else {
                self.llm_context.messages.extend(fresh);
            }
            self.converted = self.messages.len();
        } else {
            self.llm_context.messages = config
                .convert_to_llm
                .convert(&self.messages)
                .await
                .map_err(AgentLoopError::ConvertToLlm)?;
        }

        let api_key = match &config.get_api_key {
            Some(hook) => hook.api_key(&model.provider).await,
            None => None,
        }
        .or_else(|| config.stream_options.api_key.clone());
        let options = SimpleStreamOptions {
            base: StreamOptions {
                api_key,
                cancel: self.cancel.clone(),
                ..config.stream_options.clone()
            },
            reasoning: config.reasoning,
            thinking_budgets: config.thinking_budgets,
        };
        let called = match self.shared {
            Some(state) => self.call_in_place(state, model, options)?,
            None => catch(|| {
                config
                    .stream_fn
                    .stream_simple(model, self.llm_context.view(), options)
            }),
        };
        // The provider has taken what it needs; the projection is kept only
        // when the next turn extends it.
        if !incremental {
            self.llm_context.messages = Vec::new();
        }
        let mut stream = called.map_err(|payload| {
            AgentLoopError::StreamFunction(format!("panicked: {}", panic_text(payload.as_ref())))
        })?;

        let mut started = false;
        let mut settled = None;
        while let Some(event) = stream.next().await {
            match event {
                AssistantMessageEvent::Start { partial } => {
                    started = true;
                    // The message as of `start`: no content yet, even if the
                    // producer has already run ahead in the same poll.
                    let mut message = partial.snapshot();
                    message.content.clear();
                    let message = AgentMessage::from(Message::Assistant(message));
                    emit.emit(AgentEvent::MessageStart { message }).await;
                }
                AssistantMessageEvent::Done { message, .. } => {
                    settled = Some(message);
                    break;
                }
                AssistantMessageEvent::Error { error, .. } => {
                    settled = Some(error);
                    break;
                }
                AssistantMessageEvent::TextStart { ref partial, .. }
                | AssistantMessageEvent::TextDelta { ref partial, .. }
                | AssistantMessageEvent::TextEnd { ref partial, .. }
                | AssistantMessageEvent::ThinkingStart { ref partial, .. }
                | AssistantMessageEvent::ThinkingDelta { ref partial, .. }
                | AssistantMessageEvent::ThinkingEnd { ref partial, .. }
                | AssistantMessageEvent::ToolCallStart { ref partial, .. }
                | AssistantMessageEvent::ToolCallDelta { ref partial, .. }
                | AssistantMessageEvent::ToolCallEnd { ref partial, .. } => {
                    if started {
                        let message = partial.clone();
                        emit.emit(AgentEvent::MessageUpdate {
                            assistant_message_event: event,
                            message,
                        })
                        .await;
                    }
                }
            }
        }
        let message = settled.ok_or_else(|| {
            AgentLoopError::StreamFunction("its stream ended without a done or error event".into())
        })?;
        tracing::debug!(
            stop_reason = ?message.stop_reason,
            context = self.base + self.messages.len(),
            "assistant message settled"
        );
        Ok(self.settle(*message, started, emit).await)
    }

    /// The model call of a run whose transcript starts in the agent's
    /// state: the state's first `base` messages and the run's own, converted
    /// borrowing every message the converter leaves as it is, with the state
    /// locked while the stream function encodes the request (it returns
    /// once the request is built; the transcript is never copied).
    fn call_in_place(
        &self,
        state: &Mutex<AgentState<C>>,
        model: &Model,
        options: SimpleStreamOptions,
    ) -> Result<Called, AgentLoopError> {
        let converter = &self.config.convert_to_llm;
        let convert = |messages| {
            converter
                .convert_borrowed(messages)
                .unwrap_or_else(|| Err(HookError::new(NOT_IN_PLACE)))
                .map_err(AgentLoopError::ConvertToLlm)
        };
        let state = lock(state);
        let prefix = state.messages.get(..self.base).unwrap_or(&state.messages);
        let mut messages = convert(prefix)?;
        messages.extend(convert(&self.messages)?);
        let context = ContextRef {
            system_prompt: self.llm_context.system_prompt.as_deref(),
            messages: MessagesRef::Transformed(&messages),
            tools: self.llm_context.tools.as_deref(),
        };
        let stream_fn = &self.config.stream_fn;
        Ok(catch(|| stream_fn.stream_simple(model, context, options)))
    }

    /// Records the arguments that tools' preparation changed in place in the
    /// tool calls of `message` and of its copies in the transcript (the last
    /// message of both, as the batch's results are not yet appended), so the
    /// next model call replays them as pi does.
    fn record_prepared_arguments(
        &mut self,
        message: &mut AssistantMessage,
        prepared: Vec<(usize, serde_json::Value)>,
    ) {
        let mut calls: Vec<&mut pi_ai::ToolCall> = message
            .content
            .iter_mut()
            .filter_map(|block| match block {
                AssistantContent::ToolCall(call) => Some(call),
                AssistantContent::Text(_) | AssistantContent::Thinking(_) => None,
            })
            .collect();
        for (position, arguments) in prepared {
            if let Some(call) = calls.get_mut(position) {
                call.arguments = arguments;
            }
        }
        let recorded = AgentMessage::from(Message::Assistant(message.clone()));
        for transcript in [&mut self.messages, &mut self.new_messages] {
            if let Some(last) = transcript.last_mut()
                && last.as_assistant().is_some()
            {
                *last = recorded.clone();
            }
        }
    }
}
