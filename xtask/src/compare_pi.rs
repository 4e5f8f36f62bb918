//! `cargo xtask compare-pi [--quick] [--large] [--debug]` (`--debug`: pi-rs's
//! dev build, to check the command itself): the whole-command
//! workloads (`--version`, `--help`, a print run, `-c -p` of a 20,000-entry
//! session, with `--large` also 80,000 and 170,000 (128 MB), and a print
//! run streaming a long answer per wire) run with pi-rs and with pi 0.73.1
//! (Node) in one run, against
//! the same loopback mock that never parses request bodies, printing both
//! figures and their ratio. Skips (exit 0) with a message when Node or the
//! npm package `@mariozechner/pi-coding-agent` is missing.
//!
//! pi's CLI is looked up as `$PI_COMPARE_CLI` (a `dist/cli.js`), under each
//! directory of `$NODE_PATH`, then as the `pi` on `PATH` (an npm install's
//! link to `dist/cli.js`, or a `node_modules` next to that `bin`), then in
//! `.tools/npm` (where `.ci/setup` installs the pinned copy).

use crate::error::TaskError;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use crate::loopback::{Answers, WIRES};
use crate::whole::{MODEL, Measured, Pi, Scratch, fixtures, print_args, resume_args};

const PACKAGE: &str = "@mariozechner/pi-coding-agent";

/// The environment variable naming pi's `dist/cli.js`.
const CLI_VAR: &str = "PI_COMPARE_CLI";

/// pi's `dist/cli.js`, where one is installed.
fn find_cli() -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(cli) = std::env::var_os(CLI_VAR) {
        candidates.push(cli.into());
    }
    if let Some(paths) = std::env::var_os("NODE_PATH") {
        for dir in std::env::split_paths(&paths) {
            candidates.push(dir.join(PACKAGE).join("dist/cli.js"));
        }
    }
    if let Some(paths) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&paths) {
            // npm links <prefix>/bin/pi to <prefix>/lib/node_modules/<package>/dist/cli.js.
            if let Ok(target) = std::fs::canonicalize(dir.join("pi"))
                && target.ends_with("dist/cli.js")
            {
                candidates.push(target);
            }
            candidates.push(dir.join(PACKAGE).join("dist/cli.js"));
            candidates.push(
                dir.join("../lib/node_modules")
                    .join(PACKAGE)
                    .join("dist/cli.js"),
            );
        }
    }
    // Where `.ci/setup` installs the pinned copy.
    candidates.push(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../.tools/npm/node_modules")
            .join(PACKAGE)
            .join("dist/cli.js"),
    );
    candidates.into_iter().find(|c| c.is_file())
}

/// The package version next to `cli` (`dist/cli.js`).
fn package_version(cli: &Path) -> Option<String> {
    let manifest = cli.parent()?.parent()?.join("package.json");
    let text = std::fs::read_to_string(manifest).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value["version"].as_str().map(str::to_owned)
}

fn node_works() -> bool {
    Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// One compared workload: the figures of pi and of pi-rs.
struct Compared {
    workload: String,
    input: String,
    pi: Measured,
    rs: Measured,
}

fn ms(seconds: f64) -> String {
    if !seconds.is_finite() {
        "—".to_owned()
    } else if seconds < 0.01 {
        format!("{:.2} ms", seconds * 1e3)
    } else {
        format!("{:.0} ms", seconds * 1e3)
    }
}

fn mb(kib: u64) -> String {
    if kib == 0 {
        return "—".to_owned();
    }
    format!("{:.1} MB", kib as f64 * 1024.0 / 1e6)
}

fn ratio(pi: f64, rs: f64) -> String {
    if !(pi / rs).is_finite() {
        return "—".to_owned();
    }
    format!("{:.1}x", pi / rs)
}

fn table(rows: &[Compared], version: &str) -> String {
    let mut out = format!(
        "| workload | input | pi {version} CPU | pi-rs CPU | CPU ratio | pi {version} wall | pi-rs wall | wall ratio | pi {version} peak RSS | pi-rs peak RSS | RSS ratio |\n|---|---|---|---|---|---|---|---|---|---|---|\n"
    );
    for r in rows {
        let (p, q) = (r.pi, r.rs);
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.workload,
            r.input,
            ms(p.cpu),
            ms(q.cpu),
            ratio(p.cpu, q.cpu),
            ms(p.wall),
            ms(q.wall),
            ratio(p.wall, q.wall),
            mb(p.rss_kib),
            mb(q.rss_kib),
            ratio(p.rss_kib as f64, q.rss_kib as f64),
        ));
    }
    out
}

