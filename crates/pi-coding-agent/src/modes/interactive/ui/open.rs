//! Opening the selectors and dialogs in the editor slot: the model
//! selector (Ctrl+L, `/model`), scoped models, the session picker
//! (`/resume`, `pi -r`), the tree (`/tree`, double Esc), the fork selector,
//! the import confirmation, `/settings`, `/login` and `/logout`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pi_agent_core::AgentMessage;
use pi_ai::Message;

use super::Ui;
use crate::modes::interactive::action::ChoiceKind;
use crate::modes::interactive::events::{ExtensionCall, ExtensionRequest, UiEvent};
use crate::modes::interactive::login_view::{
    AuthKind, LoginDialog, LoginProvider, LoginView, login_providers, oauth_providers,
};
use crate::modes::interactive::selectors::app_store::AppStore;
use crate::modes::interactive::selectors::choice::Choice;
use crate::modes::interactive::selectors::fork::ForkSelector;
use crate::modes::interactive::selectors::model::ModelSelector;
use crate::modes::interactive::selectors::scoped::ScopedModels;
use crate::modes::interactive::selectors::session::SessionPicker;
use crate::modes::interactive::selectors::tree::TreeSelector;
use crate::modes::interactive::selectors::tree_rows::{Filter, build_items};
use crate::modes::interactive::settings_rows::{Screen, settings_rows};
use crate::modes::interactive::settings_view::{SettingsDialog, SettingsView};
use crate::modes::interactive::transcript::user_text;
use crate::session::SessionEntry;

impl Ui {
    /// `/model [search]`: an exact `provider/id` or id switches, else the
    /// selector opens, filtered by `search`.
    pub(super) fn model_command(&mut self, search: Option<&str>) {
        let Some(search) = search else {
            self.open_model_selector(None);
            return;
        };
        let models = self.available_models();
        let exact = models.iter().find(|m| {
            format!("{}/{}", m.provider.as_str(), m.id).eq_ignore_ascii_case(search)
                || m.id.eq_ignore_ascii_case(search)
        });
        match exact {
            Some(model) => self.set_model(model.clone()),
            None => self.open_model_selector(Some(search)),
        }
    }

    /// The models that have a key (or need none).
    fn available_models(&self) -> Vec<pi_ai::Model> {
        self.app
            .registry()
            .available_models(self.app.cli_api_key.as_deref(), &self.app.auth)
            .into_iter()
            .cloned()
            .collect()
    }

    /// Opens the model selector, pre-filtered by `search`.
    pub(super) fn open_model_selector(&mut self, search: Option<&str>) {
        let available = self.available_models();
        let scoped = self
            .app
            .scoped_models()
            .iter()
            .map(|s| s.model.clone())
            .collect();
        let current = self.app.agent.model();
        self.slot.show(Box::new(
            ModelSelector::new(Arc::clone(&self.theme), &current, available, scoped, search)
                .with_keys(Arc::clone(&self.look.keys)),
        ));
    }

    /// Opens the session picker over this folder's sessions; with
    /// `startup`, Esc leaves pi (`pi -r`).
    pub(super) fn open_session_picker(&mut self, startup: bool) {
        let (dir, cwd, current) = {
            let session = self.app.session();
            (
                session.session_dir().map(Path::to_path_buf),
                session.cwd().to_owned(),
                session.session_file().map(Path::to_path_buf),
            )
        };
        let listed = match &dir {
            Some(dir) => crate::session::list_sessions_in(dir),
            None => crate::session::list_sessions(&cwd, None),
        };
        let sessions = listed.unwrap_or_else(|e| {
            tracing::warn!("cannot list sessions: {e}");
            Vec::new()
        });
        let store = Box::new(AppStore::new(Arc::clone(&self.app)));
        // The search's worker threads ask for a frame when they found more.
        let tx = self.tx.clone();
        let waker = Arc::new(move || {
            let _ = tx.send(UiEvent::Extension(ExtensionRequest::new(
                ExtensionCall::Redraw,
            )));
        });
        let picker = SessionPicker::new(Arc::clone(&self.theme), sessions, current, store)
            .with_keys(Arc::clone(&self.look.keys))
            .with_waker(waker);
        self.slot.show(Box::new(if startup {
            picker.exit_on_cancel()
        } else {
            picker
        }));
    }

