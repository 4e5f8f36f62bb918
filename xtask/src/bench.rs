//! `cargo xtask bench [--quick]`: runs the workspace's performance
//! workloads in release mode and prints one markdown table; exits 1 when a
//! complexity check fails (an input 4x larger taking more than 8x the time).
//!
//! The rows come from the `perf` example of pi-coding-agent (one
//! tab-separated row per workload and size), from timing the release
//! `pi` binary's `--version` and `--help` here, and from whole `pi` runs
//! against a loopback mock (`whole.rs`: a print run, `-c -p` resumes), and
//! in release the export of a 100 MB session (`export_bench.rs`).

use crate::error::TaskError;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// One measured workload at one size.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// What was measured.
    pub workload: String,
    /// The input, for people.
    pub size: String,
    /// The input size in the workload's unit (0: no complexity check).
    pub n: u64,
    /// Best wall time, seconds.
    pub seconds: f64,
    /// Peak RSS, KiB (0: not measured).
    pub rss_kib: u64,
}

/// Times below this are too noisy to compare.
const NOISE_FLOOR_SECONDS: f64 = 0.005;

/// Parses the `perf` example's rows; malformed lines are errors.
pub fn parse_rows(text: &str) -> Result<Vec<Row>, TaskError> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            let [workload, size, n, seconds, rss] = f.as_slice() else {
                return Err(TaskError::Invalid(format!("malformed perf row: {line:?}")));
            };
            let num = |s: &str| {
                s.parse::<f64>()
                    .map_err(|e| TaskError::Invalid(format!("{line:?}: {e}")))
            };
            Ok(Row {
                workload: (*workload).to_owned(),
                size: (*size).to_owned(),
                n: n.parse()
                    .map_err(|e| TaskError::Invalid(format!("{line:?}: {e}")))?,
                seconds: num(seconds)?,
                rss_kib: rss
                    .parse()
                    .map_err(|e| TaskError::Invalid(format!("{line:?}: {e}")))?,
            })
        })
        .collect()
}

/// The complexity failures: for rows of one workload whose inputs are at
/// least 4x apart (ratio r), the larger may take at most 2r times as long
/// (8x for 4x); times under the noise floor pass.
pub fn complexity_failures(rows: &[Row]) -> Vec<String> {
    let mut failures = Vec::new();
    for (i, small) in rows.iter().enumerate() {
        for large in &rows[i + 1..] {
            if large.workload != small.workload || small.n == 0 || large.n < 4 * small.n {
                continue;
            }
            let ratio = large.n as f64 / small.n as f64;
            let allowed = 2.0 * ratio * small.seconds.max(NOISE_FLOOR_SECONDS);
            if large.seconds > allowed {
                failures.push(format!(
                    "{}: {} took {:.1} ms, {} took {:.1} ms ({:.1}x time for {:.1}x input)",
                    small.workload,
                    small.size,
                    small.seconds * 1e3,
                    large.size,
                    large.seconds * 1e3,
                    large.seconds / small.seconds,
                    ratio
                ));
            }
        }
    }
    failures
}

/// The rows as one markdown table.
pub fn markdown(rows: &[Row]) -> String {
    let mut out = String::from("| workload | input | time | peak RSS |\n|---|---|---|---|\n");
    for r in rows {
        let time = if r.seconds < 0.01 {
            format!("{:.2} ms", r.seconds * 1e3)
        } else {
            format!("{:.1} ms", r.seconds * 1e3)
        };
        let rss = if r.rss_kib == 0 {
            "—".to_owned()
        } else {
            format!("{:.1} MB", r.rss_kib as f64 * 1024.0 / 1e6)
        };
        out.push_str(&format!(
            "| {} | {} | {time} | {rss} |\n",
            r.workload, r.size
        ));
    }
    out
}

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
}

/// The target directory, absolute: the whole-command rows run `pi` from
/// scratch directories, where a relative `target/...` would not resolve.
fn target_dir() -> PathBuf {
    let dir =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| PathBuf::from("target"), PathBuf::from);
    if dir.is_absolute() {
        dir
    } else {
        crate::workspace_root().join(dir)
    }
}

/// Best of `reps` runs of `pi <arg>`.
fn time_pi(pi: &PathBuf, arg: &str, reps: usize) -> Result<f64, TaskError> {
    let mut best = Duration::MAX;
    for _ in 0..reps {
        let start = Instant::now();
        let out = Command::new(pi)
            .arg(arg)
            .output()
            .map_err(TaskError::spawn(pi.display().to_string()))?;
        best = best.min(start.elapsed());
        if !out.status.success() {
            return Err(TaskError::Failed(format!(
                "pi {arg} failed: {}",
                out.status
            )));
        }
    }
    Ok(best.as_secs_f64())
}

