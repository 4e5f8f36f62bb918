use super::*;

fn fixture(name: &str) -> serde_json::Value {
    let path = format!(
        "{}/../../fixtures/models/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn built_in() -> Vec<&'static Model> {
    pi_ai::get_providers()
        .iter()
        .flat_map(|p| pi_ai::get_models(p.as_str()))
        .collect()
}

#[test]
fn defaults_per_provider_are_pis_and_exist_in_the_catalog() {
    let pi = fixture("pi-catalog.json");
    let expected: Vec<(String, String)> = pi["defaults"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(p, id)| (p.clone(), id.as_str().unwrap().to_owned()))
        .collect();
    let ours: Vec<(String, String)> = DEFAULT_MODEL_PER_PROVIDER
        .iter()
        .map(|(p, id)| ((*p).to_owned(), (*id).to_owned()))
        .collect();
    assert_eq!(ours, expected);
    for (provider, id) in DEFAULT_MODEL_PER_PROVIDER {
        assert!(
            pi_ai::get_model(provider, id).is_some(),
            "{provider}/{id} is in the catalog"
        );
    }
}

#[test]
fn the_default_model_follows_pis_provider_order() {
    let anthropic = pi_ai::get_models("anthropic");
    assert_eq!(
        default_available_model(&anthropic).map(|m| m.id.as_str()),
        Some("claude-opus-4-7")
    );
    let mut both: Vec<&Model> = pi_ai::get_models("openai");
    both.extend(pi_ai::get_models("anthropic"));
    assert_eq!(
        default_available_model(&both).map(|m| m.provider.as_str()),
        Some("anthropic"),
        "anthropic comes before openai in pi's list"
    );
    let mut custom = pi_ai::get_model("openai", "gpt-4o").unwrap().clone();
    custom.provider = "local".into();
    assert_eq!(
        default_available_model(&[&custom]).map(|m| m.id.as_str()),
        Some("gpt-4o")
    );
    assert!(default_available_model(&[]).is_none());
}

#[test]
fn scoping_matches_pis_resolver_on_the_captured_cases() {
    let available = built_in();
    let cases = fixture("scope-cases.json");
    for case in cases.as_array().unwrap() {
        let patterns: Vec<String> = case["patterns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap().to_owned())
            .collect();
        let scope = resolve_model_scope(&patterns, &available);
        let got: Vec<serde_json::Value> = scope
            .models
            .iter()
            .map(|s| {
                serde_json::json!({
                    "model": format!("{}/{}", s.model.provider, s.model.id),
                    "thinkingLevel": s.thinking_level,
                })
            })
            .collect();
        assert_eq!(
            serde_json::Value::Array(got),
            case["models"],
            "patterns {patterns:?}"
        );
        assert_eq!(
            serde_json::to_value(&scope.warnings).unwrap(),
            case["warnings"],
            "warnings of {patterns:?}"
        );
    }
}

#[test]
fn exact_references_reject_ambiguous_bare_ids() {
    let available = built_in();
    assert!(find_exact_model_reference_match("gpt-4o", &available).is_none());
    assert_eq!(
        find_exact_model_reference_match(" OpenAI/GPT-4o ", &available)
            .map(|m| m.provider.as_str()),
        Some("openai")
    );
    assert!(find_exact_model_reference_match("  ", &available).is_none());
}

#[test]
fn strict_parsing_refuses_an_invalid_level() {
    let available = built_in();
    let parsed = parse_model_pattern("claude-opus-4-7:bogus", &available, false);
    assert!(parsed.model.is_none());
    let parsed = parse_model_pattern("anthropic/claude-opus-4-7:high", &available, false);
    assert_eq!(parsed.model.map(|m| m.id.as_str()), Some("claude-opus-4-7"));
    assert_eq!(parsed.thinking_level.as_deref(), Some("high"));
}

#[test]
fn aliases_are_undated_or_latest() {
    assert!(is_alias("claude-sonnet-4-5"));
    assert!(is_alias("claude-3-5-haiku-latest"));
    assert!(!is_alias("claude-sonnet-4-5-20250929"));
    assert!(is_alias("model-2025092"));
}
