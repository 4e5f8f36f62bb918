//! Executing the tool calls of one assistant message: preparation (lookup,
//! validation, `before_tool_call`), execution (concurrent or sequential, with
//! updates and cancellation), `after_tool_call`, and results in call order.

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, OnceLock};

use futures::future::BoxFuture;
use futures::stream::FuturesUnordered;
use futures::{FutureExt, StreamExt};
use tokio::sync::mpsc;

use pi_ai::{AssistantMessage, CancellationToken, Message, ToolCall, ToolResultMessage, now_ms};

use crate::config::AgentLoopConfig;
use crate::events::{AgentEvent, AgentEventSink};
use crate::finalize;
use crate::hooks::ToolCallContext;
use crate::message::{AgentMessage, CustomMessage};
use crate::tool::{
    AgentTool, AgentToolResult, BLOCKED_MESSAGE, SKIPPED_FOR_STEERING_MESSAGE,
    TOOL_ABORTED_MESSAGE, ToolExecutionMode, ToolUpdateFn,
};
use crate::validation::ArgumentValidator;

/// How long cancelled tools may take to return their own result before
/// they are dropped and recorded as aborted.
const ABORT_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// A deadline that never comes (for a disabled `select!` branch).
fn far_future() -> tokio::time::Instant {
    tokio::time::Instant::now() + std::time::Duration::from_secs(86_400 * 365)
}

/// The text of a panic payload.
pub(crate) fn panic_text(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_owned()
    }
}

/// A run's tools, each with its schema compiled on first use.
pub(crate) struct ToolSet {
    entries: Vec<(Arc<dyn AgentTool>, OnceLock<ArgumentValidator>)>,
}

impl ToolSet {
    pub(crate) fn new(tools: Vec<Arc<dyn AgentTool>>) -> Self {
        Self {
            entries: tools.into_iter().map(|t| (t, OnceLock::new())).collect(),
        }
    }

    fn find(&self, name: &str) -> Option<(&Arc<dyn AgentTool>, &ArgumentValidator)> {
        let (tool, validator) = self.entries.iter().find(|(t, _)| t.name() == name)?;
        let validator = validator.get_or_init(|| {
            ArgumentValidator::with_conversion(name, tool.parameters(), tool.argument_conversion())
        });
        Some((tool, validator))
    }
}

/// A call's final result and error flag.
type Outcome = (AgentToolResult, bool);

enum Prepared {
    Immediate(AgentToolResult),
    Run(Arc<dyn AgentTool>, serde_json::Value),
}

/// What a batch produced: results in call order, steering messages that
/// arrived during it (to inject before the next model call), the
/// arguments that tools' preparation changed in place, by the call's
/// position among the message's tool calls, and whether every finalized
/// result asked the loop to stop ([`AgentToolResult::terminate`]).
pub(crate) struct BatchOutcome<C> {
    pub(crate) results: Vec<ToolResultMessage>,
    pub(crate) steering: Vec<AgentMessage<C>>,
    pub(crate) prepared_arguments: Vec<(usize, serde_json::Value)>,
    pub(crate) terminate: bool,
}

/// Whether a finalized result asks the loop to stop after its batch.
fn terminates(outcome: &Outcome) -> bool {
    outcome.0.terminate == Some(true)
}

/// The tool calls of one assistant message.
pub(crate) struct ToolBatch<'a, C> {
    pub(crate) config: &'a AgentLoopConfig<C>,
    pub(crate) tools: &'a ToolSet,
    pub(crate) messages: &'a [AgentMessage<C>],
    pub(crate) assistant: &'a AssistantMessage,
    pub(crate) cancel: &'a CancellationToken,
}