/// The whole-command rows; `only_extensions`: up to the extension rows.
fn compare(
    pi: &Pi,
    rs: &Pi,
    bin: &Path,
    (quick, large, only_extensions): (bool, bool, bool),
) -> Result<Vec<Compared>, TaskError> {
    let perf = bin.join("examples").join("perf");
    // pi takes seconds per run on this machine: the best of 2 after a warm-up.
    let reps = 2;
    let mut rows = Vec::new();
    let scratch = Scratch::new("compare", Answers::recorded(&fixtures(), 0)?)?;
    let both = |scratch: &Scratch, args: &[&str], reps: usize| -> Result<_, TaskError> {
        Ok((
            scratch.measure(pi, args, reps)?,
            scratch.measure(rs, args, reps)?,
        ))
    };
    for arg in ["--version", "--help"] {
        let (p, r) = both(&scratch, &[arg], reps + 1)?;
        rows.push(Compared {
            workload: format!("`pi {arg}`"),
            input: "—".to_owned(),
            pi: p,
            rs: r,
        });
    }
    let print_dir = scratch.empty_dir("print")?;
    let print_dir = print_dir.to_string_lossy().into_owned();
    let (p, r) = both(&scratch, &print_args(&print_dir), reps)?;
    rows.push(Compared {
        workload: "print run (`pi -p`, new session)".to_owned(),
        input: "openai-completions, short answer".to_owned(),
        pi: p,
        rs: r,
    });
    rows.extend(extension_rows(pi, rs, &scratch, &print_dir, reps)?);
    if only_extensions {
        return Ok(rows);
    }
    let mut sizes: Vec<usize> = if quick { vec![2_500] } else { vec![20_000] };
    if large {
        // About 750 bytes per entry: 60 MB and a 128 MB session.
        sizes.extend([80_000, 170_000]);
    }
    let runs = std::iter::once(("issue", 20_000))
        .filter(|_| !quick)
        .chain(sizes.into_iter().map(|entries| ("standard", entries)));
    for (shape, entries) in runs {
        let (dir, bytes) = scratch.session_dir(&perf, entries, shape)?;
        let dir = dir.to_string_lossy();
        let (p, r) = both(&scratch, &resume_args(&dir), reps)?;
        let goal = if shape == "issue" {
            format!(
                "; goal >= 25x wall: {}, RSS <= 1/8 of pi's: {}",
                if p.wall >= 25.0 * r.wall {
                    "met"
                } else {
                    "NOT met"
                },
                if 8 * r.rss_kib <= p.rss_kib {
                    "met"
                } else {
                    "NOT met"
                }
            )
        } else {
            String::new()
        };
        rows.push(Compared {
            workload: format!("`pi -c -p` resume ({shape}-shaped session)"),
            input: format!("{entries} messages, {:.1} MB{goal}", bytes as f64 / 1e6),
            pi: p,
            rs: r,
        });
    }
    drop(scratch);
    // SSE decode inside a whole print run: a long streamed answer per wire.
    let bytes = if quick { 1 << 20 } else { 4 << 20 };
    let scratch = Scratch::new("compare-sse", Answers::recorded(&fixtures(), bytes)?)?;
    for (wire, _, model) in WIRES {
        let (p, r) = both(
            &scratch,
            &["--no-session", "-p", "--model", model, "Say hi."],
            reps,
        )?;
        let mb = bytes as f64 / 1e6;
        rows.push(Compared {
            workload: format!("print run streaming a long answer, {wire}"),
            input: format!(
                "{mb:.1} MB of SSE (whole run per CPU second: pi {:.0} MB/s, pi-rs {:.0} MB/s)",
                mb / p.cpu,
                mb / r.cpu
            ),
            pi: p,
            rs: r,
        });
    }
    Ok(rows)
}

/// Whether pi-rs's `wall` is at most half of pi's.
fn half(pi: f64, rs: f64) -> &'static str {
    if 2.0 * rs <= pi { "met" } else { "NOT met" }
}

