//! The coding agent's configuration: `settings.json` (global and project
//! layers), `models.json` (custom providers and models), `auth.json`
//! (stored keys), and the model registry that resolves `--provider` /
//! `--model` and API keys.

pub(crate) mod auth;
mod cli_model;
mod config_value;
mod json_lenient;
mod model_registry;
mod model_resolver;
mod models_config;
pub(crate) mod settings;

use std::path::PathBuf;

pub use auth::{AuthStorage, Credential};
pub use cli_model::{CliModel, resolve_cli_model};
pub use config_value::{resolve_config_value, resolve_config_value_or_error, resolve_headers};
pub use model_registry::ModelRegistry;
pub use model_resolver::{
    DEFAULT_MODEL_PER_PROVIDER, ModelScope, ParsedPattern, ScopedModel, default_available_model,
    default_model_id, find_exact_model_reference_match, parse_model_pattern, resolve_model_scope,
};
pub use models_config::{
    CostOverride, ModelConfig, ModelOverride, ModelsFile, ModelsJsonError, ProviderConfig,
    resolve_api_key_spec,
};
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
    /// models.json is not valid: pi's message (naming the field for a
    /// wrong shape) and the file.
    #[error("{message}\n\nFile: {}", path.display())]
    ModelsJson {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A provider an extension registered is not a valid models.json provider.
    #[error("Extension provider: {0}")]
    ExtensionProvider(String),
    /// A key or header value (`!command`, env name) could not be resolved.
    #[error("{0}")]
    ConfigValue(String),
    /// No model matches the request.
    #[error("{0}")]
    ModelNotFound(String),
}

/// What a JSON value is, for an error message ("an array", "null", ...).
pub(crate) fn json_kind(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
