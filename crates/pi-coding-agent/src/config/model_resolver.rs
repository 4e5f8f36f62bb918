//! Model scoping and default choice as pi's `model-resolver.ts` does them:
//! `--models` / `enabledModels` patterns (globs over `provider/id` or `id`,
//! otherwise exact references, then fuzzy id/name matches preferring
//! aliases), and pi's default model of each provider.

use globset::GlobBuilder;
use icu_collator::Collator;
use icu_collator::options::CollatorOptions;
use pi_ai::Model;

/// pi's default model id of each known provider, in pi's order (the order
/// in which a default is looked for among the usable models).
pub const DEFAULT_MODEL_PER_PROVIDER: &[(&str, &str)] = &[
    ("amazon-bedrock", "us.anthropic.claude-opus-4-6-v1"),
    ("anthropic", "claude-opus-4-7"),
    ("openai", "gpt-5.4"),
    ("azure-openai-responses", "gpt-5.4"),
    ("openai-codex", "gpt-5.5"),
    ("deepseek", "deepseek-v4-pro"),
    ("google", "gemini-3.1-pro-preview"),
    ("google-vertex", "gemini-3.1-pro-preview"),
    ("github-copilot", "gpt-5.4"),
    ("openrouter", "moonshotai/kimi-k2.6"),
    ("vercel-ai-gateway", "zai/glm-5.1"),
    ("xai", "grok-4.20-0309-reasoning"),
    ("groq", "openai/gpt-oss-120b"),
    ("cerebras", "zai-glm-4.7"),
    ("zai", "glm-5.1"),
    ("mistral", "devstral-medium-latest"),
    ("minimax", "MiniMax-M2.7"),
    ("minimax-cn", "MiniMax-M2.7"),
    ("moonshotai", "kimi-k2.6"),
    ("moonshotai-cn", "kimi-k2.6"),
    ("huggingface", "moonshotai/Kimi-K2.6"),
    ("fireworks", "accounts/fireworks/models/kimi-k2p6"),
    ("opencode", "kimi-k2.6"),
    ("opencode-go", "kimi-k2.6"),
    ("kimi-coding", "kimi-for-coding"),
    ("cloudflare-workers-ai", "@cf/moonshotai/kimi-k2.6"),
    (
        "cloudflare-ai-gateway",
        "workers-ai/@cf/moonshotai/kimi-k2.6",
    ),
    ("xiaomi", "mimo-v2.5-pro"),
    ("xiaomi-token-plan-cn", "mimo-v2.5-pro"),
    ("xiaomi-token-plan-ams", "mimo-v2.5-pro"),
    ("xiaomi-token-plan-sgp", "mimo-v2.5-pro"),
];

/// The thinking levels a pattern may end with (`pattern:level`).
const THINKING_LEVELS: [&str; 6] = pi_ai::ThinkingLevel::SETTING_NAMES;

/// pi's default model id for `provider`, if it has one.
pub fn default_model_id(provider: &str) -> Option<&'static str> {
    DEFAULT_MODEL_PER_PROVIDER
        .iter()
        .find(|(name, _)| *name == provider)
        .map(|(_, id)| *id)
}

/// The model pi starts with when nothing is configured: the first provider
/// (in pi's order) whose default model is among `available`, else the first
/// available model.
pub fn default_available_model<'a>(available: &[&'a Model]) -> Option<&'a Model> {
    DEFAULT_MODEL_PER_PROVIDER
        .iter()
        .find_map(|(provider, id)| {
            available
                .iter()
                .find(|m| m.provider.as_str() == *provider && m.id == *id)
        })
        .or_else(|| available.first())
        .copied()
}

/// One model in scope, with the thinking level its pattern named.
#[derive(Debug, Clone, PartialEq)]
pub struct ScopedModel {
    /// The model.
    pub model: Model,
    /// `off` ... `xhigh` when the pattern ended with `:level`; `None` keeps
    /// the session's level.
    pub thinking_level: Option<String>,
}

