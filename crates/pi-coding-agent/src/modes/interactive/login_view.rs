//! `/login` and `/logout` in place of the editor: pi's provider list (search line,
//! `→ name ✓ configured` rows) and, for an API key, the `Enter API key:` prompt
//! whose input is masked.
//!
//! The providers come from [`login_providers`]: every provider with an API-key
//! environment variable, plus [`oauth_providers`]. **OAuth logins are added in
//! [`oauth_providers`]**: one [`LoginProvider::oauth`] per provider; when it returns
//! any, `/login` first asks for the authentication method as pi does, and choosing an
//! OAuth provider yields [`LoginOutcome::StartOauth`] for the app to run its flow.

use std::sync::Arc;

use pi_tui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pi_tui::keybindings::Keybindings;
use pi_tui::slot::{Outcome, SlotComponent};
use pi_tui::text::truncate_to_width;
use pi_tui::theme::{Theme, Token};

use super::action::Action;

/// How a provider is logged into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthKind {
    /// An API key typed into the prompt.
    ApiKey,
    /// A subscription login (OAuth flow).
    Oauth,
}

/// One provider of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginProvider {
    /// The provider id (`anthropic`).
    pub id: String,
    /// The name shown.
    pub name: String,
    /// How it is logged into.
    pub kind: AuthKind,
    /// The status shown after the name (`✓ configured`, `✓ env: X`, `• unconfigured`).
    pub status: String,
    /// True for a `✓` status.
    pub configured: bool,
}

impl LoginProvider {
    /// An OAuth entry (for [`oauth_providers`]).
    pub fn oauth(id: &str, name: &str) -> Self {
        Self {
            id: id.to_owned(),
            name: name.to_owned(),
            kind: AuthKind::Oauth,
            status: "• unconfigured".to_owned(),
            configured: false,
        }
    }
}

/// The subscription (OAuth) logins the project offers (`crate::auth`'s
/// providers), `configured` when `stored_oauth` says auth.json has one.
pub fn oauth_providers(stored_oauth: &dyn Fn(&str) -> bool) -> Vec<LoginProvider> {
    crate::auth::OAuthProvider::ALL
        .iter()
        .map(|p| {
            let mut entry = LoginProvider::oauth(p.id(), p.name());
            if stored_oauth(p.id()) {
                entry.status = "✓ configured".to_owned();
                entry.configured = true;
            }
            entry
        })
        .collect()
}

/// The API-key providers among `provider_ids` (those pi has a key variable for),
/// with their status from `stored` (has a key in auth.json) and the environment.
pub fn login_providers(
    provider_ids: &[String],
    stored: &dyn Fn(&str) -> bool,
    env: &dyn Fn(&str) -> Option<String>,
) -> Vec<LoginProvider> {
    let mut providers = Vec::new();
    for id in provider_ids {
        let Some(var) = pi_ai::env_api_key_var(id) else {
            continue;
        };
        if providers.iter().any(|p: &LoginProvider| p.id == *id) {
            continue;
        }
        let (status, configured) = if stored(id) {
            ("✓ configured".to_owned(), true)
        } else if env(var).is_some_and(|v| !v.is_empty()) {
            (format!("✓ env: {var}"), true)
        } else {
            ("• unconfigured".to_owned(), false)
        };
        providers.push(LoginProvider {
            id: id.clone(),
            name: id.clone(),
            kind: AuthKind::ApiKey,
            status,
            configured,
        });
    }
    providers
}

/// What the app must do after a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoginOutcome {
    /// Nothing (redraw).
    None,
    /// Cancelled.
    Close,
    /// Store this API key for the provider.
    SaveKey {
        /// Provider id.
        provider: String,
        /// The key, trimmed (may be empty: the app reports it).
        key: String,
    },
    /// Remove the provider's stored credential.
    Logout(String),
    /// Run the OAuth login of the provider.
    StartOauth(String),
}

enum Stage {
    Method {
        selected: usize,
    },
    List {
        kind: Option<AuthKind>,
        query: String,
        selected: usize,
    },
    Prompt {
        provider: String,
        name: String,
        input: String,
    },
}

/// The login or logout dialog.
pub struct LoginView {
    logout: bool,
    providers: Vec<LoginProvider>,
    stage: Stage,
}

const METHODS: [&str; 2] = ["Use a subscription", "Use an API key"];

