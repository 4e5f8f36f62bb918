//! The theme's colours as CSS custom properties (`--accent`, `--toolSuccessBg`, ...,
//! one per theme token), plus the page's own background, card and text colours,
//! derived from the user message background as pi derives them (darker page, card in
//! between) and light or dark as the theme is.

use std::fmt::Write as _;

use pi_tui::theme::{Color, Theme, Token};

use super::highlight::{TOKEN_CLASSES, token_class};

/// The xterm-256 palette entry `index` as RGB.
fn xterm(index: u8) -> (u8, u8, u8) {
    const BASE: [(u8, u8, u8); 16] = [
        (0, 0, 0),
        (205, 0, 0),
        (0, 205, 0),
        (205, 205, 0),
        (0, 0, 238),
        (205, 0, 205),
        (0, 205, 205),
        (229, 229, 229),
        (127, 127, 127),
        (255, 0, 0),
        (0, 255, 0),
        (255, 255, 0),
        (92, 92, 255),
        (255, 0, 255),
        (0, 255, 255),
        (255, 255, 255),
    ];
    match index {
        0..=15 => BASE[usize::from(index)],
        16..=231 => {
            let i = index - 16;
            let level = |v: u8| if v == 0 { 0 } else { 55 + v * 40 };
            (level(i / 36), level((i / 6) % 6), level(i % 6))
        }
        _ => {
            let v = 8 + (index - 232) * 10;
            (v, v, v)
        }
    }
}

fn rgb(color: Color) -> Option<(u8, u8, u8)> {
    match color {
        Color::Default => None,
        Color::Rgb(r, g, b) => Some((r, g, b)),
        Color::Indexed(i) => Some(xterm(i)),
    }
}

fn hex((r, g, b): (u8, u8, u8)) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

fn scale((r, g, b): (u8, u8, u8), factor: f32) -> (u8, u8, u8) {
    // Channels stay in 0..=255 after the clamp, so the casts cannot truncate.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let s = |v: u8| (f32::from(v) * factor).round().clamp(0.0, 255.0) as u8;
    (s(r), s(g), s(b))
}

/// The `:root { ... }` rule of `theme`, and the highlight classes' colours.
pub fn theme_css(theme: &Theme) -> String {
    let user_bg = rgb(theme.color(Token::UserMessageBg)).unwrap_or((0x34, 0x35, 0x41));
    let luminance =
        0.299 * f32::from(user_bg.0) + 0.587 * f32::from(user_bg.1) + 0.114 * f32::from(user_bg.2);
    let dark = luminance < 128.0;
    let (page, card, text) = if dark {
        (
            scale(user_bg, 0.55),
            scale(user_bg, 0.8),
            (0xd4, 0xd4, 0xd4),
        )
    } else {
        ((0xfa, 0xfa, 0xfa), (0xff, 0xff, 0xff), (0x22, 0x22, 0x22))
    };
    let mut css = String::from(":root {\n");
    let _ = writeln!(
        css,
        "  color-scheme: {};",
        if dark { "dark" } else { "light" }
    );
    let _ = writeln!(css, "  --pageBg: {};", hex(page));
    let _ = writeln!(css, "  --cardBg: {};", hex(card));
    let _ = writeln!(css, "  --pageText: {};", hex(text));
    for token in Token::ALL {
        let value = rgb(theme.color(*token)).map_or_else(|| "var(--pageText)".to_owned(), hex);
        let _ = writeln!(css, "  --{}: {value};", token.name());
    }
    css.push_str("}\n");
    for token in TOKEN_CLASSES {
        if let Some(class) = token_class(token) {
            let _ = writeln!(css, ".{class} {{ color: var(--{}); }}", token.name());
        }
    }
    css
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_tui::theme::ColorMode;

    #[test]
    fn every_token_is_a_custom_property() {
        let css = theme_css(&Theme::dark(ColorMode::TrueColor));
        assert!(css.contains("--accent: #8abeb7;"), "{css}");
        assert!(css.contains("--text: var(--pageText);"));
        assert!(css.contains(".hk { color: var(--syntaxKeyword); }"));
        assert!(css.contains("color-scheme: dark;"));
        let light = theme_css(&Theme::light(ColorMode::TrueColor));
        assert!(light.contains("color-scheme: light;"));
        assert_eq!(xterm(196), (255, 0, 0));
        assert_eq!(xterm(244), (128, 128, 128));
    }
}
