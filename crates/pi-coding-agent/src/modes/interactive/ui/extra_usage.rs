//! pi's warning that Anthropic subscription auth draws from paid extra
//! usage (`warnings.anthropicExtraUsage`, default on): shown once per run
//! when the model is Anthropic's and its credential is a subscription login
//! (an OAuth entry in auth.json, or a key starting with `sk-ant-oat`), at
//! startup, after a model change and after a login.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::Ui;
use crate::config::Credential;
use crate::modes::interactive::events::UiEvent;

/// pi 0.73.1's text of the warning.
const ANTHROPIC_EXTRA_USAGE_WARNING: &str = "Anthropic subscription auth is active. Third-party harness usage draws from extra usage and is billed per token, not your Claude plan limits. Manage extra usage at https://claude.ai/settings/usage.";

/// The prefix of Anthropic's subscription (OAuth) tokens.
const SUBSCRIPTION_KEY_PREFIX: &str = "sk-ant-oat";

impl Ui {
    /// Shows the extra-usage warning when it applies to the current model
    /// and has not been shown in this run. The key is resolved off the UI
    /// task (models.json may name a command for it), as pi checks it
    /// asynchronously.
    pub(crate) fn warn_about_anthropic_extra_usage(&mut self) {
        if self.view.extra_usage_warned.load(Ordering::Relaxed)
            || !self.setting_flag("warnings", true)
        {
            return;
        }
        let model = self.app.agent.model();
        if model.provider.as_str() != "anthropic" {
            return;
        }
        let oauth = matches!(
            self.app.auth.get("anthropic"),
            Some(Credential::Oauth { .. })
        );
        let (app, warned, tx) = (
            Arc::clone(&self.app),
            Arc::clone(&self.view.extra_usage_warned),
            self.tx.clone(),
        );
        tokio::task::spawn_blocking(move || {
            let subscription = oauth
                || app
                    .api_key_for(&model)
                    .is_some_and(|key| key.starts_with(SUBSCRIPTION_KEY_PREFIX));
            // Once per run, even when two checks overlap.
            if subscription && !warned.swap(true, Ordering::Relaxed) {
                let _ = tx.send(UiEvent::Warning(ANTHROPIC_EXTRA_USAGE_WARNING.to_owned()));
            }
        });
    }
}
