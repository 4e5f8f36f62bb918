//! Packages at start-up: a project package missing on start-up is
//! installed (with a progress line), its resources load (skills and prompt
//! templates in the resource loader with pi's `sourceInfo`, extensions in
//! the extension host), filters narrow them, a package in both scopes loads
//! once from the project, `-e npm:...` loads for one run, and a package
//! that cannot be installed costs one warning line, never the start-up.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::packages_common;

use packages_common::{Sandbox, write};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn settings(sandbox: &Sandbox, project: bool, packages: Value) {
    let path = if project {
        sandbox.project.join(".pi/settings.json")
    } else {
        sandbox.agent.join("settings.json")
    };
    write(&path, &json!({ "packages": packages }).to_string());
}

/// `name -> (source, scope, origin)` of the commands from packages.
fn packaged(commands: &[Value]) -> Vec<(String, String, String, String)> {
    let mut out: Vec<_> = commands
        .iter()
        .filter(|c| c["sourceInfo"]["origin"] == "package" || c["source"] == "extension")
        .map(|c| {
            let info = &c["sourceInfo"];
            let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
            (
                text(&c["name"]),
                text(&info["source"]),
                text(&info["scope"]),
                text(&info["origin"]),
            )
        })
        .collect();
    out.sort();
    out
}

fn row(name: &str, source: &str, scope: &str) -> (String, String, String, String) {
    (
        name.to_owned(),
        source.to_owned(),
        scope.to_owned(),
        "package".to_owned(),
    )
}

#[test]
fn a_missing_project_package_is_installed_and_loads_every_kind() {
    let Some(sandbox) = Sandbox::new() else {
        return;
    };
    // The same package in both scopes: the project's wins.
    settings(&sandbox, true, json!(["npm:pi-kit"]));
    settings(&sandbox, false, json!(["npm:pi-kit@1.0.0"]));
    let (commands, stderr) = sandbox.commands(&[]);
    assert!(
        stderr.contains("Installing npm:pi-kit...\n"),
        "progress is shown: {stderr}"
    );
    // The global entry of the same identity is not even installed.
    assert!(!stderr.contains("Installing npm:pi-kit@1.0.0"), "{stderr}");
    assert!(
        sandbox
            .project
            .join(".pi/npm/node_modules/pi-kit/package.json")
            .exists()
    );
    let rows = packaged(&commands);
    // The extension registers `hello` (when the host's packages are there).
    let host = pi_test_support::external::repo_root()
        .join("crates/pi-coding-agent/host/node_modules")
        .exists();
    let mut expected = vec![
        row("review", "npm:pi-kit", "project"),
        row("skill:greet", "npm:pi-kit", "project"),
    ];
    if host {
        let hello = rows.iter().find(|r| r.0 == "hello");
        assert!(
            hello.is_some(),
            "the package's extension loaded: {rows:?} {stderr}"
        );
        expected.insert(0, hello.unwrap().clone());
    }
    assert_eq!(rows, expected);
    let review = commands.iter().find(|c| c["name"] == "review").unwrap();
    assert_eq!(
        sandbox.norm(review["sourceInfo"]["baseDir"].as_str().unwrap()),
        "<root>/project/.pi/npm/node_modules/pi-kit"
    );
    // Installed now: the next start-up installs nothing.
    let (_, stderr) = sandbox.commands(&[]);
    assert!(!stderr.contains("Installing"), "{stderr}");
}

