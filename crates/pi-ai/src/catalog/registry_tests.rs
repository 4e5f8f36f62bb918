use std::collections::HashSet;

use super::registry::{Catalog, EMBEDDED_MODELS_JSON};
use crate::{
    Api, InputModality, ModelCost, Provider, get_model, get_models, get_providers,
    models_are_equal, supports_xhigh,
};

/// pi 0.73.1's catalog facts, captured from pi's own `getProviders` /
/// `getModels` by `fixtures/capture/models_capture.mjs`.
fn pi_catalog() -> serde_json::Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/models/pi-catalog.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

const KNOWN_APIS: [Api; 10] = [
    Api::ANTHROPIC_MESSAGES,
    Api::OPENAI_COMPLETIONS,
    Api::OPENAI_RESPONSES,
    Api::AZURE_OPENAI_RESPONSES,
    Api::OPENAI_CODEX_RESPONSES,
    Api::GOOGLE_GENERATIVE_AI,
    Api::GOOGLE_GEMINI_CLI,
    Api::GOOGLE_VERTEX,
    Api::MISTRAL_CONVERSATIONS,
    Api::BEDROCK_CONVERSE_STREAM,
];

#[test]
fn embedded_catalog_parses() {
    let catalog = Catalog::parse(EMBEDDED_MODELS_JSON).unwrap();
    let pi = pi_catalog();
    assert_eq!(catalog.models.len() as u64, pi["total"].as_u64().unwrap());
    assert_eq!(catalog.models.len(), 969);
    assert_eq!(get_providers().len(), 31);
    // The only field `Model` does not name is pi's per-level thinking map.
    for model in &catalog.models {
        assert!(
            model.extra.keys().all(|key| key == "thinkingLevelMap"),
            "{}/{}: {:?}",
            model.provider,
            model.id,
            model.extra.keys()
        );
    }
}

#[test]
fn embedded_catalog_round_trips_to_the_same_json() {
    let catalog = Catalog::parse(EMBEDDED_MODELS_JSON).unwrap();
    let written = serde_json::to_value(&catalog.models).unwrap();
    let original: serde_json::Value = serde_json::from_str(EMBEDDED_MODELS_JSON).unwrap();
    assert_eq!(written, original);
}

#[test]
fn malformed_catalog_yields_an_empty_catalog() {
    assert!(Catalog::parse("[{\"id\": 1}]").is_err());
    for json in ["{not json", "[{\"id\": 1}]", "{}"] {
        let catalog = Catalog::parse_or_empty(json);
        assert!(catalog.models.is_empty(), "{json}");
        assert!(catalog.get("anthropic", "claude-sonnet-4-5").is_none());
    }
}

#[test]
fn every_model_is_well_formed() {
    let catalog = Catalog::parse(EMBEDDED_MODELS_JSON).unwrap();
    for model in &catalog.models {
        let who = format!("{}/{}", model.provider, model.id);
        assert!(KNOWN_APIS.contains(&model.api), "{who}: api {}", model.api);
        assert!(!model.provider.as_str().is_empty(), "{who}");
        assert!(!model.id.is_empty() && !model.name.is_empty(), "{who}");
        assert!(model.context_window > 0 && model.max_tokens > 0, "{who}");
        assert!(model.input.contains(&InputModality::Text), "{who}");
        // Azure's base URL comes from the user's resource at request time.
        if model.provider != "azure-openai-responses" {
            assert!(
                model.base_url.starts_with("https://"),
                "{who}: {}",
                model.base_url
            );
        }
    }
}

#[test]
fn no_duplicate_provider_and_id() {
    let catalog = Catalog::parse(EMBEDDED_MODELS_JSON).unwrap();
    let mut seen = HashSet::new();
    for model in &catalog.models {
        assert!(
            seen.insert((model.provider.as_str(), model.id.as_str())),
            "duplicate {}/{}",
            model.provider,
            model.id
        );
    }
}

#[test]
fn providers_in_catalog_order_with_their_model_counts() {
    let pi = pi_catalog();
    let counts = pi["counts"].as_object().unwrap();
    let providers = get_providers();
    let names: Vec<&str> = providers.iter().map(Provider::as_str).collect();
    let expected: Vec<&str> = counts.keys().map(String::as_str).collect();
    assert_eq!(names, expected);
    for (provider, count) in counts {
        let models = get_models(provider);
        assert_eq!(models.len() as u64, count.as_u64().unwrap(), "{provider}");
        assert!(
            models
                .iter()
                .all(|model| model.provider == provider.as_str())
        );
    }
    assert!(get_models("no-such-provider").is_empty());
}

