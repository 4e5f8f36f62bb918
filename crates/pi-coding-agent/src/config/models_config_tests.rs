use super::*;

fn fixture() -> ModelsFile {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pi-0.73.1/models.json");
    ModelsFile::load(&path).unwrap()
}

fn anthropic() -> Vec<Model> {
    pi_ai::get_models("anthropic")
        .into_iter()
        .cloned()
        .collect()
}

fn load_text(text: &str) -> Result<ModelsFile, String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("models.json");
    std::fs::write(&path, text).unwrap();
    ModelsFile::load(&path).map_err(|e| {
        let shown = e.to_string();
        let suffix = format!("\n\nFile: {}", path.display());
        assert!(shown.ends_with(&suffix), "{shown}");
        shown.trim_end_matches(&suffix).to_owned()
    })
}

#[test]
fn the_fixture_models_file_defines_the_mock_providers() {
    let models = fixture().models(&[]);
    assert_eq!(models.len(), 8);
    let gpt = models.iter().find(|m| m.id == "mock-gpt").unwrap();
    assert_eq!(gpt.provider.as_str(), "mock-oai");
    assert_eq!(gpt.api, Api::OPENAI_COMPLETIONS);
    assert_eq!(gpt.base_url, "http://127.0.0.1:18777/v1");
    assert_eq!(
        (gpt.context_window, gpt.max_tokens, gpt.reasoning),
        (128_000, 4096, false)
    );
    assert_eq!(gpt.name, "Mock GPT");
    assert!(
        models
            .iter()
            .find(|m| m.id == "mock-claude-think")
            .unwrap()
            .reasoning
    );
    assert_eq!(
        fixture().api_key_spec("mock-ant"),
        Some("sk-ant-mock-anthropic-messages")
    );
}

