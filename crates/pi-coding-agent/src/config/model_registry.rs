//! All models the app can use (the built-in catalog plus `models.json`),
//! model resolution for `--provider` / `--model`, and API-key lookup.

use std::path::Path;

use pi_ai::Model;

use std::collections::BTreeMap;

use super::{
    AuthStorage, ConfigError, ModelsFile, resolve_config_value, resolve_config_value_or_error,
    resolve_headers, resolve_model_scope,
};

/// The provider of GitHub Copilot's models and of its auth.json entry.
const COPILOT: &str = "github-copilot";

/// The models known to the app and where their keys come from.
#[derive(Debug, Clone, Default)]
pub struct ModelRegistry {
    models: Vec<Model>,
    custom: ModelsFile,
}

impl ModelRegistry {
    /// The built-in catalog, with `<agent_dir>/models.json` applied: its
    /// providers' models added (replacing built-ins with the same provider
    /// and id), its base-URL / compat changes and `modelOverrides` applied.
    pub fn load(agent_dir: &Path) -> Result<Self, ConfigError> {
        let custom = ModelsFile::load(&agent_dir.join("models.json"))?;
        // The registry's own copy, parsed for it: the shared catalog is
        // not built (nor held beside it) unless something else asks for it.
        Self::from_parts(pi_ai::builtin_models(), custom)
    }

    /// A registry of `built_in` models plus `custom`, in pi's order: the
    /// built-in models (a custom model with the same provider and id takes
    /// its place), then the other custom models.
    pub fn from_parts(mut built_in: Vec<Model>, custom: ModelsFile) -> Result<Self, ConfigError> {
        custom.apply_overrides(&mut built_in);
        let extra = custom.models(&built_in);
        let mut models = built_in;
        for model in extra {
            match models
                .iter_mut()
                .find(|m| m.provider == model.provider && m.id == model.id)
            {
                Some(slot) => *slot = model,
                None => models.push(model),
            }
        }
        Ok(Self { models, custom })
    }

    /// Adds the providers extensions registered (`registerProvider`, in
    /// models.json's provider shape), after those of models.json; a
    /// provider an extension unregistered is removed.
    pub fn apply_extension_providers(
        &mut self,
        providers: &[crate::extensions::RegisteredProvider],
        removed: &[String],
    ) -> Result<(), ConfigError> {
        if providers.is_empty() && removed.is_empty() {
            return Ok(());
        }
        let mut entries = serde_json::Map::new();
        for provider in providers {
            entries.insert(provider.name.clone(), provider.config.clone());
        }
        let added = ModelsFile::parse(&serde_json::json!({ "providers": entries }).to_string())
            .map_err(|e| ConfigError::ExtensionProvider(e.to_string()))?;
        let mut custom = std::mem::take(&mut self.custom);
        custom.providers.0.retain(|(name, _)| {
            !removed.contains(name) && !providers.iter().any(|p| &p.name == name)
        });
        custom.providers.0.extend(added.providers.0);
        let mut built_in = pi_ai::builtin_models();
        built_in.retain(|m| !removed.iter().any(|r| r == m.provider.as_str()));
        *self = Self::from_parts(built_in, custom)?;
        Ok(())
    }

    /// pi's `modifyModels` for stored subscription logins: with a GitHub
    /// Copilot login in `auth`, every `github-copilot` model is sent to the
    /// API base its token names (`proxy-ep`), or to its enterprise domain's.
    pub fn apply_oauth_logins(&mut self, auth: &AuthStorage) {
        let Some(credentials) = auth
            .entry(COPILOT)
            .as_ref()
            .and_then(crate::auth::OAuthCredentials::from_entry)
        else {
            return;
        };
        let base_url = crate::auth::github_copilot::base_url_for(&credentials);
        for model in self.models.iter_mut().filter(|m| m.provider == COPILOT) {
            model.base_url.clone_from(&base_url);
        }
    }

    /// Every model: built-in ones, then custom ones.
    pub fn models(&self) -> &[Model] {
        &self.models
    }

