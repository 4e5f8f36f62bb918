//! The [`crate::Agent`]'s state, options, settings, listeners, prompt input and errors.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;

use pi_ai::{
    CancellationToken, ImageContent, Message, Model, SharedMessage, StreamFunction, StreamOptions,
    ThinkingBudgets, ThinkingLevel, UserBlock, UserMessage, now_ms,
};

use crate::config::GlobalRegistryStream;
use crate::events::AgentEvent;
use crate::hooks::{
    AfterToolCall, BeforeToolCall, ConvertToLlm, DefaultConvertToLlm, FinalizeMessage, GetApiKey,
    ShouldStopAfterTurn, TransformContext,
};
use crate::message::{AgentMessage, CustomMessage, NoCustom};
use crate::queue::QueueMode;
use crate::tool::{AgentTool, ToolExecutionMode};

/// What an [`crate::Agent`] holds: its configuration and transcript, and
/// the state of the current run.
pub struct AgentState<C = NoCustom> {
    /// System prompt.
    pub system_prompt: String,
    /// The model to call.
    pub model: Model,
    /// Reasoning level; `None` is pi's `"off"`.
    pub thinking_level: Option<ThinkingLevel>,
    /// Tools the model may call.
    pub tools: Vec<Arc<dyn AgentTool>>,
    /// The transcript; a message is appended at its `message_end`.
    pub messages: Vec<AgentMessage<C>>,
    /// True from the start of a run until its last listener settled.
    pub is_streaming: bool,
    /// The assistant message being streamed (a live view of the partial),
    /// from its `message_start` to its `message_end`.
    pub streaming_message: Option<SharedMessage>,
    /// Ids of tool calls between `tool_execution_start` and `tool_execution_end`.
    pub pending_tool_calls: BTreeSet<String>,
    /// The `errorMessage` of the last failed turn of the current or last run.
    pub error: Option<String>,
}

impl<C: fmt::Debug> fmt::Debug for AgentState<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentState")
            .field("system_prompt", &self.system_prompt)
            .field("model", &self.model.id)
            .field("thinking_level", &self.thinking_level)
            .field("tools", &self.tools)
            .field("messages", &self.messages.len())
            .field("is_streaming", &self.is_streaming)
            .field("pending_tool_calls", &self.pending_tool_calls)
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

/// How an [`crate::Agent`] calls the model and runs tools; changeable
/// between runs with [`crate::Agent::update_settings`].
pub struct AgentSettings<C = NoCustom> {
    /// The stream function (default: the global registry by `model.api`).
    /// When the run converts the transcript in place (see
    /// [`crate::ConvertToLlm::convert_borrowed`]), it is called with the
    /// agent's state locked, until it returns its stream: it must not call
    /// back into this agent (`messages`, `with_state`, ...) before returning.
    pub stream_fn: Arc<dyn StreamFunction>,
    /// Rich-to-narrow conversion (default: keep user/assistant/toolResult).
    pub convert_to_llm: Arc<dyn ConvertToLlm<C>>,
    /// Rich-to-rich transform before the conversion.
    pub transform_context: Option<Arc<dyn TransformContext<C>>>,
    /// Per-call api key resolution.
    pub get_api_key: Option<Arc<dyn GetApiKey>>,
    /// Runs before each tool call.
    pub before_tool_call: Option<Arc<dyn BeforeToolCall<C>>>,
    /// Runs after each tool call.
    pub after_tool_call: Option<Arc<dyn AfterToolCall<C>>>,
    /// Asked after every `turn_end`; `true` ends the run there (see
    /// [`AgentLoopConfig::should_stop_after_turn`](crate::AgentLoopConfig::should_stop_after_turn)).
    pub should_stop_after_turn: Option<Arc<dyn ShouldStopAfterTurn<C>>>,
    /// Runs before every `message_end`, the normalized error message's
    /// included; its replacement is what the state keeps (see
    /// [`FinalizeMessage`](crate::FinalizeMessage)).
    pub finalize_message: Option<Arc<dyn FinalizeMessage<C>>>,
    /// Parallel (default) or sequential tools.
    pub tool_execution: ToolExecutionMode,
    /// Options for every model call (api key fallback, session id, retry cap, payload hook).
    pub stream_options: StreamOptions,
    /// Token budgets per reasoning level.
    pub thinking_budgets: Option<ThinkingBudgets>,
}

impl<C: CustomMessage> Default for AgentSettings<C> {
    fn default() -> Self {
        Self {
            stream_fn: Arc::new(GlobalRegistryStream),
            convert_to_llm: Arc::new(DefaultConvertToLlm),
            transform_context: None,
            get_api_key: None,
            before_tool_call: None,
            after_tool_call: None,
            should_stop_after_turn: None,
            finalize_message: None,
            tool_execution: ToolExecutionMode::Parallel,
            stream_options: StreamOptions::default(),
            thinking_budgets: None,
        }
    }
}

impl<C> fmt::Debug for AgentSettings<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentSettings")
            .field("transform_context", &self.transform_context.is_some())
            .field("get_api_key", &self.get_api_key.is_some())
            .field("before_tool_call", &self.before_tool_call.is_some())
            .field("after_tool_call", &self.after_tool_call.is_some())
            .field(
                "should_stop_after_turn",
                &self.should_stop_after_turn.is_some(),
            )
            .field("finalize_message", &self.finalize_message.is_some())
            .field("tool_execution", &self.tool_execution)
            .field("stream_options", &self.stream_options)
            .finish_non_exhaustive()
    }
}

