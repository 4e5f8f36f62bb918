//! Which model and thinking level a start begins with: the settings'
//! default model (else the first one with a key), the `--models` /
//! `enabledModels` scope and its pick, the default thinking level.

use pi_ai::{Model, ThinkingLevel};

use super::StartOptions;
use crate::config::{
    AuthStorage, ModelRegistry, ScopedModel, Settings, default_available_model, resolve_model_scope,
};

/// The settings' default model (`defaultProvider` / `defaultModel`), else
/// the provider's first, else the first available one with a key.
pub(super) fn default_model(
    registry: &ModelRegistry,
    settings: &Settings,
    auth: &AuthStorage,
) -> Option<Model> {
    if let Some(id) = &settings.default_model
        && let Ok(model) = registry.find(settings.default_provider.as_deref(), id)
    {
        return Some(model);
    }
    if let Some(provider) = &settings.default_provider
        && let Some(model) = registry.first_of(provider)
    {
        return Some(model.clone());
    }
    default_available_model(&registry.available_models(None, auth)).cloned()
}

/// The settings' `enabledModels` patterns, if any.
fn enabled_models(settings: &Settings) -> Option<Vec<String>> {
    let patterns = settings.extra.get("enabledModels")?.as_array()?;
    Some(
        patterns
            .iter()
            .filter_map(|p| p.as_str().map(str::to_owned))
            .collect(),
    )
}

/// The models `--models` (or `enabledModels`) selects among those with a
/// key, as pi's `resolveModelScope`; its warnings are logged.
pub(super) fn scoped_models(
    options: &StartOptions,
    settings: &Settings,
    registry: &ModelRegistry,
    auth: &AuthStorage,
) -> Vec<ScopedModel> {
    let Some(patterns) = options
        .models
        .clone()
        .or_else(|| enabled_models(settings))
        .filter(|p| !p.is_empty())
    else {
        return Vec::new();
    };
    let available = registry.available_models(options.api_key.as_deref(), auth);
    let scope = resolve_model_scope(&patterns, &available);
    for warning in &scope.warnings {
        tracing::warn!("{warning}");
    }
    scope.models
}

/// pi's pick among scoped models for a new session: the settings' default
/// model when it is in scope, else the first.
pub(super) fn scoped_start<'a>(
    scoped: &'a [ScopedModel],
    settings: &Settings,
) -> Option<&'a ScopedModel> {
    let saved = settings
        .default_provider
        .as_deref()
        .zip(settings.default_model.as_deref());
    saved
        .and_then(|(provider, id)| {
            scoped
                .iter()
                .find(|s| s.model.provider.as_str() == provider && s.model.id == id)
        })
        .or_else(|| scoped.first())
}

/// The settings' default thinking level (pi's `medium` when unset or unknown).
pub(crate) fn default_thinking_level(settings: &Settings) -> Option<ThinkingLevel> {
    ThinkingLevel::parse_setting(
        settings
            .default_thinking_level
            .as_deref()
            .unwrap_or("medium"),
    )
    .unwrap_or(Some(ThinkingLevel::Medium))
}