impl<C: CustomMessage> ToolBatch<'_, C> {
    pub(crate) async fn execute(&self, emit: &mut impl AgentEventSink<C>) -> BatchOutcome<C> {
        let calls: Vec<&ToolCall> = self.assistant.tool_calls().collect();
        tracing::debug!(
            calls = calls.len(),
            mode = ?self.config.tool_execution,
            "executing tool calls"
        );
        // As pi: one call of a tool that must run alone makes the whole
        // batch sequential.
        let one_alone = calls.iter().any(|call| {
            self.tools.find(&call.name).is_some_and(|(tool, _)| {
                tool.execution_mode() == Some(ToolExecutionMode::Sequential)
            })
        });
        match self.config.tool_execution {
            ToolExecutionMode::Parallel if !one_alone => self.parallel(&calls, emit).await,
            _ => self.sequential(&calls, emit).await,
        }
    }

    /// Steering queued during the batch. With `should_stop_after_turn`
    /// set, none: the loop polls after the hook let the turn go on (pi
    /// 0.73.1's order), so a run that stops leaves the messages queued.
    fn poll_steering(&self) -> Vec<AgentMessage<C>> {
        if self.config.should_stop_after_turn.is_some() {
            return Vec::new();
        }
        self.config
            .get_steering_messages
            .as_ref()
            .map(|poll| poll())
            .unwrap_or_default()
    }

    /// Each call is prepared, executed and finalized before the next; after
    /// each, queued steering skips the remaining calls.
    async fn sequential(
        &self,
        calls: &[&ToolCall],
        emit: &mut impl AgentEventSink<C>,
    ) -> BatchOutcome<C> {
        let mut results = Vec::with_capacity(calls.len());
        let mut steering = Vec::new();
        let mut prepared_arguments = Vec::new();
        // pi: a non-empty batch whose finalized results all set `terminate`.
        let mut terminate = !calls.is_empty();
        let (tx, mut rx) = mpsc::unbounded_channel();
        for (index, call) in calls.iter().enumerate() {
            emit_start(call, emit).await;
            let outcome = if !steering.is_empty() {
                let outcome = (AgentToolResult::error(SKIPPED_FOR_STEERING_MESSAGE), true);
                emit_end(call, &outcome, emit).await;
                outcome
            } else if self.cancel.is_cancelled() {
                let outcome = (AgentToolResult::error(TOOL_ABORTED_MESSAGE), true);
                emit_end(call, &outcome, emit).await;
                outcome
            } else {
                let (prepared, rewritten) = self.prepare(call).await;
                if let Some(arguments) = rewritten {
                    prepared_arguments.push((index, arguments));
                }
                match prepared {
                    Prepared::Immediate(result) => {
                        let outcome = (result, true);
                        emit_end(call, &outcome, emit).await;
                        outcome
                    }
                    Prepared::Run(tool, args) => {
                        let mut outcomes = vec![None; calls.len()];
                        let started =
                            vec![(index, self.run_call(index, call, tool, args, tx.clone()))];
                        self.drive(calls, started, &mut rx, &mut outcomes, emit)
                            .await;
                        outcomes
                            .swap_remove(index)
                            .unwrap_or_else(|| (AgentToolResult::error(TOOL_ABORTED_MESSAGE), true))
                    }
                }
            };
            terminate &= terminates(&outcome);
            let message = self.emit_result_message(result_message(call, outcome), emit);
            results.push(message.await);
            if steering.is_empty() && index + 1 < calls.len() {
                steering = self.poll_steering();
            }
        }
        if steering.is_empty() {
            steering = self.poll_steering();
        }
        BatchOutcome {
            results,
            steering,
            prepared_arguments,
            terminate,
        }
    }

    /// Calls are prepared one by one, then run concurrently;
    /// `tool_execution_end` follows completion order, the tool result
    /// messages follow call order. Steering is polled after the batch.
    async fn parallel(
        &self,
        calls: &[&ToolCall],
        emit: &mut impl AgentEventSink<C>,
    ) -> BatchOutcome<C> {
        let mut outcomes: Vec<Option<Outcome>> = vec![None; calls.len()];
        let mut prepared_arguments = Vec::new();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let mut started = Vec::new();
        for (index, call) in calls.iter().enumerate() {
            emit_start(call, emit).await;
            let prepared = if self.cancel.is_cancelled() {
                Prepared::Immediate(AgentToolResult::error(TOOL_ABORTED_MESSAGE))
            } else {
                let (prepared, rewritten) = self.prepare(call).await;
                if let Some(arguments) = rewritten {
                    prepared_arguments.push((index, arguments));
                }
                prepared
            };
            match prepared {
                Prepared::Immediate(result) => {
                    let outcome = (result, true);
                    emit_end(call, &outcome, emit).await;
                    outcomes[index] = Some(outcome);
                }
                Prepared::Run(tool, args) => {
                    started.push((index, self.run_call(index, call, tool, args, tx.clone())));
                }
            }
        }
        self.drive(calls, started, &mut rx, &mut outcomes, emit)
            .await;
        let mut results = Vec::with_capacity(calls.len());
        let mut terminate = !calls.is_empty();
        for (call, outcome) in calls.iter().zip(outcomes) {
            let outcome =
                outcome.unwrap_or_else(|| (AgentToolResult::error(TOOL_ABORTED_MESSAGE), true));
            terminate &= terminates(&outcome);
            let message = self.emit_result_message(result_message(call, outcome), emit);
            results.push(message.await);
        }
        BatchOutcome {
            results,
            steering: self.poll_steering(),
            prepared_arguments,
            terminate,
        }
    }

    /// Looks the tool up, lets it prepare the arguments, validates them and
    /// asks `before_tool_call`. Also returns the call's arguments as the
    /// preparation changed them in place (`None` when unchanged).
    async fn prepare(&self, call: &ToolCall) -> (Prepared, Option<serde_json::Value>) {
        let Some((tool, validator)) = self.tools.find(&call.name) else {
            let result = AgentToolResult::error(format!("Tool {} not found", call.name));
            return (Prepared::Immediate(result), None);
        };
        let mut recorded = call.arguments.clone();
        let replaced = tool.prepare_arguments(&mut recorded);
        let rewritten = (recorded != call.arguments).then(|| recorded.clone());
        let prepared = replaced.unwrap_or(recorded);
        (
            self.validate_and_ask(call, tool, validator, &prepared)
                .await,
            rewritten,
        )
    }

    /// Validates prepared arguments and asks `before_tool_call`.
    async fn validate_and_ask(
        &self,
        call: &ToolCall,
        tool: &Arc<dyn AgentTool>,
        validator: &ArgumentValidator,
        prepared: &serde_json::Value,
    ) -> Prepared {
        let mut args = match validator.validate(prepared) {
            Ok(args) => args,
            Err(error) => return Prepared::Immediate(AgentToolResult::error(error.message())),
        };
        if let Some(hook) = &self.config.before_tool_call {
            let context = ToolCallContext {
                assistant_message: self.assistant,
                tool_call: call,
                args: &args,
                messages: self.messages,
            };
            if let Some(verdict) = hook.before_tool_call(context, self.cancel).await {
                if verdict.block {
                    let reason = verdict.reason.unwrap_or_else(|| BLOCKED_MESSAGE.to_owned());
                    return Prepared::Immediate(AgentToolResult::error(reason));
                }
                if let Some(changed) = verdict.args {
                    args = changed;
                }
            }
        }
        Prepared::Run(Arc::clone(tool), args)
    }

    /// Executes one prepared call and applies `after_tool_call`.
    fn run_call<'b>(
        &'b self,
        index: usize,
        call: &'b ToolCall,
        tool: Arc<dyn AgentTool>,
        args: serde_json::Value,
        updates: mpsc::UnboundedSender<(usize, AgentToolResult)>,
    ) -> BoxFuture<'b, Outcome> {
        async move {
            let on_update: ToolUpdateFn = Arc::new(move |partial| {
                // The batch may be over (aborted); late updates are dropped.
                let _ = updates.send((index, partial));
            });
            let hook_args = self.config.after_tool_call.is_some().then(|| args.clone());
            let executed =
                AssertUnwindSafe(tool.execute(&call.id, args, self.cancel.clone(), on_update))
                    .catch_unwind()
                    .await;
            let (mut result, mut is_error) = match executed {
                Ok(Ok(result)) => (result, false),
                Ok(Err(error)) => (AgentToolResult::error(error.message()), true),
                Err(payload) => {
                    let text = panic_text(payload.as_ref());
                    tracing::error!(tool = %call.name, "tool panicked: {text}");
                    (
                        AgentToolResult::error(format!("Tool {} panicked: {text}", call.name)),
                        true,
                    )
                }
            };
            if let (Some(hook), Some(args)) = (&self.config.after_tool_call, hook_args) {
                let context = ToolCallContext {
                    assistant_message: self.assistant,
                    tool_call: call,
                    args: &args,
                    messages: self.messages,
                };
                if let Some(overrides) = hook
                    .after_tool_call(context, &result, is_error, self.cancel)
                    .await
                {
                    if let Some(content) = overrides.content {
                        result.content = content;
                    }
                    if let Some(details) = overrides.details {
                        result.details = details;
                    }
                    if let Some(flag) = overrides.is_error {
                        is_error = flag;
                    }
                    if let Some(terminate) = overrides.terminate {
                        result.terminate = Some(terminate);
                    }
                }
            }
            (result, is_error)
        }
        .boxed()
    }

    /// Emits a tool result's `message_start` and `message_end`; returns it,
    /// or `finalize_message`'s replacement (what the transcript records).
    async fn emit_result_message(
        &self,
        mut message: ToolResultMessage,
        emit: &mut impl AgentEventSink<C>,
    ) -> ToolResultMessage {
        let mut agent_message = AgentMessage::from(Message::ToolResult(message.clone()));
        emit.emit(AgentEvent::MessageStart {
            message: agent_message.clone(),
        })
        .await;
        let hook = self.config.finalize_message.as_ref();
        if let Some(replacement) = finalize::replacement(hook, &agent_message, self.cancel).await {
            if let AgentMessage::Standard(Message::ToolResult(result)) = &replacement {
                message = result.clone();
            }
            agent_message = replacement;
        }
        emit.emit(AgentEvent::MessageEnd {
            message: agent_message,
        })
        .await;
        message
    }

    /// Polls the running calls and forwards their updates until all are done
    /// or the run is cancelled. A call's updates are emitted before its
    /// `tool_execution_end`. On cancellation, calls that do not finish in the
    /// same poll (a tool that honours its token returns its own result there)
    /// are dropped and recorded as aborted, in call order.
    async fn drive(
        &self,
        calls: &[&ToolCall],
        started: Vec<(usize, BoxFuture<'_, Outcome>)>,
        updates: &mut mpsc::UnboundedReceiver<(usize, AgentToolResult)>,
        outcomes: &mut [Option<Outcome>],
        emit: &mut impl AgentEventSink<C>,
    ) {
        let indices: Vec<usize> = started.iter().map(|(index, _)| *index).collect();
        let mut running: FuturesUnordered<_> = started
            .into_iter()
            .map(|(index, call)| call.map(move |outcome| (index, outcome)))
            .collect();
        let mut aborted = false;
        // Once cancelled, the tools get a moment to stop and report their
        // own result (pi's bash: "Command aborted"), as pi awaits them.
        let mut grace_ends: Option<tokio::time::Instant> = None;
        while !running.is_empty() {
            let deadline = grace_ends.unwrap_or_else(far_future);
            tokio::select! {
                biased;
                Some((index, outcome)) = running.next() => {
                    flush_updates(calls, updates, emit).await;
                    emit_end(calls[index], &outcome, emit).await;
                    outcomes[index] = Some(outcome);
                }
                Some((index, partial)) = updates.recv() => {
                    emit_update(calls[index], partial, emit).await;
                }
                () = self.cancel.cancelled(), if grace_ends.is_none() => {
                    grace_ends = Some(tokio::time::Instant::now() + ABORT_GRACE);
                }
                () = tokio::time::sleep_until(deadline), if grace_ends.is_some() => {
                    aborted = true;
                    break;
                }
            }
        }
        if !aborted {
            return;
        }
        drop(running);
        flush_updates(calls, updates, emit).await;
        for index in indices {
            if outcomes[index].is_none() {
                let outcome = (AgentToolResult::error(TOOL_ABORTED_MESSAGE), true);
                emit_end(calls[index], &outcome, emit).await;
                outcomes[index] = Some(outcome);
            }
        }
    }
}