#[test]
fn filters_narrow_a_local_package() {
    let Some(sandbox) = Sandbox::new() else {
        return;
    };
    write(
        &sandbox.project.join("local-kit/prompts/fix.md"),
        "---\ndescription: Fix\n---\nFix $1\n",
    );
    settings(
        &sandbox,
        true,
        json!([{"source": "../local-kit", "extensions": [], "skills": [], "prompts": ["!review.md"]}]),
    );
    let (commands, stderr) = sandbox.commands(&[]);
    assert_eq!(
        packaged(&commands),
        [row("fix", "../local-kit", "project")],
        "{stderr}"
    );
    // `+path` brings an excluded file back; `-path` removes an included one.
    settings(
        &sandbox,
        true,
        json!([{"source": "../local-kit", "extensions": [], "skills": ["-skills/greet/SKILL.md"], "prompts": ["!*.md", "+prompts/review.md"]}]),
    );
    let (commands, _) = sandbox.commands(&[]);
    assert_eq!(
        packaged(&commands),
        [row("review", "../local-kit", "project")]
    );
    // A plain string loads everything; a path is never copied.
    settings(&sandbox, false, json!(["../../../project/local-kit"]));
    settings(&sandbox, true, json!([]));
    let (commands, _) = sandbox.commands(&["--no-extensions"]);
    assert_eq!(
        packaged(&commands),
        [
            row("fix", "../../../project/local-kit", "user"),
            row("review", "../../../project/local-kit", "user"),
            row("skill:greet", "../../../project/local-kit", "user"),
        ]
    );
}

#[test]
fn a_git_package_and_a_temporary_npm_package() {
    let Some(sandbox) = Sandbox::new() else {
        return;
    };
    settings(&sandbox, false, json!(["git:localhost/user/plain"]));
    let (commands, stderr) = sandbox.commands(&["--no-extensions", "-e", "npm:@demo/tools"]);
    assert!(
        sandbox
            .agent
            .join("git/localhost/user/plain/skills/solo/SKILL.md")
            .exists(),
        "{stderr}"
    );
    let rows = packaged(&commands);
    assert!(
        rows.contains(&row("skill:solo", "git:localhost/user/plain", "user")),
        "{rows:?}"
    );
    assert!(
        rows.contains(&row("review", "npm:@demo/tools", "temporary")),
        "{rows:?} {stderr}"
    );
    // One run only: nothing was added to the settings.
    assert_eq!(
        sandbox.settings(false).unwrap(),
        json!({"packages": ["git:localhost/user/plain"]}).to_string()
    );
    assert!(sandbox.root.join("tmp/pi-extensions/npm").exists());
}

#[test]
fn a_broken_package_costs_one_warning_and_offline_starts_with_what_is_installed() {
    let Some(sandbox) = Sandbox::new() else {
        return;
    };
    settings(
        &sandbox,
        true,
        json!([
            "npm:does-not-exist",
            "git:localhost/user/missing",
            "../local-kit"
        ]),
    );
    let (commands, stderr) = sandbox.commands(&["--no-extensions"]);
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("Warning:"))
        .collect();
    assert_eq!(
        warnings,
        [
            "Warning: Could not install npm:does-not-exist: npm install does-not-exist --prefix <root>/project/.pi/npm failed with code 1",
            "Warning: Could not install git:localhost/user/missing: git clone https://localhost/user/missing <root>/project/.pi/git/localhost/user/missing failed with code 128",
        ]
    );
    // The rest loaded; nothing half-installed stayed.
    assert!(packaged(&commands).contains(&row("review", "../local-kit", "project")));
    assert!(!sandbox.project.join(".pi/npm").exists());
    assert!(!sandbox.project.join(".pi/git/localhost").exists());
    // `--version` answers before any package is looked at.
    let out = sandbox.pi(&["--version"]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    // Offline: one line per missing package, no install attempted.
    let (commands, stderr) = sandbox.commands_with(&["--no-extensions"], |c| {
        c.env("PI_OFFLINE", "1");
    });
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("Warning:"))
        .collect();
    assert_eq!(
        warnings,
        [
            "Warning: Package npm:does-not-exist is not installed (run `pi install npm:does-not-exist`)",
            "Warning: Package git:localhost/user/missing is not installed (run `pi install git:localhost/user/missing`)",
        ]
    );
    assert!(!stderr.contains("Installing"));
    assert!(packaged(&commands).contains(&row("review", "../local-kit", "project")));
}