    /// Resolves a model from `--provider` and `--model`. `model` may be
    /// `provider/id`; otherwise an exact id wins, then a case-insensitive
    /// match of id or name, preferring undated aliases and shorter ids.
    pub fn find(&self, provider: Option<&str>, model: &str) -> Result<Model, ConfigError> {
        let (provider, pattern) = match (provider, model.split_once('/')) {
            (None, Some((p, id))) if self.models.iter().any(|m| m.provider.as_str() == p) => {
                (Some(p), id)
            }
            _ => (provider, model),
        };
        let candidates: Vec<&Model> = self
            .models
            .iter()
            .filter(|m| provider.is_none_or(|p| m.provider.as_str() == p))
            .collect();
        if let Some(exact) = candidates.iter().find(|m| m.id == pattern) {
            return Ok((*exact).clone());
        }
        let needle = pattern.to_lowercase();
        let mut fuzzy: Vec<&Model> = candidates
            .into_iter()
            .filter(|m| {
                m.id.to_lowercase().contains(&needle) || m.name.to_lowercase().contains(&needle)
            })
            .collect();
        fuzzy.sort_by_key(|m| (has_date_suffix(&m.id), m.id.len()));
        fuzzy.first().map(|m| (*m).clone()).ok_or_else(|| {
            let scope = provider
                .map(|p| format!(" for provider {p}"))
                .unwrap_or_default();
            ConfigError::ModelNotFound(format!(
                "Model \"{pattern}\" not found{scope}. Use --list-models to see available models."
            ))
        })
    }

    /// The models whose provider has a key (`cli_key`, auth.json, the
    /// environment or models.json), in registry order. Each provider's key is
    /// resolved once, so an `!command` key runs once, not once per model.
    pub fn available_models(&self, cli_key: Option<&str>, auth: &AuthStorage) -> Vec<&Model> {
        let mut known: std::collections::HashMap<&str, bool> = std::collections::HashMap::new();
        self.models
            .iter()
            .filter(|m| {
                let provider = m.provider.as_str();
                *known.entry(provider).or_insert_with(|| {
                    self.api_key(provider, cli_key, auth)
                        .ok()
                        .flatten()
                        .is_some()
                })
            })
            .collect()
    }

    /// The registry's models that `patterns` select, in pattern order, as
    /// pi's `--models` / `enabledModels` scoping does (see
    /// [`resolve_model_scope`]; this matches among all models, whatever
    /// their keys; warnings are logged).
    pub fn scoped(&self, patterns: &[String]) -> Vec<Model> {
        let all: Vec<&Model> = self.models.iter().collect();
        let scope = resolve_model_scope(patterns, &all);
        for warning in &scope.warnings {
            tracing::warn!("{warning}");
        }
        scope.models.into_iter().map(|s| s.model).collect()
    }

    /// The first model of `provider`.
    pub fn first_of(&self, provider: &str) -> Option<&Model> {
        self.models.iter().find(|m| m.provider.as_str() == provider)
    }

    /// The API key for `provider`: `cli_key`, then `auth.json`, then the
    /// provider's environment variable, then the `apiKey` of models.json.
    pub fn api_key(
        &self,
        provider: &str,
        cli_key: Option<&str>,
        auth: &AuthStorage,
    ) -> Result<Option<String>, ConfigError> {
        if let Some(key) = cli_key {
            return Ok(Some(key.to_owned()));
        }
        if let Some(key) = auth.api_key(provider) {
            return Ok(resolve_config_value(&key, |name| std::env::var(name).ok()));
        }
        if let Some(key) = pi_ai::get_env_api_key(provider) {
            return Ok(Some(key));
        }
        match self.custom.api_key_spec(provider) {
            Some(spec) => resolve_config_value_or_error(
                spec,
                &format!("API key for provider \"{provider}\""),
                |name| std::env::var(name).ok(),
            )
            .map(Some),
            None => Ok(None),
        }
    }

    /// Whether `provider` has a key configured, without resolving it (no
    /// key command runs), as pi's `hasConfiguredAuth`: `--api-key`, an
    /// auth.json entry, the provider's environment variable, or an `apiKey`
    /// in models.json (or from an extension).
    pub fn has_configured_auth(
        &self,
        provider: &str,
        cli_key: Option<&str>,
        auth: &AuthStorage,
    ) -> bool {
        cli_key.is_some()
            || auth.entry(provider).is_some()
            || pi_ai::get_env_api_key(provider).is_some()
            || self.custom.api_key_spec(provider).is_some()
    }

