//! The few HTTP calls OAuth makes (token endpoints, GitHub's device flow):
//! one request, a 30 s timeout, the status and body text back.

use std::time::Duration;

use super::OAuthError;

/// A token endpoint's answer.
#[derive(Debug)]
pub(crate) struct Reply {
    /// HTTP status.
    pub status: u16,
    /// Body text.
    pub body: String,
}

impl Reply {
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The body as JSON, or an error naming `what`.
    pub fn json(&self, what: &str) -> Result<serde_json::Value, OAuthError> {
        serde_json::from_str(&self.body).map_err(|e| {
            OAuthError::InvalidResponse(format!(
                "{what} returned invalid JSON: {e}; body={}",
                self.body
            ))
        })
    }
}

fn client() -> Result<reqwest::Client, reqwest::Error> {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
}

/// Sends a request built on a fresh client; transport failures become
/// [`OAuthError::Request`] naming `what` and `url`.
pub(crate) async fn send(
    what: &'static str,
    url: &str,
    build: impl FnOnce(&reqwest::Client) -> reqwest::RequestBuilder,
) -> Result<Reply, OAuthError> {
    let transport = |e: reqwest::Error| OAuthError::Request {
        what,
        url: url.to_owned(),
        detail: format!("error={e}"),
        status: None,
    };
    let client = client().map_err(transport)?;
    let response = build(&client).send().await.map_err(transport)?;
    let status = response.status().as_u16();
    let body = response.text().await.map_err(transport)?;
    Ok(Reply { status, body })
}

/// POSTs `body` as JSON (Anthropic's token endpoint).
pub(crate) async fn post_json(
    what: &'static str,
    url: &str,
    body: &serde_json::Value,
) -> Result<Reply, OAuthError> {
    let text = body.to_string();
    send(what, url, |c| {
        c.post(url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .body(text)
    })
    .await
}

/// POSTs `form` as `application/x-www-form-urlencoded`, with extra headers.
pub(crate) async fn post_form(
    what: &'static str,
    url: &str,
    form: &[(&str, &str)],
    headers: &[(&str, &str)],
) -> Result<Reply, OAuthError> {
    send(what, url, |c| {
        let mut request = c.post(url).form(form);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request
    })
    .await
}

/// A failed answer as [`OAuthError::Request`].
pub(crate) fn failed(what: &'static str, url: &str, reply: &Reply) -> OAuthError {
    OAuthError::Request {
        what,
        url: url.to_owned(),
        detail: format!("status={}; body={}", reply.status, reply.body),
        status: Some(reply.status),
    }
}

/// Sorts a failed refresh: a 400/401/403 answer means the refresh token is
/// no longer valid (log in again); anything else may pass.
pub(crate) fn refresh_error(provider: &str, error: OAuthError) -> OAuthError {
    match error {
        OAuthError::Request {
            status: Some(400 | 401 | 403),
            ..
        } => OAuthError::LoginExpired {
            provider: provider.to_owned(),
            detail: error.to_string(),
        },
        OAuthError::LoginExpired { .. } => error,
        other => OAuthError::RefreshFailed {
            provider: provider.to_owned(),
            detail: other.to_string(),
        },
    }
}
