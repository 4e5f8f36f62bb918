//! The loop's hooks: `transform_context` (rich to rich), `convert_to_llm`
//! (rich to narrow), `get_api_key`, `before_tool_call`, `after_tool_call`,
//! `should_stop_after_turn` and `finalize_message`. Each is an async trait
//! object; plain closures implement the traits too.

use std::future::Future;

use async_trait::async_trait;
use serde_json::Value;

use pi_ai::{
    AssistantMessage, CancellationToken, Message, Provider, ToolCall, ToolResultMessage,
    TransformedMessage, UserBlock,
};

use crate::message::{AgentMessage, CustomMessage};
use crate::tool::AgentToolResult;

/// A hook that failed. The low-level loop returns it as an error; the
/// [`crate::Agent`] turns it into an assistant message with stop reason
/// `error` (or `aborted`) whose `errorMessage` is this error's text.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct HookError {
    message: String,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl HookError {
    /// A failure with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            source: None,
        }
    }

    /// Wraps an error; its text becomes the message.
    pub fn wrap(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self {
            message: error.to_string(),
            source: Some(Box::new(error)),
        }
    }
}

/// `transform_context(messages, cancel)`: works on the rich transcript
/// before every model call (pruning, injecting retrieved context). It gets
/// the turn's snapshot by value and returns the messages to convert. The
/// contract (pi's): return a safe fallback rather than fail.
#[async_trait]
pub trait TransformContext<C>: Send + Sync {
    /// Transforms the context of one model call.
    async fn transform(
        &self,
        messages: Vec<AgentMessage<C>>,
        cancel: &CancellationToken,
    ) -> Result<Vec<AgentMessage<C>>, HookError>;

    /// The form the loop calls: the turn's messages shared, not copied
    /// (the loop keeps them; a hook that changes them works on its own
    /// copy), and `Ok(None)` when the hook leaves them as they are, so the
    /// loop copies nothing and goes on converting only the messages added
    /// since its last call. The default runs [`TransformContext::transform`]
    /// on a copy.
    async fn transform_shared(
        &self,
        messages: std::sync::Arc<Vec<AgentMessage<C>>>,
        cancel: &CancellationToken,
    ) -> Result<Option<Vec<AgentMessage<C>>>, HookError>
    where
        C: Clone + Send + Sync + 'async_trait,
    {
        self.transform(std::sync::Arc::unwrap_or_clone(messages), cancel)
            .await
            .map(Some)
    }
}

#[async_trait]
impl<C, F, Fut> TransformContext<C> for F
where
    C: CustomMessage,
    F: Fn(Vec<AgentMessage<C>>, CancellationToken) -> Fut + Send + Sync,
    Fut: Future<Output = Result<Vec<AgentMessage<C>>, HookError>> + Send,
{
    async fn transform(
        &self,
        messages: Vec<AgentMessage<C>>,
        cancel: &CancellationToken,
    ) -> Result<Vec<AgentMessage<C>>, HookError> {
        self(messages, cancel.clone()).await
    }
}

/// `convert_to_llm(messages)`: projects the rich transcript onto the
/// messages a provider accepts, right before every model call (after
/// `transform_context`). App roles become user messages or are dropped.
#[async_trait]
pub trait ConvertToLlm<C>: Send + Sync {
    /// Converts the context of one model call.
    async fn convert(&self, messages: &[AgentMessage<C>]) -> Result<Vec<Message>, HookError>;

    /// True when the conversion goes message by message: what a message
    /// becomes depends on that message alone, and the results follow each
    /// other, so `convert(a ++ b) == convert(a) ++ convert(b)`. The loop
    /// then keeps the converted messages across the turns of a run (when
    /// there is no `transform_context`) and converts only the messages
    /// added since its previous model call.
    fn per_message(&self) -> bool {
        false
    }

