//! `pi` with the pirate extension (`extensions/pirate.rs`): `/pirate`
//! toggles pirate speech through the system prompt.
//!
//! `cargo run -p pi-coding-agent --example pirate` (then type `/pirate`)

use std::process::ExitCode;

#[path = "extensions/pirate.rs"]
mod extension;

fn main() -> ExitCode {
    let mut extensions = pi_coding_agent::extensions::ExtensionSet::default();
    extensions.push(extension::Pirate::default());
    pi_coding_agent::cli::run_main(extensions)
}
