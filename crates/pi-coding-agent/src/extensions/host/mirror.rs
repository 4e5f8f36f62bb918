//! The state a host mirrors so its extensions read it synchronously
//! (`ctx.model`, `ctx.sessionManager`, `pi.getActiveTools()`, ...): before
//! each message to the host, what changed since the last one is sent —
//! a `state` patch of the changed fields, and the session's new entries —
//! never the whole state per event.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::{Map, Value, json};

use crate::extensions::ExtensionContext;

/// What was last sent.
#[derive(Debug, Default)]
pub(super) struct Mirror {
    /// A fingerprint per state field.
    sent: HashMap<&'static str, u64>,
    /// The session last sent: its id, entries sent, its leaf.
    session: Option<(String, usize, Option<String>)>,
}

/// A message to send: a notification's method and params.
pub(super) type Update = (&'static str, Value);

fn fingerprint(value: &Value) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.to_string().hash(&mut hasher);
    hasher.finish()
}

impl Mirror {
    /// Forgets what was sent (a restarted host knows nothing).
    pub(super) fn reset(&mut self) {
        self.sent.clear();
        self.session = None;
    }

    /// The updates that bring the host up to date with `ctx`.
    pub(super) fn updates(&mut self, ctx: &ExtensionContext) -> Vec<Update> {
        let mut updates = Vec::new();
        let patch = self.state_patch(ctx);
        if !patch.is_empty() {
            updates.push(("state", Value::Object(patch)));
        }
        if let Some(update) = self.session_update(ctx) {
            updates.push(update);
        }
        updates
    }

    fn state_patch(&mut self, ctx: &ExtensionContext) -> Map<String, Value> {
        let pi = ctx.pi();
        let mut fields: Vec<(&'static str, Value)> = vec![
            (
                "model",
                serde_json::to_value(ctx.model()).unwrap_or(Value::Null),
            ),
            (
                "thinkingLevel",
                serde_json::to_value(pi.thinking_level()).unwrap_or(Value::Null),
            ),
            ("activeTools", json!(pi.active_tools())),
            (
                "allTools",
                Value::Array(
                    pi.all_tools()
                        .into_iter()
                        .map(
                            |(name, description)| json!({"name": name, "description": description}),
                        )
                        .collect(),
                ),
            ),
            (
                "commands",
                Value::Array(
                    pi.commands()
                        .into_iter()
                        .map(
                            |(name, description)| json!({"name": name, "description": description}),
                        )
                        .collect(),
                ),
            ),
            ("idle", json!(ctx.is_idle())),
            ("pendingMessages", json!(ctx.has_pending_messages())),
            (
                "contextUsage",
                serde_json::to_value(ctx.context_usage()).unwrap_or(Value::Null),
            ),
            ("systemPrompt", json!(ctx.system_prompt())),
            ("hasUI", json!(ctx.has_ui())),
            // pi's footer data (`footerData.getGitBranch()`).
            ("gitBranch", json!(crate::git::current_branch(ctx.cwd()))),
            ("editorText", json!(ctx.ui().editor_text())),
            ("toolsExpanded", json!(ctx.ui().tools_expanded())),
            // `ctx.ui.getAllThemes()` (pi gives each its file; pi-rs's
            // catalogue names them).
            (
                "themes",
                json!(
                    ctx.ui()
                        .themes()
                        .into_iter()
                        .map(|name| json!({ "name": name, "path": Value::Null }))
                        .collect::<Vec<_>>()
                ),
            ),
        ];
        fields.push(("flags", flags(ctx)));
        let mut changed: Vec<(&'static str, Value)> = Vec::new();
        // The registry is large: its JSON is built only when the models or
        // their providers' keys changed (a fingerprint of ids and of which
        // providers have a key; a key is looked up once per provider).
        if let Some((ids, providers)) = ctx.with_model_registry(|r| {
            let mut hasher = DefaultHasher::new();
            let mut providers: Vec<pi_ai::Model> = Vec::new();
            for model in r.models() {
                (&model.provider, &model.id).hash(&mut hasher);
                if !providers.iter().any(|p| p.provider == model.provider) {
                    providers.push(model.clone());
                }
            }
            (hasher.finish(), providers)
        }) {
            let keyed: Vec<pi_ai::Provider> = providers
                .iter()
                .filter(|m| ctx.api_key_for(m).is_some())
                .map(|m| m.provider.clone())
                .collect();
            let mut hasher = DefaultHasher::new();
            (ids, &keyed).hash(&mut hasher);
            let key = hasher.finish();
            if self.sent.insert("models", key) != Some(key)
                && let Some(models) = ctx.with_model_registry(|r| r.models().to_vec())
            {
                let available: Vec<&pi_ai::Model> = models
                    .iter()
                    .filter(|m| keyed.contains(&m.provider))
                    .collect();
                changed.push(("models", json!({ "all": models, "available": available })));
            }
        }
        let mut patch: Map<String, Value> = changed
            .into_iter()
            .map(|(n, v)| (n.to_owned(), v))
            .collect();
        for (name, value) in fields {
            let print = fingerprint(&value);
            if self.sent.insert(name, print) != Some(print) {
                patch.insert(name.to_owned(), value);
            }
        }
        patch
    }

    fn session_update(&mut self, ctx: &ExtensionContext) -> Option<Update> {
        ctx.with_session(|session| {
            let id = session.session_id().to_owned();
            let count = session.entry_count();
            let leaf = session.leaf_id().map(str::to_owned);
            let update = match &self.session {
                Some((sent_id, sent, _)) if *sent_id == id && *sent < count => {
                    let entries: Vec<Value> = session
                        .entries()
                        .into_iter()
                        .skip(*sent)
                        .filter_map(|e| serde_json::to_value(e).ok())
                        .collect();
                    Some((
                        "session_append",
                        json!({ "entries": entries, "leafId": leaf }),
                    ))
                }
                Some((sent_id, sent, sent_leaf)) if *sent_id == id && *sent == count => {
                    (*sent_leaf != leaf).then(|| ("session_leaf", json!({ "leafId": leaf })))
                }
                _ => {
                    let entries: Vec<Value> = session
                        .entries()
                        .into_iter()
                        .filter_map(|e| serde_json::to_value(e).ok())
                        .collect();
                    Some((
                        "session_reset",
                        json!({
                            "header": session.header(),
                            "entries": entries,
                            "leafId": leaf,
                            "file": session.session_file(),
                            "dir": session.session_dir(),
                        }),
                    ))
                }
            };
            self.session = Some((id, count, leaf));
            update
        })
        .flatten()
    }
}

fn flags(ctx: &ExtensionContext) -> Value {
    let shared = ctx.shared();
    let flags = shared
        .flags
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    json!(*flags)
}
