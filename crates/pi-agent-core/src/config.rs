//! What the low-level loop runs on: the context, the configuration with its
//! hooks and stream function, and its error type.

use std::fmt;
use std::sync::Arc;

use pi_ai::{
    AssistantMessageEventStream, ContextRef, Model, SimpleStreamOptions, StreamFunction,
    StreamOptions, ThinkingBudgets, ThinkingLevel,
};

use crate::hooks::{
    AfterToolCall, BeforeToolCall, ConvertToLlm, DefaultConvertToLlm, FinalizeMessage, GetApiKey,
    HookError, ShouldStopAfterTurn, TransformContext,
};
use crate::message::{AgentMessage, CustomMessage, NoCustom};
use crate::tool::{AgentTool, ToolExecutionMode};

/// The transcript a run starts from, with the system prompt and tools.
pub struct AgentContext<C = NoCustom> {
    /// System prompt sent with every model call.
    pub system_prompt: String,
    /// The transcript so far.
    pub messages: Vec<AgentMessage<C>>,
    /// Tools the model may call.
    pub tools: Vec<Arc<dyn AgentTool>>,
}

impl<C> Default for AgentContext<C> {
    fn default() -> Self {
        Self {
            system_prompt: String::new(),
            messages: Vec::new(),
            tools: Vec::new(),
        }
    }
}

impl<C: fmt::Debug> fmt::Debug for AgentContext<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentContext")
            .field("system_prompt", &self.system_prompt)
            .field("messages", &self.messages.len())
            .field("tools", &self.tools)
            .finish()
    }
}

/// Supplies queued messages (steering or follow-up) when the loop asks.
pub type MessageSource<C> = Arc<dyn Fn() -> Vec<AgentMessage<C>> + Send + Sync>;

/// The stream function used when none is configured: dispatches through
/// pi-ai's global registry by `model.api` (pi's `streamSimple`).
#[derive(Debug, Clone, Copy, Default)]
pub struct GlobalRegistryStream;

impl StreamFunction for GlobalRegistryStream {
    fn stream(
        &self,
        model: &Model,
        context: ContextRef<'_>,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        pi_ai::stream(model, context, options)
    }

    fn stream_simple(
        &self,
        model: &Model,
        context: ContextRef<'_>,
        options: SimpleStreamOptions,
    ) -> AssistantMessageEventStream {
        pi_ai::stream_simple(model, context, options)
    }
}

/// Configuration of one run of the low-level loop.
pub struct AgentLoopConfig<C = NoCustom> {
    /// The model to call.
    pub model: Model,
    /// Reasoning level; `None` is pi's `"off"`.
    pub reasoning: Option<ThinkingLevel>,
    /// Token budgets per level, for budget-based providers.
    pub thinking_budgets: Option<ThinkingBudgets>,
    /// Options passed to every call (api key fallback, session id, headers,
    /// retry cap, payload hook, ...). Its `cancel` is replaced by the run's token.
    pub stream_options: StreamOptions,
    /// The stream function (default: the global registry).
    pub stream_fn: Arc<dyn StreamFunction>,
    /// Rich-to-rich transform before every model call.
    pub transform_context: Option<Arc<dyn TransformContext<C>>>,
    /// Rich-to-narrow conversion before every model call.
    pub convert_to_llm: Arc<dyn ConvertToLlm<C>>,
    /// Per-call api key resolution; falls back to `stream_options.api_key`.
    pub get_api_key: Option<Arc<dyn GetApiKey>>,
    /// Steering messages: polled at the start, after each tool (sequential)
    /// or after the batch (parallel), and after every turn. With
    /// `should_stop_after_turn` set, only at the start and after every turn
    /// the hook lets go on (pi 0.73.1's order): a run that stops leaves
    /// them queued, and a sequential batch runs all its calls.
    pub get_steering_messages: Option<MessageSource<C>>,
    /// Follow-up messages: polled when the agent would stop.
    pub get_follow_up_messages: Option<MessageSource<C>>,
    /// Parallel (default) or sequential tool execution.
    pub tool_execution: ToolExecutionMode,
    /// Runs before each tool call; may block it.
    pub before_tool_call: Option<Arc<dyn BeforeToolCall<C>>>,
    /// Runs after each tool call; may rewrite its result.
    pub after_tool_call: Option<Arc<dyn AfterToolCall<C>>>,
    /// Asked after every `turn_end`; `true` ends the run there.
    pub should_stop_after_turn: Option<Arc<dyn ShouldStopAfterTurn<C>>>,
    /// Runs before every `message_end`; may replace the message.
    pub finalize_message: Option<Arc<dyn FinalizeMessage<C>>>,
}

impl<C: CustomMessage> AgentLoopConfig<C> {
    /// A configuration for `model` with pi's defaults: the default converter,
    /// the global registry, parallel tools, no hooks and no queues.
    pub fn new(model: Model) -> Self {
        Self {
            model,
            reasoning: None,
            thinking_budgets: None,
            stream_options: StreamOptions::default(),
            stream_fn: Arc::new(GlobalRegistryStream),
            transform_context: None,
            convert_to_llm: Arc::new(DefaultConvertToLlm),
            get_api_key: None,
            get_steering_messages: None,
            get_follow_up_messages: None,
            tool_execution: ToolExecutionMode::Parallel,
            before_tool_call: None,
            after_tool_call: None,
            should_stop_after_turn: None,
            finalize_message: None,
        }
    }
}

impl<C> fmt::Debug for AgentLoopConfig<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentLoopConfig")
            .field("model", &self.model.id)
            .field("reasoning", &self.reasoning)
            .field("tool_execution", &self.tool_execution)
            .field("transform_context", &self.transform_context.is_some())
            .field("get_api_key", &self.get_api_key.is_some())
            .field(
                "should_stop_after_turn",
                &self.should_stop_after_turn.is_some(),
            )
            .field("finalize_message", &self.finalize_message.is_some())
            .finish_non_exhaustive()
    }
}

/// Why the low-level loop stopped without a normal event sequence.
#[derive(Debug, thiserror::Error)]
pub enum AgentLoopError {
    /// `run_agent_loop_continue` on an empty context.
    #[error("Cannot continue: no messages in context")]
    NothingToContinue,
    /// `run_agent_loop_continue` on a context that ends with an assistant message.
    #[error("Cannot continue from message role: assistant")]
    ContinueFromAssistant,
    /// `transform_context` failed.
    #[error(transparent)]
    TransformContext(HookError),
    /// `convert_to_llm` failed.
    #[error(transparent)]
    ConvertToLlm(HookError),
    /// The stream function broke its contract (it panicked, or its stream
    /// ended without a `done` or `error` event).
    #[error("stream function failed: {0}")]
    StreamFunction(String),
}