/// Builds the `pi` binary and the `perf` example (release unless `debug`).
///
/// In release the binary is built on its own, after the example: built
/// together, the example's dev-dependencies (pi-ai's `testing` feature)
/// would be unified into the binary, which would then differ from the one
/// `cargo install` makes (other symbol names, so the link order of
/// `link-order.txt` would not apply to it). The dev profile measures only
/// the complexity checks and builds both at once, as the tests already did.
pub fn build(debug: bool) -> Result<(), TaskError> {
    let targets: &[&[&str]] = if debug {
        &[&["--bin", "pi", "--example", "perf"]]
    } else {
        &[&["--example", "perf"], &["--bin", "pi"]]
    };
    for target in targets {
        let mut build = cargo();
        build
            .args(["build", "-q", "-p", "pi-coding-agent"])
            .args(*target);
        if !debug {
            build.arg("--release");
        }
        let status = build.status().map_err(TaskError::spawn("cargo"))?;
        if !status.success() {
            return Err(TaskError::Failed("the build failed".to_owned()));
        }
    }
    Ok(())
}

/// Where [`build`] puts the binaries.
pub fn build_dir(debug: bool) -> PathBuf {
    target_dir().join(if debug { "debug" } else { "release" })
}

/// Runs every workload; the table and the complexity failures.
fn measure(quick: bool, debug: bool) -> Result<Vec<Row>, TaskError> {
    build(debug)?;
    let release = build_dir(debug);
    let mut perf = Command::new(release.join("examples").join("perf"));
    if quick {
        perf.arg("--quick");
    }
    let out = perf
        .output()
        .map_err(TaskError::spawn("the perf example"))?;
    if !out.status.success() {
        return Err(TaskError::Failed(format!(
            "perf example failed: {}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    let text = String::from_utf8(out.stdout)
        .map_err(|e| TaskError::Invalid(format!("perf output: {e}")))?;
    let mut rows = Vec::new();
    let pi = release.join("pi");
    for arg in ["--version", "--help"] {
        rows.push(Row {
            workload: format!("`pi {arg}` (wall, best of 10)"),
            size: "—".to_owned(),
            n: 0,
            seconds: time_pi(&pi, arg, 10)?,
            rss_kib: 0,
        });
    }
    rows.extend(crate::whole::bench_rows(&release, quick)?);
    if !debug {
        rows.push(crate::export_bench::export_row(&release, quick)?);
    }
    rows.extend(parse_rows(&text)?);
    Ok(rows)
}

/// `cargo xtask bench [--quick] [--debug]`: `--debug` measures the dev
/// profile (what CI has already built; only the complexity checks mean
/// anything then).
pub fn command(args: &[String]) -> std::process::ExitCode {
    use std::process::ExitCode;
    let (mut quick, mut debug) = (false, false);
    for arg in args {
        match arg.as_str() {
            "--quick" => quick = true,
            "--debug" => debug = true,
            _ => {
                eprintln!("usage: cargo xtask bench [--quick] [--debug]");
                return ExitCode::from(2);
            }
        }
    }
    let started = Instant::now();
    let rows = match measure(quick, debug) {
        Ok(rows) => rows,
        Err(e) => {
            eprintln!("bench: {e}");
            return ExitCode::from(2);
        }
    };
    if debug {
        println!("(dev profile: absolute times are not representative)\n");
    }
    println!("{}", markdown(&rows));
    println!("(measured in {:.0} s)", started.elapsed().as_secs_f64());
    if !debug {
        // A stale order file costs memory, never correctness: say how much
        // of it the measured binary still matches.
        match crate::link_order::coverage(&build_dir(false).join("pi")) {
            Some((present, total)) => println!(
                "link order: the binary defines {present} of the {total} functions of {}",
                crate::link_order::ORDER_FILE
            ),
            None => println!(
                "link order: {} or nm missing",
                crate::link_order::ORDER_FILE
            ),
        }
    }
    let failures = complexity_failures(&rows);
    if failures.is_empty() {
        println!("complexity checks: all pass (4x input within 8x time)");
        ExitCode::SUCCESS
    } else {
        for f in &failures {
            eprintln!("complexity check failed: {f}");
        }
        ExitCode::from(1)
    }
}

#[cfg(test)]
#[path = "bench_tests.rs"]
mod tests;