/// The rows of pi's five example extensions (TypeScript, through pi-rs's
/// extension host): a print run, and the time until the interactive
/// editor is ready without and with them.
fn extension_rows(
    pi: &Pi,
    rs: &Pi,
    scratch: &Scratch,
    print_dir: &str,
    reps: usize,
) -> Result<Vec<Compared>, TaskError> {
    let mut rows = Vec::new();
    let Some(examples) = pi
        .prefix
        .first()
        .and_then(|cli| Path::new(cli).parent()?.parent().map(Path::to_path_buf))
        .map(|package| package.join("examples/extensions"))
        .filter(|dir| dir.is_dir())
    else {
        return Ok(rows);
    };
    let names = [
        "permission-gate",
        "protected-paths",
        "todo",
        "status-line",
        "pirate",
    ];
    let files: Vec<String> = names
        .iter()
        .map(|n| {
            examples
                .join(format!("{n}.ts"))
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let mut args: Vec<&str> = print_args(print_dir).to_vec();
    for file in &files {
        args.extend(["-e", file.as_str()]);
    }
    let p = scratch.measure(pi, &args, reps)?;
    let r = scratch.measure(rs, &args, reps)?;
    rows.push(Compared {
        workload: "print run with 5 TypeScript extensions".to_owned(),
        input: format!(
            "{}; goal <= 1/2 of pi's wall: {}",
            names.join(", "),
            half(p.wall, r.wall)
        ),
        pi: p,
        rs: r,
    });
    let model = MODEL.rsplit('/').next().unwrap_or(MODEL);
    let interactive = ["--session-dir", print_dir, "--model", MODEL];
    let mut loaded: Vec<&str> = interactive.to_vec();
    for file in &files {
        loaded.extend(["-e", file.as_str()]);
    }
    for (label, args) in [
        ("no extension", interactive.to_vec()),
        ("the same 5 extensions", loaded),
    ] {
        let p = crate::ready::editor_ready(scratch, pi, &args, model, reps)?;
        let r = crate::ready::editor_ready(scratch, rs, &args, model, reps)?;
        let goal = if label == "no extension" {
            String::new()
        } else {
            format!("; goal <= 1/2 of pi's: {}", half(p, r))
        };
        rows.push(Compared {
            workload: "interactive: until the editor is ready".to_owned(),
            input: format!("{label}, tmux 100x40{goal}"),
            pi: Measured::wall_only(p),
            rs: Measured::wall_only(r),
        });
    }
    Ok(rows)
}

/// The `compare-pi` command.
pub fn command(args: &[String]) -> ExitCode {
    let (mut quick, mut large, mut debug, mut only_extensions) = (false, false, false, false);
    for arg in args {
        match arg.as_str() {
            "--quick" => quick = true,
            "--large" => large = true,
            "--debug" => debug = true,
            "--extensions" => only_extensions = true,
            _ => {
                eprintln!(
                    "usage: cargo xtask compare-pi [--quick] [--large] [--debug] [--extensions]"
                );
                return ExitCode::from(2);
            }
        }
    }
    if !node_works() {
        println!("compare-pi: skipped: `node` is not on PATH (pi 0.73.1 runs on Node)");
        return ExitCode::SUCCESS;
    }
    let Some(cli) = find_cli() else {
        println!(
            "compare-pi: skipped: pi ({PACKAGE}) not found: set ${CLI_VAR} to its dist/cli.js, or put its `pi` on PATH (an npm install; $NODE_PATH is searched too)"
        );
        return ExitCode::SUCCESS;
    };
    let version = package_version(&cli).unwrap_or_else(|| "?".to_owned());
    if version != "0.73.1" {
        println!("compare-pi: note: {PACKAGE} is {version}, not 0.73.1");
    }
    if let Err(e) = crate::bench::build(debug) {
        eprintln!("compare-pi: {e}");
        return ExitCode::from(2);
    }
    let pi = Pi {
        program: "node".into(),
        prefix: vec![cli.to_string_lossy().into_owned()],
    };
    let bin = crate::bench::build_dir(debug);
    let rs = Pi::binary(bin.join("pi"));
    println!("compare-pi: pi {version} at {}\n", cli.display());
    match compare(&pi, &rs, &bin, (quick, large, only_extensions)) {
        Ok(rows) => {
            println!("{}", table(&rows, &version));
            println!(
                "(CPU = user + system of the process and its threads; CPU and wall: the best of the runs after a warm-up; peak RSS: the largest of the runs; all from getrusage)"
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("compare-pi: {e}");
            ExitCode::from(1)
        }
    }
}
