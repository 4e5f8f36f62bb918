//! `resolve_cli_model` against pi 0.73.1's `resolveCliModel` over the
//! built-in catalog (fixtures/pi-0.73.1/cli-model/resolve.json, made by
//! fixtures/capture/cli_model_capture.mjs).

use serde_json::Value;

use super::*;

fn pi_cases() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/pi-0.73.1/cli-model/resolve.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn every_captured_case_resolves_as_pi_resolves_it() {
    let catalog = pi_ai::builtin_models();
    let all: Vec<&Model> = catalog.iter().collect();
    let cases = pi_cases();
    assert!(cases.len() > 20);
    for case in cases {
        let ours = resolve_cli_model(
            case["provider"].as_str(),
            case["model"].as_str().unwrap(),
            &all,
        );
        let resolved = ours
            .model
            .as_ref()
            .map(|m| format!("{}/{}", m.provider, m.id));
        let what = format!("{case}");
        assert_eq!(resolved.as_deref(), case["resolved"].as_str(), "{what}");
        assert_eq!(
            ours.model.as_ref().map(|m| m.name.as_str()),
            case["name"].as_str(),
            "{what}"
        );
        assert_eq!(
            ours.thinking_level.as_deref(),
            case["thinkingLevel"].as_str(),
            "{what}"
        );
        assert_eq!(ours.warning.as_deref(), case["warning"].as_str(), "{what}");
        assert_eq!(ours.error.as_deref(), case["error"].as_str(), "{what}");
    }
}

#[test]
fn a_custom_id_is_built_on_the_provider_default() {
    let catalog = pi_ai::builtin_models();
    let all: Vec<&Model> = catalog.iter().collect();
    let ours = resolve_cli_model(None, "openai/my-custom-model", &all);
    let model = ours.model.unwrap();
    let base = catalog
        .iter()
        .find(|m| m.provider.as_str() == "openai" && m.id == "gpt-5.4")
        .unwrap();
    assert_eq!(model.api, base.api);
    assert_eq!(model.base_url, base.base_url);
    assert_eq!(model.context_window, base.context_window);
}

#[test]
fn no_models_at_all_is_pi_s_error() {
    let ours = resolve_cli_model(None, "x", &[]);
    assert_eq!(
        ours.error.as_deref(),
        Some("No models available. Check your installation or add models to models.json.")
    );
}
