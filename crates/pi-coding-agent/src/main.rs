//! The `pi` command-line coding agent.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;

use clap::Parser;

/// pi-rs: a coding agent for the terminal.
#[derive(Debug, Parser)]
#[command(name = "pi", version = pi_coding_agent::VERSION, about, long_about = None)]
struct Cli {
    /// Messages to send to the model.
    messages: Vec<String>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.messages.is_empty() {
        println!("pi {}: run `pi --help` for usage", pi_coding_agent::VERSION);
        return ExitCode::SUCCESS;
    }
    eprintln!("pi: running prompts is not available in this build yet (no agent mode is wired in)");
    ExitCode::from(2)
}
