//! Packages in the terminal UI, in a pseudo-terminal: `pi config` (the
//! resource list of a local package and the project's own folder, filtering
//! by typing, Space toggling a resource — written to the settings file at
//! once, as pi writes it — Esc closing with exit code 0), and a package's
//! theme used by the interactive mode.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;
use crate::pty_common;

use e2e_common::Scenario;
use pretty_assertions::assert_eq;
use pty_common::Tui;

fn write(path: &std::path::Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn config_lists_filters_and_toggles_resources() {
    let s = Scenario::start(Vec::new()).await;
    let work = s.work.path();
    write(
        &work.join("kit/extensions/hello.ts"),
        "export default () => {}\n",
    );
    write(
        &work.join("kit/skills/greet/SKILL.md"),
        "---\nname: greet\ndescription: G\n---\n",
    );
    write(&work.join("kit/prompts/review.md"), "Review\n");
    write(&work.join("kit/themes/dusk.json"), "{}\n");
    write(&work.join(".pi/prompts/local.md"), "Local\n");
    let settings = work.join(".pi/settings.json");
    write(&settings, "{\n  \"packages\": [\n    \"../kit\"\n  ]\n}");
    // `config` must be the first argument (as in pi); the harness puts its
    // own flags first, so a script that drops them starts `pi config`.
    let script = work.join("pi-config.sh");
    write(&script, "#!/bin/sh\nexec \"$PI_BIN\" config\n");
    let mut perms = std::fs::metadata(&script).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&script, perms).unwrap();
    let mut tui = Tui::start_program(
        script.to_str().unwrap(),
        &[("PI_BIN", env!("CARGO_BIN_EXE_pi"))],
        &s,
        &[],
        80,
        30,
    );
    let screen = tui.wait_screen(|s| s.contains("[x] hello.ts"), "the resource list");
    let shown: Vec<&str> = screen.lines().map(str::trim_end).collect();
    insta::assert_snapshot!("config_list", shown.join("\n"));
    // Space toggles the selected (first) resource off; it is written at once.
    tui.send(" ");
    tui.wait_screen(|s| s.contains("[ ] hello.ts"), "hello.ts turned off");
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        "{\n  \"packages\": [\n    {\n      \"source\": \"../kit\",\n      \"extensions\": [\n        \"-extensions/hello.ts\"\n      ]\n    }\n  ]\n}"
    );
    // Typing filters; Enter toggles too.
    tui.send("local");
    tui.wait_screen(
        |s| s.contains("[x] local.md") && !s.contains("hello.ts"),
        "only local.md",
    );
    tui.send("\r");
    tui.wait_screen(|s| s.contains("[ ] local.md"), "local.md turned off");
    let written = std::fs::read_to_string(&settings).unwrap();
    assert!(
        written.contains("\"prompts\": [\n    \"-prompts/local.md\"\n  ]"),
        "{written}"
    );
    tui.send("\x1b");
    assert!(tui.wait_exit().success());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_package_theme_is_used() {
    let s = Scenario::start(Vec::new()).await;
    let work = s.work.path();
    // Every token unset except the editor rule's colour (#123456).
    let mut colors = serde_json::Map::new();
    for token in pi_tui::theme::Token::ALL {
        colors.insert(token.name().to_owned(), "".into());
    }
    colors.insert("thinkingOff".to_owned(), "#123456".into());
    colors.insert("borderMuted".to_owned(), "#123456".into());
    write(
        &work.join("kit/themes/brand.json"),
        &serde_json::json!({"name": "brand", "vars": {}, "colors": colors}).to_string(),
    );
    write(
        &work.join(".pi/settings.json"),
        r#"{"packages": ["../kit"]}"#,
    );
    write(
        &s.agent_dir.path().join("settings.json"),
        r#"{"theme": "brand"}"#,
    );
    let mut tui = Tui::start(&s, &[], 80, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    let deadline = std::time::Instant::now() + pty_common::TIMEOUT;
    while !tui.raw_contains("\x1b[38;2;18;52;86m") {
        assert!(
            std::time::Instant::now() < deadline,
            "the package theme's colour never appeared; screen:\n{}",
            tui.screen()
        );
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    assert!(
        !tui.screen().contains("Theme not found"),
        "{}",
        tui.screen()
    );
    assert!(tui.quit().success());
}
