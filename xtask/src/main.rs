//! `cargo xtask <command>`: workspace automation.
//!
//! - `check-deps [--metadata FILE]`: enforce the allowed internal dependency
//!   edges of DESIGN.md on the output of `cargo metadata` (or on a saved
//!   metadata document), exiting 1 and naming every offending edge.
//! - `import-catalog <models.generated.js> [OUT]`: regenerate pi-ai's
//!   embedded model catalog from pi's generated model module (needs `node`).
//! - `fuzz-smoke [SECONDS]`: every cargo-fuzz target in `fuzz/` for 30 s
//!   (or SECONDS) each on nightly; skips when nightly or cargo-fuzz is missing.
//! - `bench [--quick] [--debug]`: the performance table (see `bench.rs`).
//! - `compare-pi [--quick] [--large]`: whole-command workloads with pi-rs
//!   and pi 0.73.1 (Node) side by side (see `compare_pi.rs`).
//! - `link-order`: regenerate the release link's function order of `pi`
//!   from callgrind profiles of the benchmark workloads (see `link_order.rs`).
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod bench;
mod check_deps;
mod compare_pi;
mod error;
mod export_bench;
mod fuzz_smoke;
mod import_catalog;
mod link_order;
mod loopback;
mod ready;
mod whole;

use crate::error::TaskError;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("check-deps") => check_deps_command(&args[1..]),
        Some("import-catalog") => import_catalog_command(&args[1..]),
        Some("fuzz-smoke") => fuzz_smoke::run(&args[1..]),
        Some("bench") => bench::command(&args[1..]),
        Some("compare-pi") => compare_pi::command(&args[1..]),
        Some("link-order") => link_order::command(&args[1..]),
        Some("__measure") => whole::measure_command(&args[1..]),
        _ => {
            eprintln!("usage: cargo xtask check-deps [--metadata FILE] | fuzz-smoke [SECONDS]");
            eprintln!("       cargo xtask import-catalog <models.generated.js> [OUT]");
            eprintln!("       cargo xtask bench [--quick] [--debug]");
            eprintln!("       cargo xtask compare-pi [--quick] [--large]");
            eprintln!("       cargo xtask link-order");
            ExitCode::from(2)
        }
    }
}

fn check_deps_command(args: &[String]) -> ExitCode {
    let document = match args {
        [] => check_deps::run_cargo_metadata(),
        [flag, path] if flag == "--metadata" => {
            std::fs::read_to_string(path).map_err(TaskError::file(std::path::Path::new(path)))
        }
        _ => Err(TaskError::Usage("cargo xtask check-deps [--metadata FILE]")),
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

fn import_catalog_command(args: &[String]) -> ExitCode {
    let (module, output) = match args {
        [module] => (
            std::path::PathBuf::from(module),
            workspace_root().join(import_catalog::DEFAULT_OUTPUT),
        ),
        [module, output] => (
            std::path::PathBuf::from(module),
            std::path::PathBuf::from(output),
        ),
        _ => {
            eprintln!("usage: cargo xtask import-catalog <models.generated.js> [OUT]");
            return ExitCode::from(2);
        }
    };
    match import_catalog::import(&module, &output) {
        Ok(count) => {
            println!(
                "import-catalog: wrote {count} models to {}",
                output.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("import-catalog: {e}");
            ExitCode::from(1)
        }
    }
}

/// The workspace root: the parent of this crate's manifest directory.
fn workspace_root() -> std::path::PathBuf {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}