impl LoginView {
    /// `/login` over `providers` (the method step comes first when OAuth ones exist).
    pub fn login(providers: Vec<LoginProvider>) -> Self {
        let has_oauth = providers.iter().any(|p| p.kind == AuthKind::Oauth);
        let stage = if has_oauth {
            Stage::Method { selected: 0 }
        } else {
            Stage::List {
                kind: Some(AuthKind::ApiKey),
                query: String::new(),
                selected: 0,
            }
        };
        Self {
            logout: false,
            providers,
            stage,
        }
    }

    /// `/logout` over the providers with stored credentials.
    pub fn logout(providers: Vec<LoginProvider>) -> Self {
        Self {
            logout: true,
            providers,
            stage: Stage::List {
                kind: None,
                query: String::new(),
                selected: 0,
            },
        }
    }

    fn shown(&self, kind: Option<AuthKind>, query: &str) -> Vec<usize> {
        let query = query.to_lowercase();
        (0..self.providers.len())
            .filter(|&i| kind.is_none_or(|k| self.providers[i].kind == k))
            .filter(|&i| {
                let p = &self.providers[i];
                format!("{} {}", p.name, p.id)
                    .to_lowercase()
                    .contains(&query)
            })
            .collect()
    }

    /// Handles a key.
    pub fn handle_key(&mut self, key: &KeyEvent, kb: &Keybindings) -> LoginOutcome {
        let typed = match key.code {
            KeyCode::Char(c) if (key.modifiers - KeyModifiers::SHIFT).is_empty() => Some(c),
            _ => None,
        };
        let shown = match &self.stage {
            Stage::List { kind, query, .. } => self.shown(*kind, query),
            _ => Vec::new(),
        };
        let has_method_step =
            !self.logout && self.providers.iter().any(|p| p.kind == AuthKind::Oauth);
        match &mut self.stage {
            Stage::Method { selected } => {
                if kb.matches(key, "tui.select.cancel") {
                    return LoginOutcome::Close;
                }
                if kb.matches(key, "tui.select.up") || kb.matches(key, "tui.select.down") {
                    *selected = 1 - *selected;
                } else if kb.matches(key, "tui.select.confirm") {
                    let kind = if *selected == 0 {
                        AuthKind::Oauth
                    } else {
                        AuthKind::ApiKey
                    };
                    self.stage = Stage::List {
                        kind: Some(kind),
                        query: String::new(),
                        selected: 0,
                    };
                }
            }
            Stage::List {
                query, selected, ..
            } => {
                if kb.matches(key, "tui.select.cancel") {
                    if has_method_step {
                        self.stage = Stage::Method { selected: 0 };
                        return LoginOutcome::None;
                    }
                    return LoginOutcome::Close;
                }
                if kb.matches(key, "tui.select.up") {
                    *selected = selected.saturating_sub(1);
                } else if kb.matches(key, "tui.select.down") {
                    *selected = (*selected + 1).min(shown.len().saturating_sub(1));
                } else if kb.matches(key, "tui.select.confirm") {
                    let Some(provider) = shown.get(*selected).map(|&i| self.providers[i].clone())
                    else {
                        return LoginOutcome::None;
                    };
                    if self.logout {
                        return LoginOutcome::Logout(provider.id);
                    }
                    if provider.kind == AuthKind::Oauth {
                        return LoginOutcome::StartOauth(provider.id);
                    }
                    self.stage = Stage::Prompt {
                        provider: provider.id,
                        name: provider.name,
                        input: String::new(),
                    };
                } else if kb.matches(key, "tui.editor.deleteCharBackward") {
                    query.pop();
                    *selected = 0;
                } else if let Some(c) = typed.filter(|c| !c.is_control()) {
                    query.push(c);
                    *selected = 0;
                }
            }
            Stage::Prompt {
                provider, input, ..
            } => {
                if kb.matches(key, "tui.select.cancel") {
                    return LoginOutcome::Close;
                }
                if kb.matches(key, "tui.select.confirm") {
                    return LoginOutcome::SaveKey {
                        provider: provider.clone(),
                        key: input.trim().to_owned(),
                    };
                }
                if kb.matches(key, "tui.editor.deleteCharBackward") {
                    input.pop();
                } else if let Some(c) = typed.filter(|c| !c.is_control()) {
                    input.push(c);
                }
            }
        }
        LoginOutcome::None
    }

    /// A paste goes into the key prompt (or the search line).
    pub fn paste(&mut self, text: &str) {
        let clean: String = text.chars().filter(|c| !c.is_control()).collect();
        match &mut self.stage {
            Stage::Prompt { input, .. } => input.push_str(&clean),
            Stage::List { query, .. } => query.push_str(&clean),
            Stage::Method { .. } => {}
        }
    }

