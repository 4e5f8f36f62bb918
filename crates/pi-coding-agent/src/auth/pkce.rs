//! PKCE (RFC 7636): a random verifier and its S256 challenge, as pi makes
//! them (32 random bytes, base64url without padding).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::{SecureRandom, SystemRandom};

use super::OAuthError;

/// A PKCE verifier and its challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pkce {
    /// The secret sent with the code exchange.
    pub verifier: String,
    /// `base64url(sha256(verifier))`, sent in the authorize URL.
    pub challenge: String,
}

impl Pkce {
    /// A fresh verifier from the system's random source.
    pub fn generate() -> Result<Self, OAuthError> {
        Ok(Self::from_verifier(
            URL_SAFE_NO_PAD.encode(random_bytes::<32>()?),
        ))
    }

    /// The pair for a given verifier.
    pub fn from_verifier(verifier: String) -> Self {
        let digest = ring::digest::digest(&ring::digest::SHA256, verifier.as_bytes());
        let challenge = URL_SAFE_NO_PAD.encode(digest.as_ref());
        Self {
            verifier,
            challenge,
        }
    }
}

/// `N` random bytes from the system's random source.
pub(crate) fn random_bytes<const N: usize>() -> Result<[u8; N], OAuthError> {
    let mut bytes = [0u8; N];
    SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| OAuthError::Random)?;
    Ok(bytes)
}

/// `N` random bytes as lower-case hex (Codex's `state`: 16 bytes).
pub(crate) fn random_hex<const N: usize>() -> Result<String, OAuthError> {
    Ok(random_bytes::<N>()?
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenge_is_the_s256_of_the_verifier() {
        // Expected value from Python: urlsafe_b64encode(sha256(v)).rstrip("=").
        let pkce = Pkce::from_verifier("dBjftJeZ4CVP-mJ92IgoeW2rE4n6vIO8t8RZNYT3gXs".to_owned());
        assert_eq!(
            pkce.challenge,
            "UI73qJRbdSSYdskuf10gFy3VCHK_GRJakWvzVUkvpXM"
        );
    }

    #[test]
    fn verifiers_are_43_url_safe_characters_and_differ() {
        let a = Pkce::generate().unwrap();
        let b = Pkce::generate().unwrap();
        assert_eq!(a.verifier.len(), 43);
        assert!(
            a.verifier
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        );
        assert_ne!(a.verifier, b.verifier);
        assert_eq!(random_hex::<16>().unwrap().len(), 32);
    }
}
