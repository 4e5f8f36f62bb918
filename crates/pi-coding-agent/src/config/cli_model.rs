//! `--provider` / `--model` resolved as pi 0.73.1's `resolveCliModel`:
//! among every model (a key is not needed: `--api-key` may bring it), a
//! known provider prefix is split off, exact ids win, then pi's pattern
//! matching (with a `:level` suffix), and an unknown id of a known
//! provider becomes a custom model built on that provider's default.

use pi_ai::Model;

use super::model_resolver::{default_model_id, parse_model_pattern};

/// What `--provider` / `--model` resolved to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CliModel {
    /// The model, when one was found or built.
    pub model: Option<Model>,
    /// The `:level` suffix of the pattern, when it named a thinking level.
    pub thinking_level: Option<String>,
    /// A warning to show (pi's wording, without `Warning: `).
    pub warning: Option<String>,
    /// Why no model could be chosen (pi's wording, without `Error: `).
    pub error: Option<String>,
}

/// The model `cli_model` (with `cli_provider`) names among `all`, as pi's
/// `resolveCliModel`.
pub fn resolve_cli_model(cli_provider: Option<&str>, cli_model: &str, all: &[&Model]) -> CliModel {
    if all.is_empty() {
        return error("No models available. Check your installation or add models to models.json.");
    }
    // Providers by lower-cased name.
    let canonical = |name: &str| -> Option<&str> {
        let lower = name.to_lowercase();
        all.iter()
            .map(|m| m.provider.as_str())
            .find(|p| p.to_lowercase() == lower)
    };
    let mut provider = match cli_provider {
        Some(name) => match canonical(name) {
            Some(found) => Some(found),
            None => {
                return error(&format!(
                    "Unknown provider \"{name}\". Use --list-models to see available providers/models."
                ));
            }
        },
        None => None,
    };
    let mut pattern = cli_model;
    let mut inferred = false;
    if provider.is_none()
        && let Some((prefix, rest)) = cli_model.split_once('/')
        && let Some(found) = canonical(prefix)
    {
        provider = Some(found);
        pattern = rest;
        inferred = true;
    }
    if provider.is_none()
        && let Some(model) = exact(cli_model, all)
    {
        return found(model.clone(), None, None);
    }
    if let (Some(_), Some(p)) = (cli_provider, provider) {
        // `--provider p --model p/pattern` is tolerated.
        let prefix = format!("{p}/");
        if cli_model.to_lowercase().starts_with(&prefix.to_lowercase()) {
            pattern = &cli_model[prefix.len()..];
        }
    }
    let candidates: Vec<&Model> = match provider {
        Some(p) => all
            .iter()
            .filter(|m| m.provider.as_str() == p)
            .copied()
            .collect(),
        None => all.to_vec(),
    };
    let parsed = parse_model_pattern(pattern, &candidates, false);
    if let Some(model) = parsed.model {
        return found(model.clone(), parsed.thinking_level, parsed.warning);
    }
    // `openai/gpt-4o:extended` may be an OpenRouter id rather than a
    // provider and a pattern.
    if inferred {
        if let Some(model) = exact(cli_model, all) {
            return found(model.clone(), None, None);
        }
        let fallback = parse_model_pattern(cli_model, all, false);
        if let Some(model) = fallback.model {
            return found(model.clone(), fallback.thinking_level, fallback.warning);
        }
    }
    if let Some(p) = provider
        && let Some(model) = custom_model(p, pattern, all)
    {
        let note =
            format!("Model \"{pattern}\" not found for provider \"{p}\". Using custom model id.");
        let warning = match parsed.warning {
            Some(first) => format!("{first} {note}"),
            None => note,
        };
        return found(model, None, Some(warning));
    }
    let display = match provider {
        Some(p) => format!("{p}/{pattern}"),
        None => cli_model.to_owned(),
    };
    CliModel {
        warning: parsed.warning,
        error: Some(format!(
            "Model \"{display}\" not found. Use --list-models to see available models."
        )),
        ..CliModel::default()
    }
}

fn error(text: &str) -> CliModel {
    CliModel {
        error: Some(text.to_owned()),
        ..CliModel::default()
    }
}

fn found(model: Model, thinking_level: Option<String>, warning: Option<String>) -> CliModel {
    CliModel {
        model: Some(model),
        thinking_level,
        warning,
        error: None,
    }
}

/// The model whose id, or `provider/id`, is `text` (case-insensitive).
fn exact<'a>(text: &str, all: &[&'a Model]) -> Option<&'a Model> {
    let lower = text.to_lowercase();
    all.iter()
        .find(|m| {
            m.id.to_lowercase() == lower
                || format!("{}/{}", m.provider, m.id).to_lowercase() == lower
        })
        .copied()
}

/// pi's `buildFallbackModel`: the provider's default model (else its
/// first) under the id and name `id`.
fn custom_model(provider: &str, id: &str, all: &[&Model]) -> Option<Model> {
    let of_provider: Vec<&Model> = all
        .iter()
        .filter(|m| m.provider.as_str() == provider)
        .copied()
        .collect();
    let base = default_model_id(provider)
        .and_then(|default| of_provider.iter().find(|m| m.id == default))
        .or_else(|| of_provider.first())?;
    let mut model = (*base).clone();
    model.id = id.to_owned();
    model.name = id.to_owned();
    Some(model)
}

#[cfg(test)]
#[path = "cli_model_tests.rs"]
mod tests;