/// The result of resolving scope patterns.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelScope {
    /// The models in pattern order, each once.
    pub models: Vec<ScopedModel>,
    /// pi's warnings (`Warning: No models match pattern "x"`, ...).
    pub warnings: Vec<String>,
}

/// Resolves `patterns` against `available` as pi's `resolveModelScope`:
/// a pattern with `*`, `?` or `[` is a case-insensitive glob over
/// `provider/id` or `id` (an optional `:level` suffix applies to every
/// match); any other is an exact reference or else the best fuzzy match.
pub fn resolve_model_scope(patterns: &[String], available: &[&Model]) -> ModelScope {
    let mut scope = ModelScope::default();
    let push = |scope: &mut ModelScope, model: &Model, level: Option<String>| {
        if !scope
            .models
            .iter()
            .any(|s| s.model.provider == model.provider && s.model.id == model.id)
        {
            scope.models.push(ScopedModel {
                model: model.clone(),
                thinking_level: level,
            });
        }
    };
    for pattern in patterns {
        if pattern.contains(['*', '?', '[']) {
            let (glob, level) = match pattern.rsplit_once(':') {
                Some((glob, level)) if THINKING_LEVELS.contains(&level) => {
                    (glob, Some(level.to_owned()))
                }
                _ => (pattern.as_str(), None),
            };
            let matches = glob_matches(glob, available);
            if matches.is_empty() {
                scope
                    .warnings
                    .push(format!("Warning: No models match pattern \"{pattern}\""));
            }
            for model in matches {
                push(&mut scope, model, level.clone());
            }
            continue;
        }
        let parsed = parse_model_pattern(pattern, available, true);
        if let Some(warning) = &parsed.warning {
            scope.warnings.push(format!("Warning: {warning}"));
        }
        match parsed.model {
            Some(model) => push(&mut scope, model, parsed.thinking_level),
            None => scope
                .warnings
                .push(format!("Warning: No models match pattern \"{pattern}\"")),
        }
    }
    scope
}

/// The models whose `provider/id` or `id` matches `glob` (minimatch with
/// `nocase`: `*` and `?` stop at `/`). An invalid glob matches nothing.
fn glob_matches<'a>(glob: &str, available: &[&'a Model]) -> Vec<&'a Model> {
    let matcher = match GlobBuilder::new(glob)
        .case_insensitive(true)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
    {
        Ok(glob) => glob.compile_matcher(),
        Err(e) => {
            tracing::warn!("invalid model pattern {glob:?}: {e}");
            return Vec::new();
        }
    };
    available
        .iter()
        .filter(|m| matcher.is_match(format!("{}/{}", m.provider, m.id)) || matcher.is_match(&m.id))
        .copied()
        .collect()
}

/// A pattern resolved to one model (pi's `parseModelPattern`).
#[derive(Debug, Clone, Default)]
pub struct ParsedPattern<'a> {
    /// The model, if any matched.
    pub model: Option<&'a Model>,
    /// The `:level` suffix, when valid.
    pub thinking_level: Option<String>,
    /// Why a suffix was ignored.
    pub warning: Option<String>,
}

/// Matches `pattern` against `available`: the whole pattern first, then,
/// while it has colons, the part before the last one (a valid thinking
/// level there is kept; an invalid one is a warning when
/// `allow_invalid_level` is set, and a failed match otherwise).
pub fn parse_model_pattern<'a>(
    pattern: &str,
    available: &[&'a Model],
    allow_invalid_level: bool,
) -> ParsedPattern<'a> {
    if let Some(model) = try_match_model(pattern, available) {
        return ParsedPattern {
            model: Some(model),
            ..ParsedPattern::default()
        };
    }
    let Some((prefix, suffix)) = pattern.rsplit_once(':') else {
        return ParsedPattern::default();
    };
    if THINKING_LEVELS.contains(&suffix) {
        let inner = parse_model_pattern(prefix, available, allow_invalid_level);
        if inner.model.is_some() && inner.warning.is_none() {
            return ParsedPattern {
                thinking_level: Some(suffix.to_owned()),
                ..inner
            };
        }
        return inner;
    }
    if !allow_invalid_level {
        return ParsedPattern::default();
    }
    let inner = parse_model_pattern(prefix, available, allow_invalid_level);
    if inner.model.is_some() {
        return ParsedPattern {
            model: inner.model,
            thinking_level: None,
            warning: Some(format!(
                "Invalid thinking level \"{suffix}\" in pattern \"{pattern}\". Using default instead."
            )),
        };
    }
    inner
}

