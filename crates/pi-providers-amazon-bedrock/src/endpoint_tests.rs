#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;
use crate::models::tests::model;

fn at(base_url: &str) -> Model {
    let mut model = model("amazon.nova-lite-v1:0", "Nova Lite");
    model.base_url = base_url.into();
    model
}

fn env(vars: &[(&str, &str)]) -> AwsEnvironment {
    AwsEnvironment::from_vars(vars.iter().copied())
}

const STANDARD: &str = "https://bedrock-runtime.us-east-1.amazonaws.com";

#[test]
fn standard_hosts_name_their_region() {
    assert_eq!(
        standard_endpoint_region(STANDARD).as_deref(),
        Some("us-east-1")
    );
    assert_eq!(
        standard_endpoint_region("https://bedrock-runtime-fips.us-gov-west-1.amazonaws.com")
            .as_deref(),
        Some("us-gov-west-1")
    );
    assert_eq!(
        standard_endpoint_region("https://bedrock-runtime.cn-north-1.amazonaws.com.cn").as_deref(),
        Some("cn-north-1")
    );
    assert_eq!(standard_endpoint_region("http://127.0.0.1:8080"), None);
    assert_eq!(
        standard_endpoint_region("https://proxy.example.com/bedrock"),
        None
    );
}

#[test]
fn a_standard_endpoint_follows_the_configured_region() {
    let options = BedrockOptions::default();
    let target = resolve_target(
        &at(STANDARD),
        &options,
        &env(&[("AWS_REGION", "eu-west-1")]),
    )
    .unwrap();
    assert_eq!(
        target.endpoint,
        "https://bedrock-runtime.eu-west-1.amazonaws.com"
    );
    assert_eq!(target.region, "eu-west-1");
    let target = resolve_target(
        &at(STANDARD),
        &options,
        &env(&[("AWS_DEFAULT_REGION", "cn-north-1")]),
    )
    .unwrap();
    assert_eq!(
        target.endpoint,
        "https://bedrock-runtime.cn-north-1.amazonaws.com.cn"
    );
    let explicit = BedrockOptions {
        region: Some("ap-south-1".into()),
        ..BedrockOptions::default()
    };
    let target = resolve_target(
        &at(STANDARD),
        &explicit,
        &env(&[("AWS_REGION", "eu-west-1")]),
    )
    .unwrap();
    assert_eq!(
        target.region, "ap-south-1",
        "the option wins over the environment"
    );
}

#[test]
fn without_configuration_the_base_url_and_its_region_are_used() {
    let target = resolve_target(&at(STANDARD), &BedrockOptions::default(), &env(&[])).unwrap();
    assert_eq!(
        target,
        Target {
            endpoint: STANDARD.into(),
            region: "us-east-1".into()
        }
    );
}

#[test]
fn custom_endpoints_are_kept_with_the_region_configured_or_us_east_1() {
    let proxy = at("https://proxy.example.com/bedrock/");
    let target = resolve_target(
        &proxy,
        &BedrockOptions::default(),
        &env(&[("AWS_REGION", "eu-central-1")]),
    )
    .unwrap();
    assert_eq!(target.endpoint, "https://proxy.example.com/bedrock");
    assert_eq!(target.region, "eu-central-1");
    let target = resolve_target(&proxy, &BedrockOptions::default(), &env(&[])).unwrap();
    assert_eq!(target.region, "us-east-1");
}

#[test]
fn a_profile_leaves_the_region_to_its_config() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config");
    std::fs::write(
        &config,
        "[default]\nregion = us-west-1\n[profile work]\nregion = eu-north-1\n",
    )
    .unwrap();
    let config = config.display().to_string();
    let vars = env(&[("AWS_PROFILE", "work"), ("AWS_CONFIG_FILE", &config)]);
    let target = resolve_target(&at(STANDARD), &BedrockOptions::default(), &vars).unwrap();
    assert_eq!(
        target.endpoint,
        "https://bedrock-runtime.eu-north-1.amazonaws.com"
    );
    assert_eq!(target.region, "eu-north-1");
    let vars = env(&[
        ("AWS_PROFILE", "nowhere"),
        ("AWS_CONFIG_FILE", &config),
        ("HOME", "/nonexistent"),
    ]);
    let error = resolve_target(&at(STANDARD), &BedrockOptions::default(), &vars).unwrap_err();
    assert!(
        error.to_string().starts_with("Region is missing"),
        "{error}"
    );
    assert!(error.to_string().contains("\"nowhere\""), "{error}");
}

#[test]
fn the_model_id_is_one_encoded_segment() {
    assert_eq!(
        converse_stream_url("http://127.0.0.1:9/", "mock.nova-v1:0"),
        "http://127.0.0.1:9/model/mock.nova-v1%3A0/converse-stream"
    );
    assert_eq!(
        converse_stream_url(
            STANDARD,
            "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc"
        ),
        format!(
            "{STANDARD}/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Aapplication-inference-profile%2Fabc/converse-stream"
        )
    );
}