    /// The headers a request to `model` sends on top of the model's own, as
    /// pi's `getApiKeyAndHeaders`: models.json's provider headers, then the
    /// model's (entry or `modelOverrides`), values resolved like keys, and
    /// `Authorization: Bearer <api_key>` for an `authHeader` provider
    /// (an error without a key). `None` when there are none.
    pub fn request_headers(
        &self,
        model: &Model,
        api_key: Option<&str>,
    ) -> Result<Option<BTreeMap<String, String>>, ConfigError> {
        let provider = model.provider.as_str();
        let env = |name: &str| std::env::var(name).ok();
        let (provider_specs, model_specs) = self.custom.header_specs(provider, &model.id);
        let provider_headers =
            resolve_headers(provider_specs, &format!("provider \"{provider}\""), env)?;
        let model_headers = resolve_headers(
            model_specs,
            &format!("model \"{provider}/{}\"", model.id),
            env,
        )?;
        let mut headers: BTreeMap<String, String> = BTreeMap::new();
        headers.extend(provider_headers.unwrap_or_default());
        headers.extend(model_headers.unwrap_or_default());
        if self.custom.auth_header(provider) {
            let key = api_key.ok_or_else(|| {
                ConfigError::ConfigValue(format!("No API key found for \"{provider}\""))
            })?;
            headers.insert("Authorization".to_owned(), format!("Bearer {key}"));
        }
        Ok((!headers.is_empty()).then_some(headers))
    }
}

