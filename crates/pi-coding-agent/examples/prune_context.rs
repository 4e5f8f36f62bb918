//! `pi` with the prune-context extension (`extensions/prune_context.rs`):
//! each request carries only the last four messages.
//!
//! `cargo run -p pi-coding-agent --example prune_context -- [pi's arguments]`

use std::process::ExitCode;

#[path = "extensions/prune_context.rs"]
mod extension;

fn main() -> ExitCode {
    let mut extensions = pi_coding_agent::extensions::ExtensionSet::default();
    extensions.push(extension::PruneContext);
    pi_coding_agent::cli::run_main(extensions)
}
