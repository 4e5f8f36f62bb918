//! The agent loop: the extensible [`AgentMessage<C>`], `transform_context`
//! then `convert_to_llm` before every model call, tool execution with
//! results in call order, and agent events. Depends on `pi-ai` only; knows
//! no provider and no app role.

mod message;

pub use message::{AgentMessage, CustomMessage, NoCustom, default_convert_to_llm};
