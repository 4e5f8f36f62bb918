//! The command line's model and thinking level, which pi applies again to
//! every session it opens: after `/new` or `/resume` the model returns to
//! `--model` (and the level to `--thinking` or the `:level` suffix), as pi
//! rebuilds its session from the command line each time.

use pi_ai::{Model, ThinkingLevel};

use super::App;

/// What `--model` and `--thinking` chose (nothing when not given).
#[derive(Debug, Clone, Default)]
pub(super) struct CliChoice {
    /// The `--model` (with `--provider`) resolved at start-up.
    pub model: Option<Model>,
    /// `--thinking`, else the `:level` suffix of `--model` (`Some(None)`: off).
    pub thinking: Option<Option<ThinkingLevel>>,
}

impl App {
    /// Puts the command line's model back (a session switch), when one was
    /// given; true when the model changed.
    pub(super) fn restore_cli_model(&self) -> bool {
        let Some(model) = &self.cli_choice.model else {
            return false;
        };
        let current = self.agent.model();
        if current.provider == model.provider && current.id == model.id {
            return false;
        }
        self.agent.set_model(model.clone());
        true
    }

    /// The command line's thinking level, when one was given.
    pub(super) fn cli_thinking(&self) -> Option<Option<ThinkingLevel>> {
        self.cli_choice.thinking
    }
}