    /// A synchronous message-by-message conversion that borrows every
    /// message it leaves as it is, or `None` (the default) when this
    /// converter has none. With it, the [`crate::Agent`] calls the model
    /// with its transcript where it is, converted under its state lock at
    /// each call, and never copies the transcript for a run. The agent asks
    /// it of no messages first to learn whether the converter has one, so
    /// a converter that has one answers `Some` for any input.
    fn convert_borrowed<'a>(
        &self,
        messages: &'a [AgentMessage<C>],
    ) -> Option<Result<Vec<TransformedMessage<'a>>, HookError>> {
        let _ = messages;
        None
    }
}

/// A message-by-message converter (see [`ConvertToLlm::per_message`])
/// made of a closure over a slice of the transcript.
#[derive(Debug, Clone, Copy)]
pub struct PerMessageConvert<F>(pub F);

#[async_trait]
impl<C, F> ConvertToLlm<C> for PerMessageConvert<F>
where
    C: CustomMessage,
    F: Fn(&[AgentMessage<C>]) -> Result<Vec<Message>, HookError> + Send + Sync,
{
    async fn convert(&self, messages: &[AgentMessage<C>]) -> Result<Vec<Message>, HookError> {
        (self.0)(messages)
    }

    fn per_message(&self) -> bool {
        true
    }
}

#[async_trait]
impl<C, F> ConvertToLlm<C> for F
where
    C: CustomMessage,
    F: Fn(&[AgentMessage<C>]) -> Result<Vec<Message>, HookError> + Send + Sync,
{
    async fn convert(&self, messages: &[AgentMessage<C>]) -> Result<Vec<Message>, HookError> {
        self(messages)
    }
}

/// The default converter: keeps user, assistant and toolResult messages.
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultConvertToLlm;

#[async_trait]
impl<C: CustomMessage> ConvertToLlm<C> for DefaultConvertToLlm {
    async fn convert(&self, messages: &[AgentMessage<C>]) -> Result<Vec<Message>, HookError> {
        Ok(crate::message::default_convert_to_llm(messages))
    }

    fn per_message(&self) -> bool {
        true
    }

    fn convert_borrowed<'a>(
        &self,
        messages: &'a [AgentMessage<C>],
    ) -> Option<Result<Vec<TransformedMessage<'a>>, HookError>> {
        let mut converted = Vec::with_capacity(messages.len());
        converted.extend(
            messages
                .iter()
                .filter_map(|m| m.as_standard().map(TransformedMessage::Borrowed)),
        );
        Some(Ok(converted))
    }
}

/// `get_api_key(provider)`: resolved before every model call (for expiring
/// OAuth tokens); `None` falls back to the configured key.
#[async_trait]
pub trait GetApiKey: Send + Sync {
    /// The key to use for `provider`, if any.
    async fn api_key(&self, provider: &Provider) -> Option<String>;
}

#[async_trait]
impl<F> GetApiKey for F
where
    F: Fn(&Provider) -> Option<String> + Send + Sync,
{
    async fn api_key(&self, provider: &Provider) -> Option<String> {
        self(provider)
    }
}

/// What `before_tool_call` and `after_tool_call` see.
#[derive(Debug)]
pub struct ToolCallContext<'a, C> {
    /// The assistant message that requested the call.
    pub assistant_message: &'a AssistantMessage,
    /// The call as the model sent it.
    pub tool_call: &'a ToolCall,
    /// The validated (coerced) arguments.
    pub args: &'a Value,
    /// The run's transcript at this point (ends with the assistant message).
    pub messages: &'a [AgentMessage<C>],
}

/// `before_tool_call`'s verdict.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BeforeToolCallResult {
    /// Do not execute; record an error result instead.
    pub block: bool,
    /// The text of that result (default: `Tool execution was blocked`).
    pub reason: Option<String>,
    /// Arguments to execute with instead (pi's in-place change of the
    /// call's input in a `tool_call` handler); not validated again.
    pub args: Option<Value>,
}

/// Runs after argument validation, before execution; may block the call.
#[async_trait]
pub trait BeforeToolCall<C>: Send + Sync {
    /// Inspects one call.
    async fn before_tool_call(
        &self,
        context: ToolCallContext<'_, C>,
        cancel: &CancellationToken,
    ) -> Option<BeforeToolCallResult>;
}

