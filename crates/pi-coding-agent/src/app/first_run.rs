//! Running without a usable model, as pi does on a first run: the app
//! starts on pi's placeholder `unknown` model, a prompt is refused until a
//! key exists, and the first login picks its provider's default model.

use pi_agent_core::AgentError;
use pi_ai::{Api, Model, ModelCost, Provider};

use super::App;
use crate::config::default_model_id;

/// Why a login chose no model although none was chosen yet (pi's
/// messages; `action` is what the status says was done).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoginModelError {
    /// The provider has no default model.
    #[error(
        "{action}, but no default model is configured for provider \"{provider}\". Use /model to select a model."
    )]
    NoDefault {
        /// What was done (`Saved API key for groq`).
        action: String,
        /// The provider logged in to.
        provider: String,
    },
    /// No model of the provider is available.
    #[error(
        "{action}, but no models are available for that provider. Use /model to select a model."
    )]
    NoModels {
        /// What was done.
        action: String,
    },
    /// The provider's default model is not available.
    #[error(
        "{action}, but its default model \"{default_id}\" is not available. Use /model to select a model."
    )]
    DefaultUnavailable {
        /// What was done.
        action: String,
        /// The default model's id.
        default_id: String,
    },
}

/// The name pi's placeholder model has (id, name, api and provider).
const UNKNOWN: &str = "unknown";

/// pi's placeholder model (the agent's default when no model is chosen):
/// every name `unknown`, no base URL, no limits.
pub fn unknown_model() -> Model {
    Model {
        id: UNKNOWN.to_owned(),
        name: UNKNOWN.to_owned(),
        api: Api::new(UNKNOWN),
        provider: Provider::new(UNKNOWN),
        base_url: String::new(),
        reasoning: false,
        input: Vec::new(),
        cost: ModelCost::default(),
        context_window: 0,
        max_tokens: 0,
        headers: None,
        compat: None,
        extra: pi_ai::ExtraFields::default(),
    }
}

/// True for pi's placeholder model.
pub fn is_unknown_model(model: &Model) -> bool {
    model.provider.as_str() == UNKNOWN && model.id == UNKNOWN
}

/// How to get a key (the second half of pi's messages about missing keys).
fn login_help() -> &'static str {
    "Use /login to log into a provider via OAuth or API key. See docs/auth.md."
}

/// The warning a start without any usable model shows (pi's wording).
pub fn no_models_available_message() -> String {
    format!("No models available. {}", login_help())
}

/// The refusal of a prompt to a model without a key (pi's wording; the
/// placeholder model is "the selected model").
pub fn no_api_key_message(provider: &str) -> String {
    let shown = if provider == UNKNOWN {
        "the selected model"
    } else {
        provider
    };
    format!("No API key found for {shown}.\n\n{}", login_help())
}

impl App {
    /// pi's check before a prompt runs: the current model's provider must
    /// have a key configured (none is resolved here).
    pub(super) fn check_model_auth(&self) -> Result<(), AgentError> {
        let model = self.agent.model();
        let provider = model.provider.as_str();
        if self
            .registry()
            .has_configured_auth(provider, self.cli_api_key.as_deref(), &self.auth)
        {
            return Ok(());
        }
        Err(AgentError::Refused(no_api_key_message(provider)))
    }

    /// True while the app runs on the placeholder model (no model chosen).
    pub fn has_no_model(&self) -> bool {
        is_unknown_model(&self.agent.model())
    }

    /// After a login to `provider` (`action` is what the status says was
    /// done, e.g. `Saved API key for groq`): when no model was chosen yet,
    /// pi switches to the provider's default model. `Ok(Some(id))` names
    /// the model chosen, `Ok(None)` means nothing needed choosing, and the
    /// error's text is the message to show (pi's wording).
    pub fn select_after_login(
        &self,
        provider: &str,
        action: &str,
    ) -> Result<Option<String>, LoginModelError> {
        if !self.has_no_model() {
            return Ok(None);
        }
        let Some(default_id) = default_model_id(provider) else {
            return Err(LoginModelError::NoDefault {
                action: action.to_owned(),
                provider: provider.to_owned(),
            });
        };
        let chosen = {
            let registry = self.registry();
            let available = registry.available_models(self.cli_api_key.as_deref(), &self.auth);
            let of_provider: Vec<&Model> = available
                .into_iter()
                .filter(|m| m.provider.as_str() == provider)
                .collect();
            if of_provider.is_empty() {
                return Err(LoginModelError::NoModels {
                    action: action.to_owned(),
                });
            }
            of_provider
                .into_iter()
                .find(|m| m.id == default_id)
                .cloned()
        };
        let Some(model) = chosen else {
            return Err(LoginModelError::DefaultUnavailable {
                action: action.to_owned(),
                default_id: default_id.to_owned(),
            });
        };
        let id = model.id.clone();
        self.set_model(model);
        Ok(Some(id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_placeholder_is_recognised_and_named_as_pi_names_it() {
        let model = unknown_model();
        assert!(is_unknown_model(&model));
        let json = serde_json::to_value(&model).unwrap_or_default();
        assert_eq!(
            json,
            serde_json::json!({
                "id": "unknown", "name": "unknown", "api": "unknown", "provider": "unknown",
                "baseUrl": "", "reasoning": false, "input": [],
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                "contextWindow": 0, "maxTokens": 0
            })
        );
        assert!(
            no_api_key_message("unknown")
                .starts_with("No API key found for the selected model.\n\n")
        );
        assert!(no_api_key_message("groq").starts_with("No API key found for groq."));
    }
}
