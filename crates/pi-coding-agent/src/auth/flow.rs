//! What the login flows share: the user-interface callbacks, the endpoint
//! table (production by default, a loopback mock in tests) and the
//! "callback or pasted code" step of the browser logins.

use std::time::Duration;

use async_trait::async_trait;

use super::OAuthError;
use super::callback::CallbackServer;
use super::input::parse_authorization_input;

/// The URL the user opens, with instructions (pi's `onAuth`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthInfo {
    /// The authorize or device verification URL.
    pub url: String,
    /// What to do there (for GitHub: `Enter code: XXXX-XXXX`).
    pub instructions: Option<String>,
}

/// A question for the user (pi's `onPrompt`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    /// The question.
    pub message: String,
    /// An example answer.
    pub placeholder: Option<String>,
    /// Whether a blank answer is fine.
    pub allow_empty: bool,
}

/// How a login talks to the user: the terminal for `pi login`, a dialog in
/// the interactive mode, a script in tests. Dropping the login future
/// cancels it (the callback server closes, polling stops).
#[async_trait]
pub trait LoginCallbacks: Send + Sync {
    /// Shows the URL to open (and tries to open a browser, if it can).
    fn on_auth(&self, info: &AuthInfo);
    /// Asks the user a question; [`OAuthError::Cancelled`] when they back out.
    async fn on_prompt(&self, prompt: &Prompt) -> Result<String, OAuthError>;
    /// A progress message.
    fn on_progress(&self, _message: &str) {}
    /// Whether [`LoginCallbacks::manual_code_input`] races the browser
    /// redirect (pi's `onManualCodeInput`); otherwise the login waits for
    /// the redirect and only then prompts.
    fn races_manual_input(&self) -> bool {
        false
    }
    /// The redirect URL or code the user pastes while the browser login is
    /// pending.
    async fn manual_code_input(&self) -> Result<String, OAuthError> {
        Err(OAuthError::Cancelled)
    }
}

/// Where the flows send requests. [`Default`] is what pi uses; tests point
/// every URL at a loopback mock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthEndpoints {
    /// `https://claude.ai/oauth/authorize`.
    pub anthropic_authorize_url: String,
    /// `https://platform.claude.com/v1/oauth/token`.
    pub anthropic_token_url: String,
    /// 53692 (0: any free port, for tests).
    pub anthropic_callback_port: u16,
    /// `https://auth.openai.com/oauth/authorize`.
    pub codex_authorize_url: String,
    /// `https://auth.openai.com/oauth/token`.
    pub codex_token_url: String,
    /// 1455 (0: any free port, for tests).
    pub codex_callback_port: u16,
    /// `None`: GitHub's URLs for the chosen domain (`https://<domain>/…`,
    /// `https://api.<domain>/…`); `Some(base)`: every GitHub URL under `base`.
    pub github_base_url: Option<String>,
    /// `None`: the Copilot API base the token names; `Some(base)`: this one.
    pub copilot_api_base_url: Option<String>,
    /// How long one second of GitHub's polling interval lasts (tests shorten it).
    pub poll_second: Duration,
}

impl Default for OAuthEndpoints {
    fn default() -> Self {
        Self {
            anthropic_authorize_url: "https://claude.ai/oauth/authorize".to_owned(),
            anthropic_token_url: "https://platform.claude.com/v1/oauth/token".to_owned(),
            anthropic_callback_port: 53692,
            codex_authorize_url: "https://auth.openai.com/oauth/authorize".to_owned(),
            codex_token_url: "https://auth.openai.com/oauth/token".to_owned(),
            codex_callback_port: 1455,
            github_base_url: None,
            copilot_api_base_url: None,
            poll_second: Duration::from_secs(1),
        }
    }
}

impl OAuthEndpoints {
    /// Every endpoint under `base` (a loopback mock), callback ports free:
    /// `{base}/anthropic/authorize`, `{base}/anthropic/token`,
    /// `{base}/codex/authorize`, `{base}/codex/token`, GitHub and Copilot
    /// under `{base}/github`, polling seconds of 10 ms.
    pub fn mock(base: &str) -> Self {
        Self {
            anthropic_authorize_url: format!("{base}/anthropic/authorize"),
            anthropic_token_url: format!("{base}/anthropic/token"),
            anthropic_callback_port: 0,
            codex_authorize_url: format!("{base}/codex/authorize"),
            codex_token_url: format!("{base}/codex/token"),
            codex_callback_port: 0,
            github_base_url: Some(format!("{base}/github")),
            copilot_api_base_url: Some(format!("{base}/copilot")),
            poll_second: Duration::from_millis(10),
        }
    }
}

/// The code of a browser login: from the redirect the callback server
/// receives, from input pasted meanwhile (when the callbacks race it), or
/// else from a prompt, as pi does. A pasted state must be `state`; the
/// returned state is the pasted one or `state`.
pub(crate) async fn obtain_code(
    mut server: Option<CallbackServer>,
    callbacks: &dyn LoginCallbacks,
    state: &str,
    prompt: Prompt,
) -> Result<(String, String), OAuthError> {
    let from_paste = |input: &str| -> Result<Option<(String, String)>, OAuthError> {
        let parsed = parse_authorization_input(input);
        if parsed.state.as_deref().is_some_and(|s| s != state) {
            return Err(OAuthError::StateMismatch);
        }
        Ok(parsed
            .code
            .filter(|c| !c.is_empty())
            .map(|code| (code, parsed.state.unwrap_or_else(|| state.to_owned()))))
    };
    let has_server = server.is_some();
    let mut code = None;
    {
        let redirect = async {
            match server.as_mut() {
                Some(server) => server.wait_for_code().await,
                None => std::future::pending().await,
            }
        };
        if callbacks.races_manual_input() {
            tokio::select! {
                Some(hit) = redirect => code = Some((hit.code, hit.state)),
                pasted = callbacks.manual_code_input() => code = from_paste(&pasted?)?,
            }
        } else if has_server {
            code = redirect.await.map(|hit| (hit.code, hit.state));
        }
    }
    drop(server);
    if code.is_none() {
        let input = callbacks.on_prompt(&prompt).await?;
        code = from_paste(&input)?;
    }
    code.ok_or(OAuthError::MissingCode)
}