/// `after_tool_call`'s overrides, field by field (no deep merge).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AfterToolCallResult {
    /// Replaces the content.
    pub content: Option<Vec<UserBlock>>,
    /// Replaces the details.
    pub details: Option<Value>,
    /// Replaces the error flag.
    pub is_error: Option<bool>,
    /// Replaces the early-termination hint ([`AgentToolResult::terminate`]).
    pub terminate: Option<bool>,
}

/// Runs after a tool executed, before `tool_execution_end`; may rewrite the result.
#[async_trait]
pub trait AfterToolCall<C>: Send + Sync {
    /// Inspects one executed call and its result.
    async fn after_tool_call(
        &self,
        context: ToolCallContext<'_, C>,
        result: &AgentToolResult,
        is_error: bool,
        cancel: &CancellationToken,
    ) -> Option<AfterToolCallResult>;
}

/// What `should_stop_after_turn` sees: the turn that just ended.
#[derive(Debug)]
pub struct ShouldStopAfterTurnContext<'a, C> {
    /// The turn's assistant message (as `turn_end` carried it).
    pub message: &'a AssistantMessage,
    /// The turn's tool results, in call order (as `turn_end` carried them).
    pub tool_results: &'a [ToolResultMessage],
    /// The run's transcript after the turn's assistant message and tool
    /// results were appended.
    pub messages: &'a [AgentMessage<C>],
    /// The messages the run returns (and `agent_end` carries) if it stops
    /// here: the prompts and everything added since.
    pub new_messages: &'a [AgentMessage<C>],
}

/// `should_stop_after_turn(context)`: asked right after every `turn_end`
/// (not after a turn that failed or was aborted, which ends the run
/// anyway). `true` ends the run there: `agent_end` follows at once, and
/// no steering or follow-up message is polled.
#[async_trait]
pub trait ShouldStopAfterTurn<C>: Send + Sync {
    /// Whether the run stops after this turn.
    async fn should_stop(&self, context: ShouldStopAfterTurnContext<'_, C>) -> bool;
}

#[async_trait]
impl<C, F> ShouldStopAfterTurn<C> for F
where
    C: CustomMessage,
    F: Fn(&ShouldStopAfterTurnContext<'_, C>) -> bool + Send + Sync,
{
    async fn should_stop(&self, context: ShouldStopAfterTurnContext<'_, C>) -> bool {
        self(&context)
    }
}

/// `finalize_message(message, cancel)`: called for every message of a run
/// right before its `message_end` (prompts, steering and follow-up
/// messages, each settled assistant message, each tool result, and the
/// [`crate::Agent`]'s normalized error message).
///
/// A returned message of the same role (the same [`AgentMessage`] variant
/// and the same `role`) replaces the message from then on: `message_end`
/// carries it, the transcript of the run (and so the next model call, the
/// tools of an assistant message, `turn_end` and `agent_end`) holds it, and
/// so does the [`crate::Agent`]'s state; its `message_start`, emitted
/// before, carried the original. A message of another role is ignored
/// (with a warning); `None` keeps the message. Replacing the assistant
/// message also replaces the tool calls the loop then runs.
#[async_trait]
pub trait FinalizeMessage<C>: Send + Sync {
    /// The replacement of `message`, if any.
    async fn finalize(
        &self,
        message: &AgentMessage<C>,
        cancel: &CancellationToken,
    ) -> Option<AgentMessage<C>>;
}

#[async_trait]
impl<C, F> FinalizeMessage<C> for F
where
    C: CustomMessage,
    F: Fn(&AgentMessage<C>) -> Option<AgentMessage<C>> + Send + Sync,
{
    async fn finalize(
        &self,
        message: &AgentMessage<C>,
        _cancel: &CancellationToken,
    ) -> Option<AgentMessage<C>> {
        self(message)
    }
}
