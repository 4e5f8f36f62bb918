//! Helpers for the OAuth tests: scripted login callbacks, form bodies,
//! fake JWTs, hitting the callback server like a browser.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Mutex;

use async_trait::async_trait;
use base64::Engine;
use pi_coding_agent::auth::{AuthInfo, LoginCallbacks, OAuthError, Prompt};
use pi_test_support::mock_server::RecordedRequest;
use tokio::sync::{mpsc, oneshot};

/// Login callbacks driven by the test: prompt answers from a queue, the
/// auth info sent on a channel, a pasted code from a oneshot.
pub struct Scripted {
    pub infos: Mutex<Vec<AuthInfo>>,
    pub prompts: Mutex<Vec<Prompt>>,
    pub progress: Mutex<Vec<String>>,
    answers: Mutex<VecDeque<String>>,
    auth_tx: mpsc::UnboundedSender<AuthInfo>,
    manual: Mutex<Option<oneshot::Receiver<String>>>,
}

impl Scripted {
    /// Callbacks answering prompts with `answers`; `on_auth` infos arrive on the receiver.
    pub fn new(answers: &[&str]) -> (Self, mpsc::UnboundedReceiver<AuthInfo>) {
        let (auth_tx, rx) = mpsc::unbounded_channel();
        (
            Self {
                infos: Mutex::new(Vec::new()),
                prompts: Mutex::new(Vec::new()),
                progress: Mutex::new(Vec::new()),
                answers: Mutex::new(answers.iter().map(|s| (*s).to_owned()).collect()),
                auth_tx,
                manual: Mutex::new(None),
            },
            rx,
        )
    }

    /// Also races a pasted code (sent through the returned sender) against the redirect.
    pub fn with_manual_input(self) -> (Self, oneshot::Sender<String>) {
        let (tx, rx) = oneshot::channel();
        *self.manual.lock().unwrap() = Some(rx);
        (self, tx)
    }
}

#[async_trait]
impl LoginCallbacks for Scripted {
    fn on_auth(&self, info: &AuthInfo) {
        self.infos.lock().unwrap().push(info.clone());
        let _ = self.auth_tx.send(info.clone());
    }

    async fn on_prompt(&self, prompt: &Prompt) -> Result<String, OAuthError> {
        self.prompts.lock().unwrap().push(prompt.clone());
        self.answers
            .lock()
            .unwrap()
            .pop_front()
            .ok_or(OAuthError::Cancelled)
    }

    fn on_progress(&self, message: &str) {
        self.progress.lock().unwrap().push(message.to_owned());
    }

    fn races_manual_input(&self) -> bool {
        self.manual.lock().unwrap().is_some()
    }

    async fn manual_code_input(&self) -> Result<String, OAuthError> {
        let rx = self.manual.lock().unwrap().take();
        match rx {
            Some(rx) => rx.await.map_err(|_| OAuthError::Cancelled),
            None => Err(OAuthError::Cancelled),
        }
    }
}

/// The query parameters of a URL, in order.
pub fn query(url: &str) -> Vec<(String, String)> {
    reqwest::Url::parse(url)
        .unwrap()
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// One query parameter.
pub fn param(url: &str, name: &str) -> String {
    query(url)
        .into_iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v)
        .unwrap_or_else(|| panic!("{name} missing in {url}"))
}

/// A form-encoded request body, in order.
pub fn form(request: &RecordedRequest) -> Vec<(String, String)> {
    let body = String::from_utf8(request.body.clone()).unwrap();
    query(&format!("http://x/?{body}"))
}

/// What a browser does after login: GET the redirect URI with `code` and `state`.
pub async fn redirect(redirect_uri: &str, code: &str, state: &str) -> (u16, String) {
    let mut url = reqwest::Url::parse(redirect_uri).unwrap();
    // The listener binds 127.0.0.1; "localhost" may resolve to ::1 first.
    url.set_host(Some("127.0.0.1")).unwrap();
    url.query_pairs_mut()
        .append_pair("code", code)
        .append_pair("state", state);
    let response = reqwest::get(url).await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

/// A JWT (unsigned) with these claims.
pub fn jwt(claims: &serde_json::Value) -> String {
    let encode = |v: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v);
    format!(
        "{}.{}.sig",
        encode(br#"{"alg":"none"}"#),
        encode(&serde_json::to_vec(claims).unwrap())
    )
}

/// The auth.json of `dir` as JSON.
pub fn auth_json(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("auth.json")).unwrap()).unwrap()
}

/// The file mode bits of `dir/auth.json`.
#[cfg(unix)]
pub fn auth_mode(dir: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(dir.join("auth.json"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777
}

/// Milliseconds since the epoch.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}
