//! How a call authenticates, resolved as pi's AWS SDK client does for the
//! sources pi-rs supports: a Bedrock API key (bearer token), static keys
//! from the environment, or static keys of a profile in the shared files
//! (`~/.aws/credentials`, `~/.aws/config`), and the region for signing.
//! SSO, assume-role, `credential_process`, web identity and the container
//! and instance metadata endpoints are not supported: a profile or an
//! environment that relies on them gets an error saying so.

use std::path::Path;

use ini::Ini;

use crate::env::AwsEnvironment;
use crate::options::BedrockOptions;

/// Static AWS credentials.
#[derive(Clone, PartialEq, Eq)]
pub struct AwsCredentials {
    /// `AWS_ACCESS_KEY_ID` / `aws_access_key_id`.
    pub access_key_id: String,
    /// `AWS_SECRET_ACCESS_KEY` / `aws_secret_access_key`.
    pub secret_access_key: String,
    /// `AWS_SESSION_TOKEN` / `aws_session_token`.
    pub session_token: Option<String>,
}

impl std::fmt::Debug for AwsCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AwsCredentials")
            .field("access_key_id", &self.access_key_id)
            .field("secret_access_key", &"<redacted>")
            .field(
                "session_token",
                &self.session_token.as_ref().map(|_| "<redacted>"),
            )
            .finish()
    }
}

/// How a request is authorized.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Auth {
    /// `Authorization: Bearer <Bedrock API key>`.
    Bearer(String),
    /// SigV4 with these credentials.
    SigV4(AwsCredentials),
}

/// Why no credentials could be found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CredentialsError {
    /// Nothing to sign with.
    #[error(
        "Could not load credentials from any providers: set AWS_ACCESS_KEY_ID and \
         AWS_SECRET_ACCESS_KEY, AWS_PROFILE (a profile with aws_access_key_id and \
         aws_secret_access_key in {files}), or AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key)"
    )]
    Missing {
        /// The shared files looked at.
        files: String,
    },
    /// The profile exists but uses a source pi-rs does not support.
    #[error(
        "AWS profile \"{profile}\" uses {source_kind}, which pi-rs does not support; give the \
         profile static keys (aws_access_key_id, aws_secret_access_key), or use \
         AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_BEARER_TOKEN_BEDROCK"
    )]
    Unsupported {
        /// The profile.
        profile: String,
        /// What it uses (`role_arn (assume role)`, `SSO`, ...).
        source_kind: &'static str,
    },
    /// A profile with half of a key pair.
    #[error("AWS profile \"{profile}\" has {present} but no {missing}")]
    Incomplete {
        /// The profile.
        profile: String,
        /// The key that is there.
        present: &'static str,
        /// The key that is not.
        missing: &'static str,
    },
    /// A shared file that cannot be read or parsed.
    #[error("Could not read the AWS file {path}: {reason}")]
    File {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
}

/// The profile a call uses: the option, else `AWS_PROFILE`, else `default`.
pub fn profile_name(options: &BedrockOptions, env: &AwsEnvironment) -> String {
    options
        .profile
        .clone()
        .filter(|p| !p.is_empty())
        .or_else(|| env.var("AWS_PROFILE"))
        .unwrap_or_else(|| "default".to_owned())
}

/// The authorization of a call, in pi's order: a bearer token (option,
/// else `AWS_BEARER_TOKEN_BEDROCK`) unless `AWS_BEDROCK_SKIP_AUTH=1`;
/// dummy keys with `AWS_BEDROCK_SKIP_AUTH=1` (proxies without auth); the
/// environment's static keys unless a profile is named (the SDK then skips
/// them); the profile's static keys.
pub fn resolve_auth(
    options: &BedrockOptions,
    env: &AwsEnvironment,
) -> Result<Auth, CredentialsError> {
    let skip_auth = env.var("AWS_BEDROCK_SKIP_AUTH").as_deref() == Some("1");
    let bearer = options
        .bearer_token
        .clone()
        .filter(|t| !t.is_empty())
        .or_else(|| env.var("AWS_BEARER_TOKEN_BEDROCK"));
    if let Some(token) = bearer
        && !skip_auth
    {
        return Ok(Auth::Bearer(token));
    }
    if skip_auth {
        return Ok(Auth::SigV4(AwsCredentials {
            access_key_id: "dummy-access-key".into(),
            secret_access_key: "dummy-secret-key".into(),
            session_token: None,
        }));
    }
    let named = options.profile.as_deref().is_some_and(|p| !p.is_empty())
        || env.var("AWS_PROFILE").is_some();
    if !named
        && let (Some(access_key_id), Some(secret_access_key)) = (
            env.var("AWS_ACCESS_KEY_ID"),
            env.var("AWS_SECRET_ACCESS_KEY"),
        )
    {
        return Ok(Auth::SigV4(AwsCredentials {
            access_key_id,
            secret_access_key,
            session_token: env.var("AWS_SESSION_TOKEN"),
        }));
    }
    let profile = profile_name(options, env);
    if let Some(credentials) = profile_credentials(&profile, env)? {
        return Ok(Auth::SigV4(credentials));
    }
    let files = [env.credentials_file(), env.config_file()]
        .into_iter()
        .flatten()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" or ");
    Err(CredentialsError::Missing { files })
}

