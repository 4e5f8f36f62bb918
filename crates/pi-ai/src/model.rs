//! Model descriptions: identity, wire API, limits and prices.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Api, ExtraFields, Provider};

/// An input modality a model accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum InputModality {
    /// Text.
    Text,
    /// Images.
    Image,
}

/// Prices in dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelCost {
    /// Input tokens.
    #[serde(default, serialize_with = "crate::json_number::serialize")]
    pub input: f64,
    /// Output tokens.
    #[serde(default, serialize_with = "crate::json_number::serialize")]
    pub output: f64,
    /// Cache reads.
    #[serde(default, serialize_with = "crate::json_number::serialize")]
    pub cache_read: f64,
    /// Cache writes.
    #[serde(default, serialize_with = "crate::json_number::serialize")]
    pub cache_write: f64,
}

/// A model: who serves it, which wire it speaks, its limits and prices.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Model {
    /// Model id sent to the provider.
    pub id: String,
    /// Human-readable name.
    pub name: String,
    /// Wire API.
    pub api: Api,
    /// Provider.
    pub provider: Provider,
    /// Base URL of the API.
    pub base_url: String,
    /// Whether the model supports reasoning/thinking.
    #[serde(default)]
    pub reasoning: bool,
    /// Accepted input modalities.
    #[serde(default = "default_input")]
    pub input: Vec<InputModality>,
    /// Prices per million tokens.
    #[serde(default)]
    pub cost: ModelCost,
    /// Context window in tokens.
    pub context_window: u64,
    /// Maximum output tokens.
    pub max_tokens: u64,
    /// Extra HTTP headers sent with every request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<BTreeMap<String, String>>,
    /// Wire-specific compatibility switches, interpreted by the provider crate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compat: Option<Value>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

fn default_input() -> Vec<InputModality> {
    vec![InputModality::Text]
}

impl Model {
    /// True when the model accepts image input.
    pub fn supports_images(&self) -> bool {
        self.input.contains(&InputModality::Image)
    }
}
