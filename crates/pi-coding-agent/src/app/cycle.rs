//! Model cycling (pi's Ctrl+P and rpc `cycle_model`): through the
//! `--models` scope when there is one, else through every usable model.

use pi_ai::{Model, ThinkingLevel};

use super::App;

/// The model a cycle switched to.
#[derive(Debug, Clone)]
pub struct CycledModel {
    /// The new model.
    pub model: Model,
    /// Whether it came from the `--models` scope.
    pub is_scoped: bool,
}

impl App {
    /// Switches to the model after the current one, as pi's `cycleModel`:
    /// the scoped models that have a key (applying the thinking level their
    /// pattern named), or else the available models. `None` when there is
    /// nothing to cycle to (fewer than two candidates). `backward` goes to
    /// the previous one instead (Shift+Ctrl+P).
    pub fn cycle_model(&self, backward: bool) -> Option<CycledModel> {
        let step = |at: usize, len: usize| {
            if backward {
                (at + len - 1) % len
            } else {
                (at + 1) % len
            }
        };
        let current = self.agent.model();
        let is_current = |m: &Model| m.provider == current.provider && m.id == current.id;
        let scoped = self.scoped_models();
        if !scoped.is_empty() {
            let usable: Vec<_> = scoped.iter().filter(|s| self.has_key(&s.model)).collect();
            if usable.len() <= 1 {
                return None;
            }
            let at = usable
                .iter()
                .position(|s| is_current(&s.model))
                .unwrap_or(0);
            let next = usable[step(at, usable.len())];
            self.select_model(next.model.clone(), "cycle");
            if let Some(level) = next
                .thinking_level
                .as_deref()
                .and_then(|l| ThinkingLevel::parse_setting(l).ok())
            {
                self.set_thinking_level(level);
            }
            return Some(CycledModel {
                model: next.model.clone(),
                is_scoped: true,
            });
        }
        let registry = self.registry();
        let usable = registry.available_models(self.cli_api_key.as_deref(), &self.auth);
        if usable.len() <= 1 {
            return None;
        }
        let at = usable.iter().position(|m| is_current(m)).unwrap_or(0);
        let next = usable[step(at, usable.len())].clone();
        self.select_model(next.clone(), "cycle");
        Some(CycledModel {
            model: next,
            is_scoped: false,
        })
    }

    /// Whether `model`'s provider has a key.
    fn has_key(&self, model: &Model) -> bool {
        self.registry()
            .api_key(
                model.provider.as_str(),
                self.cli_api_key.as_deref(),
                &self.auth,
            )
            .ok()
            .flatten()
            .is_some()
    }
}
