use serde_json::{Value, json};

use super::*;

fn workspace_metadata() -> Value {
    let document = run_cargo_metadata().expect("cargo metadata runs");
    serde_json::from_str(&document).expect("metadata is JSON")
}

fn package_mut<'a>(metadata: &'a mut Value, name: &str) -> &'a mut Value {
    metadata["packages"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("package {name} in metadata"))
}

fn add_dependency(metadata: &mut Value, from: &str, to: &str, kind: Option<&str>) {
    package_mut(metadata, from)["dependencies"]
        .as_array_mut()
        .unwrap()
        .push(json!({
            "name": to, "kind": kind, "req": "*", "path": format!("/ws/crates/{to}")
        }));
}

fn violations_of(metadata: &Value) -> Vec<String> {
    check_document(&metadata.to_string())
        .unwrap()
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn the_real_workspace_passes() {
    assert_eq!(violations_of(&workspace_metadata()), Vec::<String>::new());
}

#[test]
fn a_forbidden_edge_is_named() {
    let mut metadata = workspace_metadata();
    add_dependency(&mut metadata, "pi-ai", "pi-agent-core", None);
    assert_eq!(
        violations_of(&metadata),
        vec!["pi-ai -> pi-agent-core is not allowed: pi-ai may depend on no internal crate"]
    );
}

#[test]
fn dev_dependencies_are_checked_too() {
    let mut metadata = workspace_metadata();
    add_dependency(&mut metadata, "pi-ai", "pi-agent-core", Some("dev"));
    assert_eq!(
        violations_of(&metadata),
        vec![
            "pi-ai -> pi-agent-core (dev-dependency) is not allowed: pi-ai may depend on no internal crate"
        ]
    );
}

#[test]
fn pi_tui_depends_on_no_internal_crate() {
    let mut metadata = workspace_metadata();
    add_dependency(&mut metadata, "pi-tui", "pi-ai", None);
    assert_eq!(
        violations_of(&metadata),
        vec!["pi-tui -> pi-ai is not allowed: pi-tui may depend on no internal crate"]
    );
}

#[test]
fn the_app_may_depend_on_pi_tui() {
    let mut metadata = workspace_metadata();
    add_dependency(&mut metadata, "pi-coding-agent", "pi-tui", None);
    assert_eq!(violations_of(&metadata), Vec::<String>::new());
}

#[test]
fn providers_may_not_depend_on_each_other() {
    let mut metadata = workspace_metadata();
    add_dependency(
        &mut metadata,
        "pi-providers-google",
        "pi-providers-anthropic",
        None,
    );
    add_dependency(&mut metadata, "pi-agent-core", "pi-http", None);
    assert_eq!(
        violations_of(&metadata),
        vec![
            "pi-agent-core -> pi-http is not allowed: pi-agent-core may depend on pi-ai only",
            "pi-providers-google -> pi-providers-anthropic is not allowed: no provider depends on another provider",
        ]
    );
}

#[test]
fn responses_family_wires_may_use_openai_responses_only() {
    let mut metadata = workspace_metadata();
    add_dependency(
        &mut metadata,
        "pi-providers-azure-openai-responses",
        "pi-providers-openai-responses",
        None,
    );
    add_dependency(
        &mut metadata,
        "pi-providers-openai-codex-responses",
        "pi-providers-anthropic",
        None,
    );
    add_dependency(
        &mut metadata,
        "pi-providers-mistral",
        "pi-providers-openai-responses",
        None,
    );
    assert_eq!(
        violations_of(&metadata),
        vec![
            "pi-providers-mistral -> pi-providers-openai-responses is not allowed: no provider depends on another provider",
            "pi-providers-openai-codex-responses -> pi-providers-anthropic is not allowed: no provider depends on another provider",
        ]
    );
}

#[test]
fn vertex_may_reuse_the_google_wire_but_not_the_reverse() {
    let mut metadata = workspace_metadata();
    add_dependency(
        &mut metadata,
        "pi-providers-google",
        "pi-providers-google-vertex",
        None,
    );
    assert_eq!(
        violations_of(&metadata),
        vec![
            "pi-providers-google -> pi-providers-google-vertex is not allowed: no provider depends on another provider",
        ]
    );
}

#[test]
fn reqwest_in_the_tree_of_pi_ai_is_reported_with_its_path() {
    let metadata = json!({
        "workspace_members": ["ai", "agent"],
        "packages": [
            {"id": "ai", "name": "pi-ai", "dependencies": [{"name": "hyperish", "kind": null}]},
            {"id": "agent", "name": "pi-agent-core", "dependencies": [{"name": "pi-ai", "kind": null}]},
            {"id": "h", "name": "hyperish", "dependencies": []},
            {"id": "r", "name": "reqwest", "dependencies": []},
            {"id": "t", "name": "testonly", "dependencies": []}
        ],
        "resolve": {"nodes": [
            {"id": "ai", "deps": [{"pkg": "h", "dep_kinds": [{"kind": null}]}]},
            {"id": "agent", "deps": [{"pkg": "ai", "dep_kinds": [{"kind": null}]}]},
            {"id": "h", "deps": [
                {"pkg": "r", "dep_kinds": [{"kind": null}]},
                {"pkg": "t", "dep_kinds": [{"kind": "dev"}]}
            ]},
            {"id": "r", "deps": []},
            {"id": "t", "deps": []}
        ]}
    });
    assert_eq!(
        violations_of(&metadata),
        vec![
            "pi-ai depends on reqwest (via pi-ai -> hyperish -> reqwest) is not allowed: pi-ai must compile no HTTP stack",
            "pi-agent-core depends on reqwest (via pi-agent-core -> pi-ai -> hyperish -> reqwest) is not allowed: pi-agent-core must compile no HTTP stack",
        ]
    );
}

#[test]
fn a_dev_only_http_dependency_below_the_root_is_not_compiled_in() {
    let metadata = json!({
        "workspace_members": ["ai"],
        "packages": [
            {"id": "ai", "name": "pi-ai", "dependencies": []},
            {"id": "h", "name": "helper", "dependencies": []},
            {"id": "r", "name": "reqwest", "dependencies": []}
        ],
        "resolve": {"nodes": [
            {"id": "ai", "deps": [{"pkg": "h", "dep_kinds": [{"kind": null}]}]},
            {"id": "h", "deps": [{"pkg": "r", "dep_kinds": [{"kind": "dev"}]}]},
            {"id": "r", "deps": []}
        ]}
    });
    assert_eq!(violations_of(&metadata), Vec::<String>::new());
}

#[test]
fn a_self_dev_dependency_for_test_features_is_allowed() {
    let mut metadata = workspace_metadata();
    add_dependency(&mut metadata, "pi-agent-core", "pi-agent-core", Some("dev"));
    assert_eq!(violations_of(&metadata), Vec::<String>::new());
}

#[test]
fn test_support_is_dev_only_and_depends_on_the_transport_layers_only() {
    let mut metadata = workspace_metadata();
    add_dependency(
        &mut metadata,
        "pi-providers-google",
        "pi-test-support",
        None,
    );
    add_dependency(
        &mut metadata,
        "pi-agent-core",
        "pi-test-support",
        Some("dev"),
    );
    add_dependency(&mut metadata, "pi-test-support", "pi-agent-core", None);
    assert_eq!(
        violations_of(&metadata),
        vec![
            "pi-agent-core -> pi-test-support (dev-dependency) is not allowed: only the tests of pi-http, pi-providers-* and pi-coding-agent use pi-test-support",
            "pi-providers-google -> pi-test-support is not allowed: pi-test-support is dev-only: it may appear only in [dev-dependencies]",
            "pi-test-support -> pi-agent-core is not allowed: pi-test-support may depend on pi-ai and pi-http only",
        ]
    );
}
