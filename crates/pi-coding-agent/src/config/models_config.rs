//! `models.json` in the agent dir: custom providers and models, and
//! changes to built-in ones, in pi's format. This is how a local Ollama,
//! llama.cpp, vLLM or LM Studio server (or any OpenAI-compatible endpoint)
//! is used.
//!
//! ```json
//! {"providers": {"ollama": {"baseUrl": "http://localhost:11434/v1",
//!   "api": "openai-completions", "apiKey": "ollama",
//!   "models": [{"id": "qwen3:8b", "contextWindow": 32768, "maxTokens": 8192}]}}}
//! ```
//!
//! A provider entry without `models` changes the built-in provider of that
//! name: `baseUrl`, `compat`, request `headers`, `authHeader`, and
//! `modelOverrides` (per model id: name, limits, prices, thinking map, ...).

use std::collections::BTreeMap;
use std::path::Path;

use pi_ai::{Api, InputModality, Model, ModelCost};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::ConfigError;

/// The whole file.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ModelsFile {
    /// Providers by name, in the file's order (pi adds custom models in it).
    pub providers: Providers,
}

/// Provider entries in the order the file lists them.
#[derive(Debug, Clone, Default)]
pub struct Providers(pub Vec<(String, ProviderConfig)>);

impl Providers {
    /// The entry of `name`.
    pub fn get(&self, name: &str) -> Option<&ProviderConfig> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }

    /// The entries in file order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &ProviderConfig)> {
        self.0.iter().map(|(n, c)| (n, c))
    }
}

impl<'de> Deserialize<'de> for Providers {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Ordered;
        impl<'de> serde::de::Visitor<'de> for Ordered {
            type Value = Providers;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object of providers")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Providers, A::Error> {
                let mut entries: Vec<(String, ProviderConfig)> = Vec::new();
                while let Some((name, config)) = map.next_entry::<String, ProviderConfig>()? {
                    // A repeated key keeps its first place and its last value, as JSON.parse.
                    match entries.iter_mut().find(|(n, _)| *n == name) {
                        Some(entry) => entry.1 = config,
                        None => entries.push((name, config)),
                    }
                }
                Ok(Providers(entries))
            }
        }
        deserializer.deserialize_map(Ordered)
    }
}

/// One provider entry.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderConfig {
    /// Display name.
    pub name: Option<String>,
    /// Base URL of the API.
    pub base_url: Option<String>,
    /// Wire API of its models.
    pub api: Option<Api>,
    /// A literal key, the name of an environment variable, or `!command`.
    pub api_key: Option<String>,
    /// Request headers for every model; values resolve like `apiKey`.
    pub headers: Option<BTreeMap<String, String>>,
    /// Compatibility switches for every model.
    pub compat: Option<Value>,
    /// Send the key as `Authorization: Bearer <key>`.
    pub auth_header: Option<bool>,
    /// The provider's models; empty to only change a built-in provider.
    #[serde(default)]
    pub models: Vec<ModelConfig>,
    /// Changes to built-in models of this provider, by model id.
    #[serde(default)]
    pub model_overrides: BTreeMap<String, ModelOverride>,
}

/// One model entry; unset fields take pi's defaults.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelConfig {
    /// Model id.
    pub id: String,
    /// Display name (default: the id).
    pub name: Option<String>,
    /// Wire API, overriding the provider's.
    pub api: Option<Api>,
    /// Base URL, overriding the provider's.
    pub base_url: Option<String>,
    /// Reasoning support.
    #[serde(default)]
    pub reasoning: bool,
    /// Input modalities (default text).
    pub input: Option<Vec<InputModality>>,
    /// Prices per million tokens.
    pub cost: Option<ModelCost>,
    /// Context window (default 128,000).
    pub context_window: Option<f64>,
    /// Output limit (default 16,384).
    pub max_tokens: Option<f64>,
    /// Request headers; values resolve like `apiKey`.
    pub headers: Option<BTreeMap<String, String>>,
    /// Compatibility switches.
    pub compat: Option<Value>,
    /// Per-level provider values for reasoning (kept on the model for the providers).
    pub thinking_level_map: Option<Map<String, Value>>,
}

/// Prices of a model override; unset ones keep the built-in price.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CostOverride {
    /// Input tokens.
    pub input: Option<f64>,
    /// Output tokens.
    pub output: Option<f64>,
    /// Cache reads.
    pub cache_read: Option<f64>,
    /// Cache writes.
    pub cache_write: Option<f64>,
}

