//! `pi login [provider]` and `pi logout [provider]`: the subscription
//! logins (and stored API keys) outside the interactive mode. pi 0.73.1
//! has only `/login` and `/logout` in its interactive mode; these commands
//! run the same flows with the terminal as the dialog. The writer and
//! reader are passed in, so the library itself never prints.

use std::io::Write;
use std::sync::{Mutex, PoisonError};

use async_trait::async_trait;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, Lines};

use super::OAuthError;
use super::flow::{AuthInfo, LoginCallbacks, Prompt};
use super::providers::OAuthProvider;
use super::store::OAuthStore;
use crate::config::AuthStorage;

/// The terminal as a login dialog: messages go to `out`, answers come line
/// by line from `input`.
pub struct TerminalLogin<W, R> {
    out: Mutex<W>,
    input: tokio::sync::Mutex<Lines<R>>,
    open_browser: bool,
}

impl<W: Write + Send, R: AsyncBufRead + Unpin + Send> TerminalLogin<W, R> {
    /// A dialog on `out` and `input`; `open_browser` also opens authorize
    /// URLs with the system's opener (`xdg-open`, `open`, `start`), as pi.
    pub fn new(out: W, input: R, open_browser: bool) -> Self {
        Self {
            out: Mutex::new(out),
            input: tokio::sync::Mutex::new(input.lines()),
            open_browser,
        }
    }

    /// Writes a line to the terminal.
    pub fn say(&self, text: &str) {
        let mut out = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        // A closed terminal only loses the message.
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
    }

    async fn read_line(&self) -> Result<String, OAuthError> {
        match self.input.lock().await.next_line().await {
            Ok(Some(line)) => Ok(line),
            Ok(None) => Err(OAuthError::Cancelled),
            Err(e) => Err(OAuthError::Input(e)),
        }
    }

    async fn ask(&self, question: &str) -> Result<String, OAuthError> {
        self.say(question);
        self.read_line().await
    }
}

#[async_trait]
impl<W: Write + Send, R: AsyncBufRead + Unpin + Send> LoginCallbacks for TerminalLogin<W, R> {
    fn on_auth(&self, info: &AuthInfo) {
        self.say(&format!("Open this URL to log in:\n\n  {}\n", info.url));
        if let Some(instructions) = &info.instructions {
            self.say(instructions);
        }
        if self.open_browser {
            open_url(&info.url);
        }
    }

    async fn on_prompt(&self, prompt: &Prompt) -> Result<String, OAuthError> {
        let question = match &prompt.placeholder {
            Some(example) => format!("{} (e.g. {example})", prompt.message),
            None => prompt.message.clone(),
        };
        loop {
            let answer = self.ask(&question).await?;
            if prompt.allow_empty || !answer.trim().is_empty() {
                return Ok(answer);
            }
        }
    }

    fn on_progress(&self, message: &str) {
        self.say(message);
    }

    fn races_manual_input(&self) -> bool {
        true
    }

    async fn manual_code_input(&self) -> Result<String, OAuthError> {
        self.say("Paste the redirect URL below, or complete login in the browser:");
        loop {
            let line = self.read_line().await?;
            if !line.trim().is_empty() {
                return Ok(line);
            }
        }
    }
}

/// Opens `url` in the browser, ignoring failures (the URL is shown anyway).
pub(crate) fn open_url(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    let spawned = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(error) = spawned {
        tracing::debug!("cannot open a browser with {opener}: {error}");
    }
}

