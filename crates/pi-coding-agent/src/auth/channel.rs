//! A login as a stream of events, for a UI with its own event loop (the
//! interactive mode's `/login` dialog): [`login_events`] gives callbacks
//! to pass to [`super::OAuthStore::login`] and the receiver of what to show
//! and ask. Dropping a reply cancels the login, as closing pi's dialog does.

use async_trait::async_trait;
use tokio::sync::{mpsc, oneshot};

use super::OAuthError;
use super::flow::{AuthInfo, LoginCallbacks, Prompt};
use super::providers::OAuthProvider;

/// What a running login needs from the UI.
#[derive(Debug)]
pub enum LoginEvent {
    /// Show the URL and instructions (and try to open a browser).
    Auth(AuthInfo),
    /// Ask the question; answer on `reply`.
    Prompt {
        /// The question.
        prompt: Prompt,
        /// Where the answer goes; dropping it cancels.
        reply: oneshot::Sender<String>,
    },
    /// Show a field for pasting the redirect URL while the browser login is
    /// pending (pi: "Paste redirect URL below, or complete login in
    /// browser:"); only for providers with a callback server.
    ManualInput {
        /// Where the pasted text goes; dropping it cancels.
        reply: oneshot::Sender<String>,
    },
    /// Show a progress message.
    Progress(String),
}

/// [`LoginCallbacks`] that forward to a channel.
#[derive(Debug)]
pub struct ChannelCallbacks {
    events: mpsc::UnboundedSender<LoginEvent>,
    manual_input: bool,
}

/// Callbacks for a login of `provider` and the events they send.
pub fn login_events(
    provider: OAuthProvider,
) -> (ChannelCallbacks, mpsc::UnboundedReceiver<LoginEvent>) {
    let (events, rx) = mpsc::unbounded_channel();
    (
        ChannelCallbacks {
            events,
            manual_input: provider.uses_callback_server(),
        },
        rx,
    )
}

impl ChannelCallbacks {
    async fn ask(
        &self,
        event: impl FnOnce(oneshot::Sender<String>) -> LoginEvent,
    ) -> Result<String, OAuthError> {
        let (reply, answer) = oneshot::channel();
        self.events
            .send(event(reply))
            .map_err(|_| OAuthError::Cancelled)?;
        answer.await.map_err(|_| OAuthError::Cancelled)
    }
}

#[async_trait]
impl LoginCallbacks for ChannelCallbacks {
    fn on_auth(&self, info: &AuthInfo) {
        let _ = self.events.send(LoginEvent::Auth(info.clone()));
    }

    async fn on_prompt(&self, prompt: &Prompt) -> Result<String, OAuthError> {
        let prompt = prompt.clone();
        self.ask(|reply| LoginEvent::Prompt { prompt, reply }).await
    }

    fn on_progress(&self, message: &str) {
        let _ = self.events.send(LoginEvent::Progress(message.to_owned()));
    }

    fn races_manual_input(&self) -> bool {
        self.manual_input
    }

    async fn manual_code_input(&self) -> Result<String, OAuthError> {
        self.ask(|reply| LoginEvent::ManualInput { reply }).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn prompts_are_answered_through_the_channel_and_a_dropped_reply_cancels() {
        let (callbacks, mut events) = login_events(OAuthProvider::GithubCopilot);
        assert!(!callbacks.races_manual_input());
        let prompt = Prompt {
            message: "q".to_owned(),
            placeholder: None,
            allow_empty: true,
        };
        let ui = async {
            match events.recv().await {
                Some(LoginEvent::Prompt { prompt, reply }) => {
                    assert_eq!(prompt.message, "q");
                    reply.send("a".to_owned()).unwrap();
                }
                other => panic!("{other:?}"),
            }
            match events.recv().await {
                Some(LoginEvent::Prompt { reply, .. }) => drop(reply),
                other => panic!("{other:?}"),
            }
        };
        let login = async {
            let first = callbacks.on_prompt(&prompt).await;
            let second = callbacks.on_prompt(&prompt).await;
            (first, second)
        };
        let ((first, second), ()) = tokio::join!(login, ui);
        assert_eq!(first.unwrap(), "a");
        assert!(matches!(second, Err(OAuthError::Cancelled)));
        let (callbacks, _) = login_events(OAuthProvider::Anthropic);
        assert!(callbacks.races_manual_input());
    }
}