    /// Opens the tree with `selected` (default: the leaf) highlighted.
    pub(super) fn open_tree(&mut self, selected: Option<&str>) {
        let (items, leaf) = {
            let session = self.app.session();
            let entries = session.entries();
            if entries.is_empty() {
                drop(session);
                self.status_line("No entries in session");
                return;
            }
            let home = self
                .home
                .as_ref()
                .and_then(|h| h.to_str())
                .map(str::to_owned);
            let labels = |id: &str| session.label(id).map(str::to_owned);
            (
                build_items(&entries, &labels, home.as_deref()),
                session.leaf_id().map(str::to_owned),
            )
        };
        // `treeFilterMode`, as set now (a change in `/settings` applies at once).
        let filter = Filter::from_setting(&self.setting_value("tree-filter-mode", "default"));
        let app = Arc::clone(&self.app);
        let labeler = Box::new(move |id: &str, label: Option<&str>| app.set_entry_label(id, label));
        self.slot.show(Box::new(
            TreeSelector::new(
                Arc::clone(&self.theme),
                items,
                leaf.as_deref(),
                selected,
                filter,
                labeler,
            )
            .with_keys(Arc::clone(&self.look.keys)),
        ));
    }

    pub(super) fn open_fork(&mut self) {
        let messages: Vec<(String, String)> = {
            let session = self.app.session();
            session
                .entries()
                .iter()
                .filter_map(|e| match e {
                    SessionEntry::Message(m) => match &m.message {
                        AgentMessage::Standard(Message::User(u)) => {
                            Some((m.id.clone(), user_text(&u.content)))
                        }
                        _ => None,
                    },
                    _ => None,
                })
                .collect()
        };
        if messages.is_empty() {
            self.status_line("No messages to fork from");
            return;
        }
        self.slot.show(Box::new(
            ForkSelector::new(Arc::clone(&self.theme), messages)
                .with_keys(Arc::clone(&self.look.keys)),
        ));
    }

    pub(super) fn open_scoped_models(&mut self) {
        let available = self.available_models();
        let enabled: Vec<String> = self
            .app
            .scoped_models()
            .iter()
            .map(|s| format!("{}/{}", s.model.provider.as_str(), s.model.id))
            .collect();
        let app = Arc::clone(&self.app);
        let save = Box::new(move |patterns: &[String]| {
            app.set_scoped_models(patterns);
            app.settings_writer
                .set(&[("enabledModels", Some(serde_json::json!(patterns)))])
        });
        self.slot.show(Box::new(
            ScopedModels::new(Arc::clone(&self.theme), available, enabled, save)
                .with_keys(Arc::clone(&self.look.keys)),
        ));
    }

    /// `/import <file>`: asks before replacing the session.
    pub(super) fn confirm_import(&mut self, path: &Path) {
        self.slot.show(Box::new(
            Choice::confirm(
                Arc::clone(&self.theme),
                "Import session",
                &format!("Replace current session with {}?", path.display()),
                ChoiceKind::Import(PathBuf::from(path)),
            )
            .with_keys(Arc::clone(&self.look.keys)),
        ));
    }

    /// `/settings`.
    pub(super) fn open_settings(&mut self) {
        let rows = settings_rows(
            &self.app,
            Screen {
                values: &self.look.values,
                hide_thinking: self.view.hide_thinking,
                theme_name: self.theme.name(),
                theme_names: self.look.themes.names(),
                supports_images: pi_tui::image::protocol_from_env().is_some(),
            },
        );
        let view = SettingsView::new(rows);
        self.slot.show(Box::new(SettingsDialog::new(
            view,
            Arc::clone(&self.look.keys),
            Arc::clone(&self.theme),
        )));
    }

    fn provider_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = Vec::new();
        for model in self.app.registry().models() {
            let id = model.provider.as_str();
            if !ids.iter().any(|i| i == id) {
                ids.push(id.to_owned());
            }
        }
        ids
    }

    /// `/login`: the providers with their status (and the method step when
    /// there are subscriptions).
    pub(super) fn open_login(&mut self) {
        let auth = &self.app.auth;
        let mut providers =
            login_providers(&self.provider_ids(), &|p| auth.get(p).is_some(), &|v| {
                std::env::var(v).ok()
            });
        providers.extend(oauth_providers(&|p| {
            matches!(auth.get(p), Some(crate::config::Credential::Oauth { .. }))
        }));
        self.show_login(LoginView::login(providers));
    }

    /// `/logout`: the providers with stored credentials.
    pub(super) fn open_logout(&mut self) {
        let providers: Vec<LoginProvider> = self
            .app
            .auth
            .providers()
            .into_iter()
            .map(|id| {
                let mut p = LoginProvider::oauth(&id, &id);
                if matches!(
                    self.app.auth.get(&id),
                    Some(crate::config::Credential::ApiKey { .. })
                ) {
                    p.kind = AuthKind::ApiKey;
                }
                p.status = "✓ configured".to_owned();
                p.configured = true;
                p
            })
            .collect();
        if providers.is_empty() {
            self.status_line("No stored credentials to remove. /logout only removes credentials saved by /login; environment variables and models.json config are unchanged.");
            return;
        }
        self.show_login(LoginView::logout(providers));
    }

    fn show_login(&mut self, view: LoginView) {
        self.slot.show(Box::new(LoginDialog::new(
            view,
            Arc::clone(&self.look.keys),
            Arc::clone(&self.theme),
        )));
    }
}
