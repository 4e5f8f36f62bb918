//! [`TypedTool`]: a tool whose arguments arrive as a Rust type. Every
//! `TypedTool` is an [`AgentTool`] (a blanket impl): the loop validates the
//! JSON arguments against the schema as for any tool, then the adapter
//! deserializes them into [`TypedTool::Args`] and calls [`TypedTool::run`].

use async_trait::async_trait;
use serde::de::DeserializeOwned;
use serde_json::Value;

use pi_ai::CancellationToken;

use crate::tool::{AgentTool, AgentToolResult, ToolError, ToolExecutionMode, ToolUpdateFn};
use crate::validation::ArgumentConversion;

/// A tool with typed arguments; implement this instead of [`AgentTool`]
/// (which every `TypedTool` is) to skip the hand-written `serde_json` step.
///
/// The schema in [`TypedTool::parameters`] is still what the model sees and
/// what the loop validates (and coerces) against; `Args` only has to accept
/// every object that schema accepts. Arguments that validate but do not
/// deserialize become the tool error `Invalid arguments for tool NAME: ...`
/// (see [`invalid_arguments`]).
///
/// ```
/// use async_trait::async_trait;
/// use pi_agent_core::{AgentToolResult, ToolError, ToolUpdateFn, TypedTool};
/// use pi_ai::CancellationToken;
/// use serde::Deserialize;
/// use serde_json::{Value, json};
///
/// #[derive(Deserialize)]
/// struct AddArgs {
///     a: f64,
///     b: f64,
/// }
///
/// struct Add(Value);
///
/// #[async_trait]
/// impl TypedTool for Add {
///     type Args = AddArgs;
///     fn name(&self) -> &str { "add" }
///     fn description(&self) -> &str { "Adds two numbers." }
///     fn parameters(&self) -> &Value { &self.0 }
///     async fn run(
///         &self,
///         _call_id: &str,
///         args: AddArgs,
///         _cancel: CancellationToken,
///         _on_update: ToolUpdateFn,
///     ) -> Result<AgentToolResult, ToolError> {
///         Ok(AgentToolResult::text((args.a + args.b).to_string()))
///     }
/// }
///
/// let tool: std::sync::Arc<dyn pi_agent_core::AgentTool> = std::sync::Arc::new(Add(json!({
///     "type": "object",
///     "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
///     "required": ["a", "b"],
/// })));
/// assert_eq!(tool.label(), "add");
/// ```
#[async_trait]
pub trait TypedTool: Send + Sync {
    /// The arguments, deserialized from the validated JSON object.
    type Args: DeserializeOwned + Send;

    /// The name the model calls it by.
    fn name(&self) -> &str;

    /// A human-readable label for the UI; the name unless overridden.
    fn label(&self) -> &str {
        self.name()
    }

    /// What the tool does, for the model.
    fn description(&self) -> &str;

    /// JSON Schema of the arguments object.
    fn parameters(&self) -> &Value;

    /// Runs one call with its typed arguments; otherwise as
    /// [`AgentTool::execute`] (`cancel` stops it, `on_update` streams
    /// partial results).
    async fn run(
        &self,
        call_id: &str,
        args: Self::Args,
        cancel: CancellationToken,
        on_update: ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError>;

    /// As [`AgentTool::prepare_arguments`] (on the JSON, before validation).
    fn prepare_arguments(&self, arguments: &mut Value) -> Option<Value> {
        let _ = arguments;
        None
    }

    /// As [`AgentTool::argument_conversion`].
    fn argument_conversion(&self) -> ArgumentConversion {
        ArgumentConversion::JsonSchema
    }

    /// As [`AgentTool::execution_mode`].
    fn execution_mode(&self) -> Option<ToolExecutionMode> {
        None
    }
}

/// The error of arguments that passed validation but do not deserialize
/// into the tool's `Args`: `Invalid arguments for tool NAME: <serde error>`.
pub fn invalid_arguments(tool: &str, error: &serde_json::Error) -> ToolError {
    ToolError::new(format!("Invalid arguments for tool {tool}: {error}"))
}

#[async_trait]
impl<T: TypedTool> AgentTool for T {
    fn name(&self) -> &str {
        TypedTool::name(self)
    }

    fn label(&self) -> &str {
        TypedTool::label(self)
    }

    fn description(&self) -> &str {
        TypedTool::description(self)
    }

    fn parameters(&self) -> &Value {
        TypedTool::parameters(self)
    }

    async fn execute(
        &self,
        call_id: &str,
        args: Value,
        cancel: CancellationToken,
        on_update: ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError> {
        let args: T::Args = serde_json::from_value(args)
            .map_err(|e| invalid_arguments(TypedTool::name(self), &e))?;
        self.run(call_id, args, cancel, on_update).await
    }

    fn prepare_arguments(&self, arguments: &mut Value) -> Option<Value> {
        TypedTool::prepare_arguments(self, arguments)
    }

    fn argument_conversion(&self) -> ArgumentConversion {
        TypedTool::argument_conversion(self)
    }

    fn execution_mode(&self) -> Option<ToolExecutionMode> {
        TypedTool::execution_mode(self)
    }
}

#[cfg(test)]
#[path = "typed_tool_tests.rs"]
mod tests;
