//! `pi` with the protected-paths extension (`extensions/protected_paths.rs`):
//! no `write` or `edit` to `.env`, `.git/` or `node_modules/`.
//!
//! `cargo run -p pi-coding-agent --example protected_paths -- [pi's arguments]`

use std::process::ExitCode;

#[path = "extensions/protected_paths.rs"]
mod extension;

fn main() -> ExitCode {
    let mut extensions = pi_coding_agent::extensions::ExtensionSet::default();
    extensions.push(extension::ProtectedPaths);
    pi_coding_agent::cli::run_main(extensions)
}
