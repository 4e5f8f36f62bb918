//! `pi` with a small Rust extension that shows what an extension can do
//! with the interactive terminal (its `ctx.ui()`): dialogs in the editor's
//! place, notifications, a footer status, widgets, the terminal title, and
//! a keyboard shortcut; and, in `render.rs`, tools drawn by their render
//! hooks, a message renderer and custom components. Every flag of `pi`
//! works.
//!
//! `cargo run -p pi-coding-agent --example ui_demo`, then type `/demo-`
//! (the commands are listed in `extension.rs`).

use std::process::ExitCode;

use pi_coding_agent::extensions::ExtensionSet;

mod extension;
mod parts;
mod render;

fn main() -> ExitCode {
    let mut extensions = ExtensionSet::default();
    extensions.push(extension::UiDemo::default());
    extensions.push(render::RenderDemo::default());
    extensions.push(parts::PartsDemo::default());
    pi_coding_agent::cli::run_main(extensions)
}
