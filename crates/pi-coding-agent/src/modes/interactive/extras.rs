//! The interactive mode's look and configuration: key bindings (`keybindings.json`),
//! themes, and the dialogs that replace the editor for `/settings`, `/login` and
//! `/logout`; plus `/export`, `/hotkeys` and `/reload`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use pi_tui::crossterm::event::KeyEvent;
use pi_tui::keybindings::Keybindings;
use pi_tui::theme::Theme;

use super::blocks::Notice;
use super::input::Effect;
use super::login_view::{LoginOutcome, LoginProvider, LoginView, login_providers, oauth_providers};
use super::settings_view::{SettingsOutcome, SettingsView};
use super::ui::Ui;
use crate::config::Settings;
use crate::themes::{ThemeCatalog, ThemeSources};

/// Command-line options of the look (`--theme`, `--no-themes`).
#[derive(Debug, Clone, Default)]
pub struct LookOptions {
    /// `--theme` paths.
    pub theme_paths: Vec<PathBuf>,
    /// `--no-themes`.
    pub no_themes: bool,
}

/// A dialog shown in place of the editor.
pub(crate) enum Dialog {
    /// `/settings`.
    Settings(SettingsView),
    /// `/login`, `/logout`.
    Login(LoginView),
    /// A running subscription login.
    OAuth(super::oauth_dialog::OAuthDialog),
}

/// Key bindings, themes and the open dialog.
pub(crate) struct Extras {
    /// The effective key bindings.
    pub keys: Arc<Keybindings>,
    /// The known themes.
    pub themes: ThemeCatalog,
    /// The dialog replacing the editor, if any.
    pub dialog: Option<Dialog>,
    /// Settings changed in `/settings` during this run (row id to value).
    pub values: BTreeMap<&'static str, String>,
    options: LookOptions,
}

impl Default for Extras {
    fn default() -> Self {
        Self {
            keys: Arc::new(crate::keybindings::defaults()),
            themes: ThemeCatalog::default(),
            dialog: None,
            values: BTreeMap::new(),
            options: LookOptions::default(),
        }
    }
}

/// The first argument of a path command (`/export "my file.html"`), as pi reads it.
fn path_argument<'a>(text: &'a str, command: &str) -> Option<&'a str> {
    let rest = text.strip_prefix(command)?.strip_prefix(' ')?.trim_start();
    let first = rest.chars().next()?;
    if first == '"' || first == '\'' {
        let end = rest[1..].find(first)?;
        return Some(&rest[1..=end]);
    }
    Some(rest.split_whitespace().next().unwrap_or(rest))
}

impl Ui {
    /// Loads key bindings and themes and applies the settings the screen uses; problems
    /// are shown as warnings.
    pub fn install_look(&mut self, options: LookOptions) {
        self.extras.options = options;
        self.hide_thinking = self.app.settings.hide_thinking_block();
        let settings = self.app.settings.clone();
        self.apply_screen_settings(&settings);
        let warnings = self.load_look(&settings);
        // Nothing is on the screen yet: no need to clear it for the theme.
        self.reprint = false;
        for warning in warnings {
            self.transcript.notice(Notice::Warning(warning));
        }
    }

    fn apply_screen_settings(&mut self, settings: &Settings) {
        self.editor
            .set_padding_x(usize::try_from(settings.editor_padding_x()).unwrap_or(0));
        self.editor.set_autocomplete_max_visible(
            usize::try_from(settings.autocomplete_max_visible()).unwrap_or(5),
        );
    }

