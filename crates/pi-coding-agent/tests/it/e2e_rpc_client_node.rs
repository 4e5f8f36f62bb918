//! pi's own `RpcClient` (from the npm package `@mariozechner/pi-coding-agent`)
//! drives `pi --mode rpc` through `fixtures/capture/pi_rs_shim.mjs`, running
//! every scenario of `fixtures/capture/rpc_client_scenarios.json`; each call
//! and event is compared with pi 0.73.1's captured run.
//!
//! Needs `node` and the package (`.ci/setup` installs it;
//! `PI_CODING_AGENT_PKG` may name another copy): see
//! `pi_test_support::external`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr
)]

use crate::rpc_fixture;

#[tokio::test(flavor = "multi_thread")]
async fn pis_rpc_client_drives_pi_rs_like_pi() {
    let Some(package) = pi_test_support::external::pi_package() else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let result = out.path().join("run.json");
    let dir = rpc_fixture::capture_dir();
    let status = tokio::process::Command::new("node")
        .arg(dir.join("rpc_client.mjs"))
        .arg(dir.join("pi_rs_shim.mjs"))
        .arg(&result)
        .env("PI_CODING_AGENT_PKG", &package)
        .env("PI_RS_BIN", env!("CARGO_BIN_EXE_pi"))
        .status()
        .await
        .unwrap();
    assert!(status.success());
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&result).unwrap()).unwrap();
    let captured = rpc_fixture::captured();
    for (name, pi) in &captured {
        assert!(run[name].get("failed").is_none(), "{name}: {}", run[name]);
        rpc_fixture::assert_same(name, pi, &run[name]);
    }
}