/// An exact reference (`provider/id` or a bare id, case-insensitive, unique)
/// or else the best model whose id or name contains `pattern`: the highest
/// sorting alias, else the highest sorting dated id.
fn try_match_model<'a>(pattern: &str, available: &[&'a Model]) -> Option<&'a Model> {
    if let Some(exact) = find_exact_model_reference_match(pattern, available) {
        return Some(exact);
    }
    let needle = pattern.to_lowercase();
    let (aliases, dated): (Vec<&Model>, Vec<&Model>) = available
        .iter()
        .filter(|m| {
            m.id.to_lowercase().contains(&needle) || m.name.to_lowercase().contains(&needle)
        })
        .copied()
        .partition(|m| is_alias(&m.id));
    let pool = if aliases.is_empty() { dated } else { aliases };
    highest_by_locale(pool)
}

/// The model whose id sorts last under Node's `localeCompare` (ICU root
/// collation); the first of equals.
fn highest_by_locale(pool: Vec<&Model>) -> Option<&Model> {
    let collator = Collator::try_new(Default::default(), CollatorOptions::default()).ok();
    pool.into_iter().reduce(|best, next| {
        let ordering = match &collator {
            Some(collator) => collator.compare(&next.id, &best.id),
            None => next.id.cmp(&best.id),
        };
        if ordering.is_gt() { next } else { best }
    })
}

/// pi's `findExactModelReferenceMatch`: a unique case-insensitive
/// `provider/id`, else a unique provider and id split at the first `/`,
/// else a unique bare id.
pub fn find_exact_model_reference_match<'a>(
    reference: &str,
    available: &[&'a Model],
) -> Option<&'a Model> {
    let trimmed = reference.trim();
    if trimmed.is_empty() {
        return None;
    }
    let normalized = trimmed.to_lowercase();
    let unique = |matches: Vec<&'a Model>| -> Result<Option<&'a Model>, ()> {
        match matches.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(*one)),
            _ => Err(()),
        }
    };
    let canonical = available
        .iter()
        .filter(|m| format!("{}/{}", m.provider, m.id).to_lowercase() == normalized)
        .copied()
        .collect();
    match unique(canonical) {
        Ok(Some(model)) => return Some(model),
        Err(()) => return None,
        Ok(None) => {}
    }
    if let Some((provider, id)) = trimmed.split_once('/') {
        let (provider, id) = (provider.trim().to_lowercase(), id.trim().to_lowercase());
        if !provider.is_empty() && !id.is_empty() {
            let by_provider = available
                .iter()
                .filter(|m| {
                    m.provider.as_str().to_lowercase() == provider && m.id.to_lowercase() == id
                })
                .copied()
                .collect();
            match unique(by_provider) {
                Ok(Some(model)) => return Some(model),
                Err(()) => return None,
                Ok(None) => {}
            }
        }
    }
    let by_id = available
        .iter()
        .filter(|m| m.id.to_lowercase() == normalized)
        .copied()
        .collect();
    unique(by_id).ok().flatten()
}

/// An id without a `-YYYYMMDD` date suffix, or one ending in `-latest`.
fn is_alias(id: &str) -> bool {
    if id.ends_with("-latest") {
        return true;
    }
    let bytes = id.as_bytes();
    let dated = bytes.len() >= 9
        && bytes[bytes.len() - 9] == b'-'
        && bytes[bytes.len() - 8..].iter().all(u8::is_ascii_digit);
    !dated
}

#[cfg(test)]
#[path = "model_resolver_tests.rs"]
mod tests;
