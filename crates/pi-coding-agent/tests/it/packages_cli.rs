//! `pi install` / `remove` / `update` / `list` against local stand-ins for
//! remote sources (see `packages_common`), compared with pi 0.73.1 run on
//! the same sources (`fixtures/pi-0.73.1/packages/runs.json`, made by
//! `fixtures/capture/packages/capture.mjs`): exit codes, pi's own output
//! lines, and both settings files byte for byte after every step.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::packages_common;

use packages_common::{Sandbox, commit, kit_manifest, write};
use pretty_assertions::assert_eq;
use serde_json::Value;

/// The stderr lines pi itself prints (npm's and git's own output differs
/// by design: pi-rs clones into a staging folder before renaming it).
fn own_lines(text: &str) -> Vec<String> {
    const OWN: [&str; 10] = [
        "Error:",
        "No matching",
        "Unknown option",
        "Use \"",
        "Missing ",
        "Usage:",
        "Unexpected argument",
        "--extension",
        "positional",
        "Warning:",
    ];
    text.lines()
        .filter(|l| OWN.iter().any(|p| l.starts_with(p)))
        .map(str::to_owned)
        .collect()
}

/// Commit ids as `<sha>`.
fn no_shas(text: &str) -> String {
    text.split('\n')
        .map(|line| {
            line.split(' ')
                .map(|word| {
                    if word.len() >= 7 && word.chars().all(|c| c.is_ascii_hexdigit()) {
                        "<sha>".to_owned()
                    } else {
                        word.to_owned()
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn package_commands_match_pi() {
    let Some(mut sandbox) = Sandbox::new() else {
        return;
    };
    let capture: Value = serde_json::from_str(
        &std::fs::read_to_string(
            pi_test_support::external::repo_root().join("fixtures/pi-0.73.1/packages/runs.json"),
        )
        .unwrap(),
    )
    .unwrap();
    for step in capture["runs"].as_array().unwrap() {
        let name = step["name"].as_str().unwrap();
        // What capture.mjs changes between steps.
        match name {
            "update-extensions" => {
                sandbox.publish("pi-kit", "1.1.0", Some(kit_manifest()));
                write(&sandbox.kit.join("prompts/second.md"), "Second\n");
                commit(&sandbox.kit, "two");
            }
            "list-filtered" => {
                let path = sandbox.project.join(".pi/settings.json");
                let mut settings: Value =
                    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                settings["packages"]
                    .as_array_mut()
                    .unwrap()
                    .push(serde_json::json!({"source": "npm:@demo/tools", "skills": []}));
                std::fs::write(&path, serde_json::to_string_pretty(&settings).unwrap()).unwrap();
            }
            _ => {}
        }
        let args: Vec<&str> = step["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        let out = sandbox.pi(&args);
        let stdout = sandbox.norm(&String::from_utf8_lossy(&out.stdout));
        let stderr = sandbox.norm(&String::from_utf8_lossy(&out.stderr));
        assert_eq!(
            out.status.code(),
            step["exit"].as_i64().map(|c| c as i32),
            "{name}: exit code; stderr {stderr}"
        );
        assert_eq!(
            no_shas(&stdout),
            no_shas(step["stdout"].as_str().unwrap()),
            "{name}: stdout"
        );
        assert_eq!(
            own_lines(&stderr),
            own_lines(step["stderr"].as_str().unwrap()),
            "{name}: stderr"
        );
        assert_eq!(
            sandbox.settings(false).as_deref(),
            step["global"].as_str(),
            "{name}: global settings"
        );
        assert_eq!(
            sandbox.settings(true).as_deref(),
            step["project"].as_str(),
            "{name}: project settings"
        );
        if let Some(installed) = step.get("installed") {
            let read = |p: &str| std::fs::read_to_string(sandbox.root.join(p)).ok();
            let version = |text: Option<String>| -> Option<String> {
                let v: Value = serde_json::from_str(&text?).ok()?;
                v["version"].as_str().map(str::to_owned)
            };
            let theirs = |key: &str| version(installed[key].as_str().map(str::to_owned));
            assert_eq!(
                version(read("npm-global/lib/node_modules/pi-kit/package.json")),
                theirs("globalNpmPiKit"),
                "{name}: the pinned global npm package stays"
            );
            assert_eq!(
                version(read("project/.pi/npm/node_modules/pi-kit/package.json")),
                theirs("projectNpmPiKit"),
                "{name}: the unpinned project npm package moves"
            );
            let head = |dir: &str| {
                packages_common::sh(
                    "git",
                    &["log", "--format=%s", "-1"],
                    &sandbox.root.join(dir),
                )
            };
            assert_eq!(
                head("home/.pi/agent/git/localhost/user/kit"),
                installed["globalGitHead"].as_str().unwrap()
            );
            assert_eq!(
                head("project/.pi/git/localhost/user/kit"),
                installed["projectGitHead"].as_str().unwrap()
            );
        }
        if let Some(left) = step.get("gitDirLeft") {
            let dir = sandbox.project.join(".pi/git/localhost");
            assert_eq!(
                dir.join("user/kit").exists(),
                left.as_bool().unwrap(),
                "{name}"
            );
            assert_eq!(
                dir.exists(),
                step["gitParentLeft"].as_bool().unwrap(),
                "{name}"
            );
        }
    }
    // What a start-up loads from the packages configured now.
    let (commands, stderr) = sandbox.commands(&[]);
    let commands = Value::Array(commands);
    // pi names extension commands registered more than once `name:N`
    // (its runner's invocation names); pi-rs's extension runtime does not
    // yet, a difference of the runtime, not of packages.
    let mut theirs = capture["commands"].clone();
    for command in theirs.as_array_mut().unwrap() {
        if command["source"] == "extension" {
            let name = command["name"].as_str().unwrap();
            let base = name
                .rsplit_once(':')
                .map_or(name, |(base, _)| base)
                .to_owned();
            command["name"] = Value::String(base);
        }
    }
    assert_eq!(
        serde_json::from_str::<Value>(&sandbox.norm(&commands.to_string())).unwrap(),
        theirs,
        "get_commands; stderr {stderr}"
    );
    // No package command wrote a session.
    assert!(!sandbox.agent.join("sessions").exists());
    // A failed install leaves no folder behind.
    assert!(!sandbox.agent.join("git/localhost/user/missing").exists());
    let staging: Vec<_> = std::fs::read_dir(sandbox.agent.join("git/localhost/user"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(staging, ["kit"]);
}

#[test]
fn update_self_says_how_pi_rs_is_updated() {
    let Some(sandbox) = Sandbox::new() else {
        return;
    };
    for (args, code) in [
        (&["update", "--self"][..], 1),
        (&["update", "pi"][..], 1),
        (&["update"][..], 0),
    ] {
        let out = sandbox.pi(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("error: pi cannot self-update this installation.\n"),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains("cargo install"), "{stderr}");
        assert!(
            stderr.contains(env!("CARGO_BIN_EXE_pi")),
            "names the binary: {stderr}"
        );
        // No session was written, no model asked.
        assert!(!sandbox.agent.join("sessions").exists());
    }
    let out = sandbox.pi(&["update"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Updated packages\n");
}

#[test]
fn the_npm_command_setting_runs_npm() {
    let Some(sandbox) = Sandbox::new() else {
        return;
    };
    // A wrapper that logs its arguments, then runs npm.
    let log = sandbox.root.join("npm.log");
    let wrapper = sandbox.root.join("npm-wrap.sh");
    write(
        &wrapper,
        &format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nexec npm \"$@\"\n",
            log.display()
        ),
    );
    write(
        &sandbox.agent.join("settings.json"),
        &format!(
            "{{\n  \"npmCommand\": [\"sh\", \"{}\"]\n}}",
            wrapper.display()
        ),
    );
    for args in [
        &["install", "npm:pi-kit"][..],
        &["install", "git:localhost/user/kit", "-l"][..],
        &["remove", "npm:pi-kit"][..],
    ] {
        let out = sandbox.pi(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let logged = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = logged.lines().collect();
    // Every npm call goes through it; a git package's dependencies are
    // installed with dev dependencies, as pi does with a configured command.
    assert_eq!(
        lines,
        ["install -g pi-kit", "install", "uninstall -g pi-kit",]
    );
    assert_eq!(
        sandbox.settings(false).unwrap(),
        format!(
            "{{\n  \"npmCommand\": [\n    \"sh\",\n    \"{}\"\n  ],\n  \"packages\": []\n}}",
            sandbox.norm(&wrapper.display().to_string())
        )
    );
}
