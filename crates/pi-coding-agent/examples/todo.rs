//! `pi` with the todo extension (`extensions/todo.rs`): a `todo` tool whose
//! list is kept in the session, and `/todos` to show it.
//!
//! `cargo run -p pi-coding-agent --example todo -- -p "Add a todo: buy milk"`

use std::process::ExitCode;

#[path = "extensions/todo.rs"]
mod extension;

fn main() -> ExitCode {
    let mut extensions = pi_coding_agent::extensions::ExtensionSet::default();
    extensions.push(extension::TodoExtension::default());
    pi_coding_agent::cli::run_main(extensions)
}
