use std::collections::HashMap;

use crate::{env_api_key_var, get_env_api_key, get_env_api_key_from};

fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    move |name| map.get(name).cloned()
}

fn key(provider: &str, pairs: &[(&str, &str)]) -> Option<String> {
    get_env_api_key_from(provider, env(pairs))
}

const EXISTING_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
const MISSING_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/no-such-adc-file.json");

#[test]
fn single_variable_providers_read_their_variable() {
    let cases = [
        ("openai", "OPENAI_API_KEY"),
        ("azure-openai-responses", "AZURE_OPENAI_API_KEY"),
        ("google", "GEMINI_API_KEY"),
        ("groq", "GROQ_API_KEY"),
        ("cerebras", "CEREBRAS_API_KEY"),
        ("xai", "XAI_API_KEY"),
        ("openrouter", "OPENROUTER_API_KEY"),
        ("vercel-ai-gateway", "AI_GATEWAY_API_KEY"),
        ("zai", "ZAI_API_KEY"),
        ("mistral", "MISTRAL_API_KEY"),
        ("minimax", "MINIMAX_API_KEY"),
        ("minimax-cn", "MINIMAX_CN_API_KEY"),
        ("huggingface", "HF_TOKEN"),
        ("opencode", "OPENCODE_API_KEY"),
        ("opencode-go", "OPENCODE_API_KEY"),
        ("kimi-coding", "KIMI_API_KEY"),
        ("deepseek", "DEEPSEEK_API_KEY"),
        ("moonshotai", "MOONSHOT_API_KEY"),
        ("moonshotai-cn", "MOONSHOT_API_KEY"),
        ("fireworks", "FIREWORKS_API_KEY"),
        ("cloudflare-workers-ai", "CLOUDFLARE_API_KEY"),
        ("cloudflare-ai-gateway", "CLOUDFLARE_API_KEY"),
        ("xiaomi", "XIAOMI_API_KEY"),
        ("xiaomi-token-plan-cn", "XIAOMI_TOKEN_PLAN_CN_API_KEY"),
        ("xiaomi-token-plan-ams", "XIAOMI_TOKEN_PLAN_AMS_API_KEY"),
        ("xiaomi-token-plan-sgp", "XIAOMI_TOKEN_PLAN_SGP_API_KEY"),
    ];
    for (provider, variable) in cases {
        assert_eq!(
            key(provider, &[(variable, "sk-test")]).as_deref(),
            Some("sk-test"),
            "{provider}"
        );
        assert_eq!(key(provider, &[]), None, "{provider}");
        assert_eq!(env_api_key_var(provider), Some(variable), "{provider}");
    }
}

#[test]
fn empty_values_count_as_unset() {
    assert_eq!(key("openai", &[("OPENAI_API_KEY", "")]), None);
    assert_eq!(
        key(
            "anthropic",
            &[
                ("ANTHROPIC_OAUTH_TOKEN", ""),
                ("ANTHROPIC_API_KEY", "sk-ant")
            ]
        )
        .as_deref(),
        Some("sk-ant")
    );
    assert_eq!(
        key(
            "github-copilot",
            &[("COPILOT_GITHUB_TOKEN", ""), ("GH_TOKEN", "")]
        ),
        None
    );
    assert_eq!(key("amazon-bedrock", &[("AWS_PROFILE", "")]), None);
}

#[test]
fn anthropic_oauth_token_takes_precedence() {
    let both = [
        ("ANTHROPIC_OAUTH_TOKEN", "oauth"),
        ("ANTHROPIC_API_KEY", "sk-ant"),
    ];
    assert_eq!(key("anthropic", &both).as_deref(), Some("oauth"));
    assert_eq!(
        key("anthropic", &[("ANTHROPIC_API_KEY", "sk-ant")]).as_deref(),
        Some("sk-ant")
    );
    assert_eq!(env_api_key_var("anthropic"), Some("ANTHROPIC_API_KEY"));
}

