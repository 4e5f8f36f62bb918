//! `cargo xtask fuzz-smoke [SECONDS]`: runs every cargo-fuzz target of
//! `fuzz/` for a short time (30 s each by default) on nightly, starting from
//! the committed seeds (`fuzz/seeds/<target>`, made from the fixtures) and
//! growing the uncommitted corpus `fuzz/corpus/<target>`. Skips with a
//! message, successfully, when nightly or cargo-fuzz is not installed.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

/// The targets, as named in `fuzz/Cargo.toml`.
pub const TARGETS: &[&str] = &[
    "sse_anthropic",
    "sse_openai_completions",
    "sse_openai_responses",
    "sse_openai_codex_responses",
    "sse_google",
    "sse_mistral",
    "eventstream_bedrock",
    "partial_json",
    "session_load",
    "rpc_command",
    "edit_match",
    "image_read",
];

/// Runs the smoke fuzzing; `args` may hold the seconds per target.
pub fn run(args: &[String]) -> ExitCode {
    let seconds = match args {
        [] => 30,
        [value] => match value.parse::<u64>() {
            Ok(seconds) if seconds > 0 => seconds,
            _ => return usage(),
        },
        _ => return usage(),
    };
    if let Some(missing) = missing_tool() {
        println!("fuzz-smoke: skipped, {missing}");
        return ExitCode::SUCCESS;
    }
    let dir = fuzz_dir();
    let mut failed = Vec::new();
    for target in TARGETS {
        println!("fuzz-smoke: {target} for {seconds} s");
        let corpus = dir.join("corpus").join(target);
        if let Err(e) = std::fs::create_dir_all(&corpus) {
            failed.push(format!(
                "{target} (cannot create {}: {e})",
                corpus.display()
            ));
            continue;
        }
        let status = Command::new("cargo")
            .args(["+nightly", "fuzz", "run", target])
            .arg(&corpus)
            .arg(dir.join("seeds").join(target))
            .arg("--")
            .arg(format!("-max_total_time={seconds}"))
            .args(["-rss_limit_mb=2048", "-timeout=10"])
            .current_dir(&dir)
            .status();
        match status {
            Ok(status) if status.success() => {}
            Ok(status) => failed.push(format!("{target} ({status})")),
            Err(e) => failed.push(format!("{target} (could not start cargo: {e})")),
        }
    }
    if failed.is_empty() {
        println!("fuzz-smoke: all {} targets ran clean", TARGETS.len());
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "fuzz-smoke: failed: {}; crash inputs are in fuzz/artifacts/",
            failed.join(", ")
        );
        ExitCode::FAILURE
    }
}

fn usage() -> ExitCode {
    eprintln!("usage: cargo xtask fuzz-smoke [SECONDS_PER_TARGET]");
    ExitCode::from(2)
}

/// Why fuzzing cannot run here, if it cannot.
fn missing_tool() -> Option<&'static str> {
    let works = |args: &[&str]| {
        Command::new("cargo")
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !works(&["+nightly", "--version"]) {
        return Some(
            "the nightly toolchain is missing (install: rustup toolchain install nightly)",
        );
    }
    if !works(&["+nightly", "fuzz", "--version"]) {
        return Some("cargo-fuzz is missing (install: cargo install cargo-fuzz --locked)");
    }
    None
}

/// `<workspace>/fuzz`.
fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("fuzz"), |root| root.join("fuzz"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_target_is_declared_in_the_fuzz_manifest() {
        let manifest = std::fs::read_to_string(fuzz_dir().join("Cargo.toml")).unwrap();
        for target in TARGETS {
            assert!(
                manifest.contains(&format!("name = \"{target}\"")),
                "{target} missing from fuzz/Cargo.toml"
            );
            assert!(
                fuzz_dir()
                    .join(format!("fuzz_targets/{target}.rs"))
                    .exists()
            );
            let seeds = std::fs::read_dir(fuzz_dir().join("seeds").join(target)).unwrap();
            assert!(seeds.count() > 0, "{target} has no seeds in fuzz/seeds/");
        }
    }
}
