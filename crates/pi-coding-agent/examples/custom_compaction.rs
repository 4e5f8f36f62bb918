//! `pi` with the custom-compaction extension
//! (`extensions/custom_compaction.rs`): compactions are summarized by
//! `google/gemini-2.5-flash` (it needs a Google key, or a `google` provider
//! in models.json).
//!
//! `cargo run -p pi-coding-agent --example custom_compaction` (then `/compact`)

use std::process::ExitCode;

#[path = "extensions/custom_compaction.rs"]
mod extension;

fn main() -> ExitCode {
    let mut extensions = pi_coding_agent::extensions::ExtensionSet::default();
    extensions.push(extension::CustomCompaction);
    pi_coding_agent::cli::run_main(extensions)
}
