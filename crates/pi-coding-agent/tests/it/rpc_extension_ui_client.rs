//! pi's own rpc client example (`examples/rpc-extension-ui.ts` of
//! `@mariozechner/pi-coding-agent@0.73.1`: a terminal chat client that
//! starts the agent in rpc mode with `-e rpc-demo.ts` and draws its
//! extension UI requests), its spawn line pointed at pi-rs, driven in tmux
//! by the same script that captured it against pi
//! (`fixtures/capture/rpc_ext_ui.py`): every screen must be pi's.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;

use std::path::PathBuf;
use std::process::Command;

use pi_test_support::external;
use pretty_assertions::assert_eq;

fn capture() -> PathBuf {
    e2e_common::fixtures().join("extensions/rpc-extension-ui")
}

#[test]
fn pis_rpc_client_example_draws_the_same_screens_with_pi_rs() {
    let (Some(package), Some(()), Some(())) = (
        external::pi_package(),
        external::tmux(),
        external::python3(),
    ) else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let host = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("host");
    let status = Command::new("python3")
        .arg(e2e_common::fixtures().join("../capture/rpc_ext_ui.py"))
        .arg(package.join("dist/cli.js"))
        .arg(out.path())
        .env("PI_RS_BIN", env!("CARGO_BIN_EXE_pi"))
        .env("PI_EXTENSION_HOST_DIR", &host)
        .status()
        .unwrap();
    assert!(status.success(), "the tmux driver failed: {status}");
    let mut screens: Vec<PathBuf> = std::fs::read_dir(capture())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "txt") && p.to_string_lossy().contains("screen-")
        })
        .collect();
    screens.sort();
    assert_eq!(screens.len(), 12);
    for pi in screens {
        let name = pi.file_name().unwrap();
        let ours = std::fs::read_to_string(out.path().join(name)).unwrap();
        assert_eq!(ours, std::fs::read_to_string(&pi).unwrap(), "{name:?}");
    }
    // The client exited on Escape, as against pi.
    assert_eq!(
        std::fs::read_to_string(out.path().join("exit.txt")).unwrap(),
        std::fs::read_to_string(capture().join("exit.txt")).unwrap()
    );
}
