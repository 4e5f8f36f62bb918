//! Cloudflare Workers AI and AI Gateway, as pi-ai 0.73.1 addresses them:
//! `{VAR}` placeholders in their base URLs (the account id, the gateway
//! id) are filled from the environment, and the gateway is authorized with
//! `cf-aig-authorization` instead of the wire's own key header.

use std::borrow::Cow;

use pi_ai::Model;

use crate::wire::WireHeaders;

/// The Workers AI provider.
pub const WORKERS_AI: &str = "cloudflare-workers-ai";
/// The AI Gateway provider.
pub const AI_GATEWAY: &str = "cloudflare-ai-gateway";

/// A placeholder of a Cloudflare base URL whose variable is unset or empty
/// (pi's wording).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{name} is required for provider {provider} but is not set.")]
pub struct BaseUrlError {
    /// The environment variable.
    pub name: String,
    /// The model's provider.
    pub provider: String,
}

/// True for the two Cloudflare providers.
pub fn is_cloudflare_provider(provider: &str) -> bool {
    provider == WORKERS_AI || provider == AI_GATEWAY
}

/// `model` with the `{NAME}` placeholders of its base URL replaced by the
/// values `lookup` gives (`NAME` is an upper-case letter or `_`, then
/// upper-case letters, digits and `_`), for a Cloudflare provider; other
/// models, and URLs without a placeholder, are borrowed unchanged.
pub fn resolve_model<'m>(
    model: &'m Model,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<Cow<'m, Model>, BaseUrlError> {
    if !is_cloudflare_provider(model.provider.as_str()) || !model.base_url.contains('{') {
        return Ok(Cow::Borrowed(model));
    }
    let url = fill_placeholders(&model.base_url, |name| {
        lookup(name)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| BaseUrlError {
                name: name.to_owned(),
                provider: model.provider.as_str().to_owned(),
            })
    })?;
    let mut resolved = model.clone();
    resolved.base_url = url;
    Ok(Cow::Owned(resolved))
}

/// `text` with every `{NAME}` replaced by `value(NAME)`; braces around
/// anything else stay as they are.
fn fill_placeholders<E>(
    text: &str,
    value: impl Fn(&str) -> Result<String, E>,
) -> Result<String, E> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let name_len = after
            .find('}')
            .filter(|&end| is_variable_name(&after[..end]));
        match name_len {
            Some(end) => {
                out.push_str(&value(&after[..end])?);
                rest = &after[end + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    Ok(out)
}

fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_uppercase() || c == '_')
        && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// The AI Gateway's authorization, as pi sets it: the key goes in
/// `cf-aig-authorization: Bearer <key>` and the wire's own `authorization`
/// and `x-api-key` are not sent (a model's or call's own headers still
/// are). For the Anthropic passthrough the model's and call's headers may
/// override it; for the OpenAI ones it is set last.
pub fn apply_gateway_auth(headers: &mut WireHeaders, model: &Model, api_key: &str) {
    if model.provider.as_str() != AI_GATEWAY {
        return;
    }
    headers.base.remove("authorization");
    headers.base.remove("x-api-key");
    let value = format!("Bearer {api_key}");
    if model.api == pi_ai::Api::ANTHROPIC_MESSAGES {
        headers.base.set("cf-aig-authorization", &value);
    } else {
        headers.fixed.set("cf-aig-authorization", &value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(provider: &str, base_url: &str) -> Model {
        let mut model = pi_ai::builtin_models()
            .into_iter()
            .find(|m| m.provider.as_str() == WORKERS_AI)
            .unwrap_or_else(|| panic!("the catalog has Workers AI models"));
        model.provider = provider.into();
        model.base_url = base_url.to_owned();
        model
    }

    fn env(name: &str) -> Option<String> {
        match name {
            "CLOUDFLARE_ACCOUNT_ID" => Some("acct-1".to_owned()),
            "CLOUDFLARE_GATEWAY_ID" => Some("gw-2".to_owned()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    #[test]
    fn placeholders_are_filled_from_the_environment() {
        let m = model(
            AI_GATEWAY,
            "https://gateway.ai.cloudflare.com/v1/{CLOUDFLARE_ACCOUNT_ID}/{CLOUDFLARE_GATEWAY_ID}/compat",
        );
        let resolved = resolve_model(&m, env).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            resolved.base_url,
            "https://gateway.ai.cloudflare.com/v1/acct-1/gw-2/compat"
        );
    }

    #[test]
    fn an_unset_or_empty_variable_is_pi_s_error() {
        for name in ["CLOUDFLARE_MISSING", "EMPTY"] {
            let m = model(WORKERS_AI, &format!("https://x/{{{name}}}/ai/v1"));
            let error = resolve_model(&m, env).err();
            assert_eq!(
                error.map(|e| e.to_string()),
                Some(format!(
                    "{name} is required for provider cloudflare-workers-ai but is not set."
                ))
            );
        }
    }

    #[test]
    fn other_providers_and_other_braces_are_left_alone() {
        let other = model("openai", "https://x/{CLOUDFLARE_ACCOUNT_ID}");
        let kept = resolve_model(&other, env).unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(kept, Cow::Borrowed(_)));
        let odd = model(WORKERS_AI, "https://x/{lower}/{}/{CLOUDFLARE_ACCOUNT_ID}");
        let filled = resolve_model(&odd, env).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(filled.base_url, "https://x/{lower}/{}/acct-1");
    }

    #[test]
    fn the_gateway_moves_the_key_to_its_own_header() {
        let mut headers = WireHeaders::default();
        headers.base.set("authorization", "Bearer k");
        headers.base.set("accept", "application/json");
        let mut gateway = model(AI_GATEWAY, "https://x");
        gateway.api = pi_ai::Api::OPENAI_COMPLETIONS;
        apply_gateway_auth(&mut headers, &gateway, "k");
        assert_eq!(headers.base.get("authorization"), None);
        assert_eq!(headers.fixed.get("cf-aig-authorization"), Some("Bearer k"));

        let mut anthropic = WireHeaders::default();
        anthropic.base.set("x-api-key", "k");
        gateway.api = pi_ai::Api::ANTHROPIC_MESSAGES;
        apply_gateway_auth(&mut anthropic, &gateway, "k");
        assert_eq!(anthropic.base.get("x-api-key"), None);
        assert_eq!(anthropic.base.get("cf-aig-authorization"), Some("Bearer k"));

        let mut workers = WireHeaders::default();
        workers.base.set("authorization", "Bearer k");
        apply_gateway_auth(&mut workers, &model(WORKERS_AI, "https://x"), "k");
        assert_eq!(workers.base.get("authorization"), Some("Bearer k"));
    }
}