    /// Reads keybindings.json and the themes; returns the warnings.
    fn load_look(&mut self, settings: &Settings) -> Vec<String> {
        let loaded = crate::keybindings::load(&self.app.agent_dir);
        self.extras.keys = Arc::clone(&loaded.bindings);
        self.editor.set_keybindings(loaded.bindings);
        let home = dirs::home_dir().unwrap_or_default();
        let sources = ThemeSources {
            agent_dir: self.app.agent_dir.clone(),
            cwd: self.app.cwd.clone(),
            setting_paths: settings
                .string_list("themes")
                .iter()
                .map(|p| crate::config::expand_tilde(p, &home))
                .map(|p| self.app.cwd.join(p))
                .collect(),
            cli_paths: self
                .extras
                .options
                .theme_paths
                .iter()
                .map(|p| self.app.cwd.join(p))
                .collect(),
            no_themes: self.extras.options.no_themes,
        };
        self.extras.themes = ThemeCatalog::discover(&sources);
        let mut warnings = loaded.warnings;
        warnings.extend(self.extras.themes.warnings.iter().cloned());
        let wanted = self
            .extras
            .values
            .get("theme")
            .cloned()
            .or_else(|| settings.theme().map(str::to_owned));
        let colorfgbg = std::env::var("COLORFGBG").ok();
        let mode = self.theme.mode();
        let (theme, warning) =
            self.extras
                .themes
                .initial(wanted.as_deref(), colorfgbg.as_deref(), mode);
        warnings.extend(warning);
        if theme != *self.theme {
            self.set_theme(theme);
        }
        warnings
    }

    /// Switches to `theme`: every block is drawn again with it.
    pub(crate) fn set_theme(&mut self, theme: Theme) {
        let theme = Arc::new(theme);
        self.theme = Arc::clone(&theme);
        self.editor.set_theme(theme);
        for i in 0..self.transcript.len() {
            if let Some(block) = self.transcript.get_mut(i) {
                block.invalidate();
            }
        }
        for block in &mut self.pending_bash {
            block.invalidate();
        }
        self.reprint = true;
    }

    /// The look's commands: `/settings`, `/login`, `/logout`, `/export`, `/hotkeys`,
    /// `/reload`. `None` when `text` is none of them.
    pub(crate) fn look_command(&mut self, text: &str) -> Option<Effect> {
        match text {
            "/settings" => {
                self.extras.dialog =
                    Some(Dialog::Settings(SettingsView::new(self.settings_rows())));
            }
            "/login" => self.open_login(),
            "/logout" => self.open_logout(),
            "/hotkeys" => {
                let table = super::hotkeys::hotkeys_markdown(&self.extras.keys);
                self.transcript
                    .notice(Notice::panel("Keyboard Shortcuts", &table));
            }
            "/reload" => self.reload(),
            _ if text == "/export" || text.starts_with("/export ") => {
                self.export(path_argument(text, "/export"));
            }
            _ => return None,
        }
        self.editor.set_text("");
        Some(Effect::None)
    }

    fn reload(&mut self) {
        if self.running {
            self.transcript.notice(Notice::Warning(
                "Wait for the current response to finish before reloading.".to_owned(),
            ));
            return;
        }
        let settings = Settings::load(&self.app.agent_dir, &self.app.cwd).settings;
        self.hide_thinking = settings.hide_thinking_block();
        self.apply_screen_settings(&settings);
        for warning in self.load_look(&settings) {
            self.transcript.notice(Notice::Warning(warning));
        }
        self.reprint = true;
        self.status_line("Reloaded keybindings and themes");
    }

