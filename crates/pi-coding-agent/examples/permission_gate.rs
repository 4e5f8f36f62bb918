//! `pi` with the permission-gate extension (`extensions/permission_gate.rs`):
//! dangerous `bash` commands need the user's "Yes" first.
//!
//! `cargo run -p pi-coding-agent --example permission_gate -- [pi's arguments]`

use std::process::ExitCode;

#[path = "extensions/permission_gate.rs"]
mod extension;

fn main() -> ExitCode {
    let mut extensions = pi_coding_agent::extensions::ExtensionSet::default();
    extensions.push(extension::PermissionGate::default());
    pi_coding_agent::cli::run_main(extensions)
}