/// Changes to one built-in model (`modelOverrides`); unset fields keep it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelOverride {
    /// Display name.
    pub name: Option<String>,
    /// Reasoning support.
    pub reasoning: Option<bool>,
    /// Thinking map entries, merged over the built-in map.
    pub thinking_level_map: Option<Map<String, Value>>,
    /// Input modalities.
    pub input: Option<Vec<InputModality>>,
    /// Prices, merged field by field.
    pub cost: Option<CostOverride>,
    /// Context window.
    pub context_window: Option<f64>,
    /// Output limit.
    pub max_tokens: Option<f64>,
    /// Request headers; values resolve like `apiKey`.
    pub headers: Option<BTreeMap<String, String>>,
    /// Compatibility switches, merged over the built-in ones.
    pub compat: Option<Value>,
}

/// Header names to values (or value specs).
type Headers = BTreeMap<String, String>;

const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;
const DEFAULT_MAX_TOKENS: u64 = 16_384;

/// Why the text of a models.json cannot be used (pi's messages).
#[derive(Debug, thiserror::Error)]
pub enum ModelsJsonError {
    /// Not JSON (comments and trailing commas allowed).
    #[error("Failed to parse models.json: {0}")]
    Syntax(#[source] serde_json::Error),
    /// JSON of the wrong shape at `field` (`providers.x.models.0.id`).
    #[error("Invalid models.json schema:\n  - {field}: {message}")]
    Schema {
        /// Where, in pi's dotted form.
        field: String,
        /// What is wrong there.
        message: String,
    },
    /// A check beyond the shape failed (pi's `validateConfig` wording).
    #[error("Failed to load models.json: {0}")]
    Invalid(String),
}

impl ModelsFile {
    /// Reads and validates `path`; a missing file is empty. JSON with `//`
    /// comments and trailing commas is accepted, as pi does. Errors name
    /// the file and, for a wrong shape, the field (`providers.x.models.0.id`).
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        match crate::file_read::read_regular_to_string(path, crate::file_read::CONFIG_FILE_LIMIT) {
            Ok(text) => Self::parse(&text).map_err(|error| ConfigError::ModelsJson {
                path: path.to_path_buf(),
                message: error.to_string(),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(source) => Err(ConfigError::Io {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// Parses and validates the text of a models.json; the error is pi's
    /// message without the file line.
    pub fn parse(text: &str) -> Result<Self, ModelsJsonError> {
        let value: Value = serde_json::from_str(&super::json_lenient::strip(text))
            .map_err(ModelsJsonError::Syntax)?;
        if !value.is_object() {
            // serde's own words here name a Rust type ("struct ModelsFile").
            return Err(ModelsJsonError::Schema {
                field: "root".to_owned(),
                message: format!(
                    "expected an object like {{\"providers\": {{...}}}}, found {}",
                    super::json_kind(&value)
                ),
            });
        }
        let file: Self =
            serde_path_to_error::deserialize(&value).map_err(|e| ModelsJsonError::Schema {
                field: pi_path(e.path()),
                message: plain_message(&e.inner().to_string()),
            })?;
        file.validate()?;
        Ok(file)
    }

    /// pi's checks beyond the shape (`validateConfig`), and a `baseUrl`
    /// that is not an http(s) URL (pi accepts it and fails at the request
    /// with `Invalid URL` or `Connection error.`).
    fn validate(&self) -> Result<(), ModelsJsonError> {
        let built_in = pi_ai::get_providers();
        for (name, provider) in self.providers.iter() {
            let is_built_in = built_in.iter().any(|p| p.as_str() == name);
            if provider.models.is_empty() {
                if provider.base_url.is_none()
                    && provider.headers.is_none()
                    && provider.compat.is_none()
                    && provider.model_overrides.is_empty()
                {
                    return Err(ModelsJsonError::Invalid(format!(
                        "Provider {name}: must specify \"baseUrl\", \"headers\", \"compat\", \"modelOverrides\", or \"models\"."
                    )));
                }
            } else if !is_built_in {
                if provider.base_url.is_none() {
                    return Err(ModelsJsonError::Invalid(format!(
                        "Provider {name}: \"baseUrl\" is required when defining custom models."
                    )));
                }
                if provider.api_key.is_none() {
                    return Err(ModelsJsonError::Invalid(format!(
                        "Provider {name}: \"apiKey\" is required when defining custom models."
                    )));
                }
            }
            if let Some(url) = &provider.base_url {
                check_base_url(url)
                    .map_err(|why| ModelsJsonError::Invalid(format!("Provider {name}: {why}")))?;
            }
            for model in &provider.models {
                let id = &model.id;
                if let Some(url) = &model.base_url {
                    check_base_url(url).map_err(|why| {
                        ModelsJsonError::Invalid(format!("Provider {name}, model {id}: {why}"))
                    })?;
                }
                if provider.api.is_none() && model.api.is_none() && !is_built_in {
                    return Err(ModelsJsonError::Invalid(format!(
                        "Provider {name}, model {id}: no \"api\" specified. Set at provider or model level."
                    )));
                }
                if id.is_empty() {
                    return Err(ModelsJsonError::Invalid(format!(
                        "Provider {name}: model missing \"id\""
                    )));
                }
                if model.context_window.is_some_and(|n| n <= 0.0) {
                    return Err(ModelsJsonError::Invalid(format!(
                        "Provider {name}, model {id}: invalid contextWindow"
                    )));
                }
                if model.max_tokens.is_some_and(|n| n <= 0.0) {
                    return Err(ModelsJsonError::Invalid(format!(
                        "Provider {name}, model {id}: invalid maxTokens"
                    )));
                }
            }
        }
        Ok(())
    }

    /// The models this file defines. A model without an api or base URL
    /// takes those of the first built-in model of the provider of the same
    /// name (from `built_in`), as pi does; one that still lacks them is skipped.
    pub fn models(&self, built_in: &[Model]) -> Vec<Model> {
        let mut out = Vec::new();
        for (provider, config) in self.providers.iter() {
            let defaults = built_in.iter().find(|m| m.provider.as_str() == provider);
            for model in &config.models {
                let Some(api) = model
                    .api
                    .clone()
                    .or_else(|| config.api.clone())
                    .or_else(|| defaults.map(|d| d.api.clone()))
                else {
                    continue;
                };
                let Some(base_url) = model
                    .base_url
                    .clone()
                    .or_else(|| config.base_url.clone())
                    .or_else(|| defaults.map(|d| d.base_url.clone()))
                else {
                    continue;
                };
                let mut extra = Map::new();
                if let Some(map) = &model.thinking_level_map {
                    extra.insert("thinkingLevelMap".to_owned(), Value::Object(map.clone()));
                }
                out.push(Model {
                    id: model.id.clone(),
                    name: model.name.clone().unwrap_or_else(|| model.id.clone()),
                    api,
                    provider: provider.as_str().into(),
                    base_url,
                    reasoning: model.reasoning,
                    input: model
                        .input
                        .clone()
                        .unwrap_or_else(|| vec![InputModality::Text]),
                    cost: model.cost.unwrap_or_default(),
                    context_window: to_count(model.context_window, DEFAULT_CONTEXT_WINDOW),
                    max_tokens: to_count(model.max_tokens, DEFAULT_MAX_TOKENS),
                    headers: None,
                    compat: merge_compat(config.compat.as_ref(), model.compat.as_ref()),
                    extra: extra.into(),
                });
            }
        }
        out
    }

    /// Applies the provider-level `baseUrl` and `compat`, then the
    /// `modelOverrides`, to built-in models (pi's `loadBuiltInModels`).
    pub fn apply_overrides(&self, models: &mut [Model]) {
        for model in models.iter_mut() {
            let Some(config) = self.providers.get(model.provider.as_str()) else {
                continue;
            };
            if let Some(url) = &config.base_url {
                model.base_url.clone_from(url);
            }
            if config.compat.is_some() {
                model.compat = merge_compat(model.compat.as_ref(), config.compat.as_ref());
            }
            if let Some(over) = config.model_overrides.get(&model.id) {
                apply_model_override(model, over);
            }
        }
    }

    /// The `apiKey` setting of `provider`, if the file has one.
    pub fn api_key_spec(&self, provider: &str) -> Option<&str> {
        self.providers
            .get(provider)
            .and_then(|p| p.api_key.as_deref())
    }

    /// The unresolved request headers of `provider` (provider level) and of
    /// its model `id` (the model entry's, else its override's).
    pub fn header_specs(&self, provider: &str, id: &str) -> (Option<&Headers>, Option<&Headers>) {
        let Some(config) = self.providers.get(provider) else {
            return (None, None);
        };
        let model = config
            .models
            .iter()
            .find(|m| m.id == id)
            .and_then(|m| m.headers.as_ref())
            .or_else(|| {
                config
                    .model_overrides
                    .get(id)
                    .and_then(|o| o.headers.as_ref())
            });
        (config.headers.as_ref(), model)
    }

    /// Whether `provider` sends its key as `Authorization: Bearer`.
    pub fn auth_header(&self, provider: &str) -> bool {
        self.providers
            .get(provider)
            .and_then(|p| p.auth_header)
            .unwrap_or(false)
    }
}

/// A `baseUrl` that is not an http(s) URL.
#[derive(Debug, thiserror::Error)]
#[error(
    "\"baseUrl\" {url:?} is not a valid URL ({why}); use a full address such as \"http://localhost:11434/v1\"."
)]
struct BadBaseUrl {
    url: String,
    why: String,
}

/// Why `url` cannot be a provider's base URL, if it cannot.
fn check_base_url(url: &str) -> Result<(), BadBaseUrl> {
    let why = match url::Url::parse(url) {
        Ok(parsed) if matches!(parsed.scheme(), "http" | "https") => return Ok(()),
        Ok(_) => "it must start with http:// or https://".to_owned(),
        Err(e) => e.to_string(),
    };
    Err(BadBaseUrl {
        url: url.to_owned(),
        why,
    })
}

/// A JSON number as a token count (`default` when unset).
fn to_count(value: Option<f64>, default: u64) -> u64 {
    match value {
        // Counts are small positive integers; fractions are truncated.
        Some(n) if n.is_finite() && n > 0.0 => n as u64,
        _ => default,
    }
}

/// pi's `applyModelOverride`: fields replace, prices and the thinking map
/// merge entry by entry, compat merges as [`merge_compat`].
fn apply_model_override(model: &mut Model, over: &ModelOverride) {
    if let Some(name) = &over.name {
        model.name.clone_from(name);
    }
    if let Some(reasoning) = over.reasoning {
        model.reasoning = reasoning;
    }
    if let Some(map) = &over.thinking_level_map {
        let mut merged = match model.extra.get("thinkingLevelMap") {
            Some(Value::Object(base)) => base.clone(),
            _ => Map::new(),
        };
        merged.extend(map.iter().map(|(k, v)| (k.clone(), v.clone())));
        model
            .extra
            .insert("thinkingLevelMap".to_owned(), Value::Object(merged));
    }
    if let Some(input) = &over.input {
        model.input.clone_from(input);
    }
    if let Some(n) = over.context_window {
        model.context_window = to_count(Some(n), model.context_window);
    }
    if let Some(n) = over.max_tokens {
        model.max_tokens = to_count(Some(n), model.max_tokens);
    }
    if let Some(cost) = over.cost {
        let base = model.cost;
        model.cost = ModelCost {
            input: cost.input.unwrap_or(base.input),
            output: cost.output.unwrap_or(base.output),
            cache_read: cost.cache_read.unwrap_or(base.cache_read),
            cache_write: cost.cache_write.unwrap_or(base.cache_write),
        };
    }
    model.compat = merge_compat(model.compat.as_ref(), over.compat.as_ref());
}

/// pi's `mergeCompat`: the overlay's keys over the base's, with
/// `openRouterRouting` and `vercelGatewayRouting` merged one level deeper.
fn merge_compat(base: Option<&Value>, overlay: Option<&Value>) -> Option<Value> {
    let Some(overlay) = overlay else {
        return base.cloned();
    };
    let (Some(base), Value::Object(over)) = (base.and_then(Value::as_object), overlay) else {
        return Some(overlay.clone());
    };
    let mut merged = base.clone();
    merged.extend(over.iter().map(|(k, v)| (k.clone(), v.clone())));
    for key in ["openRouterRouting", "vercelGatewayRouting"] {
        if let (Some(Value::Object(a)), Some(Value::Object(b))) = (base.get(key), over.get(key)) {
            let mut deep = a.clone();
            deep.extend(b.iter().map(|(k, v)| (k.clone(), v.clone())));
            merged.insert(key.to_owned(), Value::Object(deep));
        }
    }
    Some(Value::Object(merged))
}

/// serde's words for a wrong shape without the Rust type names it holds
/// (`invalid length 0, expected struct ProviderConfig with 9 elements`
/// becomes `expected an object, found an array`).
fn plain_message(message: &str) -> String {
    let Some(at) = message.find("expected struct ") else {
        return message.to_owned();
    };
    if message.starts_with("invalid length ") {
        return "expected an object, found an array".to_owned();
    }
    format!("{}expected an object", &message[..at])
}

/// A serde path as pi prints schema paths: keys and indexes joined by dots.
fn pi_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let parts: Vec<String> = path
        .iter()
        .filter_map(|segment| match segment {
            Segment::Seq { index } => Some(index.to_string()),
            Segment::Map { key } => Some(key.clone()),
            Segment::Enum { variant } => Some(variant.clone()),
            Segment::Unknown => None,
        })
        .collect();
    if parts.is_empty() {
        "root".to_owned()
    } else {
        parts.join(".")
    }
}

/// Resolves an `apiKey` setting (see [`super::resolve_config_value`]); a
/// failing command is an error naming it.
pub fn resolve_api_key_spec(
    spec: &str,
    env: impl Fn(&str) -> Option<String>,
) -> Result<String, ConfigError> {
    super::config_value::resolve_config_value_or_error(spec, "API key", env)
}

#[cfg(test)]
#[path = "models_config_tests.rs"]
mod tests;
