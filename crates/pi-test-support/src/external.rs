//! External tools the tests run against (tmux, Node, pi's npm package),
//! installed by `.ci/setup`. Without one a test says so and passes, except
//! under `CI=true`, where a missing tool is a failure: CI runs the setup
//! step first, so a skip there would hide a test that never ran.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root exists")
}

/// Where `.ci/setup` installs the tools (`<repo>/.tools`).
pub fn tools_dir() -> PathBuf {
    repo_root().join(".tools")
}

/// True when `CI` is set to something other than `false`/`0`.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// Decides about a prerequisite: `Some(found)` when present; when missing,
/// `None` after saying so on stderr, or a panic under CI.
pub fn require<T>(what: &str, found: Option<T>) -> Option<T> {
    if found.is_none() {
        assert!(
            !in_ci(),
            "{what} is missing and CI=true: run .ci/setup (a test must not skip in CI)"
        );
        #[allow(clippy::print_stderr)]
        {
            eprintln!("skipped: {what} is missing (run .ci/setup)");
        }
    }
    found
}

/// Whether `program --version` runs.
pub fn runs(program: &str) -> bool {
    Command::new(program)
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
        || Command::new(program)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
}

/// `node` on PATH ([`require`]d).
pub fn node() -> Option<()> {
    require("node (Node 20+)", runs("node").then_some(()))
}

/// `npm` on PATH ([`require`]d along with `node`): pi packages' tests
/// install from a loopback registry.
pub fn npm() -> Option<()> {
    node()?;
    require("npm", runs("npm").then_some(()))
}

/// `git` on PATH ([`require`]d): pi packages' tests clone local repositories.
pub fn git() -> Option<()> {
    require("git", runs("git").then_some(()))
}

/// `python3` on PATH ([`require`]d).
pub fn python3() -> Option<()> {
    require("python3", runs("python3").then_some(()))
}

/// `rg` (ripgrep) on PATH ([`require`]d), for pi's `truncated-tool`
/// example extension, which runs it.
pub fn rg() -> Option<()> {
    require("rg (ripgrep)", runs("rg").then_some(()))
}

/// `tmux` on PATH ([`require`]d).
pub fn tmux() -> Option<()> {
    require("tmux", runs("tmux").then_some(()))
}

/// pi 0.73.1's npm package directory (`PI_CODING_AGENT_PKG`, else
/// `.tools/npm/node_modules/@mariozechner/pi-coding-agent`), [`require`]d
/// along with `node`.
pub fn pi_package() -> Option<PathBuf> {
    node()?;
    let dir = std::env::var_os("PI_CODING_AGENT_PKG").map_or_else(
        || tools_dir().join("npm/node_modules/@mariozechner/pi-coding-agent"),
        PathBuf::from,
    );
    require(
        "pi 0.73.1's npm package (PI_CODING_AGENT_PKG or .tools/npm)",
        dir.join("dist/cli.js").is_file().then_some(dir),
    )
}

/// The entry script of an npm package installed by `.ci/setup`
/// (`.tools/npm/node_modules/<package>/dist/index.js`), [`require`]d along
/// with `node`.
fn npm_script(package: &str) -> Option<PathBuf> {
    node()?;
    let script = tools_dir()
        .join("npm/node_modules")
        .join(package)
        .join("dist/index.js");
    require(
        &format!("{package} (.tools/npm)"),
        script.is_file().then_some(script),
    )
}

/// `@modelcontextprotocol/server-everything`'s entry script (run it with
/// `node SCRIPT stdio`, or `PORT=N node SCRIPT streamableHttp` for its
/// streamable HTTP mode at `http://127.0.0.1:N/mcp`).
pub fn mcp_everything() -> Option<PathBuf> {
    npm_script("@modelcontextprotocol/server-everything")
}

/// `@modelcontextprotocol/server-filesystem`'s entry script (`node SCRIPT
/// DIR...`).
pub fn mcp_filesystem() -> Option<PathBuf> {
    npm_script("@modelcontextprotocol/server-filesystem")
}

/// The folder `.ci/setup` installs `mcp-server-time` into (`.tools/py`):
/// run `python3 -m mcp_server_time` with it as `PYTHONPATH`. [`require`]d
/// along with `python3`.
pub fn mcp_time() -> Option<PathBuf> {
    require("python3", runs("python3").then_some(()))?;
    let dir = tools_dir().join("py");
    require(
        "mcp-server-time (.tools/py)",
        dir.join("mcp_server_time").is_dir().then_some(dir),
    )
}

/// Chromium (the Debian package `chromium`, else `chromium-browser`, `google-chrome`
/// or `PI_TEST_CHROMIUM`) for the browser tests ([`require`]d).
pub fn chromium() -> Option<PathBuf> {
    let found = std::env::var_os("PI_TEST_CHROMIUM")
        .map(PathBuf::from)
        .into_iter()
        .chain(
            ["chromium", "chromium-browser", "google-chrome"]
                .into_iter()
                .map(PathBuf::from),
        )
        .find(|program| {
            Command::new(program)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        });
    require("chromium (headless, for the browser tests)", found)
}
