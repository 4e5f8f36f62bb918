use pi_ai::Model;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn model(base_url: &str) -> Model {
    serde_json::from_value(json!({
        "id": "gpt-5.2", "name": "GPT", "api": "azure-openai-responses",
        "provider": "azure-openai-responses", "baseUrl": base_url,
        "reasoning": true, "input": ["text"], "contextWindow": 1000, "maxTokens": 100,
    }))
    .unwrap()
}

fn resolve(model: &Model, options: &AzureOpenAiResponsesOptions, env: &AzureEnv) -> String {
    AzureConfig::resolve(model, options, env)
        .map(|c| c.responses_url())
        .unwrap_or_else(|e| e.to_string())
}

#[test]
fn base_url_precedence_and_api_version() {
    let none = AzureOpenAiResponsesOptions::default();
    let env = AzureEnv {
        base_url: Some("  https://env.example.com/custom/  ".into()),
        resource_name: Some("res".into()),
        api_version: Some("2025-04-01-preview".into()),
        deployment_name_map: None,
    };
    assert_eq!(
        resolve(&model("https://model.example.com/v1"), &none, &env),
        "https://env.example.com/custom/responses?api-version=2025-04-01-preview"
    );
    let resource_only = AzureEnv {
        base_url: None,
        ..env.clone()
    };
    assert_eq!(
        resolve(&model(""), &none, &resource_only),
        "https://res.openai.azure.com/openai/v1/responses?api-version=2025-04-01-preview"
    );
    let options = AzureOpenAiResponsesOptions {
        base_url: Some("https://opt.example.com/x".into()),
        api_version: Some("v2 beta".into()),
        ..AzureOpenAiResponsesOptions::default()
    };
    assert_eq!(
        resolve(&model(""), &options, &env),
        "https://opt.example.com/x/responses?api-version=v2%20beta"
    );
    assert_eq!(
        resolve(
            &model("http://127.0.0.1:9/openai/v1/"),
            &none,
            &AzureEnv::default()
        ),
        "http://127.0.0.1:9/openai/v1/responses?api-version=v1"
    );
    assert_eq!(
        resolve(&model(""), &none, &AzureEnv::default()),
        "Azure OpenAI base URL is required. Set AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME, or pass azureBaseUrl, azureResourceName, or model.baseUrl."
    );
    assert_eq!(
        resolve(&model("not a url"), &none, &AzureEnv::default()),
        "Invalid Azure OpenAI base URL: not a url"
    );
}

#[test]
fn azure_hosts_get_the_v1_path() {
    for (given, normalized) in [
        (
            "https://r.openai.azure.com",
            "https://r.openai.azure.com/openai/v1",
        ),
        (
            "https://r.openai.azure.com/",
            "https://r.openai.azure.com/openai/v1",
        ),
        (
            "https://r.openai.azure.com/openai/?x=1",
            "https://r.openai.azure.com/openai/v1",
        ),
        (
            "https://r.cognitiveservices.azure.com/openai",
            "https://r.cognitiveservices.azure.com/openai/v1",
        ),
        (
            "https://r.openai.azure.com/openai/v1//",
            "https://r.openai.azure.com/openai/v1",
        ),
        (
            "https://r.openai.azure.com/other",
            "https://r.openai.azure.com/other",
        ),
        ("https://proxy.example.com", "https://proxy.example.com"),
        (
            "HTTPS://Proxy.Example.com/A/",
            "https://proxy.example.com/A",
        ),
    ] {
        assert_eq!(normalize_base_url(given).unwrap(), normalized, "{given}");
    }
}

#[test]
fn deployment_names_from_the_option_the_map_or_the_model() {
    let map = parse_deployment_name_map(
        " gpt-5.2 = dep-a ,, bad, =x, y=, gpt-4o=d1=extra, gpt-5.2=dep-b ",
    );
    assert_eq!(map.get("gpt-5.2").map(String::as_str), Some("dep-b"));
    assert_eq!(map.get("gpt-4o").map(String::as_str), Some("d1"));
    assert_eq!(map.len(), 2);
    let env = AzureEnv {
        deployment_name_map: Some("gpt-5.2=mapped".into()),
        ..AzureEnv::default()
    };
    let none = AzureOpenAiResponsesOptions::default();
    assert_eq!(deployment_name(&model(""), &none, &env), "mapped");
    assert_eq!(
        deployment_name(&model(""), &none, &AzureEnv::default()),
        "gpt-5.2"
    );
    let blank = AzureEnv {
        deployment_name_map: Some("gpt-5.2= ".into()),
        ..AzureEnv::default()
    };
    assert_eq!(deployment_name(&model(""), &none, &blank), "gpt-5.2");
    let options = AzureOpenAiResponsesOptions {
        deployment_name: Some("explicit".into()),
        ..AzureOpenAiResponsesOptions::default()
    };
    assert_eq!(deployment_name(&model(""), &options, &env), "explicit");
}
