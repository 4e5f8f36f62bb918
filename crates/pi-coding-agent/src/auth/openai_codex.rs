//! OpenAI Codex (ChatGPT Plus/Pro): authorization code + PKCE with a random
//! state, the redirect caught on `http://localhost:1455/auth/callback` (or
//! pasted when the port is taken), form-encoded token requests, and the
//! ChatGPT account id read from the access token (a JWT).

use base64::Engine;
use base64::engine::general_purpose::{URL_SAFE, URL_SAFE_NO_PAD};
use serde_json::Value;

use super::OAuthError;
use super::callback::{CallbackServer, callback_host};
use super::credentials::{OAuthCredentials, now_ms};
use super::flow::{AuthInfo, LoginCallbacks, OAuthEndpoints, Prompt, obtain_code};
use super::http::{self, Reply};
use super::pkce::{Pkce, random_hex};

/// Codex CLI's public OAuth client id.
pub const CLIENT_ID: &str = "app_EMoamEEZ73f0CkXaXp7hrann";
const CALLBACK_PATH: &str = "/auth/callback";
const SCOPE: &str = "openid profile email offline_access";
/// The JWT claim holding `chatgpt_account_id`.
const JWT_CLAIM_PATH: &str = "https://api.openai.com/auth";

/// The redirect URI for a callback port.
pub fn redirect_uri(port: u16) -> String {
    format!("http://localhost:{port}{CALLBACK_PATH}")
}

/// The authorize URL, parameters in pi's order.
pub fn authorize_url(
    endpoints: &OAuthEndpoints,
    pkce: &Pkce,
    state: &str,
    redirect_uri: &str,
) -> String {
    let mut url = match reqwest::Url::parse(&endpoints.codex_authorize_url) {
        Ok(url) => url,
        Err(_) => return endpoints.codex_authorize_url.clone(),
    };
    url.query_pairs_mut()
        .append_pair("response_type", "code")
        .append_pair("client_id", CLIENT_ID)
        .append_pair("redirect_uri", redirect_uri)
        .append_pair("scope", SCOPE)
        .append_pair("code_challenge", &pkce.challenge)
        .append_pair("code_challenge_method", "S256")
        .append_pair("state", state)
        .append_pair("id_token_add_organizations", "true")
        .append_pair("codex_cli_simplified_flow", "true")
        .append_pair("originator", "pi");
    url.into()
}

/// Logs in. When the callback port is taken, the user pastes the redirect
/// URL instead (as pi).
pub async fn login(
    callbacks: &dyn LoginCallbacks,
    endpoints: &OAuthEndpoints,
) -> Result<OAuthCredentials, OAuthError> {
    let pkce = Pkce::generate()?;
    let state = random_hex::<16>()?;
    let server = match CallbackServer::start(
        &callback_host(),
        endpoints.codex_callback_port,
        CALLBACK_PATH,
        &state,
        "OpenAI",
    )
    .await
    {
        Ok(server) => Some(server),
        Err(error) => {
            tracing::warn!("{error}; paste the redirect URL instead");
            None
        }
    };
    let port = server
        .as_ref()
        .map_or(endpoints.codex_callback_port, CallbackServer::port);
    let redirect = redirect_uri(port);
    callbacks.on_auth(&AuthInfo {
        url: authorize_url(endpoints, &pkce, &state, &redirect),
        instructions: Some("A browser window should open. Complete login to finish.".to_owned()),
    });
    let prompt = Prompt {
        message: "Paste the authorization code (or full redirect URL):".to_owned(),
        placeholder: None,
        allow_empty: false,
    };
    let (code, _) = obtain_code(server, callbacks, &state, prompt).await?;
    let url = &endpoints.codex_token_url;
    let form = [
        ("grant_type", "authorization_code"),
        ("client_id", CLIENT_ID),
        ("code", code.as_str()),
        ("code_verifier", pkce.verifier.as_str()),
        ("redirect_uri", redirect.as_str()),
    ];
    let reply = http::post_form("OpenAI Codex token exchange", url, &form, &[]).await?;
    if !reply.ok() {
        return Err(http::failed("OpenAI Codex token exchange", url, &reply));
    }
    credentials(&reply, "OpenAI Codex token exchange")
}

/// Refreshes the tokens; a 400/401/403 answer is [`OAuthError::LoginExpired`].
pub async fn refresh(
    endpoints: &OAuthEndpoints,
    refresh_token: &str,
) -> Result<OAuthCredentials, OAuthError> {
    let url = &endpoints.codex_token_url;
    let form = [
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh_token),
        ("client_id", CLIENT_ID),
    ];
    let result = async {
        let reply = http::post_form("OpenAI Codex token refresh", url, &form, &[]).await?;
        if !reply.ok() {
            return Err(http::failed("OpenAI Codex token refresh", url, &reply));
        }
        credentials(&reply, "OpenAI Codex token refresh")
    }
    .await;
    result.map_err(|e| http::refresh_error("openai-codex", e))
}

/// `{access, refresh, expires, accountId}` (pi's order) from a token answer.
fn credentials(reply: &Reply, what: &str) -> Result<OAuthCredentials, OAuthError> {
    let data = reply.json(what)?;
    let (Some(access), Some(refresh), Some(expires_in)) = (
        data["access_token"].as_str().filter(|s| !s.is_empty()),
        data["refresh_token"].as_str().filter(|s| !s.is_empty()),
        data["expires_in"].as_f64(),
    ) else {
        return Err(OAuthError::InvalidResponse(format!(
            "{what} response missing fields: {}",
            reply.body
        )));
    };
    let account_id = account_id(access).ok_or(OAuthError::MissingAccountId)?;
    let mut fields = serde_json::Map::new();
    fields.insert("access".to_owned(), Value::from(access));
    fields.insert("refresh".to_owned(), Value::from(refresh));
    fields.insert(
        "expires".to_owned(),
        Value::from(now_ms() + (expires_in * 1000.0) as i64),
    );
    fields.insert("accountId".to_owned(), Value::from(account_id));
    Ok(OAuthCredentials::from_fields(fields))
}

/// The ChatGPT account id in an access token's
/// `https://api.openai.com/auth.chatgpt_account_id` claim (the Codex wire's
/// `chatgpt-account-id` header).
pub fn account_id(access_token: &str) -> Option<String> {
    let mut parts = access_token.split('.');
    let (Some(_), Some(payload), Some(_), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return None;
    };
    let bytes = URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .or_else(|_| URL_SAFE.decode(payload))
        .ok()?;
    let claims: Value = serde_json::from_slice(&bytes).ok()?;
    claims[JWT_CLAIM_PATH]["chatgpt_account_id"]
        .as_str()
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jwt(claims: &Value) -> String {
        format!(
            "h.{}.s",
            URL_SAFE_NO_PAD.encode(serde_json::to_vec(claims).unwrap())
        )
    }

    #[test]
    fn the_account_id_comes_from_the_auth_claim() {
        let token = jwt(&serde_json::json!({
            "https://api.openai.com/auth": {"chatgpt_account_id": "acc-1"}
        }));
        assert_eq!(account_id(&token).as_deref(), Some("acc-1"));
        assert_eq!(account_id(&jwt(&serde_json::json!({"sub": "x"}))), None);
        assert_eq!(account_id("not-a-jwt"), None);
        assert_eq!(account_id("a.b.c.d"), None);
    }
}
