//! What `/login` and `/logout` chose: an API key saved, a stored credential
//! removed, or a subscription login run as a task whose events update its
//! dialog in the editor slot.

use std::sync::{Arc, Mutex, PoisonError};

use super::Ui;
use crate::auth::{OAuthError, OAuthProvider, OAuthStore};
use crate::modes::interactive::events::{LoginUpdate, OAuthUpdate};
use crate::modes::interactive::oauth_dialog::{OAuthDialog, OAuthSlot, run_login};

impl Ui {
    /// Saves `key` for `provider` in auth.json; the models are read again.
    pub(super) fn save_api_key(&mut self, provider: &str, key: &str) {
        if key.is_empty() {
            self.error(format!(
                "Failed to save API key for {provider}: API key cannot be empty."
            ));
            return;
        }
        match self.app.auth.set_api_key(provider, key) {
            Ok(()) => {
                self.app.reload_models();
                self.after_login(provider, &format!("Saved API key for {provider}"));
            }
            Err(e) => self.error(format!("Failed to save API key for {provider}: {e}")),
        }
    }

    /// The status after a login (`action` says what was done); with no
    /// model chosen yet, pi switches to the provider's default model.
    fn after_login(&mut self, provider: &str, action: &str) {
        let selected = self.app.select_after_login(provider, action);
        self.init_footer();
        let path = self.app.auth.path().display().to_string();
        match selected {
            Ok(Some(id)) => self.status_line(&format!(
                "{action}. Selected {id}. Credentials saved to {path}"
            )),
            Ok(None) => self.status_line(&format!("{action}. Credentials saved to {path}")),
            Err(message) => {
                self.status_line(&format!("{action}. Credentials saved to {path}"));
                self.error(message.to_string());
                return;
            }
        }
        self.warn_about_anthropic_extra_usage();
    }

    /// Removes the stored credential of `provider`.
    pub(super) fn logout(&mut self, provider: &str) {
        match self.app.auth.remove(provider) {
            Ok(_) => {
                self.app.reload_models();
                self.init_footer();
                self.status_line(&format!("Removed stored API key for {provider}. Environment variables and models.json config are unchanged."));
            }
            Err(e) => self.error(format!("Logout failed: {e}")),
        }
    }

    /// `/login` chose a subscription: open its dialog and start the flow.
    pub(super) fn start_oauth(&mut self, provider_id: &str) {
        let Some(provider) = OAuthProvider::from_id(provider_id) else {
            self.error(format!("Unknown OAuth provider: {provider_id}"));
            return;
        };
        let store = OAuthStore::new(&self.app.agent_dir);
        let task = tokio::spawn(run_login(store, provider, self.tx.clone()));
        let dialog = Arc::new(Mutex::new(OAuthDialog::new(provider, task)));
        self.work.oauth = Arc::downgrade(&dialog);
        self.slot.show(Box::new(OAuthSlot::new(
            dialog,
            Arc::clone(&self.look.keys),
            Arc::clone(&self.theme),
        )));
    }

    /// An update of the running login.
    pub(super) fn oauth_update(&mut self, update: &OAuthUpdate) {
        let Some(update) = update.take() else {
            return;
        };
        match update {
            LoginUpdate::Event(event) => {
                // A closed dialog drops the event (and its reply: cancelled).
                if let Some(dialog) = self.work.oauth.upgrade() {
                    dialog
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .event(event);
                }
            }
            LoginUpdate::Done(provider, result) => {
                let shown = self.work.oauth.upgrade().is_some_and(|d| {
                    d.lock().unwrap_or_else(PoisonError::into_inner).provider() == provider
                });
                if shown {
                    self.slot.close();
                }
                match result {
                    Ok(()) => {
                        if let Err(e) = self.app.auth.reload() {
                            tracing::warn!("cannot reload auth.json: {e}");
                        }
                        // The login applies now (Copilot's API base), not at the next start.
                        self.app.reload_models();
                        self.after_login(
                            provider.id(),
                            &format!("Logged in to {}", provider.name()),
                        );
                    }
                    Err(OAuthError::Cancelled) => {}
                    Err(e) => self.error(format!("Failed to login to {}: {e}", provider.name())),
                }
            }
        }
    }
}
