//! `cargo xtask check-deps` as a process: exit codes and the named edge.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

use serde_json::{Value, json};

fn xtask() -> Command {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
}

#[test]
fn passes_on_the_workspace_and_fails_naming_a_forbidden_edge() {
    let ok = xtask().arg("check-deps").output().unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );

    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1"])
        .output()
        .unwrap();
    let mut metadata: Value = serde_json::from_slice(&out.stdout).unwrap();
    let pi_ai = metadata["packages"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|p| p["name"] == "pi-ai")
        .unwrap();
    pi_ai["dependencies"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "pi-agent-core", "kind": null, "req": "*"}));
    let file = std::env::temp_dir().join(format!("pi-rs-metadata-{}.json", std::process::id()));
    std::fs::write(&file, metadata.to_string()).unwrap();

    let bad = xtask()
        .arg("check-deps")
        .arg("--metadata")
        .arg(&file)
        .output()
        .unwrap();
    std::fs::remove_file(&file).ok();
    assert_eq!(bad.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(
        stderr.contains(
            "pi-ai -> pi-agent-core is not allowed: pi-ai may depend on no internal crate"
        ),
        "{stderr}"
    );
}
