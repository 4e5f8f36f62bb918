//! Subscription logins (OAuth) as pi 0.73.1 does them: Anthropic (Claude
//! Pro/Max) and OpenAI Codex (ChatGPT) with PKCE, a loopback redirect
//! listener and a paste-the-code fallback; GitHub Copilot with GitHub's
//! device flow and Copilot token exchange. Credentials live in auth.json
//! in pi's format; expired access tokens are refreshed under the auth.json
//! lock (see [`OAuthStore`]) and used as the provider's API key (see
//! [`OAuthKeyResolver`]). `docs/auth.md` describes it all.

pub mod anthropic;
pub mod callback;
pub mod channel;
pub mod credentials;
mod error;
pub mod flow;
pub mod github_copilot;
mod http;
pub mod input;
pub mod openai_codex;
pub(crate) mod pi_lock;
pub mod pkce;
pub mod providers;
pub mod resolver;
pub mod store;
pub mod terminal;

pub use channel::{ChannelCallbacks, LoginEvent, login_events};
pub use credentials::OAuthCredentials;
pub use error::OAuthError;
pub use flow::{AuthInfo, LoginCallbacks, OAuthEndpoints, Prompt};
pub use providers::OAuthProvider;
pub use resolver::OAuthKeyResolver;
pub use store::OAuthStore;
pub use terminal::{TerminalLogin, login_command, logout_command};
