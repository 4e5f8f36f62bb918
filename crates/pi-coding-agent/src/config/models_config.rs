//! `models.json` in the agent dir: custom providers and models in pi's
//! format. This is how a local Ollama, llama.cpp, vLLM or LM Studio server
//! (or any OpenAI-compatible endpoint) is used.
//!
//! ```json
//! {"providers": {"ollama": {"baseUrl": "http://localhost:11434/v1",
//!   "api": "openai-completions", "apiKey": "ollama",
//!   "models": [{"id": "qwen3:8b", "contextWindow": 32768, "maxTokens": 8192}]}}}
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use pi_ai::{Api, InputModality, Model, ModelCost};
use serde::Deserialize;
use serde_json::Value;

use super::ConfigError;

/// The whole file.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ModelsFile {
    /// Providers by name.
    #[serde(default)]
    pub providers: BTreeMap<String, ProviderConfig>,
}

/// One provider entry.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderConfig {
    /// Base URL of the API.
    pub base_url: Option<String>,
    /// Wire API of its models.
    pub api: Option<Api>,
    /// A literal key, the name of an environment variable, or `!command`.
    pub api_key: Option<String>,
    /// Extra headers for every request.
    pub headers: Option<BTreeMap<String, String>>,
    /// Compatibility switches for every model.
    pub compat: Option<Value>,
    /// The provider's models; empty to only override a built-in provider's
    /// base URL and headers.
    #[serde(default)]
    pub models: Vec<ModelConfig>,
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
    pub context_window: Option<u64>,
    /// Output limit (default 16,384).
    pub max_tokens: Option<u64>,
    /// Extra headers.
    pub headers: Option<BTreeMap<String, String>>,
    /// Compatibility switches.
    pub compat: Option<Value>,
    /// Per-level provider values for reasoning (kept on the model for the providers).
    pub thinking_level_map: Option<Value>,
}

const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;
const DEFAULT_MAX_TOKENS: u64 = 16_384;

impl ModelsFile {
    /// Reads `path`; a missing file is empty.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text).map_err(|source| ConfigError::Json {
                path: path.to_path_buf(),
                source,
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(source) => Err(ConfigError::Io {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// The models this file defines. A model without an api or base URL
    /// takes those of the built-in provider of the same name (from
    /// `built_in`), as pi does; one that still lacks them is an error naming it.
    pub fn models(&self, built_in: &[Model]) -> Result<Vec<Model>, ConfigError> {
        let mut out = Vec::new();
        for (provider, config) in &self.providers {
            let defaults = built_in.iter().find(|m| m.provider.as_str() == provider);
            for model in &config.models {
                let invalid = |what: &str| ConfigError::InvalidModel {
                    provider: provider.clone(),
                    model: model.id.clone(),
                    reason: format!("no {what} (set it on the provider or the model)"),
                };
                let api = model
                    .api
                    .clone()
                    .or_else(|| config.api.clone())
                    .or_else(|| defaults.map(|d| d.api.clone()))
                    .ok_or_else(|| invalid("api"))?;
                let base_url = model
                    .base_url
                    .clone()
                    .or_else(|| config.base_url.clone())
                    .or_else(|| defaults.map(|d| d.base_url.clone()))
                    .ok_or_else(|| invalid("baseUrl"))?;
                let mut extra = serde_json::Map::new();
                if let Some(map) = &model.thinking_level_map {
                    extra.insert("thinkingLevelMap".to_owned(), map.clone());
                }
                let headers = merge_headers(config.headers.as_ref(), model.headers.as_ref());
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
                    context_window: model.context_window.unwrap_or(DEFAULT_CONTEXT_WINDOW),
                    max_tokens: model.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
                    headers,
                    compat: merge_compat(config.compat.as_ref(), model.compat.as_ref()),
                    extra,
                });
            }
        }
        Ok(out)
    }

    /// Applies provider-level `baseUrl`/`headers` overrides (entries without
    /// models) to built-in models.
    pub fn apply_overrides(&self, models: &mut [Model]) {
        for (provider, config) in &self.providers {
            if !config.models.is_empty() {
                continue;
            }
            for model in models
                .iter_mut()
                .filter(|m| m.provider.as_str() == provider)
            {
                if let Some(url) = &config.base_url {
                    model.base_url.clone_from(url);
                }
                if config.headers.is_some() {
                    model.headers = merge_headers(model.headers.as_ref(), config.headers.as_ref());
                }
            }
        }
    }

    /// The `apiKey` setting of `provider`, if the file has one.
    pub fn api_key_spec(&self, provider: &str) -> Option<&str> {
        self.providers
            .get(provider)
            .and_then(|p| p.api_key.as_deref())
    }
}

/// The provider's compat switches with the model's on top (objects merge key by key).
fn merge_compat(provider: Option<&Value>, model: Option<&Value>) -> Option<Value> {
    match (provider, model) {
        (Some(Value::Object(base)), Some(Value::Object(overlay))) => {
            let mut merged = base.clone();
            merged.extend(overlay.iter().map(|(k, v)| (k.clone(), v.clone())));
            Some(Value::Object(merged))
        }
        (base, overlay) => overlay.or(base).cloned(),
    }
}