#[test]
fn schema_errors_name_the_file_and_the_field() {
    let err = load_text(
        r#"{"providers":{"local":{"baseUrl":"http://x","apiKey":"k","api":"openai-completions","models":[{"id":"m","contextWindow":"big"}]}}}"#,
    )
    .unwrap_err();
    assert!(
        err.starts_with(
            "Invalid models.json schema:\n  - providers.local.models.0.contextWindow: invalid type: string \"big\""
        ),
        "{err}"
    );
    let err = load_text(r#"{"providers":{"local":{"models":[{"name":"no id"}]}}}"#).unwrap_err();
    assert!(
        err.starts_with(
            "Invalid models.json schema:\n  - providers.local.models.0: missing field `id`"
        ),
        "{err}"
    );
    let err = load_text(r#"{"nope":1}"#).unwrap_err();
    assert!(err.contains("  - root: missing field `providers`"), "{err}");
    let err = load_text(r#"{"providers":{"x":[]}}"#).unwrap_err();
    assert!(
        err.contains("  - providers.x: expected an object, found an array"),
        "{err}"
    );
    let err = load_text(r#"{"providers":{"x":{"models":[5]}}}"#).unwrap_err();
    assert!(
        err.contains("  - providers.x.models.0: invalid type: integer `5`, expected an object"),
        "{err}"
    );
    // Not "expected struct ModelsFile": what the file should hold.
    let err = load_text("[]").unwrap_err();
    assert!(
        err.contains("  - root: expected an object like {\"providers\": {...}}, found an array"),
        "{err}"
    );
    let err = load_text("{not json").unwrap_err();
    assert!(err.starts_with("Failed to parse models.json: "), "{err}");
}

#[test]
fn pi_validation_messages() {
    let cases = [
        (
            r#"{"providers":{"anthropic":{}}}"#,
            "Provider anthropic: must specify \"baseUrl\", \"headers\", \"compat\", \"modelOverrides\", or \"models\".",
        ),
        (
            r#"{"providers":{"local":{"apiKey":"k","api":"openai-completions","models":[{"id":"m"}]}}}"#,
            "Provider local: \"baseUrl\" is required when defining custom models.",
        ),
        (
            r#"{"providers":{"local":{"baseUrl":"http://x","models":[{"id":"m"}]}}}"#,
            "Provider local: \"apiKey\" is required when defining custom models.",
        ),
        (
            r#"{"providers":{"local":{"baseUrl":"http://x","apiKey":"k","models":[{"id":"m"}]}}}"#,
            "Provider local, model m: no \"api\" specified. Set at provider or model level.",
        ),
        (
            r#"{"providers":{"anthropic":{"models":[{"id":"m","maxTokens":0}]}}}"#,
            "Provider anthropic, model m: invalid maxTokens",
        ),
    ];
    for (text, message) in cases {
        assert_eq!(
            load_text(text).unwrap_err(),
            format!("Failed to load models.json: {message}")
        );
    }
}

#[test]
fn a_base_url_that_is_not_an_http_url_is_named() {
    let cases = [
        (
            r#"{"providers":{"local":{"baseUrl":"localhost:8080/v1","apiKey":"k","api":"openai-completions","models":[{"id":"m"}]}}}"#,
            "Provider local: \"baseUrl\" \"localhost:8080/v1\" is not a valid URL (it must start with http:// or https://); use a full address such as \"http://localhost:11434/v1\".",
        ),
        (
            r#"{"providers":{"openai":{"baseUrl":"not a url"}}}"#,
            "Provider openai: \"baseUrl\" \"not a url\" is not a valid URL (relative URL without a base); use a full address such as \"http://localhost:11434/v1\".",
        ),
        (
            r#"{"providers":{"anthropic":{"models":[{"id":"m","baseUrl":"https://"}]}}}"#,
            "Provider anthropic, model m: \"baseUrl\" \"https://\" is not a valid URL (empty host); use a full address such as \"http://localhost:11434/v1\".",
        ),
    ];
    for (text, message) in cases {
        assert_eq!(
            load_text(text).unwrap_err(),
            format!("Failed to load models.json: {message}")
        );
    }
    assert!(load_text(r#"{"providers":{"openai":{"baseUrl":"http://127.0.0.1:9/v1"}}}"#).is_ok());
}

#[test]
fn comments_and_trailing_commas_are_accepted() {
    let file = load_text(
        "{\n // local server\n \"providers\": {\"anthropic\": {\"baseUrl\": \"http://proxy\",},},\n}",
    )
    .unwrap();
    let mut models = anthropic();
    file.apply_overrides(&mut models);
    assert!(models.iter().all(|m| m.base_url == "http://proxy"));
}

#[test]
fn custom_models_of_a_built_in_provider_take_its_api_and_base_url_and_merge_compat() {
    let file = ModelsFile::parse(
        r#"{"providers":{"anthropic":{"compat":{"a":1,"b":1},"models":[{"id":"claude-next","compat":{"b":2},"thinkingLevelMap":{"high":"max"}}]}}}"#,
    )
    .unwrap();
    let built_in = anthropic();
    let models = file.models(&built_in);
    assert_eq!(models[0].api, Api::ANTHROPIC_MESSAGES);
    assert_eq!(models[0].base_url, built_in[0].base_url);
    assert_eq!(models[0].compat, Some(serde_json::json!({"a": 1, "b": 2})));
    assert_eq!(
        models[0].extra.get("thinkingLevelMap"),
        Some(&serde_json::json!({"high": "max"}))
    );
}

#[test]
fn model_overrides_change_built_in_models_field_by_field() {
    let file = ModelsFile::parse(
        r#"{"providers":{"anthropic":{"compat":{"p":1},"modelOverrides":{"claude-opus-4-7":{
            "name":"Opus Custom","contextWindow":500000,"cost":{"input":1.5},
            "thinkingLevelMap":{"low":null},"compat":{"openRouterRouting":{"only":["x"]}},
            "headers":{"x-model":"m"}}}}}}"#,
    )
    .unwrap();
    let original = pi_ai::get_model("anthropic", "claude-opus-4-7")
        .unwrap()
        .clone();
    let mut models = anthropic();
    file.apply_overrides(&mut models);
    let opus = models.iter().find(|m| m.id == "claude-opus-4-7").unwrap();
    assert_eq!(opus.name, "Opus Custom");
    assert_eq!(opus.context_window, 500_000);
    assert_eq!(opus.max_tokens, original.max_tokens);
    assert_eq!(opus.cost.input, 1.5);
    assert_eq!(opus.cost.output, original.cost.output);
    let mut map = original.extra["thinkingLevelMap"]
        .as_object()
        .unwrap()
        .clone();
    map.insert("low".to_owned(), Value::Null);
    assert_eq!(opus.extra["thinkingLevelMap"], Value::Object(map));
    assert_eq!(
        opus.compat,
        Some(serde_json::json!({"p": 1, "openRouterRouting": {"only": ["x"]}}))
    );
    let other = models.iter().find(|m| m.id == "claude-haiku-4-5").unwrap();
    assert_eq!(
        other.compat,
        Some(serde_json::json!({"p": 1})),
        "provider compat"
    );
    assert_eq!(
        other.name,
        pi_ai::get_model("anthropic", "claude-haiku-4-5")
            .unwrap()
            .name
    );
    assert_eq!(
        file.header_specs("anthropic", "claude-opus-4-7").1.unwrap()["x-model"],
        "m"
    );
}

#[test]
fn compat_routing_merges_one_level_deeper() {
    let merged = merge_compat(
        Some(&serde_json::json!({"openRouterRouting": {"only": ["a"], "order": ["b"]}, "k": 1})),
        Some(&serde_json::json!({"openRouterRouting": {"only": ["c"]}})),
    );
    assert_eq!(
        merged,
        Some(serde_json::json!({"openRouterRouting": {"only": ["c"], "order": ["b"]}, "k": 1}))
    );
}
