//! Todo list (pi's `examples/extensions/todo.ts`): a `todo` tool the model
//! uses to list, add, toggle and clear todos, and a `/todos` command.
//!
//! The state lives in the session, as in pi: every `todo` result carries
//! the whole list in its `details`, and on `session_start` and
//! `session_tree` the list is rebuilt from the last such result on the
//! current branch, so a fork or a tree navigation sees the list as it was
//! at that point. (Nothing is written with `append_entry`: the tool
//! results already are the record.)
//!
//! pi's `/todos` draws a custom full-screen component (`ctx.ui.custom`),
//! which Rust extensions have no counterpart of (and which shows nothing
//! over rpc); here `/todos` shows the list as a notification instead.

use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use pi_agent_core::{AgentTool, AgentToolResult, ToolError, ToolUpdateFn};
use pi_ai::{CancellationToken, UserBlock};
use pi_coding_agent::extensions::{
    CommandContext, Extension, ExtensionApi, ExtensionContext, NotifyLevel, SessionStartEvent,
    SessionTreeEvent,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// One todo.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Todo {
    /// Its number, from 1.
    pub id: u64,
    /// What to do.
    pub text: String,
    /// Whether it is done.
    pub done: bool,
}

/// A `todo` result's `details` (pi's `TodoDetails`): the list after the call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TodoDetails {
    /// `list`, `add`, `toggle` or `clear`.
    pub action: String,
    /// Every todo.
    pub todos: Vec<Todo>,
    /// The number the next todo gets.
    pub next_id: u64,
    /// Why the call did nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The list and the next number.
#[derive(Debug)]
struct State {
    todos: Vec<Todo>,
    next_id: u64,
}

impl Default for State {
    fn default() -> Self {
        Self {
            todos: Vec::new(),
            next_id: 1,
        }
    }
}

type Shared = Arc<Mutex<State>>;

fn lock(state: &Shared) -> std::sync::MutexGuard<'_, State> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The extension: the `todo` tool, `/todos`, and the handlers that restore
/// the list from the session.
#[derive(Debug, Default)]
pub struct TodoExtension {
    state: Shared,
}

/// The `todo` tool.
struct TodoTool {
    state: Shared,
    parameters: Value,
}

impl TodoTool {
    fn new(state: Shared) -> Self {
        Self {
            state,
            parameters: json!({
                "type": "object",
                "required": ["action"],
                "properties": {
                    "action": {"type": "string", "enum": ["list", "add", "toggle", "clear"]},
                    "text": {"type": "string", "description": "Todo text (for add)"},
                    "id": {"type": "number", "description": "Todo ID (for toggle)"},
                },
            }),
        }
    }
}

/// A result: `text` for the model, the list for the record.
fn result(text: String, action: &str, state: &State, error: Option<String>) -> AgentToolResult {
    let details = TodoDetails {
        action: action.to_owned(),
        todos: state.todos.clone(),
        next_id: state.next_id,
        error,
    };
    AgentToolResult::with_details(vec![UserBlock::text(text)], &details)
}

/// Runs one call on `state`.
fn run(state: &mut State, args: &Value) -> AgentToolResult {
    let action = args["action"].as_str().unwrap_or_default();
    match action {
        "list" => {
            let text = if state.todos.is_empty() {
                "No todos".to_owned()
            } else {
                let lines: Vec<String> = state
                    .todos
                    .iter()
                    .map(|t| format!("[{}] #{}: {}", if t.done { "x" } else { " " }, t.id, t.text))
                    .collect();
                lines.join("\n")
            };
            result(text, "list", state, None)
        }
        "add" => match args["text"].as_str().filter(|t| !t.is_empty()) {
            None => result(
                "Error: text required for add".to_owned(),
                "add",
                state,
                Some("text required".to_owned()),
            ),
            Some(text) => {
                let todo = Todo {
                    id: state.next_id,
                    text: text.to_owned(),
                    done: false,
                };
                state.next_id += 1;
                let message = format!("Added todo #{}: {}", todo.id, todo.text);
                state.todos.push(todo);
                result(message, "add", state, None)
            }
        },
        "toggle" => toggle(state, &args["id"]),
        "clear" => {
            let count = state.todos.len();
            *state = State::default();
            result(format!("Cleared {count} todos"), "clear", state, None)
        }
        other => result(
            format!("Unknown action: {other}"),
            "list",
            state,
            Some(format!("unknown action: {other}")),
        ),
    }
}

