//! Pasting images in the interactive mode, through the real `pi` in a pty
//! against the loopback mock: Ctrl+V with a `wl-paste` (Wayland) or `xclip`
//! (X11) stand-in on PATH saves the clipboard's image and puts its path into
//! the next request, as pi 0.73.1 does; a dropped file's path is pasted as
//! text.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;
use crate::pty_common;

use std::path::Path;

use e2e_common::{Scenario, capture_answer};
use pty_common::Tui;

/// Writes an executable `name` script into `dir`.
fn stand_in(dir: &Path, name: &str, script: &str) {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Ctrl+V after typing `What is in ` with `tool` (a script offering the
/// image in `clip`, written by `script(path of clip)`) on PATH and `env`
/// set: the image is saved as `pi-clipboard-*.<ext>`, its path typed into
/// the editor and sent with the next prompt.
async fn ctrl_v_with(
    tool: &str,
    script: fn(&Path) -> String,
    clip: &[u8],
    ext: &str,
    env: &[(&str, &str)],
) {
    let s = Scenario::start(vec![capture_answer("Got it.")]).await;
    let bin = s.work.path().join("bin");
    let tmp = s.work.path().join("tmp");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&tmp).unwrap();
    let source = s.work.path().join("clip");
    std::fs::write(&source, clip).unwrap();
    stand_in(&bin, tool, &script(&source));
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut all_env = vec![("PATH", path.as_str()), ("TMPDIR", tmp.to_str().unwrap())];
    all_env.extend_from_slice(env);
    let mut tui = Tui::start_program(env!("CARGO_BIN_EXE_pi"), &all_env, &s, &[], 100, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.send("What is in ");
    tui.wait_screen(|s| s.contains("What is in"), "the typed text");
    tui.send("\x16");
    tui.wait_screen(|s| s.contains("pi-clipboard-"), "the pasted image's path");
    let saved: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(saved.len(), 1, "{saved:?}");
    let file = &saved[0];
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with("pi-clipboard-") && name.ends_with(ext),
        "{name}"
    );
    assert_eq!(std::fs::read(file).unwrap(), clip);
    tui.send("?\r");
    tui.wait_all(|s| s.contains("Got it."), "the answer");
    let requests = s.requests();
    assert_eq!(requests.len(), 1);
    let body: serde_json::Value = serde_json::from_slice(&requests[0].body).unwrap();
    let sent = body.to_string();
    let expected = format!("What is in {}?", file.display());
    assert!(sent.contains(&expected), "{expected} not in {sent}");
    // pi 0.73.1 sent the same text (fixtures/pi-0.73.1/images, TMPDIR=<root>).
    let pi: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(e2e_common::fixtures().join("images/wayland-paste.requests.json"))
            .unwrap(),
    )
    .unwrap();
    let pi_text = pi[0][0]["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        pi_text
            .replace("<root>", tmp.to_str().unwrap())
            .replace("pi-clipboard-UUID.png", &name)
            .replace(".png", ext),
        expected
    );
    tui.quit();
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_v_pastes_the_clipboard_image_s_path_into_the_next_request() {
    // Under Wayland: `wl-paste --list-types`, then `wl-paste --type image/png --no-newline`.
    let script = |png: &Path| {
        format!(
            "#!/bin/sh\ncase \"$1\" in\n  --list-types) printf 'text/plain;charset=utf-8\\nimage/png\\n' ;;\n  --type) [ \"$2\" = image/png ] && [ \"$3\" = --no-newline ] && cat '{}' ;;\n  *) exit 1 ;;\nesac\n",
            png.display()
        )
    };
    ctrl_v_with(
        "wl-paste",
        script,
        &e2e_common::image(180, 90, image::ImageFormat::Png),
        ".png",
        &[("WAYLAND_DISPLAY", "wayland-0")],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_v_reads_the_x11_clipboard_with_xclip() {
    // `xclip -selection clipboard -t TARGETS -o`, then `-t image/jpeg`.
    let script = |jpeg: &Path| {
        format!(
            "#!/bin/sh\n[ \"$1 $2 $3 $5\" = '-selection clipboard -t -o' ] || exit 1\ncase \"$4\" in\n  TARGETS) printf 'TARGETS\\nUTF8_STRING\\nimage/jpeg\\n' ;;\n  image/jpeg) cat '{}' ;;\n  *) exit 1 ;;\nesac\n",
            jpeg.display()
        )
    };
    let jpeg = e2e_common::image(8, 8, image::ImageFormat::Jpeg);
    ctrl_v_with("xclip", script, &jpeg, ".jpg", &[("DISPLAY", ":0")]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dropped_path_is_pasted_as_text() {
    let s = Scenario::start(vec![capture_answer("Got it.")]).await;
    let mut tui = Tui::start(&s, &[], 80, 30);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.send("look at");
    tui.wait_screen(|s| s.contains("look at"), "the typed text");
    // A terminal pastes a dropped file's path (bracketed paste).
    tui.send("\x1b[200~/tmp/shot.png\x1b[201~");
    tui.wait_screen(|s| s.contains("look at /tmp/shot.png"), "the path, spaced");
    tui.send("\r");
    tui.wait_all(|s| s.contains("Got it."), "the answer");
    let body = String::from_utf8_lossy(&s.requests()[0].body).into_owned();
    assert!(body.contains("look at /tmp/shot.png"), "{body}");
    tui.quit();
}
