//! `cargo xtask <command>`: workspace automation.
//!
//! - `check-deps [--metadata FILE]`: enforce the allowed internal dependency
//!   edges of DESIGN.md on the output of `cargo metadata` (or on a saved
//!   metadata document), exiting 1 and naming every offending edge.
//! - `bench [--quick] [--debug]`: the performance table (see `bench.rs`).
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod bench;
mod check_deps;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("check-deps") => check_deps_command(&args[1..]),
        Some("bench") => bench::command(&args[1..]),
        _ => {
            eprintln!(
                "usage: cargo xtask check-deps [--metadata FILE] | bench [--quick] [--debug]"
            );
            ExitCode::from(2)
        }
    }
}

fn check_deps_command(args: &[String]) -> ExitCode {
    let document = match args {
        [] => check_deps::run_cargo_metadata(),
        [flag, path] if flag == "--metadata" => {
            std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
        }
        _ => Err("usage: cargo xtask check-deps [--metadata FILE]".to_owned()),
    };
    let document = match document {
        Ok(d) => d,
        Err(e) => {
            eprintln!("check-deps: {e}");
            return ExitCode::from(2);
        }
    };
    match check_deps::check_document(&document) {
        Ok(violations) if violations.is_empty() => {
            println!("check-deps: all internal dependency edges are allowed");
            ExitCode::SUCCESS
        }
        Ok(violations) => {
            for v in &violations {
                eprintln!("{v}");
            }
            eprintln!("check-deps: {} violation(s)", violations.len());
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("check-deps: {e}");
            ExitCode::from(2)
        }
    }
}