/// Everything an [`crate::Agent`] starts with.
pub struct AgentOptions<C = NoCustom> {
    /// System prompt.
    pub system_prompt: String,
    /// The model.
    pub model: Model,
    /// Reasoning level; `None` is off.
    pub thinking_level: Option<ThinkingLevel>,
    /// Tools.
    pub tools: Vec<Arc<dyn AgentTool>>,
    /// An existing transcript (e.g. a resumed session).
    pub messages: Vec<AgentMessage<C>>,
    /// How steering messages are handed out.
    pub steering_mode: QueueMode,
    /// How follow-up messages are handed out.
    pub follow_up_mode: QueueMode,
    /// Stream function, hooks and call options.
    pub settings: AgentSettings<C>,
}

impl<C: CustomMessage> AgentOptions<C> {
    /// Options for `model` with pi's defaults.
    pub fn new(model: Model) -> Self {
        Self {
            system_prompt: String::new(),
            model,
            thinking_level: None,
            tools: Vec::new(),
            messages: Vec::new(),
            steering_mode: QueueMode::OneAtATime,
            follow_up_mode: QueueMode::OneAtATime,
            settings: AgentSettings::default(),
        }
    }
}

/// Receives every event of every run, in order. Listeners are awaited one
/// after the other; the agent is not idle until the last one settled.
/// A listener must not wait for the agent to become idle (it never would).
/// Plain `Fn(&AgentEvent<C>)` closures are listeners.
#[async_trait]
pub trait AgentListener<C>: Send + Sync {
    /// Handles one event; `cancel` is the run's token.
    async fn on_event(&self, event: &AgentEvent<C>, cancel: &CancellationToken);
}

#[async_trait]
impl<C, F> AgentListener<C> for F
where
    C: CustomMessage,
    F: Fn(&AgentEvent<C>) + Send + Sync,
{
    async fn on_event(&self, event: &AgentEvent<C>, _cancel: &CancellationToken) {
        self(event);
    }
}

/// Identifies a subscription, for [`crate::Agent::unsubscribe`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ListenerId(pub(crate) u64);

/// What [`crate::Agent::prompt`] accepts: text (with optional images), or messages.
#[derive(Debug, Clone)]
pub enum PromptInput<C = NoCustom> {
    /// A user message made of this text and these images.
    Text {
        /// The text.
        text: String,
        /// Images after the text.
        images: Vec<ImageContent>,
    },
    /// Messages to add as they are.
    Messages(Vec<AgentMessage<C>>),
}

impl<C> PromptInput<C> {
    /// A user message with text and images.
    pub fn text_with_images(text: impl Into<String>, images: Vec<ImageContent>) -> Self {
        Self::Text {
            text: text.into(),
            images,
        }
    }

    pub(crate) fn into_messages(self) -> Vec<AgentMessage<C>> {
        match self {
            Self::Messages(messages) => messages,
            Self::Text { text, images } => {
                let mut content = vec![UserBlock::text(text)];
                content.extend(images.into_iter().map(UserBlock::Image));
                vec![AgentMessage::Standard(Message::User(UserMessage {
                    content: content.into(),
                    timestamp: now_ms(),
                    ..UserMessage::default()
                }))]
            }
        }
    }
}

impl<C> From<&str> for PromptInput<C> {
    fn from(text: &str) -> Self {
        Self::text_with_images(text, Vec::new())
    }
}

impl<C> From<String> for PromptInput<C> {
    fn from(text: String) -> Self {
        Self::text_with_images(text, Vec::new())
    }
}

impl<C> From<AgentMessage<C>> for PromptInput<C> {
    fn from(message: AgentMessage<C>) -> Self {
        Self::Messages(vec![message])
    }
}

impl<C> From<Vec<AgentMessage<C>>> for PromptInput<C> {
    fn from(messages: Vec<AgentMessage<C>>) -> Self {
        Self::Messages(messages)
    }
}

impl<C> From<Message> for PromptInput<C> {
    fn from(message: Message) -> Self {
        Self::Messages(vec![AgentMessage::Standard(message)])
    }
}

impl<C> From<UserMessage> for PromptInput<C> {
    fn from(message: UserMessage) -> Self {
        Self::from(Message::User(message))
    }
}

/// Why an [`crate::Agent`] call was refused (pi's texts).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    /// `prompt` while a run is active.
    #[error(
        "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion."
    )]
    AlreadyProcessingPrompt,
    /// `continue_` while a run is active.
    #[error("Agent is already processing. Wait for completion before continuing.")]
    AlreadyProcessingContinue,
    /// `reset` while a run is active.
    #[error("Agent is already processing. Wait for completion before resetting.")]
    AlreadyProcessingReset,
    /// `continue_` on an empty transcript.
    #[error("No messages to continue from")]
    NoMessagesToContinue,
    /// `continue_` after an assistant message with nothing queued.
    #[error("Cannot continue from message role: assistant")]
    ContinueFromAssistant,
    /// The application refused the prompt before any run (pi's checks
    /// of the model and its key); the text is what the user reads.
    #[error("{0}")]
    Refused(String),
}