    /// The lines for `width`.
    pub fn render(&self, theme: &Theme, width: usize, kb: &Keybindings) -> Vec<String> {
        let rule = theme.fg(Token::Border, &"─".repeat(width.max(1)));
        let cursor = if theme.has_color() {
            "\x1b[7m \x1b[27m"
        } else {
            "█"
        };
        let hint = |id: &str, what: &str| {
            format!(
                "{}{}",
                theme.fg(Token::Dim, &kb.keys(id).join("/")),
                theme.fg(Token::Muted, &format!(" {what}"))
            )
        };
        let mut lines = vec![rule.clone()];
        match &self.stage {
            Stage::Method { selected } => {
                lines.push(String::new());
                lines.push(format!(
                    " {}",
                    theme.fg(Token::Accent, &theme.bold("Select authentication method:"))
                ));
                lines.push(String::new());
                for (i, method) in METHODS.iter().enumerate() {
                    lines.push(if i == *selected {
                        format!(" {}", theme.fg(Token::Accent, &format!("→ {method}")))
                    } else {
                        format!("   {method}")
                    });
                }
                lines.push(String::new());
                lines.push(format!(
                    " {}",
                    theme.fg(
                        Token::Dim,
                        "↑↓ navigate  enter select  escape/ctrl+c cancel"
                    )
                ));
            }
            Stage::List {
                kind,
                query,
                selected,
            } => {
                let title = if self.logout {
                    "Select provider to logout:"
                } else {
                    "Select provider to configure:"
                };
                lines.push(String::new());
                lines.push(format!(" {}", theme.fg(Token::Accent, &theme.bold(title))));
                lines.push(String::new());
                lines.push(format!("> {query}{cursor}"));
                lines.push(String::new());
                let shown = self.shown(*kind, query);
                let max_visible = 8;
                let start = selected
                    .saturating_sub(max_visible / 2)
                    .min(shown.len().saturating_sub(max_visible));
                let end = (start + max_visible).min(shown.len());
                for (i, &p) in shown.iter().enumerate().take(end).skip(start) {
                    let p = &self.providers[p];
                    let status = if p.configured {
                        theme.fg(Token::Success, &format!(" {}", p.status))
                    } else {
                        theme.fg(Token::Muted, &format!(" {}", p.status))
                    };
                    lines.push(if i == *selected {
                        format!(
                            " {}{}{status}",
                            theme.fg(Token::Accent, "→ "),
                            theme.fg(Token::Accent, &p.name)
                        )
                    } else {
                        format!("   {}{status}", p.name)
                    });
                }
                if start > 0 || end < shown.len() {
                    lines.push(theme.fg(
                        Token::Muted,
                        &format!("   ({}/{})", selected + 1, shown.len()),
                    ));
                }
                if shown.is_empty() {
                    let message = if !self.providers.is_empty() {
                        "No matching providers"
                    } else if self.logout {
                        "No providers logged in. Use /login first."
                    } else {
                        "No providers available"
                    };
                    lines.push(theme.fg(Token::Muted, &format!("   {message}")));
                }
                lines.push(String::new());
            }
            Stage::Prompt { name, input, .. } => {
                lines.push(format!(
                    " {}",
                    theme.fg(Token::Accent, &theme.bold(&format!("Login to {name}")))
                ));
                lines.push(String::new());
                lines.push(format!(" {}", theme.fg(Token::Text, "Enter API key:")));
                let masked = "*".repeat(input.chars().count());
                lines.push(format!("> {masked}{cursor}"));
                lines.push(format!(
                    " ({} {})",
                    hint("tui.select.cancel", "to cancel,"),
                    hint("tui.select.confirm", "to submit")
                ));
            }
        }
        lines.push(rule);
        lines
            .into_iter()
            .map(|l| truncate_to_width(&l, width, ""))
            .collect()
    }
}

/// `/login` or `/logout` in the editor slot.
pub(crate) struct LoginDialog {
    view: LoginView,
    keys: Arc<Keybindings>,
    theme: Arc<Theme>,
}

impl LoginDialog {
    /// Shows `view` with the key bindings `keys` in `theme`.
    pub(crate) fn new(view: LoginView, keys: Arc<Keybindings>, theme: Arc<Theme>) -> Self {
        Self { view, keys, theme }
    }
}