/// `pi login [provider]`: a subscription login (asking which when no
/// provider is named), or for another provider the API key to store.
/// Returns the line to show on success.
pub async fn login_command<W, R>(
    provider: Option<&str>,
    store: &OAuthStore,
    ui: &TerminalLogin<W, R>,
) -> Result<String, OAuthError>
where
    W: Write + Send,
    R: AsyncBufRead + Unpin + Send,
{
    let path = store.auth_path().display().to_string();
    let chosen = match provider {
        Some(id) => OAuthProvider::from_id(id).ok_or_else(|| id.to_owned()),
        None => Ok(choose_subscription(ui).await?),
    };
    match chosen {
        Ok(provider) => {
            store.login(provider, ui).await?;
            Ok(format!(
                "Logged in to {}. Credentials saved to {path}",
                provider.name()
            ))
        }
        Err(id) if pi_ai::get_providers().iter().any(|p| p.as_str() == id) => {
            let key = ui.ask("Enter API key:").await?;
            let key = key.trim();
            if key.is_empty() {
                return Err(OAuthError::InvalidResponse(
                    "API key cannot be empty.".to_owned(),
                ));
            }
            let dir = store
                .auth_path()
                .parent()
                .unwrap_or(std::path::Path::new("."));
            AuthStorage::load(dir)?.set_api_key(&id, key)?;
            Ok(format!(
                "Saved API key for {id}. Credentials saved to {path}"
            ))
        }
        Err(id) => Err(OAuthError::UnknownProvider(id)),
    }
}

async fn choose_subscription<W, R>(ui: &TerminalLogin<W, R>) -> Result<OAuthProvider, OAuthError>
where
    W: Write + Send,
    R: AsyncBufRead + Unpin + Send,
{
    ui.say("Select a subscription to log in to:");
    for (n, provider) in OAuthProvider::ALL.iter().enumerate() {
        ui.say(&format!(
            "  {}. {} ({})",
            n + 1,
            provider.name(),
            provider.id()
        ));
    }
    ui.say("(For an API key instead: pi login <provider>.)");
    loop {
        let answer = ui
            .ask(&format!("Number (1-{}):", OAuthProvider::ALL.len()))
            .await?;
        let answer = answer.trim();
        let by_number = answer
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| OAuthProvider::ALL.get(i).copied());
        if let Some(provider) = by_number.or_else(|| OAuthProvider::from_id(answer)) {
            return Ok(provider);
        }
    }
}

/// `pi logout [provider]`: removes stored credentials (asking which when
/// none is named), with pi's messages.
pub async fn logout_command<W, R>(
    provider: Option<&str>,
    store: &OAuthStore,
    ui: &TerminalLogin<W, R>,
) -> Result<String, OAuthError>
where
    W: Write + Send,
    R: AsyncBufRead + Unpin + Send,
{
    let dir = store
        .auth_path()
        .parent()
        .unwrap_or(std::path::Path::new("."));
    let auth = AuthStorage::load(dir)?;
    let stored: Vec<String> = auth.providers();
    let id = match provider {
        Some(id) => id.to_owned(),
        None if stored.is_empty() => {
            return Ok("No stored credentials to remove. /logout only removes credentials saved by /login; environment variables and models.json config are unchanged.".to_owned());
        }
        None => {
            ui.say("Select the credentials to remove:");
            for (n, id) in stored.iter().enumerate() {
                ui.say(&format!("  {}. {id}", n + 1));
            }
            loop {
                let answer = ui.ask(&format!("Number (1-{}):", stored.len())).await?;
                let answer = answer.trim();
                let picked = answer
                    .parse::<usize>()
                    .ok()
                    .and_then(|n| n.checked_sub(1))
                    .and_then(|i| stored.get(i))
                    .or_else(|| stored.iter().find(|s| s.as_str() == answer));
                if let Some(id) = picked {
                    break id.clone();
                }
            }
        }
    };
    let was_oauth = store.credentials(&id)?.is_some();
    if !store.logout(&id)? {
        return Ok(format!("No stored credentials for {id}."));
    }
    Ok(if was_oauth {
        let name = OAuthProvider::from_id(&id).map_or(id.clone(), |p| p.name().to_owned());
        format!("Logged out of {name}")
    } else {
        format!(
            "Removed stored API key for {id}. Environment variables and models.json config are unchanged."
        )
    })
}
