//! Images drawn in the interactive mode, through the real `pi` in a pty
//! against the loopback mock: a `read` image drawn with kitty graphics or
//! iTerm2 inline images sized to the cell size and width (and again after a
//! resize), laid out as pi 0.73.1 lays it out, pi's placeholder under tmux
//! and with `terminal.showImages: false`. Pasting images is in
//! `interactive_paste_image.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;
use crate::pty_common;

use base64::Engine;
use e2e_common::{Scenario, capture_answer, tool_call_answer};
use pty_common::Tui;

/// A scenario whose model reads `pic.png`, then answers.
async fn reading_scenario() -> Scenario {
    let s = Scenario::start(vec![
        tool_call_answer("call_img", "read", &serde_json::json!({"path": "pic.png"})),
        capture_answer("A black picture."),
    ])
    .await;
    std::fs::write(
        s.work.path().join("pic.png"),
        e2e_common::image(180, 90, image::ImageFormat::Png),
    )
    .unwrap();
    s
}

/// The kitty graphics commands `pi` wrote: (keys, payload) of each first chunk,
/// with the payload of its continuation chunks appended.
fn kitty_images(raw: &[u8]) -> Vec<(String, String)> {
    let raw = String::from_utf8_lossy(raw);
    let mut images: Vec<(String, String)> = Vec::new();
    for part in raw.split("\x1b_G").skip(1) {
        let Some(end) = part.find("\x1b\\") else {
            continue;
        };
        let (keys, payload) = part[..end].split_once(';').unwrap_or((&part[..end], ""));
        if keys.contains("a=T") {
            images.push((keys.to_owned(), payload.to_owned()));
        } else if keys.starts_with("m=")
            && let Some(last) = images.last_mut()
        {
            last.1.push_str(payload);
        }
    }
    images
}

fn raw(tui: &Tui) -> Vec<u8> {
    tui.raw.lock().unwrap().clone()
}

fn start_reading(s: &Scenario, env: &[(&str, &str)], cols: u16) -> Tui {
    let mut tui = Tui::start_program(env!("CARGO_BIN_EXE_pi"), env, s, &[], cols, 50);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("Look at pic.png");
    tui.wait_all(|s| s.contains("A black picture."), "the answer");
    // The emulator is fed before the raw copy: wait for that too.
    tui.wait_raw("A black picture.", "the answer's bytes");
    tui
}

