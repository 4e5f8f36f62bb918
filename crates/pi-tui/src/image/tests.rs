use super::*;

fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
    move |name| {
        vars.iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| (*v).to_owned())
    }
}

#[test]
fn protocols_follow_pi_s_detection() {
    let kitty = Some(Protocol::Kitty);
    assert_eq!(detect_protocol(env(&[("KITTY_WINDOW_ID", "1")])), kitty);
    assert_eq!(detect_protocol(env(&[("TERM_PROGRAM", "kitty")])), kitty);
    assert_eq!(detect_protocol(env(&[("TERM_PROGRAM", "ghostty")])), kitty);
    assert_eq!(detect_protocol(env(&[("TERM", "xterm-ghostty")])), kitty);
    assert_eq!(
        detect_protocol(env(&[("GHOSTTY_RESOURCES_DIR", "/x")])),
        kitty
    );
    assert_eq!(detect_protocol(env(&[("WEZTERM_PANE", "0")])), kitty);
    assert_eq!(detect_protocol(env(&[("TERM_PROGRAM", "WezTerm")])), kitty);
    assert_eq!(
        detect_protocol(env(&[("ITERM_SESSION_ID", "w0t0p0")])),
        Some(Protocol::Iterm2)
    );
    assert_eq!(
        detect_protocol(env(&[("TERM_PROGRAM", "iTerm.app")])),
        Some(Protocol::Iterm2)
    );
    for off in [
        &[
            ("KITTY_WINDOW_ID", "1"),
            ("TMUX", "/tmp/tmux-0/default,1,0"),
        ][..],
        &[("KITTY_WINDOW_ID", "1"), ("TERM", "screen-256color")][..],
        &[("TERM_PROGRAM", "vscode")][..],
        &[("TERM_PROGRAM", "alacritty")][..],
        &[("TERM", "xterm-256color")][..],
    ] {
        assert_eq!(detect_protocol(env(off)), None, "{off:?}");
    }
}

#[test]
fn rows_follow_the_aspect_ratio_and_cell_size() {
    let dims = Dimensions {
        width_px: 800,
        height_px: 600,
    };
    // 60 cells of 9 px = 540 px wide, 405 px high, 18 px rows: 22.5 -> 23.
    assert_eq!(rows_for(dims, 60, CellSize::default()), 23);
    let cell = CellSize {
        width_px: 10,
        height_px: 20,
    };
    assert_eq!(rows_for(dims, 40, cell), 15);
    let line = Dimensions {
        width_px: 1000,
        height_px: 1,
    };
    assert_eq!(rows_for(line, 10, cell), 1);
    assert_eq!(
        CellSize::from_window(80, 24, 800, 480),
        Some(CellSize {
            width_px: 10,
            height_px: 20
        })
    );
    assert_eq!(CellSize::from_window(80, 24, 0, 0), None);
}

#[test]
fn fallback_is_pi_s_placeholder() {
    let dims = Some(Dimensions {
        width_px: 2,
        height_px: 3,
    });
    assert_eq!(
        fallback("image/png", dims, None),
        "[Image: [image/png] 2x3]"
    );
    assert_eq!(
        fallback("image/jpeg", None, Some("a.jpg")),
        "[Image: a.jpg [image/jpeg]]"
    );
}

#[test]
fn kitty_lines_reserve_the_rows_and_come_back_down() {
    let display = Display {
        protocol: Some(Protocol::Kitty),
        ..Display::default()
    };
    let dims = Dimensions {
        width_px: 90,
        height_px: 54,
    };
    // 80 wide: at most 60 cells (540 px), 324 px high: 18 rows.
    let lines = display.lines("QUJD", dims, 80, 5).unwrap_or_default();
    assert_eq!(lines.len(), 18);
    assert!(lines[..17].iter().all(String::is_empty));
    assert_eq!(
        lines[17],
        "\x1b[17A\x1b_Ga=T,f=100,q=2,C=1,c=60,r=18,i=5;QUJD\x1b\\\x1b[17B"
    );
    assert!(is_image_line(&lines[17]));
    assert_eq!(crate::text::visible_width(&lines[17]), 0);
    // A narrow view draws it narrower.
    let narrow = display.lines("QUJD", dims, 22, 5).unwrap_or_default();
    assert_eq!(narrow.len(), 6);
    assert!(narrow[5].contains("c=20,r=6"));
    let iterm = Display {
        protocol: Some(Protocol::Iterm2),
        ..display
    };
    let lines = iterm.lines("QUJD", dims, 80, 5).unwrap_or_default();
    assert_eq!(lines.len(), 18);
    assert_eq!(
        lines[17],
        "\x1b[17A\x1b]1337;File=inline=1;width=60;height=auto:QUJD\x07"
    );
    assert_eq!(Display::default().lines("QUJD", dims, 80, 5), None);
}

#[test]
fn dimensions_and_png_conversion() {
    let mut gif = Cursor::new(Vec::new());
    image::DynamicImage::new_rgb8(4, 2)
        .write_to(&mut gif, image::ImageFormat::Gif)
        .unwrap_or_default();
    let gif = gif.into_inner();
    assert_eq!(
        dimensions(&gif),
        Some(Dimensions {
            width_px: 4,
            height_px: 2
        })
    );
    let png = png_base64(&gif)
        .and_then(|b| decode_base64(&b))
        .unwrap_or_default();
    assert!(png.starts_with(b"\x89PNG"));
    assert_eq!(dimensions(&png).map(|d| d.width_px), Some(4));
    assert_eq!(dimensions(b"not an image"), None);
    assert!(next_id() != next_id());
}

#[test]
fn tall_images_are_drawn_narrower_to_fit_the_screen() {
    let display = Display {
        protocol: Some(Protocol::Kitty),
        max_rows: 19,
        ..Display::default()
    };
    // 100 x 2000 px at 60 cells: 600 rows; at most 19 fit: 1 cell wide (9 px) is 10 rows,
    // 2 cells 20: one cell.
    let tall = Dimensions {
        width_px: 100,
        height_px: 2000,
    };
    let lines = display.lines("QUJD", tall, 80, 1).unwrap_or_default();
    assert_eq!(lines.len(), 10);
    assert!(lines[9].contains("c=1,r=10,"), "{:?}", lines[9]);
    // 180 x 900 px: 60 cells make 150 rows, 7 cells (63 px) 18 rows.
    let dims = Dimensions {
        width_px: 180,
        height_px: 900,
    };
    let lines = display.lines("QUJD", dims, 80, 1).unwrap_or_default();
    assert!(lines.len() <= 19);
    assert!(
        lines[lines.len() - 1].contains("c=7,r=18,"),
        "{:?}",
        lines.last()
    );
    // A short image is not touched.
    let wide = Dimensions {
        width_px: 90,
        height_px: 54,
    };
    assert_eq!(
        display.lines("QUJD", wide, 80, 1).unwrap_or_default().len(),
        18
    );
}
