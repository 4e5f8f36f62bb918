//! The built-in model catalog and the helpers around it: cost from usage,
//! API keys from the environment and context-overflow detection.
//!
//! The catalog (`models.json`) is pi 0.73.1's `models.generated.js` flattened
//! to a JSON list of [`Model`]s in pi's order: provider by provider, then
//! model by model. `cargo xtask import-catalog <models.generated.js>`
//! regenerates it.
//!
//! [`Model`]: crate::Model

mod cost;
mod env_keys;
mod overflow;
mod registry;

#[cfg(test)]
mod cost_tests;
#[cfg(test)]
mod env_keys_tests;
#[cfg(test)]
mod overflow_tests;
#[cfg(test)]
mod registry_tests;

pub use cost::calculate_cost;
pub use env_keys::{env_api_key_var, get_env_api_key, get_env_api_key_from};
pub use overflow::is_context_overflow;
pub use registry::{
    builtin_models, get_model, get_models, get_providers, models_are_equal, supports_xhigh,
};
