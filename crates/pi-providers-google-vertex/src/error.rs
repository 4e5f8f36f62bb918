//! Why a Vertex call could not be authorized, in words that name what is
//! missing.

use pi_ai::ErrorClass;

/// A Vertex call's setup failure (before any model request is sent).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VertexError {
    /// No project in the options nor the environment (pi's wording).
    #[error(
        "Vertex AI requires a project ID. Set GOOGLE_CLOUD_PROJECT/GCLOUD_PROJECT or pass project in options."
    )]
    MissingProject,
    /// No location in the options nor the environment (pi's wording).
    #[error(
        "Vertex AI requires a location. Set GOOGLE_CLOUD_LOCATION or pass location in options."
    )]
    MissingLocation,
    /// No credentials file at any place ADC looks (google-auth-library's
    /// wording, plus where pi-rs looked).
    #[error(
        "Could not load the default credentials. Browse to https://cloud.google.com/docs/authentication/getting-started for more information. (Looked for GOOGLE_APPLICATION_CREDENTIALS and {well_known}; set GOOGLE_CLOUD_API_KEY for API-key access, or run `gcloud auth application-default login`.)"
    )]
    NoCredentials {
        /// The well-known file path that does not exist.
        well_known: String,
    },
    /// `GOOGLE_APPLICATION_CREDENTIALS` names something unreadable.
    #[error(
        "Unable to read the credential file specified by the GOOGLE_APPLICATION_CREDENTIALS environment variable: The file at {path} does not exist, or it is not a file. {reason}"
    )]
    UnreadableEnvFile {
        /// The path the variable holds.
        path: String,
        /// The I/O error.
        reason: String,
    },
    /// A credentials file that is not what ADC accepts.
    #[error("Invalid credentials file {path}: {reason}")]
    InvalidCredentials {
        /// The file.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A credential type pi-rs does not implement (external accounts,
    /// impersonation, GDCH; and no metadata server lookup).
    #[error(
        "Credentials file {path} has type \"{kind}\", which pi-rs does not support for Vertex AI (use a service_account or authorized_user file, or GOOGLE_CLOUD_API_KEY)"
    )]
    UnsupportedCredentials {
        /// The file.
        path: String,
        /// Its `type`.
        kind: String,
    },
    /// The service account's private key is not an RSA PEM key.
    #[error("The private_key of the service account in {path} is not a usable RSA key: {reason}")]
    InvalidKey {
        /// The file.
        path: String,
        /// The key parser's error.
        reason: String,
    },
    /// The token endpoint refused or could not be reached.
    #[error("Could not get a Google access token from {url}: {reason}")]
    Token {
        /// The token endpoint.
        url: String,
        /// The endpoint's `error: error_description`, or the transport error.
        reason: String,
        /// The failure's class.
        class: ErrorClass,
    },
    /// The call was cancelled while waiting for a token.
    #[error("Request was aborted")]
    Aborted,
}

impl VertexError {
    /// The class the failed message carries (auto-retry decides from it).
    pub fn class(&self) -> ErrorClass {
        match self {
            Self::Token { class, .. } => *class,
            Self::Aborted => ErrorClass::Aborted,
            Self::MissingProject | Self::MissingLocation => ErrorClass::Client,
            _ => ErrorClass::Auth,
        }
    }
}
