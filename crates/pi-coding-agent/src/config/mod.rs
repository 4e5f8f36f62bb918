//! The coding agent's configuration: `settings.json` (global and project
//! layers), `models.json` (custom providers and models), `auth.json`
//! (stored keys), and the model registry that resolves `--provider` /
//! `--model` and API keys.

mod auth;
mod model_registry;
mod models_config;
mod settings;

use std::path::PathBuf;

pub use auth::{AuthStorage, Credential};
pub use model_registry::{ModelRegistry, parse_thinking_level};
pub use models_config::{ModelConfig, ModelsFile, ProviderConfig, resolve_api_key_spec};
pub use settings::{
    CompactionSettings, ImageSettings, LoadedSettings, RetrySettings, Settings, SettingsScope,
    SettingsWarning, SettingsWriter, expand_tilde,
};

/// A configuration problem, naming the file or the model involved.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A file is not valid JSON of the expected shape.
    #[error("{}: {source}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The parse error.
        source: serde_json::Error,
    },
    /// A models.json model is incomplete.
    #[error("models.json: model {provider}/{model}: {reason}")]
    InvalidModel {
        /// Provider name.
        provider: String,
        /// Model id.
        model: String,
        /// What is missing.
        reason: String,
    },
    /// An `!command` api key failed.
    #[error("api key command `{command}` failed: {reason}")]
    KeyCommand {
        /// The command.
        command: String,
        /// Why.
        reason: String,
    },
    /// No model matches the request.
    #[error("{0}")]
    ModelNotFound(String),
}
