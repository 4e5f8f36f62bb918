//! Images in the transcript's blocks: a tool result's and a user message's
//! images drawn below the block with kitty graphics or iTerm2 inline images
//! (sized to the width and cell size), or named by pi's placeholder.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::interactive_common;

use std::time::{Duration, Instant};

use base64::Engine;
use pi_agent_core::AgentToolResult;
use pi_coding_agent::modes::interactive::blocks::images::Images;
use pi_coding_agent::modes::interactive::blocks::{BlockKind, ToolCard, UserBlock};
use pi_tui::image::{CellSize, Display, Protocol};
use serde_json::json;

use interactive_common::*;

/// A `w` x `h` PNG in base64.
fn png(w: u32, h: u32) -> String {
    let png = crate::e2e_common::image(w, h, image::ImageFormat::Png);
    base64::engine::general_purpose::STANDARD.encode(png)
}

fn read_card() -> BlockKind {
    let t0 = Instant::now();
    let mut card = ToolCard::new("call_1", "read", json!({"path": "pic.png"}));
    card.start(json!({"path": "pic.png"}), t0);
    let result = AgentToolResult {
        content: vec![
            pi_ai::UserBlock::text("Read image file [image/png]"),
            pi_ai::UserBlock::image(png(40, 20), "image/png"),
        ],
        details: json!(null),
        terminate: None,
    };
    card.set_result(&result, false, false, t0 + Duration::from_millis(5));
    BlockKind::Tool(card)
}

fn kitty(cell: CellSize) -> Opts {
    Opts {
        images: Display {
            protocol: Some(Protocol::Kitty),
            cell,
            max_width_cells: 60,
            max_rows: usize::MAX,
        },
        ..opts()
    }
}

/// The rendering with the image data and the random kitty id replaced.
fn shown(text: &str) -> String {
    let data = png(40, 20);
    let mut out = text.replace(&data, "<png>");
    while let Some(at) = out.find(",i=") {
        let end = out[at + 3..]
            .find(|c: char| !c.is_ascii_digit())
            .map_or(out.len(), |e| at + 3 + e);
        out.replace_range(at..end, ",id");
    }
    out
}

#[test]
fn a_read_image_is_named_where_images_are_not_drawn() {
    insta::assert_snapshot!("image_read_placeholder", both(read_card, &opts()));
}

#[test]
fn a_read_image_is_drawn_below_the_card() {
    let theme = plain();
    let o = kitty(CellSize::default());
    insta::assert_snapshot!(
        "image_read_kitty",
        format!(
            "--- 80 ---\n{}\n--- 30 ---\n{}",
            shown(&render_with(&theme, read_card(), 80, &o)),
            shown(&render_with(&theme, read_card(), 30, &o))
        )
    );
    // Taller cells, fewer rows: 60 cells of 10 px = 600 px for 40 px, so
    // 300 px high: 7.5 rows of 40 px, 8.
    let tall = kitty(CellSize {
        width_px: 10,
        height_px: 40,
    });
    let text = render_with(&theme, read_card(), 80, &tall);
    assert!(text.contains("c=60,r=8,"), "{text}");
}

#[test]
fn a_user_message_s_images_follow_it() {
    let make = || {
        BlockKind::User(
            UserBlock::new("What is this?", true).with_images(Images::new([
                &pi_ai::ImageContent {
                    data: png(40, 20),
                    mime_type: "image/png".to_owned(),
                    extra: Default::default(),
                },
            ])),
        )
    };
    insta::assert_snapshot!("image_user_placeholder", both(make, &opts()));
    let iterm = Opts {
        images: Display {
            protocol: Some(Protocol::Iterm2),
            ..Display::default()
        },
        ..opts()
    };
    insta::assert_snapshot!(
        "image_user_iterm2",
        shown(&render_with(&plain(), make(), 40, &iterm))
    );
}