#[tokio::test(flavor = "multi_thread")]
async fn kitty_draws_a_read_image_sized_to_the_cells_and_redraws_it_on_resize() {
    let s = reading_scenario().await;
    let mut tui = start_reading(&s, &[("KITTY_WINDOW_ID", "1")], 80);
    let images = kitty_images(&raw(&tui));
    assert!(!images.is_empty(), "no kitty image drawn");
    let (keys, payload) = &images[0];
    // 80 columns: at most 60 cells of 9 px (the pty reports no pixels) =
    // 540 px for 180 px, so 270 px high: 15 rows of 18 px.
    assert!(keys.starts_with("a=T,f=100,q=2,C=1,c=60,r=15,i="), "{keys}");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(payload)
        .unwrap();
    let drawn = image::load_from_memory(&bytes).unwrap();
    assert_eq!((drawn.width(), drawn.height()), (180, 90));
    // The placeholder is not shown, the image's rows are kept free.
    let all = tui.everything();
    assert!(!all.contains("[Image:"), "{all}");
    assert!(
        !all.contains("iVBORw0KGgo"),
        "the image's data shown as text: {all}"
    );
    // The whole chat fits the screen's 50 rows.
    let rows: Vec<String> = tui
        .parser
        .lock()
        .unwrap()
        .parser()
        .screen()
        .rows(0, 80)
        .collect();
    let all = rows.join("\n");
    let lines: Vec<&str> = rows.iter().map(String::as_str).collect();
    let answer = lines
        .iter()
        .position(|l| l.contains("A black picture."))
        .expect("the answer");
    let blank = lines[..answer]
        .iter()
        .rev()
        .take_while(|l| l.trim().is_empty())
        .count();
    // The card's bottom padding, a blank line, the image's 15 rows and the
    // answer's blank line are empty text rows.
    assert_eq!(blank, 18, "{all}");
    // One image, whatever the frames: the result message repeating the
    // call's result keeps its id.
    let mut ids: Vec<&str> = images
        .iter()
        .filter_map(|(k, _)| k.split(',').find(|k| k.starts_with("i=")))
        .collect();
    ids.dedup();
    assert_eq!(ids.len(), 1, "{ids:?}");
    let before = images.len();
    tui.resize(50, 50);
    // 48 cells (the width less 2) = 432 px, scale 2.4: 216 px, 12 rows.
    let deadline = std::time::Instant::now() + pty_common::TIMEOUT;
    loop {
        let images = kitty_images(&raw(&tui));
        if images[before..]
            .iter()
            .any(|(k, _)| k.starts_with("a=T,f=100,q=2,C=1,c=48,r=12,i="))
        {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no redraw at the new width: {:?}",
            images.iter().map(|i| &i.0).collect::<Vec<_>>()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    tui.quit();
}

fn assert_placeholder(tui: &Tui) {
    let all = tui.wait_all(
        |s| s.contains("[Image: [image/png] 180x90]"),
        "the image placeholder",
    );
    assert!(all.contains("A black picture."), "{all}");
    assert!(kitty_images(&raw(tui)).is_empty(), "an image was drawn");
    assert!(!tui.raw_contains("\x1b[16t"), "the cell size was asked");
    assert!(!String::from_utf8_lossy(&raw(tui)).contains("\x1b]1337;File="));
}

#[tokio::test(flavor = "multi_thread")]
async fn under_tmux_the_placeholder_is_shown() {
    let s = reading_scenario().await;
    let mut tui = start_reading(
        &s,
        &[
            ("KITTY_WINDOW_ID", "1"),
            ("TMUX", "/tmp/tmux-0/default,1,0"),
        ],
        80,
    );
    assert_placeholder(&tui);
    tui.quit();
}

#[tokio::test(flavor = "multi_thread")]
async fn show_images_off_shows_the_placeholder() {
    let s = reading_scenario().await;
    std::fs::write(
        s.agent_dir.path().join("settings.json"),
        r#"{"terminal": {"showImages": false}}"#,
    )
    .unwrap();
    let mut tui = start_reading(&s, &[("TERM_PROGRAM", "iTerm.app")], 80);
    assert_placeholder(&tui);
    tui.quit();
}

#[tokio::test(flavor = "multi_thread")]
async fn iterm2_draws_inline_images() {
    let s = reading_scenario().await;
    let mut tui = start_reading(&s, &[("ITERM_SESSION_ID", "w0t0p0:1")], 80);
    let raw = String::from_utf8_lossy(&raw(&tui)).into_owned();
    let at = raw
        .find("\x1b[14A\x1b]1337;File=inline=1;width=60;height=auto:")
        .expect("an iTerm2 inline image 15 rows high");
    let payload = raw[at..].split_once(':').unwrap().1;
    let payload = &payload[..payload.find('\x07').unwrap()];
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(payload)
        .unwrap();
    assert_eq!(image::load_from_memory(&bytes).unwrap().width(), 180);
    tui.quit();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cell_size_comes_from_the_terminal_s_pixel_size() {
    let s = reading_scenario().await;
    // 80 x 50 cells of 8 x 20 px.
    let size = portable_pty::PtySize {
        rows: 50,
        cols: 80,
        pixel_width: 640,
        pixel_height: 1000,
    };
    let env = [("TERM_PROGRAM", "WezTerm")];
    let mut tui = Tui::start_sized(env!("CARGO_BIN_EXE_pi"), &env, &s, &[], size);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("Look at pic.png");
    tui.wait_all(|s| s.contains("A black picture."), "the answer");
    tui.wait_raw("A black picture.", "the answer's bytes");
    let images = kitty_images(&raw(&tui));
    // 60 cells of 8 px = 480 px for 180 px: 240 px high, 12 rows of 20 px
    // (15 with the default 9 x 18 cells).
    assert!(
        images
            .first()
            .is_some_and(|(k, _)| k.starts_with("a=T,f=100,q=2,C=1,c=60,r=12,i=")),
        "{:?}",
        images.iter().map(|i| &i.0).collect::<Vec<_>>()
    );
    tui.quit();
}

#[tokio::test(flavor = "multi_thread")]
async fn kitty_gets_other_formats_as_png() {
    let s = Scenario::start(vec![
        tool_call_answer("call_img", "read", &serde_json::json!({"path": "pic.jpg"})),
        capture_answer("A black picture."),
    ])
    .await;
    let jpeg = e2e_common::image(180, 90, image::ImageFormat::Jpeg);
    std::fs::write(s.work.path().join("pic.jpg"), jpeg).unwrap();
    let mut tui = Tui::start_program(
        env!("CARGO_BIN_EXE_pi"),
        &[("KITTY_WINDOW_ID", "1")],
        &s,
        &[],
        80,
        50,
    );
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("Look at pic.jpg");
    tui.wait_all(|s| s.contains("A black picture."), "the answer");
    tui.wait_raw("A black picture.", "the answer's bytes");
    let images = kitty_images(&raw(&tui));
    let (keys, payload) = images.first().expect("a kitty image");
    assert!(keys.contains("c=60,r=15"), "{keys}");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(payload)
        .unwrap();
    assert!(bytes.starts_with(b"\x89PNG"), "not sent as PNG");
    tui.quit();
}

#[tokio::test(flavor = "multi_thread")]
async fn an_attached_image_is_drawn_below_the_user_message() {
    let s = Scenario::start(vec![capture_answer("Nice.")]).await;
    std::fs::write(
        s.work.path().join("pic.png"),
        e2e_common::image(180, 90, image::ImageFormat::Png),
    )
    .unwrap();
    let mut tui = Tui::start_program(
        env!("CARGO_BIN_EXE_pi"),
        &[("KITTY_WINDOW_ID", "1")],
        &s,
        &["@pic.png", "Describe it"],
        80,
        50,
    );
    tui.wait_all(|s| s.contains("Nice."), "the answer");
    tui.wait_raw("Nice.", "the answer's bytes");
    let images = kitty_images(&raw(&tui));
    assert!(
        images
            .first()
            .is_some_and(|(k, _)| k.starts_with("a=T,f=100,q=2,C=1,c=60,r=15,i=")),
        "{:?}",
        images.iter().map(|i| &i.0).collect::<Vec<_>>()
    );
    tui.quit();
}

#[tokio::test(flavor = "multi_thread")]
async fn settings_offer_show_images_where_images_are_drawn() {
    let s = reading_scenario().await;
    let mut tui = start_reading(&s, &[("KITTY_WINDOW_ID", "1")], 80);
    assert!(!kitty_images(&raw(&tui)).is_empty());
    tui.submit("/settings");
    tui.wait_screen(
        // pi's 23 rows with image support.
        |s| s.contains("Show images") && s.contains("Image width") && s.contains("(1/23)"),
        "the settings list with the image rows",
    );
    tui.send("showim");
    tui.wait_screen(
        |s| s.contains("> showim") && s.contains("→ Show images"),
        "the filtered list",
    );
    tui.send("\r");
    tui.wait_screen(
        |s| {
            s.lines()
                .any(|l| l.contains("→ Show images") && l.trim_end().ends_with("false"))
        },
        "the new value",
    );
    tui.send("\x1b");
    tui.wait_screen(|s| !s.contains("Type to search"), "the editor back");
    tui.wait_all(
        |s| s.contains("[Image: [image/png] 180x90]"),
        "the chat printed again with the placeholder",
    );
    let settings: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(s.agent_dir.path().join("settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(settings["terminal"]["showImages"], false, "{settings}");
    tui.quit();
}

/// The rows of a screen from the one holding `from` to the one holding `to`.
fn rows_between(rows: &[String], from: &str, to: &str) -> Vec<String> {
    let start = rows.iter().position(|r| r.contains(from)).unwrap();
    let end = rows.iter().position(|r| r.contains(to)).unwrap();
    rows[start..=end]
        .iter()
        .map(|r| r.trim_end().to_owned())
        .collect()
}

/// What pi 0.73.1 wrote in `scenario` (fixtures/pi-0.73.1/images, captured by
/// fixtures/capture/image_screens.py), replayed on an 80 x 50 emulator.
fn pi_capture(scenario: &str) -> (String, Vec<String>) {
    let raw = std::fs::read_to_string(
        e2e_common::fixtures()
            .join("images")
            .join(format!("{scenario}.raw")),
    )
    .unwrap();
    let mut term = pi_tui::testing::TestTerminal::new(50, 80, pty_common::SCROLLBACK);
    term.process(raw.as_bytes());
    (raw, term.screen_rows())
}

/// The image command of `raw` with the cursor moves around it, its id and
/// data left out: `(up, keys, down)`.
fn image_command(raw: &str, prefix: &str) -> Option<(String, String, String)> {
    let at = raw.find(prefix)?;
    let up_start = raw[..at].rfind("\x1b[")?;
    let up = raw[up_start..at].to_owned();
    let rest = &raw[at + prefix.len()..];
    let keys_end = rest.find([';', ':']).unwrap_or(0);
    let keys = rest[..keys_end]
        .split(',')
        .map(|k| if k.starts_with("i=") { "i=ID" } else { k })
        .collect::<Vec<_>>()
        .join(",");
    // iTerm2's ends with BEL, kitty's with ST.
    let terminator = if prefix.starts_with("\x1b]") {
        "\x07"
    } else {
        "\x1b\\"
    };
    let after = rest
        .find(terminator)
        .map_or(rest.len(), |e| e + terminator.len());
    // A cursor move down right after it (kitty's way back below the image).
    let tail = rest[after..].strip_prefix("\x1b[").unwrap_or("");
    let digits: String = tail.chars().take_while(char::is_ascii_digit).collect();
    let down = if !digits.is_empty() && tail[digits.len()..].starts_with('B') {
        format!("\x1b[{digits}B")
    } else {
        String::new()
    };
    Some((up, keys, down))
}

#[tokio::test(flavor = "multi_thread")]
async fn images_are_laid_out_as_pi_lays_them_out() {
    for (scenario, env, prefix) in [
        ("kitty-read", ("KITTY_WINDOW_ID", "1"), "\x1b_G"),
        (
            "iterm2-read",
            ("ITERM_SESSION_ID", "w0t0p0:1"),
            "\x1b]1337;File=",
        ),
    ] {
        let (pi_raw, pi_rows) = pi_capture(scenario);
        let s = reading_scenario().await;
        let mut tui = start_reading(&s, &[env], 80);
        let ours_raw = String::from_utf8_lossy(&raw(&tui)).into_owned();
        assert_eq!(
            image_command(&ours_raw, prefix),
            image_command(&pi_raw, prefix),
            "{scenario}: the image command"
        );
        let ours_rows: Vec<String> = tui
            .parser
            .lock()
            .unwrap()
            .parser()
            .screen()
            .rows(0, 80)
            .collect();
        assert_eq!(
            rows_between(&ours_rows, "read pic.png", "A black picture."),
            rows_between(&pi_rows, "read pic.png", "A black picture."),
            "{scenario}: the screen"
        );
        tui.quit();
    }
    let (_, pi_rows) = pi_capture("tmux-read");
    let s = reading_scenario().await;
    let mut tui = start_reading(
        &s,
        &[
            ("KITTY_WINDOW_ID", "1"),
            ("TMUX", "/tmp/tmux-0/default,1,0"),
        ],
        80,
    );
    let ours_rows: Vec<String> = tui
        .parser
        .lock()
        .unwrap()
        .parser()
        .screen()
        .rows(0, 80)
        .collect();
    assert_eq!(
        rows_between(&ours_rows, "read pic.png", "A black picture."),
        rows_between(&pi_rows, "read pic.png", "A black picture."),
        "tmux: the screen"
    );
    tui.quit();
}

#[tokio::test(flavor = "multi_thread")]
async fn an_image_taller_than_the_screen_is_drawn_narrower() {
    let s = Scenario::start(vec![
        tool_call_answer("call_img", "read", &serde_json::json!({"path": "tall.png"})),
        capture_answer("A tall picture."),
    ])
    .await;
    let tall = e2e_common::image(40, 400, image::ImageFormat::Png);
    std::fs::write(s.work.path().join("tall.png"), tall).unwrap();
    let mut tui = Tui::start_program(
        env!("CARGO_BIN_EXE_pi"),
        &[("KITTY_WINDOW_ID", "1")],
        &s,
        &[],
        80,
        30,
    );
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("Look at tall.png");
    tui.wait_all(|s| s.contains("A tall picture."), "the answer");
    tui.wait_raw("A tall picture.", "the answer's bytes");
    // 60 cells would make 300 rows; at most 29 fit a 30-row screen: 5 cells
    // (45 px, scale 1.125) make 450 px, 25 rows.
    let images = kitty_images(&raw(&tui));
    assert!(
        !images.is_empty()
            && images
                .iter()
                .all(|(k, _)| k.starts_with("a=T,f=100,q=2,C=1,c=5,r=25,i=")),
        "{:?}",
        images.iter().map(|i| &i.0).collect::<Vec<_>>()
    );
    tui.quit();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_terminal_s_answer_to_the_cell_size_query_sizes_images() {
    let s = reading_scenario().await;
    let mut tui = Tui::start_program(
        env!("CARGO_BIN_EXE_pi"),
        &[("KITTY_WINDOW_ID", "1")],
        &s,
        &[],
        80,
        50,
    );
    // pi's query (`CSI 16 t`), answered as kitty does: 20 px high, 8 px wide.
    tui.wait_raw("\x1b[16t", "the cell size query");
    tui.send("\x1b[6;20;8t");
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("Look at pic.png");
    tui.wait_all(|s| s.contains("A black picture."), "the answer");
    tui.wait_raw("A black picture.", "the answer's bytes");
    let images = kitty_images(&raw(&tui));
    // 60 cells of 8 px = 480 px for 180 px: 240 px high, 12 rows of 20 px.
    assert!(
        images
            .first()
            .is_some_and(|(k, _)| k.starts_with("a=T,f=100,q=2,C=1,c=60,r=12,i=")),
        "{:?}",
        images.iter().map(|i| &i.0).collect::<Vec<_>>()
    );
    let screen = tui.screen();
    assert!(!screen.contains("6;20;8t"), "the reply was typed: {screen}");
    // A resize keeps the answered cell size (the pty reports no pixels):
    // 48 cells of 8 px = 384 px, 192 px high: 10 rows.
    let before = images.len();
    tui.resize(50, 50);
    let deadline = std::time::Instant::now() + pty_common::TIMEOUT;
    while !kitty_images(&raw(&tui))[before..]
        .iter()
        .any(|(k, _)| k.starts_with("a=T,f=100,q=2,C=1,c=48,r=10,i="))
    {
        assert!(
            std::time::Instant::now() < deadline,
            "no redraw after the resize"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    tui.quit();
}