#[test]
fn sampled_entries_equal_pis_values() {
    let pi = pi_catalog();
    let samples = pi["samples"].as_array().unwrap();
    assert!(samples.len() > 40, "{}", samples.len());
    for sample in samples {
        let (provider, id) = (
            sample["provider"].as_str().unwrap(),
            sample["id"].as_str().unwrap(),
        );
        let model = get_model(provider, id).unwrap_or_else(|| panic!("{provider}/{id} missing"));
        assert_eq!(
            &serde_json::to_value(model).unwrap(),
            sample,
            "{provider}/{id}"
        );
    }
    assert!(
        samples.iter().any(|s| s.get("thinkingLevelMap").is_some())
            && samples.iter().any(|s| s.get("compat").is_some())
            && samples.iter().any(|s| s.get("headers").is_some()),
        "the sample covers thinking maps, compat and headers"
    );
}

#[test]
fn claude_sonnet_4_5_has_pi_values() {
    let model = get_model("anthropic", "claude-sonnet-4-5").unwrap();
    assert_eq!(model.name, "Claude Sonnet 4.5 (latest)");
    assert_eq!(model.api, Api::ANTHROPIC_MESSAGES);
    assert_eq!(model.provider, Provider::ANTHROPIC);
    assert_eq!(model.base_url, "https://api.anthropic.com");
    assert!(model.reasoning);
    assert_eq!(model.input, vec![InputModality::Text, InputModality::Image]);
    assert_eq!(
        model.cost,
        ModelCost {
            input: 3.0,
            output: 15.0,
            cache_read: 0.3,
            cache_write: 3.75
        }
    );
    assert_eq!(model.context_window, 200_000);
    assert_eq!(model.max_tokens, 64_000);
    assert!(model.headers.is_none() && model.compat.is_none());
}

#[test]
fn flagship_models_have_pi_limits_and_prices() {
    let opus = get_model("anthropic", "claude-opus-4-6").unwrap();
    assert_eq!((opus.context_window, opus.max_tokens), (1_000_000, 128_000));
    assert_eq!((opus.cost.input, opus.cost.output), (5.0, 25.0));

    let haiku = get_model("anthropic", "claude-haiku-4-5").unwrap();
    assert_eq!(
        (haiku.cost.input, haiku.cost.output, haiku.cost.cache_write),
        (1.0, 5.0, 1.25)
    );

    let gpt4o = get_model("openai", "gpt-4o").unwrap();
    assert_eq!(gpt4o.api, Api::OPENAI_RESPONSES);
    assert_eq!(gpt4o.base_url, "https://api.openai.com/v1");
    assert_eq!((gpt4o.context_window, gpt4o.max_tokens), (128_000, 16_384));
    assert!(!gpt4o.reasoning);

    let gpt41 = get_model("openai", "gpt-4.1").unwrap();
    assert_eq!(gpt41.context_window, 1_047_576);

    let gpt5 = get_model("openai", "gpt-5").unwrap();
    assert_eq!((gpt5.context_window, gpt5.max_tokens), (400_000, 128_000));
    assert_eq!(
        (gpt5.cost.input, gpt5.cost.output, gpt5.cost.cache_read),
        (1.25, 10.0, 0.125)
    );
    assert!(gpt5.reasoning);

    let o4_mini = get_model("openai", "o4-mini").unwrap();
    assert_eq!((o4_mini.cost.input, o4_mini.cost.output), (1.1, 4.4));

    let codex = get_model("openai-codex", "gpt-5.3-codex").unwrap();
    assert_eq!(codex.api, Api::OPENAI_CODEX_RESPONSES);
    assert_eq!(codex.base_url, "https://chatgpt.com/backend-api");
    assert_eq!(codex.context_window, 272_000);

    let gemini = get_model("google", "gemini-2.5-pro").unwrap();
    assert_eq!(gemini.api, Api::GOOGLE_GENERATIVE_AI);
    assert_eq!(
        gemini.base_url,
        "https://generativelanguage.googleapis.com/v1beta"
    );
    assert_eq!(
        (gemini.context_window, gemini.max_tokens),
        (1_048_576, 65_536)
    );
    assert_eq!(
        (
            gemini.cost.input,
            gemini.cost.output,
            gemini.cost.cache_read
        ),
        (1.25, 10.0, 0.125)
    );

    let flash = get_model("google", "gemini-2.5-flash").unwrap();
    assert_eq!((flash.cost.input, flash.cost.output), (0.3, 2.5));
    assert!(get_model("google", "gemini-2.5-flash-lite").is_some());
    assert!(get_model("google", "gemini-3-pro-preview").is_some());

    let groq = get_model("groq", "llama-3.3-70b-versatile").unwrap();
    assert_eq!(groq.api, Api::OPENAI_COMPLETIONS);
    assert_eq!(groq.base_url, "https://api.groq.com/openai/v1");

    let grok = get_model("xai", "grok-4").unwrap();
    assert_eq!((grok.context_window, grok.max_tokens), (256_000, 64_000));

    let mistral = get_model("mistral", "devstral-medium-latest").unwrap();
    assert_eq!(mistral.api, Api::MISTRAL_CONVERSATIONS);

    let cerebras = get_model("cerebras", "gpt-oss-120b").unwrap();
    assert_eq!(cerebras.base_url, "https://api.cerebras.ai/v1");

    let openrouter = get_model("openrouter", "anthropic/claude-sonnet-4.5").unwrap();
    assert_eq!(openrouter.base_url, "https://openrouter.ai/api/v1");
    assert_eq!(openrouter.context_window, 1_000_000);
}