impl SlotComponent<Action> for LoginDialog {
    fn handle_key(&mut self, key: &KeyEvent) -> Outcome<Action> {
        match self.view.handle_key(key, &self.keys) {
            LoginOutcome::None => Outcome::Stay,
            LoginOutcome::Close => Outcome::Cancel,
            LoginOutcome::SaveKey { provider, key } => {
                Outcome::Done(Action::SaveApiKey { provider, key })
            }
            LoginOutcome::Logout(provider) => Outcome::Done(Action::Logout(provider)),
            LoginOutcome::StartOauth(provider) => Outcome::Done(Action::StartOauth(provider)),
        }
    }

    fn render(&mut self, width: usize, _rows: usize) -> Vec<String> {
        self.view.render(&self.theme, width, &self.keys)
    }

    fn paste(&mut self, text: &str) {
        self.view.paste(text);
    }

    fn set_theme(&mut self, theme: &Arc<Theme>) {
        self.theme = Arc::clone(theme);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_tui::theme::ColorMode;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn providers() -> Vec<LoginProvider> {
        let ids: Vec<String> = ["openai", "mock", "groq", "anthropic"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        login_providers(&ids, &|p| p == "groq", &|v| {
            (v == "ANTHROPIC_API_KEY").then(|| "sk".to_owned())
        })
    }

    #[test]
    fn providers_with_env_keys_and_their_status() {
        let list = providers();
        let rows: Vec<(&str, &str)> = list
            .iter()
            .map(|p| (p.id.as_str(), p.status.as_str()))
            .collect();
        assert_eq!(
            rows,
            vec![
                ("openai", "• unconfigured"),
                ("groq", "✓ configured"),
                ("anthropic", "✓ env: ANTHROPIC_API_KEY"),
            ]
        );
    }

    #[test]
    fn the_key_prompt_is_masked_and_submits_the_key() {
        let kb = crate::keybindings::defaults();
        let theme = Theme::dark(ColorMode::NoColor);
        let mut view = LoginView::login(providers());
        insta::assert_snapshot!("login_providers", view.render(&theme, 60, &kb).join("\n"));
        for c in "gro".chars() {
            view.handle_key(&key(KeyCode::Char(c)), &kb);
        }
        assert_eq!(
            view.handle_key(&key(KeyCode::Enter), &kb),
            LoginOutcome::None
        );
        for c in "sk-secret".chars() {
            view.handle_key(&key(KeyCode::Char(c)), &kb);
        }
        let screen = view.render(&theme, 60, &kb).join("\n");
        assert!(!screen.contains("sk-secret"));
        insta::assert_snapshot!("login_prompt_masked", screen);
        assert_eq!(
            view.handle_key(&key(KeyCode::Enter), &kb),
            LoginOutcome::SaveKey {
                provider: "groq".to_owned(),
                key: "sk-secret".to_owned()
            }
        );
    }

    #[test]
    fn logout_picks_a_stored_provider_and_oauth_adds_the_method_step() {
        let kb = crate::keybindings::defaults();
        let mut view = LoginView::logout(providers());
        view.handle_key(&key(KeyCode::Down), &kb);
        assert_eq!(
            view.handle_key(&key(KeyCode::Enter), &kb),
            LoginOutcome::Logout("groq".to_owned())
        );
        let mut with_oauth = providers();
        with_oauth.push(LoginProvider::oauth(
            "anthropic-sub",
            "Anthropic (Claude Pro/Max)",
        ));
        let mut view = LoginView::login(with_oauth);
        assert_eq!(
            view.handle_key(&key(KeyCode::Enter), &kb),
            LoginOutcome::None
        );
        assert_eq!(
            view.handle_key(&key(KeyCode::Enter), &kb),
            LoginOutcome::StartOauth("anthropic-sub".to_owned())
        );
        assert_eq!(view.handle_key(&key(KeyCode::Esc), &kb), LoginOutcome::None);
        assert_eq!(
            view.handle_key(&key(KeyCode::Esc), &kb),
            LoginOutcome::Close
        );
    }

    #[test]
    fn subscriptions_are_listed_with_their_status() {
        let entries = oauth_providers(&|p| p == "openai-codex");
        let rows: Vec<(&str, &str, bool)> = entries
            .iter()
            .map(|e| (e.id.as_str(), e.name.as_str(), e.configured))
            .collect();
        assert_eq!(
            rows,
            [
                ("anthropic", "Anthropic (Claude Pro/Max)", false),
                ("github-copilot", "GitHub Copilot", false),
                (
                    "openai-codex",
                    "ChatGPT Plus/Pro (Codex Subscription)",
                    true
                ),
            ]
        );
    }
}
