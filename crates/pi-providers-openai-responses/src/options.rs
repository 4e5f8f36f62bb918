//! Options of an openai-responses call and the model switches that shape it
//! (`thinkingLevelMap`, `compat`).

use pi_ai::{
    CacheRetention, Model, SimpleStreamOptions, StreamOptions, ThinkingLevel, supports_xhigh,
};
use pi_http::WireOptions;
use serde_json::Value;

/// How much of the reasoning the API summarizes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReasoningSummary {
    /// The model picks (pi's default when reasoning).
    Auto,
    /// Short summaries.
    Concise,
    /// Long summaries.
    Detailed,
}

impl ReasoningSummary {
    /// The value sent on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Concise => "concise",
            Self::Detailed => "detailed",
        }
    }
}

/// Options of one openai-responses call: the common options plus the
/// wire's own knobs (pi's `OpenAIResponsesOptions`).
#[derive(Debug, Clone, Default)]
pub struct OpenAiResponsesOptions {
    /// Options every provider takes.
    pub base: StreamOptions,
    /// Reasoning effort; `None` turns reasoning off.
    pub reasoning_effort: Option<ThinkingLevel>,
    /// Reasoning summary mode (`auto` when only an effort is given).
    pub reasoning_summary: Option<ReasoningSummary>,
    /// Service tier (`flex` halves the price, `priority` doubles it).
    pub service_tier: Option<String>,
}

impl WireOptions for OpenAiResponsesOptions {
    fn base(&self) -> &StreamOptions {
        &self.base
    }

    fn base_mut(&mut self) -> &mut StreamOptions {
        &mut self.base
    }

    /// pi's `streamSimpleOpenAIResponses`: `maxTokens` defaults to
    /// `min(model.maxTokens, 32000)`, and the reasoning level is clamped to
    /// what the model supports (`off` sends no effort).
    fn from_simple(model: &Model, options: SimpleStreamOptions) -> Self {
        let max_tokens = options.max_tokens_for(model);
        let reasoning_effort = options
            .reasoning
            .and_then(|level| clamp_thinking_level(model, level));
        let mut base = options.base;
        base.max_tokens = Some(max_tokens);
        Self {
            base,
            reasoning_effort,
            ..Self::default()
        }
    }
}

impl OpenAiResponsesOptions {
    /// Cache retention as pi resolves it: the option, else `long` when the
    /// environment variable `PI_CACHE_RETENTION` is `long`, else `short`.
    pub fn resolved_cache_retention(&self, env_long: bool) -> CacheRetention {
        match self.base.cache_retention {
            Some(retention) => retention,
            None if env_long => CacheRetention::Long,
            None => CacheRetention::Short,
        }
    }

    /// The session id used for prompt caching (`None` when caching is off).
    pub fn cache_session_id(&self) -> Option<&str> {
        match self.base.cache_retention.unwrap_or_default() {
            CacheRetention::None => None,
            CacheRetention::Short | CacheRetention::Long => self.base.session_id.as_deref(),
        }
    }
}

/// One entry of a model's `thinkingLevelMap`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LevelMapping<'a> {
    /// No entry: the provider's default value.
    Default,
    /// `null`: the level is not supported.
    Unsupported,
    /// A model-specific value to send instead.
    Value(&'a str),
}

/// The model's `thinkingLevelMap` entry for `level` (`off`, `minimal`, ... `xhigh`).
pub fn level_mapping<'a>(model: &'a Model, level: &str) -> LevelMapping<'a> {
    match model
        .extra
        .get("thinkingLevelMap")
        .and_then(|map| map.get(level))
    {
        None => LevelMapping::Default,
        Some(Value::Null) => LevelMapping::Unsupported,
        Some(Value::String(value)) => LevelMapping::Value(value),
        Some(_) => LevelMapping::Default,
    }
}

/// A boolean of the model's `compat` object, `default` when unset.
pub(crate) fn compat_flag(model: &Model, name: &str, default: bool) -> bool {
    model
        .compat
        .as_ref()
        .and_then(|compat| compat.get(name))
        .and_then(Value::as_bool)
        .unwrap_or(default)
}

/// Levels from `off` to `xhigh`; `None` stands for `off`.
const LEVELS: [Option<ThinkingLevel>; 6] = [
    None,
    Some(ThinkingLevel::Minimal),
    Some(ThinkingLevel::Low),
    Some(ThinkingLevel::Medium),
    Some(ThinkingLevel::High),
    Some(ThinkingLevel::Xhigh),
];

/// Whether `level` is available on `model` (pi's `getSupportedThinkingLevels`):
/// a model without reasoning knows only `off`; a level mapped to `null` is
/// unavailable; `xhigh` needs a mapping, or, for models without a
/// `thinkingLevelMap` (this catalog predates it), [`supports_xhigh`].
fn level_supported(model: &Model, level: Option<ThinkingLevel>) -> bool {
    let Some(level) = level else {
        return true;
    };
    if !model.reasoning {
        return false;
    }
    match (level_mapping(model, level.as_str()), level) {
        (LevelMapping::Unsupported, _) => false,
        (LevelMapping::Value(_), _) => true,
        (LevelMapping::Default, ThinkingLevel::Xhigh) => {
            !model.extra.contains_key("thinkingLevelMap") && supports_xhigh(model)
        }
        (LevelMapping::Default, _) => true,
    }
}

/// pi's `clampThinkingLevel`: the requested level when the model supports
/// it, else the nearest supported level above it, else the nearest below
/// (`None` = off).
pub fn clamp_thinking_level(model: &Model, level: ThinkingLevel) -> Option<ThinkingLevel> {
    let requested = LEVELS.iter().position(|l| *l == Some(level)).unwrap_or(0);
    let above = LEVELS.iter().skip(requested);
    let below = LEVELS.iter().take(requested).rev();
    above
        .chain(below)
        .copied()
        .find(|candidate| level_supported(model, *candidate))
        .flatten()
}