fn has_date_suffix(id: &str) -> bool {
    let tail: String = id.chars().rev().take_while(char::is_ascii_digit).collect();
    tail.len() >= 8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry() -> ModelRegistry {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pi-0.73.1/models.json");
        let custom = ModelsFile::load(&path).unwrap();
        ModelRegistry::from_parts(
            pi_ai::get_models("anthropic")
                .into_iter()
                .cloned()
                .collect(),
            custom,
        )
        .unwrap()
    }

    #[test]
    fn provider_slash_id_and_exact_ids_resolve() {
        let r = registry();
        let m = r.find(None, "mock-oai/mock-gpt").unwrap();
        assert_eq!(
            (m.provider.as_str(), m.id.as_str()),
            ("mock-oai", "mock-gpt")
        );
        let m = r.find(Some("mock-ant"), "mock-claude-think").unwrap();
        assert!(m.reasoning);
        assert_eq!(
            r.find(None, "mock-gemini").unwrap().provider.as_str(),
            "mock-goog"
        );
    }

    #[test]
    fn fuzzy_matches_prefer_aliases() {
        let r = registry();
        let m = r.find(Some("anthropic"), "sonnet-4-5").unwrap();
        assert_eq!(m.id, "claude-sonnet-4-5", "the undated alias wins");
        let err = r.find(None, "nothing-like-this").unwrap_err();
        assert_eq!(
            err.to_string(),
            "Model \"nothing-like-this\" not found. Use --list-models to see available models."
        );
    }

    #[test]
    fn keys_come_from_the_cli_then_auth_then_models_json() {
        let r = registry();
        let dir = tempfile::tempdir().unwrap();
        let auth = AuthStorage::load(dir.path()).unwrap();
        assert_eq!(
            r.api_key("mock-oai", None, &auth).unwrap().as_deref(),
            Some("sk-mock-openai-completions")
        );
        auth.set_api_key("mock-oai", "stored").unwrap();
        assert_eq!(
            r.api_key("mock-oai", None, &auth).unwrap().as_deref(),
            Some("stored")
        );
        assert_eq!(
            r.api_key("mock-oai", Some("cli"), &auth)
                .unwrap()
                .as_deref(),
            Some("cli")
        );
        assert_eq!(r.api_key("nobody", None, &auth).unwrap(), None);
    }

    #[test]
    fn available_models_resolve_each_providers_key_once() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("calls");
        let json = format!(
            r#"{{"providers":{{"local":{{"baseUrl":"http://x","api":"openai-completions","apiKey":"!echo run >> {} && echo k","models":[{{"id":"a"}},{{"id":"b"}},{{"id":"c"}}]}}}}}}"#,
            log.display()
        );
        let custom: ModelsFile = serde_json::from_str(&json).unwrap();
        let registry = ModelRegistry::from_parts(Vec::new(), custom).unwrap();
        let auth = AuthStorage::load(dir.path()).unwrap();
        let ids: Vec<&str> = registry
            .available_models(None, &auth)
            .iter()
            .map(|m| m.id.as_str())
            .collect();
        assert_eq!(ids, ["a", "b", "c"]);
        assert_eq!(
            std::fs::read_to_string(&log).unwrap(),
            "run\n",
            "the key command ran once"
        );
    }

    #[test]
    fn thinking_levels_parse() {}

    #[test]
    fn request_headers_resolve_like_keys_and_auth_header_adds_the_bearer() {
        let json = r#"{"providers":{
            "local":{"baseUrl":"http://x","api":"openai-completions","apiKey":"k",
                "authHeader":true,
                "headers":{"x-team":"!printf team-a","x-lit":"plain","x-both":"provider"},
                "models":[{"id":"a","headers":{"x-both":"model","x-path":"PI_RS_TEST_UNSET_VAR"}},{"id":"b"}]},
            "anthropic":{"modelOverrides":{"claude-opus-4-7":{"headers":{"x-o":"!printf o"}}}}}}"#;
        let custom = ModelsFile::parse(json).unwrap();
        let registry = ModelRegistry::from_parts(
            pi_ai::get_models("anthropic")
                .into_iter()
                .cloned()
                .collect(),
            custom,
        )
        .unwrap();
        let model = |provider: &str, id: &str| {
            registry
                .models()
                .iter()
                .find(|m| m.provider.as_str() == provider && m.id == id)
                .unwrap()
                .clone()
        };
        let headers = registry
            .request_headers(&model("local", "a"), Some("sk-1"))
            .unwrap()
            .unwrap();
        assert_eq!(
            serde_json::to_value(&headers).unwrap(),
            serde_json::json!({
                "Authorization": "Bearer sk-1",
                "x-both": "model",
                "x-lit": "plain",
                "x-path": "PI_RS_TEST_UNSET_VAR",
                "x-team": "team-a"
            })
        );
        assert_eq!(
            registry
                .request_headers(&model("local", "b"), None)
                .unwrap_err()
                .to_string(),
            "No API key found for \"local\""
        );
        let opus = registry
            .request_headers(&model("anthropic", "claude-opus-4-7"), None)
            .unwrap()
            .unwrap();
        assert_eq!(opus.get("x-o").map(String::as_str), Some("o"));
        assert_eq!(
            registry
                .request_headers(&model("anthropic", "claude-haiku-4-5"), None)
                .unwrap(),
            None
        );
    }

    #[test]
    fn scoped_keeps_pattern_order() {
        let r = registry();
        let ids: Vec<String> = r
            .scoped(&["mock-gemini".to_owned(), "mock-oai/*".to_owned()])
            .into_iter()
            .map(|m| format!("{}/{}", m.provider, m.id))
            .collect();
        assert_eq!(
            ids,
            [
                "mock-goog/mock-gemini",
                "mock-oai/mock-gpt",
                "mock-oai/mock-gpt-think"
            ]
        );
    }

    #[test]
    fn a_copilot_login_sends_copilot_models_to_its_tokens_api_base() {
        let copilot = || {
            ModelRegistry::from_parts(
                pi_ai::get_models("github-copilot")
                    .into_iter()
                    .cloned()
                    .collect(),
                ModelsFile::default(),
            )
            .unwrap()
        };
        let dir = tempfile::tempdir().unwrap();
        let auth = AuthStorage::load(dir.path()).unwrap();
        let mut registry = copilot();
        registry.apply_oauth_logins(&auth);
        assert!(!registry.models().is_empty());
        assert!(
            registry
                .models()
                .iter()
                .all(|m| m.base_url == "https://api.individual.githubcopilot.com"),
            "no login: the catalog's base URL"
        );
        let token = "tid=1;exp=9;proxy-ep=proxy.business.githubcopilot.com;sku=x";
        auth.set_entry(
            "github-copilot",
            serde_json::json!({"type": "oauth", "refresh": "r", "access": token, "expires": 1}),
        )
        .unwrap();
        registry.apply_oauth_logins(&auth);
        assert!(
            registry
                .models()
                .iter()
                .all(|m| m.base_url == "https://api.business.githubcopilot.com")
        );
    }
}