    fn export(&mut self, path: Option<&str>) {
        let result = match path {
            Some(path) if path.ends_with(".jsonl") => {
                self.app.export_jsonl(std::path::Path::new(path))
            }
            Some(path) => self.app.export_html(Some(std::path::Path::new(path))),
            None => self.app.export_html(None),
        };
        match result {
            Ok(path) => self.status_line(&format!("Session exported to: {}", path.display())),
            Err(e) => self.error(format!("Failed to export session: {e}")),
        }
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

    fn open_login(&mut self) {
        let auth = &self.app.auth;
        let mut providers =
            login_providers(&self.provider_ids(), &|p| auth.get(p).is_some(), &|v| {
                std::env::var(v).ok()
            });
        providers.extend(oauth_providers(&|p| {
            matches!(auth.get(p), Some(crate::config::Credential::Oauth { .. }))
        }));
        self.extras.dialog = Some(Dialog::Login(LoginView::login(providers)));
    }

    fn open_logout(&mut self) {
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
                    p.kind = super::login_view::AuthKind::ApiKey;
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
        self.extras.dialog = Some(Dialog::Login(LoginView::logout(providers)));
    }

    /// A key while a dialog is open; `None` when none is.
    pub(crate) fn dialog_key(&mut self, key: &KeyEvent) -> Option<Effect> {
        let keys = Arc::clone(&self.extras.keys);
        let theme = Arc::clone(&self.theme);
        match self.extras.dialog.as_mut()? {
            Dialog::Settings(view) => match view.handle_key(key, &keys, &theme) {
                SettingsOutcome::None => {}
                SettingsOutcome::Close => self.extras.dialog = None,
                SettingsOutcome::Change(id, value) => self.apply_setting(id, &value),
                SettingsOutcome::Preview(id, value) => {
                    if id == "theme" {
                        self.preview_theme(&value);
                    }
                }
            },
            Dialog::Login(view) => {
                let outcome = view.handle_key(key, &keys);
                self.login_outcome(outcome);
            }
            Dialog::OAuth(dialog) => {
                if dialog.handle_key(key, &keys) {
                    self.extras.dialog = None;
                }
            }
        }
        Some(Effect::None)
    }

    /// A paste while a dialog is open (true when it took it).
    pub(crate) fn dialog_paste(&mut self, text: &str) -> bool {
        match &mut self.extras.dialog {
            Some(Dialog::Login(view)) => {
                view.paste(text);
                true
            }
            Some(Dialog::OAuth(dialog)) => {
                dialog.paste(text);
                true
            }
            Some(Dialog::Settings(_)) => true,
            None => false,
        }
    }

    fn login_outcome(&mut self, outcome: LoginOutcome) {
        match outcome {
            LoginOutcome::None => {}
            LoginOutcome::Close => self.extras.dialog = None,
            LoginOutcome::SaveKey { provider, key } => {
                self.extras.dialog = None;
                if key.is_empty() {
                    self.error(format!(
                        "Failed to save API key for {provider}: API key cannot be empty."
                    ));
                    return;
                }
                match self.app.auth.set_api_key(&provider, &key) {
                    Ok(()) => {
                        self.app.reload_models();
                        self.init_footer();
                        let path = self.app.auth.path().display().to_string();
                        self.status_line(&format!(
                            "Saved API key for {provider}. Credentials saved to {path}"
                        ));
                    }
                    Err(e) => self.error(format!("Failed to save API key for {provider}: {e}")),
                }
            }
            LoginOutcome::Logout(provider) => {
                self.extras.dialog = None;
                match self.app.auth.remove(&provider) {
                    Ok(_) => {
                        self.app.reload_models();
                        self.init_footer();
                        self.status_line(&format!("Removed stored API key for {provider}. Environment variables and models.json config are unchanged."));
                    }
                    Err(e) => self.error(format!("Logout failed: {e}")),
                }
            }
            LoginOutcome::StartOauth(provider) => self.start_oauth(&provider),
        }
    }

    /// The open dialog's lines (drawn instead of the editor).
    pub(crate) fn dialog_lines(&mut self, width: usize) -> Option<Vec<String>> {
        let theme = Arc::clone(&self.theme);
        match self.extras.dialog.as_mut()? {
            Dialog::Settings(view) => Some(view.render(&theme, width)),
            Dialog::Login(view) => Some(view.render(&theme, width, &self.extras.keys)),
            Dialog::OAuth(dialog) => Some(dialog.render(&theme, width, &self.extras.keys)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::path_argument;

    #[test]
    fn path_arguments_as_pi() {
        assert_eq!(path_argument("/export", "/export"), None);
        assert_eq!(
            path_argument("/export out.html", "/export"),
            Some("out.html")
        );
        assert_eq!(path_argument("/export  a b", "/export"), Some("a"));
        assert_eq!(
            path_argument("/export \"my file.html\" x", "/export"),
            Some("my file.html")
        );
        assert_eq!(
            path_argument("/export 'x.jsonl'", "/export"),
            Some("x.jsonl")
        );
        assert_eq!(path_argument("/export \"open", "/export"), None);
    }
}
