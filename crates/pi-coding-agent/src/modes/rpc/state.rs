//! The JSON of `get_state` and `get_session_stats`, with pi's fields: a
//! field pi leaves undefined (no session file, no name) is left out.

use pi_agent_core::{AgentMessage, QueueMode};
use pi_ai::Message;
use serde_json::{Map, Value, json};

use crate::app::{App, js_number};
use pi_ai::ThinkingLevel;

/// A model as pi's JSON.
pub(super) fn model_json(model: &pi_ai::Model) -> Value {
    serde_json::to_value(model).unwrap_or(Value::Null)
}

fn mode(mode: QueueMode) -> &'static str {
    if mode == QueueMode::All {
        "all"
    } else {
        "one-at-a-time"
    }
}

/// Inserts `key` when `value` is set.
fn insert_some(map: &mut Map<String, Value>, key: &str, value: Option<impl Into<Value>>) {
    if let Some(value) = value {
        map.insert(key.to_owned(), value.into());
    }
}

/// `get_state`; `busy` is `isStreaming` as the client sees it.
pub(super) fn state(app: &App, busy: bool) -> Value {
    let (model, level, count) = app.agent.with_state(|s| {
        (
            model_json(&s.model),
            ThinkingLevel::setting_name(s.thinking_level),
            s.messages.len(),
        )
    });
    let (file, id, name) = {
        let session = app.session();
        (
            session.session_file().map(|p| p.display().to_string()),
            session.session_id().to_owned(),
            session.session_name().map(str::to_owned),
        )
    };
    let mut state = Map::new();
    state.insert("model".to_owned(), model);
    state.insert("thinkingLevel".to_owned(), json!(level));
    state.insert("isStreaming".to_owned(), json!(busy));
    state.insert("isCompacting".to_owned(), json!(app.is_compacting()));
    state.insert(
        "steeringMode".to_owned(),
        json!(mode(app.agent.steering_mode())),
    );
    state.insert(
        "followUpMode".to_owned(),
        json!(mode(app.agent.follow_up_mode())),
    );
    insert_some(&mut state, "sessionFile", file);
    state.insert("sessionId".to_owned(), json!(id));
    insert_some(&mut state, "sessionName", name);
    state.insert(
        "autoCompactionEnabled".to_owned(),
        json!(app.auto_compaction()),
    );
    state.insert("messageCount".to_owned(), json!(count));
    state.insert(
        "pendingMessageCount".to_owned(),
        json!(app.pending_message_count()),
    );
    Value::Object(state)
}

/// `get_session_stats`.
pub(super) fn session_stats(app: &App) -> Value {
    let (mut user, mut assistant, mut tool_results, mut tool_calls, mut total) = (0, 0, 0, 0, 0);
    let mut usage = pi_ai::Usage::default();
    app.agent.with_state(|s| {
        total = s.messages.len();
        for message in &s.messages {
            match message {
                AgentMessage::Standard(Message::User(_)) => user += 1,
                AgentMessage::Standard(Message::Assistant(m)) => {
                    assistant += 1;
                    tool_calls += m.tool_calls().count();
                    usage.input += m.usage.input;
                    usage.output += m.usage.output;
                    usage.cache_read += m.usage.cache_read;
                    usage.cache_write += m.usage.cache_write;
                    usage.cost.total += m.usage.cost.total;
                }
                AgentMessage::Standard(Message::ToolResult(_)) => tool_results += 1,
                AgentMessage::Custom(_) => {}
            }
        }
    });
    let (file, id) = {
        let session = app.session();
        (
            session.session_file().map(|p| p.display().to_string()),
            session.session_id().to_owned(),
        )
    };
    let tokens = usage.input + usage.output + usage.cache_read + usage.cache_write;
    let mut stats = Map::new();
    insert_some(&mut stats, "sessionFile", file);
    stats.insert("sessionId".to_owned(), json!(id));
    stats.insert("userMessages".to_owned(), json!(user));
    stats.insert("assistantMessages".to_owned(), json!(assistant));
    stats.insert("toolCalls".to_owned(), json!(tool_calls));
    stats.insert("toolResults".to_owned(), json!(tool_results));
    stats.insert("totalMessages".to_owned(), json!(total));
    stats.insert(
        "tokens".to_owned(),
        json!({"input": usage.input, "output": usage.output, "cacheRead": usage.cache_read, "cacheWrite": usage.cache_write, "total": tokens}),
    );
    stats.insert("cost".to_owned(), js_number(usage.cost.total));
    let usage = app.context_usage();
    insert_some(
        &mut stats,
        "contextUsage",
        usage.and_then(|u| serde_json::to_value(u).ok()),
    );
    Value::Object(stats)
}