#[test]
fn copilot_token_order() {
    let all = [
        ("COPILOT_GITHUB_TOKEN", "copilot"),
        ("GH_TOKEN", "gh"),
        ("GITHUB_TOKEN", "github"),
    ];
    assert_eq!(key("github-copilot", &all).as_deref(), Some("copilot"));
    assert_eq!(key("github-copilot", &all[1..]).as_deref(), Some("gh"));
    assert_eq!(key("github-copilot", &all[2..]).as_deref(), Some("github"));
    assert_eq!(
        env_api_key_var("github-copilot"),
        Some("COPILOT_GITHUB_TOKEN")
    );
}

#[test]
fn vertex_api_key_or_application_default_credentials() {
    assert_eq!(
        key("google-vertex", &[("GOOGLE_CLOUD_API_KEY", "g-key")]).as_deref(),
        Some("g-key")
    );
    let adc = [
        ("GOOGLE_APPLICATION_CREDENTIALS", EXISTING_FILE),
        ("GOOGLE_CLOUD_PROJECT", "proj"),
        ("GOOGLE_CLOUD_LOCATION", "us-central1"),
    ];
    assert_eq!(
        key("google-vertex", &adc).as_deref(),
        Some("<authenticated>")
    );
    let gcloud_project = [
        ("GOOGLE_APPLICATION_CREDENTIALS", EXISTING_FILE),
        ("GCLOUD_PROJECT", "proj"),
        ("GOOGLE_CLOUD_LOCATION", "us-central1"),
    ];
    assert_eq!(
        key("google-vertex", &gcloud_project).as_deref(),
        Some("<authenticated>")
    );
    // Each of credentials file, project and location is required.
    let missing_file = [
        ("GOOGLE_APPLICATION_CREDENTIALS", MISSING_FILE),
        ("GOOGLE_CLOUD_PROJECT", "proj"),
        ("GOOGLE_CLOUD_LOCATION", "us-central1"),
    ];
    assert_eq!(key("google-vertex", &missing_file), None);
    assert_eq!(key("google-vertex", &adc[..2]), None);
    assert_eq!(key("google-vertex", &[adc[0], adc[2]]), None);
    // Without GOOGLE_APPLICATION_CREDENTIALS the gcloud default under HOME is used.
    let home_without_adc = [
        ("HOME", env!("CARGO_MANIFEST_DIR")),
        ("GOOGLE_CLOUD_PROJECT", "proj"),
        ("GOOGLE_CLOUD_LOCATION", "us-central1"),
    ];
    assert_eq!(key("google-vertex", &home_without_adc), None);
    assert_eq!(
        env_api_key_var("google-vertex"),
        Some("GOOGLE_CLOUD_API_KEY")
    );
}

#[test]
fn bedrock_reports_ambient_credentials() {
    for variable in [
        "AWS_PROFILE",
        "AWS_BEARER_TOKEN_BEDROCK",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
    ] {
        assert_eq!(
            key("amazon-bedrock", &[(variable, "x")]).as_deref(),
            Some("<authenticated>"),
            "{variable}"
        );
    }
    let keys = [
        ("AWS_ACCESS_KEY_ID", "id"),
        ("AWS_SECRET_ACCESS_KEY", "secret"),
    ];
    assert_eq!(
        key("amazon-bedrock", &keys).as_deref(),
        Some("<authenticated>")
    );
    assert_eq!(key("amazon-bedrock", &keys[..1]), None);
    assert_eq!(key("amazon-bedrock", &keys[1..]), None);
    assert_eq!(key("amazon-bedrock", &[]), None);
}

#[test]
fn unknown_and_oauth_only_providers_have_no_key() {
    let everything = [("OPENAI_API_KEY", "sk"), ("ANTHROPIC_API_KEY", "sk-ant")];
    for provider in [
        "openai-codex",
        "google-gemini-cli",
        "google-antigravity",
        "nope",
    ] {
        assert_eq!(key(provider, &everything), None, "{provider}");
        assert_eq!(env_api_key_var(provider), None, "{provider}");
    }
}

#[test]
fn process_env_wrapper_handles_unknown_provider() {
    assert_eq!(get_env_api_key("no-such-provider-for-pi-rs-tests"), None);
}

#[test]
fn every_catalog_provider_but_codex_has_a_variable() {
    for provider in crate::get_providers() {
        let variable = env_api_key_var(provider.as_str());
        assert_eq!(
            variable.is_none(),
            provider == "openai-codex",
            "{provider}: {variable:?}"
        );
    }
}