/// `toggle`: flips todo `id` (a JSON number; absent is an error).
fn toggle(state: &mut State, id: &Value) -> AgentToolResult {
    if id.is_null() {
        return result(
            "Error: id required for toggle".to_owned(),
            "toggle",
            state,
            Some("id required".to_owned()),
        );
    }
    let Some(todo) = state
        .todos
        .iter_mut()
        .find(|t| id.as_f64() == Some(t.id as f64))
    else {
        return result(
            format!("Todo #{id} not found"),
            "toggle",
            state,
            Some(format!("#{id} not found")),
        );
    };
    todo.done = !todo.done;
    let message = format!(
        "Todo #{} {}",
        todo.id,
        if todo.done {
            "completed"
        } else {
            "uncompleted"
        }
    );
    result(message, "toggle", state, None)
}

#[async_trait]
impl AgentTool for TodoTool {
    fn name(&self) -> &str {
        "todo"
    }

    fn label(&self) -> &str {
        "Todo"
    }

    fn description(&self) -> &str {
        "Manage a todo list. Actions: list, add (text), toggle (id), clear"
    }

    fn parameters(&self) -> &Value {
        &self.parameters
    }

    async fn execute(
        &self,
        _call_id: &str,
        args: Value,
        _cancel: CancellationToken,
        _on_update: ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError> {
        Ok(run(&mut lock(&self.state), &args))
    }
}

/// Rebuilds the list from the last `todo` result on the current branch.
fn restore(state: &Shared, ctx: &ExtensionContext) {
    let last = ctx
        .with_session(|session| {
            session
                .branch_path(None)
                .into_iter()
                .rev()
                .find_map(|entry| {
                    let entry = serde_json::to_value(entry).ok()?;
                    let message = &entry["message"];
                    let ours = entry["type"] == "message"
                        && message["role"] == "toolResult"
                        && message["toolName"] == "todo";
                    ours.then(|| {
                        serde_json::from_value::<TodoDetails>(message["details"].clone()).ok()
                    })
                    .flatten()
                })
        })
        .flatten();
    let mut state = lock(state);
    *state = State::default();
    if let Some(details) = last {
        state.todos = details.todos;
        state.next_id = details.next_id;
    }
}

/// What `/todos` shows.
fn listing(state: &State) -> String {
    if state.todos.is_empty() {
        return "No todos yet. Ask the agent to add some!".to_owned();
    }
    let done = state.todos.iter().filter(|t| t.done).count();
    let mut lines = vec![format!("Todos: {done}/{} completed", state.todos.len())];
    for todo in &state.todos {
        let check = if todo.done { "✓" } else { "○" };
        lines.push(format!("{check} #{} {}", todo.id, todo.text));
    }
    lines.join("\n")
}

impl Extension for TodoExtension {
    fn path(&self) -> String {
        "<todo>".to_owned()
    }

    fn register(&self, api: &mut ExtensionApi<'_>) {
        let state = Arc::clone(&self.state);
        api.on(move |_: SessionStartEvent, ctx: ExtensionContext| {
            restore(&state, &ctx);
            async { Ok(None) }
        });
        let state = Arc::clone(&self.state);
        api.on(move |_: SessionTreeEvent, ctx: ExtensionContext| {
            restore(&state, &ctx);
            async { Ok(None) }
        });
        api.register_tool(Arc::new(TodoTool::new(Arc::clone(&self.state))));
        let state = Arc::clone(&self.state);
        api.register_command(
            "todos",
            Some("Show all todos on the current branch"),
            move |_args: String, ctx: CommandContext| {
                let text = listing(&lock(&state));
                async move {
                    if ctx.has_ui() {
                        ctx.ui().notify(&text, Some(NotifyLevel::Info));
                    } else {
                        ctx.ui()
                            .notify("/todos requires interactive mode", Some(NotifyLevel::Error));
                    }
                    Ok(())
                }
            },
        );
    }
}