fn merge_headers(
    base: Option<&BTreeMap<String, String>>,
    overlay: Option<&BTreeMap<String, String>>,
) -> Option<BTreeMap<String, String>> {
    match (base, overlay) {
        (None, None) => None,
        (base, overlay) => {
            let mut merged = base.cloned().unwrap_or_default();
            merged.extend(overlay.cloned().unwrap_or_default());
            Some(merged)
        }
    }
}

/// Resolves an `apiKey` setting: `!command` runs the command through the
/// shell and takes its trimmed stdout; a name of a set environment variable
/// takes its value; anything else is the key itself.
pub fn resolve_api_key_spec(
    spec: &str,
    env: impl Fn(&str) -> Option<String>,
) -> Result<String, ConfigError> {
    if let Some(command) = spec.strip_prefix('!') {
        let output = std::process::Command::new("sh")
            .arg("-c")
            .arg(command)
            .output()
            .map_err(|e| ConfigError::KeyCommand {
                command: command.to_owned(),
                reason: e.to_string(),
            })?;
        if !output.status.success() {
            return Err(ConfigError::KeyCommand {
                command: command.to_owned(),
                reason: format!(
                    "{}: {}",
                    output.status,
                    String::from_utf8_lossy(&output.stderr).trim()
                ),
            });
        }
        return Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned());
    }
    Ok(env(spec)
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| spec.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> ModelsFile {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pi-0.73.1/models.json");
        ModelsFile::load(&path).unwrap()
    }

    #[test]
    fn the_fixture_models_file_defines_the_mock_providers() {
        let models = fixture().models(&[]).unwrap();
        assert_eq!(models.len(), 8);
        let gpt = models.iter().find(|m| m.id == "mock-gpt").unwrap();
        assert_eq!(gpt.provider.as_str(), "mock-oai");
        assert_eq!(gpt.api, Api::OPENAI_COMPLETIONS);
        assert_eq!(gpt.base_url, "http://127.0.0.1:18777/v1");
        assert_eq!(
            (gpt.context_window, gpt.max_tokens, gpt.reasoning),
            (128_000, 4096, false)
        );
        assert_eq!(gpt.name, "Mock GPT");
        let think = models.iter().find(|m| m.id == "mock-claude-think").unwrap();
        assert!(think.reasoning);
        assert_eq!(
            fixture().api_key_spec("mock-ant"),
            Some("sk-ant-mock-anthropic-messages")
        );
    }

    #[test]
    fn a_model_without_api_is_an_error_naming_it() {
        let file: ModelsFile = serde_json::from_str(
            r#"{"providers":{"local":{"baseUrl":"http://x","models":[{"id":"m"}]}}}"#,
        )
        .unwrap();
        let err = file.models(&[]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "models.json: model local/m: no api (set it on the provider or the model)"
        );
    }

    #[test]
    fn custom_models_of_a_built_in_provider_take_its_api_and_base_url_and_merge_compat() {
        let file: ModelsFile = serde_json::from_str(
            r#"{"providers":{"anthropic":{"compat":{"a":1,"b":1},"models":[{"id":"claude-next","compat":{"b":2},"thinkingLevelMap":{"high":"max"}}]}}}"#,
        )
        .unwrap();
        let built_in: Vec<Model> = pi_ai::get_models("anthropic")
            .into_iter()
            .cloned()
            .collect();
        let models = file.models(&built_in).unwrap();
        assert_eq!(models[0].api, Api::ANTHROPIC_MESSAGES);
        assert_eq!(models[0].base_url, built_in[0].base_url);
        assert_eq!(models[0].compat, Some(serde_json::json!({"a": 1, "b": 2})));
        assert_eq!(
            models[0].extra.get("thinkingLevelMap"),
            Some(&serde_json::json!({"high": "max"}))
        );
    }

    #[test]
    fn provider_overrides_change_built_in_base_urls() {
        let file: ModelsFile = serde_json::from_str(
            r#"{"providers":{"anthropic":{"baseUrl":"http://proxy","headers":{"x-a":"1"}}}}"#,
        )
        .unwrap();
        let mut models: Vec<Model> = pi_ai::get_models("anthropic")
            .into_iter()
            .cloned()
            .collect();
        assert!(!models.is_empty());
        file.apply_overrides(&mut models);
        assert!(models.iter().all(|m| m.base_url == "http://proxy"));
        assert_eq!(
            models[0]
                .headers
                .as_ref()
                .unwrap()
                .get("x-a")
                .map(String::as_str),
            Some("1")
        );
    }

    #[test]
    fn api_key_specs_resolve_literal_env_and_command() {
        let env = |name: &str| (name == "MY_KEY").then(|| "from-env".to_owned());
        assert_eq!(
            resolve_api_key_spec("sk-literal", env).unwrap(),
            "sk-literal"
        );
        assert_eq!(resolve_api_key_spec("MY_KEY", env).unwrap(), "from-env");
        assert_eq!(
            resolve_api_key_spec("!echo from-command", env).unwrap(),
            "from-command"
        );
        assert!(resolve_api_key_spec("!exit 3", env).is_err());
    }
}
