//! iTerm2's inline images: `ESC ] 1337 ; File=inline=1;width=<cells>;height=auto : <base64> BEL`.
//! iTerm2 decodes every format it knows itself, so no conversion to PNG is needed.

/// The introducer of an inline file.
pub const PREFIX: &str = "\x1b]1337;File=";

/// Shows the image whose base64 is `base64` inline, `width_cells` wide, its
/// height following from the aspect ratio.
pub fn encode(base64: &str, width_cells: usize) -> String {
    format!("{PREFIX}inline=1;width={width_cells};height=auto:{base64}\x07")
}

#[cfg(test)]
mod tests {
    #[test]
    fn encodes_an_inline_file() {
        assert_eq!(
            super::encode("QUJD", 40),
            "\x1b]1337;File=inline=1;width=40;height=auto:QUJD\x07"
        );
    }
}
