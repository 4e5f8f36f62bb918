use super::*;

fn adc(location: &str) -> Target {
    Target::Project {
        project: "p1".into(),
        location: location.into(),
    }
}

const TEMPLATE: &str = "https://{location}-aiplatform.googleapis.com";

#[test]
fn catalog_template_builds_the_regional_project_url() {
    assert_eq!(
        stream_url(TEMPLATE, None, "gemini-2.5-pro", &adc("us-central1")),
        "https://us-central1-aiplatform.googleapis.com/v1/projects/p1/locations/us-central1/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
    );
}

#[test]
fn global_and_multi_region_locations_have_their_own_hosts() {
    assert_eq!(
        stream_url(TEMPLATE, None, "gemini-3-pro-preview", &adc("global")),
        "https://aiplatform.googleapis.com/v1/projects/p1/locations/global/publishers/google/models/gemini-3-pro-preview:streamGenerateContent?alt=sse"
    );
    assert_eq!(
        stream_url(TEMPLATE, None, "m", &adc("eu")),
        "https://aiplatform.eu.rep.googleapis.com/v1/projects/p1/locations/eu/publishers/google/models/m:streamGenerateContent?alt=sse"
    );
    assert_eq!(
        stream_url("", None, "m", &adc("us")),
        "https://aiplatform.us.rep.googleapis.com/v1/projects/p1/locations/us/publishers/google/models/m:streamGenerateContent?alt=sse"
    );
}

#[test]
fn api_key_mode_uses_the_global_host_without_a_project() {
    assert_eq!(
        stream_url(TEMPLATE, None, "gemini-2.5-flash", &Target::ApiKey),
        "https://aiplatform.googleapis.com/v1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
}

#[test]
fn a_custom_base_is_a_collection_root_with_v1_unless_it_has_a_version() {
    for target in [Target::ApiKey, adc("us-central1")] {
        assert_eq!(
            stream_url(
                " http://127.0.0.1:9/ ",
                Some("http://ignored"),
                "m",
                &target
            ),
            "http://127.0.0.1:9/v1/publishers/google/models/m:streamGenerateContent?alt=sse"
        );
        assert_eq!(
            stream_url("https://proxy.example/vertex/v1beta1", None, "m", &target),
            "https://proxy.example/vertex/v1beta1/publishers/google/models/m:streamGenerateContent?alt=sse"
        );
    }
    assert_eq!(
        stream_url("https://proxy.example/v2beta/x", None, "m", &Target::ApiKey),
        "https://proxy.example/v2beta/x/publishers/google/models/m:streamGenerateContent?alt=sse"
    );
    assert_eq!(
        stream_url("https://proxy.example/vertex", None, "m", &Target::ApiKey),
        "https://proxy.example/vertex/v1/publishers/google/models/m:streamGenerateContent?alt=sse",
        "`vertex` is no version segment"
    );
}

#[test]
fn the_sdk_base_url_variable_replaces_the_default_root() {
    assert_eq!(
        stream_url(
            TEMPLATE,
            Some("http://127.0.0.1:9/"),
            "m",
            &adc("us-central1")
        ),
        "http://127.0.0.1:9/v1/projects/p1/locations/us-central1/publishers/google/models/m:streamGenerateContent?alt=sse"
    );
    assert_eq!(
        stream_url(TEMPLATE, Some("http://127.0.0.1:9"), "m", &Target::ApiKey),
        "http://127.0.0.1:9/v1/publishers/google/models/m:streamGenerateContent?alt=sse"
    );
}

#[test]
fn model_ids_with_a_publisher_or_a_resource_path() {
    assert_eq!(
        stream_url(TEMPLATE, None, "anthropic/claude-x", &Target::ApiKey),
        "https://aiplatform.googleapis.com/v1/publishers/anthropic/models/claude-x:streamGenerateContent?alt=sse"
    );
    assert_eq!(
        stream_url(
            TEMPLATE,
            None,
            "projects/p2/locations/l2/endpoints/e",
            &adc("us-central1")
        ),
        "https://us-central1-aiplatform.googleapis.com/v1/projects/p2/locations/l2/endpoints/e:streamGenerateContent?alt=sse"
    );
}

#[test]
fn version_segments() {
    for yes in ["v1", "v1beta", "v1beta1", "v22"] {
        assert!(is_version_segment(yes), "{yes}");
    }
    for no in ["", "v", "vertex", "v1alpha", "v1beta1x", "1"] {
        assert!(!is_version_segment(no), "{no}");
    }
}
