//! The embedded model catalog and lookups over it (pi's `models.ts`).

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::{Model, Provider};

/// pi's built-in models as a JSON list of [`Model`]s.
pub(super) const EMBEDDED_MODELS_JSON: &str = include_str!("models.json");

/// The parsed catalog with a `(provider, id)` index.
#[derive(Debug, Default)]
pub(super) struct Catalog {
    /// Every model, in catalog order.
    pub(super) models: Vec<Model>,
    /// `provider -> id -> position in models`.
    index: HashMap<String, HashMap<String, usize>>,
}

impl Catalog {
    /// Builds the catalog from a JSON list of models. When a `(provider, id)`
    /// pair repeats, the first entry wins for lookups.
    pub(super) fn parse(json: &str) -> Result<Self, serde_json::Error> {
        let models: Vec<Model> = serde_json::from_str(json)?;
        let mut index: HashMap<String, HashMap<String, usize>> = HashMap::new();
        for (position, model) in models.iter().enumerate() {
            index
                .entry(model.provider.as_str().to_owned())
                .or_default()
                .entry(model.id.clone())
                .or_insert(position);
        }
        Ok(Self { models, index })
    }

    /// Like [`Catalog::parse`], but a malformed document is logged and
    /// yields an empty catalog instead of an error.
    pub(super) fn parse_or_empty(json: &str) -> Self {
        Self::parse(json).unwrap_or_else(|error| {
            tracing::error!(%error, "built-in model catalog is malformed; no built-in models available");
            Self::default()
        })
    }

    /// The model `id` of `provider`.
    pub(super) fn get(&self, provider: &str, id: &str) -> Option<&Model> {
        let position = *self.index.get(provider)?.get(id)?;
        self.models.get(position)
    }

    /// All models of `provider`, in catalog order.
    pub(super) fn of_provider(&self, provider: &str) -> Vec<&Model> {
        self.models
            .iter()
            .filter(|model| model.provider == provider)
            .collect()
    }
}

/// Every built-in model as an owned list, parsed afresh from the embedded
/// catalog: for a caller that keeps (and may change) its own copy, such as
/// an app's model registry, so the catalog is not held twice. The order is
/// `get_providers()`, then each provider's `get_models()`; a malformed
/// catalog yields an empty list (logged), as the shared catalog does.
pub fn builtin_models() -> Vec<Model> {
    let providers = builtin_providers();
    let mut models: Vec<(usize, Model)> = Catalog::parse_or_empty(EMBEDDED_MODELS_JSON)
        .models
        .into_iter()
        .map(|model| {
            let rank = providers.iter().position(|p| *p == model.provider);
            (rank.unwrap_or(usize::MAX), model)
        })
        .collect();
    models.sort_by_key(|(rank, _)| *rank);
    models.into_iter().map(|(_, model)| model).collect()
}

/// The catalog's providers in order of first appearance, read without
/// building its models (only each entry's `provider` is kept).
fn builtin_providers() -> &'static [Provider] {
    /// The one field read of a catalog entry.
    #[derive(serde::Deserialize)]
    struct ProviderOf {
        provider: Provider,
    }
    static PROVIDERS: OnceLock<Vec<Provider>> = OnceLock::new();
    PROVIDERS.get_or_init(|| {
        let entries: Vec<ProviderOf> =
            serde_json::from_str(EMBEDDED_MODELS_JSON).unwrap_or_default();
        let mut providers: Vec<Provider> = Vec::new();
        for entry in entries {
            if !providers.contains(&entry.provider) {
                providers.push(entry.provider);
            }
        }
        providers
    })
}

/// The process-wide catalog, parsed on first use.
pub(super) fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| Catalog::parse_or_empty(EMBEDDED_MODELS_JSON))
}

/// The built-in model `id` of `provider` (pi's `getModel`), or `None` when
/// the catalog has no such model.
pub fn get_model(provider: &str, id: &str) -> Option<&'static Model> {
    catalog().get(provider, id)
}

/// All built-in models of `provider` in catalog order (pi's `getModels`);
/// empty for an unknown provider.
pub fn get_models(provider: &str) -> Vec<&'static Model> {
    catalog().of_provider(provider)
}

/// The providers that have built-in models, in catalog order (pi's `getProviders`).
pub fn get_providers() -> Vec<Provider> {
    builtin_providers().to_vec()
}

/// True when `a` and `b` name the same model: same id and same provider
/// (pi's `modelsAreEqual`). Other fields are not compared.
pub fn models_are_equal(a: &Model, b: &Model) -> bool {
    a.id == b.id && a.provider == b.provider
}

/// True when the model supports the `xhigh` thinking level (pi's
/// `supportsXhigh`): the GPT-5.2, 5.3 and 5.4 families, and Opus 4.6 (where
/// `xhigh` maps to Anthropic's adaptive effort `max`).
pub fn supports_xhigh(model: &Model) -> bool {
    const XHIGH_ID_MARKERS: [&str; 5] = ["gpt-5.2", "gpt-5.3", "gpt-5.4", "opus-4-6", "opus-4.6"];
    XHIGH_ID_MARKERS
        .iter()
        .any(|marker| model.id.contains(marker))
}
