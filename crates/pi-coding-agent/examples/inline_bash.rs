//! `pi` with the inline-bash extension (`extensions/inline_bash.rs`):
//! `!{command}` in a prompt becomes the command's output.
//!
//! `cargo run -p pi-coding-agent --example inline_bash -- -p "What is in !{pwd}?"`

use std::process::ExitCode;

#[path = "extensions/inline_bash.rs"]
mod extension;

fn main() -> ExitCode {
    let mut extensions = pi_coding_agent::extensions::ExtensionSet::default();
    extensions.push(extension::InlineBash);
    pi_coding_agent::cli::run_main(extensions)
}