/// One profile's keys, merged over both shared files (the credentials file
/// wins, as in the SDK).
#[derive(Debug, Default)]
struct ProfileEntries {
    pairs: Vec<(String, String)>,
}

impl ProfileEntries {
    fn get(&self, key: &str) -> Option<&str> {
        self.pairs
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
    }
}

fn load(path: &Path) -> Result<Option<Ini>, CredentialsError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ini::load_from_str(&text)
            .map(Some)
            .map_err(|e| CredentialsError::File {
                path: path.display().to_string(),
                reason: e.to_string(),
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(CredentialsError::File {
            path: path.display().to_string(),
            reason: e.to_string(),
        }),
    }
}

/// The entries of `profile`: `[profile NAME]` (or `[default]`) in the
/// config file, then `[NAME]` in the credentials file.
fn profile_entries(
    profile: &str,
    env: &AwsEnvironment,
) -> Result<Option<ProfileEntries>, CredentialsError> {
    let mut entries = ProfileEntries::default();
    let mut found = false;
    if let Some(path) = env.config_file()
        && let Some(ini) = load(&path)?
    {
        let prefixed = format!("profile {profile}");
        for (name, props) in ini.iter() {
            let name = name.map(str::trim);
            let matches = name == Some(prefixed.as_str())
                || (profile == "default" && name == Some("default"));
            if matches {
                found = true;
                entries.pairs.extend(
                    props
                        .iter()
                        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned())),
                );
            }
        }
    }
    if let Some(path) = env.credentials_file()
        && let Some(ini) = load(&path)?
    {
        for (name, props) in ini.iter() {
            if name.map(str::trim) == Some(profile) {
                found = true;
                entries.pairs.extend(
                    props
                        .iter()
                        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned())),
                );
            }
        }
    }
    Ok(found.then_some(entries))
}

fn profile_credentials(
    profile: &str,
    env: &AwsEnvironment,
) -> Result<Option<AwsCredentials>, CredentialsError> {
    let Some(entries) = profile_entries(profile, env)? else {
        return Ok(None);
    };
    let key = entries.get("aws_access_key_id");
    let secret = entries.get("aws_secret_access_key");
    match (key, secret) {
        (Some(key), Some(secret)) => {
            return Ok(Some(AwsCredentials {
                access_key_id: key.to_owned(),
                secret_access_key: secret.to_owned(),
                session_token: entries.get("aws_session_token").map(str::to_owned),
            }));
        }
        (Some(_), None) => {
            return Err(CredentialsError::Incomplete {
                profile: profile.to_owned(),
                present: "aws_access_key_id",
                missing: "aws_secret_access_key",
            });
        }
        (None, Some(_)) => {
            return Err(CredentialsError::Incomplete {
                profile: profile.to_owned(),
                present: "aws_secret_access_key",
                missing: "aws_access_key_id",
            });
        }
        (None, None) => {}
    }
    let unsupported = [
        ("sso_session", "SSO"),
        ("sso_start_url", "SSO"),
        ("role_arn", "role_arn (assume role)"),
        ("credential_process", "credential_process"),
        ("web_identity_token_file", "web_identity_token_file"),
        ("login_session", "console login"),
    ];
    match unsupported
        .iter()
        .find(|(key, _)| entries.get(key).is_some())
    {
        Some((_, kind)) => Err(CredentialsError::Unsupported {
            profile: profile.to_owned(),
            source_kind: kind,
        }),
        None => Ok(None),
    }
}

/// The region of the profile (`region` in its config-file section, then in
/// the credentials file), as the SDK resolves one when pi leaves it open.
pub fn profile_region(profile: &str, env: &AwsEnvironment) -> Option<String> {
    profile_entries(profile, env)
        .ok()
        .flatten()
        .and_then(|entries| entries.get("region").map(str::to_owned))
}

#[cfg(test)]
#[path = "credentials_tests.rs"]
mod tests;
