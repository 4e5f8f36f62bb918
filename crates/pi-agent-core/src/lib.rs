//! The agent loop: the extensible [`AgentMessage<C>`], `transform_context`
//! then `convert_to_llm` before every model call, tool execution with
//! results in call order, and agent events. Depends on `pi-ai` only; knows
//! no provider and no app role.
//!
//! Two levels, as in pi:
//! - [`run_agent_loop`] / [`run_agent_loop_continue`]: the low-level loop
//!   over an [`AgentContext`] and an [`AgentLoopConfig`], emitting
//!   [`AgentEvent`]s into an [`AgentEventSink`]; hook failures are returned
//!   as [`AgentLoopError`].
//! - [`Agent`]: owns the transcript and the run state, queues steering and
//!   follow-up messages, awaits its listeners, and turns loop errors into a
//!   normalized assistant error message.

mod agent;
mod agent_loop;
mod agent_run;
mod agent_types;
mod config;
mod events;
mod finalize;
mod hooks;
mod message;
mod queue;
mod tool;
mod tool_exec;
mod typebox_convert;
mod typed_tool;
mod validation;
mod validation_errors;

pub use agent::Agent;
pub use agent_loop::{run_agent_loop, run_agent_loop_continue};
pub use agent_types::{
    AgentError, AgentListener, AgentOptions, AgentSettings, AgentState, ListenerId, PromptInput,
};
pub use config::{
    AgentContext, AgentLoopConfig, AgentLoopError, GlobalRegistryStream, MessageSource,
};
pub use events::{AgentEvent, AgentEventSink};
pub use hooks::{
    AfterToolCall, AfterToolCallResult, BeforeToolCall, BeforeToolCallResult, ConvertToLlm,
    DefaultConvertToLlm, FinalizeMessage, GetApiKey, HookError, PerMessageConvert,
    ShouldStopAfterTurn, ShouldStopAfterTurnContext, ToolCallContext, TransformContext,
};
pub use message::{AgentMessage, CustomMessage, NoCustom, default_convert_to_llm};
pub use queue::QueueMode;
pub use tool::{
    AgentTool, AgentToolResult, BLOCKED_MESSAGE, SKIPPED_FOR_STEERING_MESSAGE,
    TOOL_ABORTED_MESSAGE, ToolError, ToolExecutionMode, ToolUpdateFn, ignore_updates,
};
pub use typebox_convert::typebox_convert;
pub use typed_tool::{TypedTool, invalid_arguments};
pub use validation::{ArgumentConversion, ArgumentError, ArgumentValidator, coerce_types};
