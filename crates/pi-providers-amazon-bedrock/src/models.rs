//! What pi decides from a Bedrock model's id and name: Claude or not,
//! adaptive thinking, prompt caching, GovCloud.

use pi_ai::Model;

/// The id and name (when set), lower-cased, each also with runs of
/// whitespace, `_`, `.` and `:` turned into `-` (pi's match candidates).
fn candidates(model: &Model) -> Vec<String> {
    let mut values = vec![model.id.as_str()];
    if !model.name.is_empty() {
        values.push(model.name.as_str());
    }
    values
        .into_iter()
        .flat_map(|value| {
            let lower = value.to_lowercase();
            let mut dashed = String::with_capacity(lower.len());
            let mut in_run = false;
            for c in lower.chars() {
                if c.is_whitespace() || matches!(c, '_' | '.' | ':') {
                    if !in_run {
                        dashed.push('-');
                    }
                    in_run = true;
                } else {
                    dashed.push(c);
                    in_run = false;
                }
            }
            [lower, dashed]
        })
        .collect()
}

/// An Anthropic Claude model: `anthropic.claude` / `anthropic/claude` in
/// the id, or those or `claude` in the name.
pub fn is_anthropic_claude(model: &Model) -> bool {
    let id = model.id.to_lowercase();
    let name = model.name.to_lowercase();
    id.contains("anthropic.claude")
        || id.contains("anthropic/claude")
        || name.contains("anthropic.claude")
        || name.contains("anthropic/claude")
        || name.contains("claude")
}

/// Opus 4.6 / 4.7 and Sonnet 4.6 take adaptive thinking and an effort.
pub fn supports_adaptive_thinking(model: &Model) -> bool {
    candidates(model)
        .iter()
        .any(|s| s.contains("opus-4-6") || s.contains("opus-4-7") || s.contains("sonnet-4-6"))
}

/// Opus 4.7 takes `xhigh` as an effort.
pub fn supports_native_xhigh(model: &Model) -> bool {
    candidates(model).iter().any(|s| s.contains("opus-4-7"))
}

/// Claude 4.x, 3.7 Sonnet and 3.5 Haiku get cache points; other models
/// only with `AWS_BEDROCK_FORCE_CACHE=1` (`force`), unless they are Claude
/// models of other generations.
pub fn supports_prompt_caching(model: &Model, force: bool) -> bool {
    let candidates = candidates(model);
    if !candidates.iter().any(|s| s.contains("claude")) {
        return force;
    }
    candidates.iter().any(|s| {
        s.contains("-4-") || s.contains("claude-3-7-sonnet") || s.contains("claude-3-5-haiku")
    })
}

/// A GovCloud target (its Converse schema has no `thinking.display`):
/// a `us-gov-` region, or a `us-gov.` / `arn:aws-us-gov:` model id.
pub fn is_gov_cloud(model: &Model, region: Option<&str>) -> bool {
    if region.is_some_and(|r| r.to_lowercase().starts_with("us-gov-")) {
        return true;
    }
    let id = model.id.to_lowercase();
    id.starts_with("us-gov.") || id.starts_with("arn:aws-us-gov:")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn model(id: &str, name: &str) -> Model {
        serde_json::from_value(serde_json::json!({
            "id": id, "name": name, "api": "bedrock-converse-stream",
            "provider": "amazon-bedrock", "baseUrl": "https://bedrock-runtime.us-east-1.amazonaws.com",
            "reasoning": true, "input": ["text", "image"],
            "cost": {"input": 3.0, "output": 15.0, "cacheRead": 0.3, "cacheWrite": 3.75},
            "contextWindow": 200000, "maxTokens": 64000
        }))
        .unwrap()
    }

    #[test]
    fn families_follow_the_id_and_the_name() {
        let sonnet = model(
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "Claude Sonnet 4.5",
        );
        assert!(is_anthropic_claude(&sonnet));
        assert!(!supports_adaptive_thinking(&sonnet));
        assert!(supports_prompt_caching(&sonnet, false));
        let opus = model(
            "arn:aws:bedrock:us-east-1:1:application-inference-profile/x",
            "Opus 4.6 claude",
        );
        assert!(is_anthropic_claude(&opus));
        assert!(
            supports_adaptive_thinking(&opus),
            "the name's dots become dashes"
        );
        let nova = model("amazon.nova-pro-v1:0", "Nova Pro");
        assert!(!is_anthropic_claude(&nova));
        assert!(!supports_prompt_caching(&nova, false));
        assert!(supports_prompt_caching(&nova, true));
        let old = model("anthropic.claude-3-haiku-20240307-v1:0", "Claude Haiku 3");
        assert!(
            !supports_prompt_caching(&old, true),
            "force applies to non-Claude ids only"
        );
        assert!(supports_native_xhigh(&model(
            "anthropic.claude-opus-4-7",
            ""
        )));
        assert!(is_gov_cloud(&nova, Some("us-gov-west-1")));
        assert!(is_gov_cloud(&model("us-gov.anthropic.claude-x", ""), None));
        assert!(!is_gov_cloud(&nova, Some("us-east-1")));
    }
}