async fn flush_updates<C>(
    calls: &[&ToolCall],
    updates: &mut mpsc::UnboundedReceiver<(usize, AgentToolResult)>,
    emit: &mut impl AgentEventSink<C>,
) {
    while let Ok((index, partial)) = updates.try_recv() {
        emit_update(calls[index], partial, emit).await;
    }
}

async fn emit_start<C>(call: &ToolCall, emit: &mut impl AgentEventSink<C>) {
    emit.emit(AgentEvent::ToolExecutionStart {
        tool_call_id: call.id.clone(),
        tool_name: call.name.clone(),
        args: call.arguments.clone(),
    })
    .await;
}

async fn emit_update<C>(
    call: &ToolCall,
    partial_result: AgentToolResult,
    emit: &mut impl AgentEventSink<C>,
) {
    emit.emit(AgentEvent::ToolExecutionUpdate {
        tool_call_id: call.id.clone(),
        tool_name: call.name.clone(),
        args: call.arguments.clone(),
        partial_result,
    })
    .await;
}

async fn emit_end<C>(call: &ToolCall, outcome: &Outcome, emit: &mut impl AgentEventSink<C>) {
    emit.emit(AgentEvent::ToolExecutionEnd {
        tool_call_id: call.id.clone(),
        tool_name: call.name.clone(),
        result: outcome.0.clone(),
        is_error: outcome.1,
    })
    .await;
}

fn result_message(call: &ToolCall, (result, is_error): Outcome) -> ToolResultMessage {
    ToolResultMessage {
        tool_call_id: call.id.clone(),
        tool_name: call.name.clone(),
        content: result.content,
        details: (!result.details.is_null()).then_some(result.details),
        is_error,
        timestamp: now_ms(),
        ..ToolResultMessage::default()
    }
}
