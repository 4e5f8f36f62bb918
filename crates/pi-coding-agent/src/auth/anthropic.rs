//! Anthropic (Claude Pro/Max): authorization code + PKCE, the redirect
//! caught on `http://localhost:53692/callback` or pasted, JSON token
//! requests; the access token expires 5 minutes before Anthropic says.

use base64::Engine;
use serde_json::json;

use super::OAuthError;
use super::callback::{CallbackServer, callback_host};
use super::credentials::{OAuthCredentials, now_ms};
use super::flow::{AuthInfo, LoginCallbacks, OAuthEndpoints, Prompt, obtain_code};
use super::http::{self, Reply};
use super::pkce::Pkce;

/// Claude Code's public OAuth client id (pi keeps it base64-encoded).
const CLIENT_ID_B64: &str = "OWQxYzI1MGEtZTYxYi00NGQ5LTg4ZWQtNTk0NGQxOTYyZjVl";
const CALLBACK_PATH: &str = "/callback";
const SCOPES: &str = "org:create_api_key user:profile user:inference user:sessions:claude_code user:mcp_servers user:file_upload";
/// Margin taken off the token lifetime.
const EXPIRY_MARGIN_MS: i64 = 5 * 60 * 1000;

/// The OAuth client id.
pub fn client_id() -> String {
    base64::engine::general_purpose::STANDARD
        .decode(CLIENT_ID_B64)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_default()
}

/// The redirect URI for a callback port.
pub fn redirect_uri(port: u16) -> String {
    format!("http://localhost:{port}{CALLBACK_PATH}")
}

/// The authorize URL, parameters in pi's order; the PKCE verifier doubles
/// as the state, as in pi.
pub fn authorize_url(endpoints: &OAuthEndpoints, pkce: &Pkce, redirect_uri: &str) -> String {
    let mut url = match reqwest::Url::parse(&endpoints.anthropic_authorize_url) {
        Ok(url) => url,
        Err(_) => return endpoints.anthropic_authorize_url.clone(),
    };
    url.query_pairs_mut()
        .append_pair("code", "true")
        .append_pair("client_id", &client_id())
        .append_pair("response_type", "code")
        .append_pair("redirect_uri", redirect_uri)
        .append_pair("scope", SCOPES)
        .append_pair("code_challenge", &pkce.challenge)
        .append_pair("code_challenge_method", "S256")
        .append_pair("state", &pkce.verifier);
    url.into()
}

/// Logs in: shows the authorize URL, takes the code from the redirect or
/// the user, and exchanges it.
pub async fn login(
    callbacks: &dyn LoginCallbacks,
    endpoints: &OAuthEndpoints,
) -> Result<OAuthCredentials, OAuthError> {
    let pkce = Pkce::generate()?;
    let server = CallbackServer::start(
        &callback_host(),
        endpoints.anthropic_callback_port,
        CALLBACK_PATH,
        &pkce.verifier,
        "Anthropic",
    )
    .await?;
    let redirect = redirect_uri(server.port());
    callbacks.on_auth(&AuthInfo {
        url: authorize_url(endpoints, &pkce, &redirect),
        instructions: Some(
            "Complete login in your browser. If the browser is on another machine, paste the final redirect URL here."
                .to_owned(),
        ),
    });
    let prompt = Prompt {
        message: "Paste the authorization code or full redirect URL:".to_owned(),
        placeholder: Some(redirect.clone()),
        allow_empty: false,
    };
    let (code, state) = obtain_code(Some(server), callbacks, &pkce.verifier, prompt).await?;
    callbacks.on_progress("Exchanging authorization code for tokens...");
    exchange_code(endpoints, &code, &state, &pkce.verifier, &redirect).await
}

/// Exchanges an authorization code for tokens.
pub async fn exchange_code(
    endpoints: &OAuthEndpoints,
    code: &str,
    state: &str,
    verifier: &str,
    redirect_uri: &str,
) -> Result<OAuthCredentials, OAuthError> {
    let url = &endpoints.anthropic_token_url;
    let body = json!({
        "grant_type": "authorization_code",
        "client_id": client_id(),
        "code": code,
        "state": state,
        "redirect_uri": redirect_uri,
        "code_verifier": verifier,
    });
    let reply = http::post_json("Token exchange request", url, &body).await?;
    if !reply.ok() {
        return Err(http::failed("Token exchange request", url, &reply));
    }
    credentials(&reply, "Token exchange")
}

/// Refreshes the tokens; a 400/401/403 answer is [`OAuthError::LoginExpired`].
pub async fn refresh(
    endpoints: &OAuthEndpoints,
    refresh_token: &str,
) -> Result<OAuthCredentials, OAuthError> {
    let url = &endpoints.anthropic_token_url;
    let body = json!({
        "grant_type": "refresh_token",
        "client_id": client_id(),
        "refresh_token": refresh_token,
    });
    let result = async {
        let reply = http::post_json("Anthropic token refresh request", url, &body).await?;
        if !reply.ok() {
            return Err(http::failed("Anthropic token refresh request", url, &reply));
        }
        credentials(&reply, "Anthropic token refresh")
    }
    .await;
    result.map_err(|e| http::refresh_error("anthropic", e))
}

/// `{refresh, access, expires}` from a token answer.
fn credentials(reply: &Reply, what: &str) -> Result<OAuthCredentials, OAuthError> {
    let data = reply.json(what)?;
    let access = data["access_token"].as_str();
    let refresh = data["refresh_token"].as_str();
    let expires_in = data["expires_in"].as_f64();
    match (access, refresh, expires_in) {
        (Some(access), Some(refresh), Some(expires_in)) => Ok(OAuthCredentials::new(
            refresh,
            access,
            now_ms() + (expires_in * 1000.0) as i64 - EXPIRY_MARGIN_MS,
        )),
        _ => Err(OAuthError::InvalidResponse(format!(
            "{what} response missing fields: {}",
            reply.body
        ))),
    }
}
