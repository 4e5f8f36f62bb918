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
    /// Providers in order of first appearance.
    pub(super) providers: Vec<Provider>,
    /// `provider -> id -> position in models`.
    index: HashMap<String, HashMap<String, usize>>,
}

impl Catalog {
    /// Builds the catalog from a JSON list of models. When a `(provider, id)`
    /// pair repeats, the first entry wins for lookups.
    pub(super) fn parse(json: &str) -> Result<Self, serde_json::Error> {
        let models: Vec<Model> = serde_json::from_str(json)?;
        let mut providers: Vec<Provider> = Vec::new();
        let mut index: HashMap<String, HashMap<String, usize>> = HashMap::new();
        for (position, model) in models.iter().enumerate() {
            if !providers.contains(&model.provider) {
                providers.push(model.provider.clone());
            }
            index
                .entry(model.provider.as_str().to_owned())
                .or_default()
                .entry(model.id.clone())
                .or_insert(position);
        }
        Ok(Self {
            models,
            providers,
            index,
        })
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
    catalog().providers.clone()
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
