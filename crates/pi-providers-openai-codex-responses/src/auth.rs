//! What the Codex wire reads from the subscription token, and the user
//! agent pi sends.

use std::sync::OnceLock;

use base64::Engine;
use base64::alphabet::STANDARD;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use serde_json::Value;

/// The JWT claim holding `chatgpt_account_id`.
const JWT_CLAIM_PATH: &str = "https://api.openai.com/auth";

/// `atob`'s forgiving base64: the standard alphabet, padding optional.
const FORGIVING: GeneralPurpose = GeneralPurpose::new(
    &STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// The token is not a JWT carrying a ChatGPT account id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Failed to extract accountId from token")]
pub struct CodexAuthError;

/// pi's `extractAccountId`: the `chatgpt_account_id` of the
/// `https://api.openai.com/auth` claim in the token's payload (the token
/// must have three dot-separated parts; the payload is decoded as `atob`
/// does).
pub fn account_id(token: &str) -> Result<String, CodexAuthError> {
    let parts: Vec<&str> = token.split('.').collect();
    let [_, payload, _] = parts.as_slice() else {
        return Err(CodexAuthError);
    };
    let cleaned: String = payload
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    let bytes = FORGIVING.decode(cleaned).map_err(|_| CodexAuthError)?;
    // `atob` yields one char per byte; JSON.parse then reads those chars.
    let text: String = bytes.iter().map(|&b| char::from(b)).collect();
    let claims: Value = serde_json::from_str(&text).map_err(|_| CodexAuthError)?;
    match &claims[JWT_CLAIM_PATH]["chatgpt_account_id"] {
        Value::String(id) if !id.is_empty() => Ok(id.clone()),
        Value::Null | Value::Bool(false) | Value::String(_) => Err(CodexAuthError),
        Value::Number(n) if n.as_f64() == Some(0.0) => Err(CodexAuthError),
        other => Ok(other.to_string()),
    }
}

/// pi's Codex user agent: `pi (<platform> <release>; <arch>)` with Node's
/// names (`linux`, `darwin`, `win32`; `x64`, `arm64`).
pub fn user_agent() -> &'static str {
    static AGENT: OnceLock<String> = OnceLock::new();
    AGENT.get_or_init(|| {
        let platform = match std::env::consts::OS {
            "macos" => "darwin",
            "windows" => "win32",
            other => other,
        };
        let arch = match std::env::consts::ARCH {
            "x86_64" => "x64",
            "aarch64" => "arm64",
            "x86" => "ia32",
            "powerpc64" => "ppc64",
            other => other,
        };
        format!("pi ({platform} {}; {arch})", os_release())
    })
}

/// The kernel release (`uname -r`), as Node's `os.release()`.
#[cfg(unix)]
fn os_release() -> String {
    nix::sys::utsname::uname()
        .map(|uts| uts.release().to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Node reads the Windows version; it is not known here.
#[cfg(not(unix))]
fn os_release() -> String {
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(payload: &str) -> String {
        format!(
            "h.{}.s",
            base64::engine::general_purpose::STANDARD_NO_PAD.encode(payload)
        )
    }

    #[test]
    fn the_account_id_comes_from_the_auth_claim() {
        let good = token(r#"{"https://api.openai.com/auth":{"chatgpt_account_id":"acc-1"}}"#);
        assert_eq!(account_id(&good), Ok("acc-1".to_owned()));
        let padded = format!(
            "h.{}.s",
            base64::engine::general_purpose::STANDARD
                .encode(r#"{"https://api.openai.com/auth":{"chatgpt_account_id":"a"}}"#)
        );
        assert_eq!(account_id(&padded), Ok("a".to_owned()));
        for bad in [
            token(r#"{"sub":"x"}"#),
            token(r#"{"https://api.openai.com/auth":{"chatgpt_account_id":""}}"#),
            "not-a-jwt".to_owned(),
            "a.b.c.d".to_owned(),
            "a.%%%.c".to_owned(),
            token("not json"),
        ] {
            assert_eq!(account_id(&bad), Err(CodexAuthError), "{bad}");
        }
        assert_eq!(
            CodexAuthError.to_string(),
            "Failed to extract accountId from token"
        );
    }

    #[test]
    fn the_user_agent_names_platform_release_and_arch() {
        let agent = user_agent();
        assert!(agent.starts_with("pi ("), "{agent}");
        assert!(agent.ends_with(')'), "{agent}");
        assert!(!agent.contains("x86_64"), "{agent}");
    }
}