#[test]
fn headers_and_compat_are_kept() {
    let zai = get_model("zai", "glm-5.1").unwrap();
    assert_eq!(
        zai.compat,
        Some(
            serde_json::json!({"supportsDeveloperRole": false, "thinkingFormat": "zai", "zaiToolStream": true})
        )
    );
    let copilot = get_model("github-copilot", "claude-sonnet-4.5").unwrap();
    let headers = copilot.headers.as_ref().unwrap();
    assert_eq!(
        headers.get("Copilot-Integration-Id").map(String::as_str),
        Some("vscode-chat")
    );
    assert_eq!(headers.len(), 4);
}

#[test]
fn unknown_models_are_none() {
    assert!(get_model("anthropic", "gpt-4o").is_none());
    assert!(get_model("no-such-provider", "gpt-4o").is_none());
    assert!(get_model("openai", "").is_none());
}

#[test]
fn models_are_equal_compares_id_and_provider() {
    let openai = get_model("openai", "gpt-5.2").unwrap();
    let codex = get_model("openai-codex", "gpt-5.2").unwrap();
    assert!(models_are_equal(openai, openai));
    assert!(!models_are_equal(openai, codex));
    assert!(!models_are_equal(
        openai,
        get_model("openai", "gpt-5.1").unwrap()
    ));
    let mut renamed = openai.clone();
    renamed.name = "Renamed".into();
    renamed.context_window = 1;
    assert!(models_are_equal(openai, &renamed));
}

#[test]
fn supports_xhigh_follows_pi_rule() {
    for (provider, id) in [
        ("openai", "gpt-5.2"),
        ("openai", "gpt-5.2-codex"),
        ("openai", "gpt-5.3-codex"),
        ("openai", "gpt-5.4"),
        ("openai-codex", "gpt-5.4"),
        ("anthropic", "claude-opus-4-6"),
        ("github-copilot", "claude-opus-4.6"),
        ("amazon-bedrock", "us.anthropic.claude-opus-4-6-v1"),
    ] {
        assert!(
            supports_xhigh(get_model(provider, id).unwrap()),
            "{provider}/{id}"
        );
    }
    for (provider, id) in [
        ("openai", "gpt-5"),
        ("openai", "gpt-5.1-codex-max"),
        ("openai", "o3"),
        ("anthropic", "claude-opus-4-5"),
        ("anthropic", "claude-sonnet-4-6"),
        ("google", "gemini-3-pro-preview"),
    ] {
        assert!(
            !supports_xhigh(get_model(provider, id).unwrap()),
            "{provider}/{id}"
        );
    }
}

#[test]
fn the_owned_list_and_the_provider_scan_match_the_shared_catalog() {
    let shared = Catalog::parse(EMBEDDED_MODELS_JSON).unwrap();
    let mut providers: Vec<Provider> = Vec::new();
    for model in &shared.models {
        if !providers.contains(&model.provider) {
            providers.push(model.provider.clone());
        }
    }
    assert_eq!(get_providers(), providers);
    let expected: Vec<&crate::Model> = providers
        .iter()
        .flat_map(|p| shared.of_provider(p.as_str()))
        .collect();
    let owned = crate::builtin_models();
    assert_eq!(owned.len(), expected.len());
    for (mine, theirs) in owned.iter().zip(&expected) {
        assert_eq!(
            serde_json::to_value(mine).unwrap(),
            serde_json::to_value(theirs).unwrap()
        );
    }
}
