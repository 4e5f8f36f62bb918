//! The kitty graphics protocol (kitty, Ghostty, WezTerm): an image is sent as
//! base64 PNG in APC sequences (`ESC _ G <keys> ; <payload> ESC \`), split into
//! chunks of 4096 characters (`m=1` on every chunk but the last).

use std::fmt::Write as _;

/// The largest base64 payload of one APC sequence.
const CHUNK: usize = 4096;

/// The introducer of a graphics command.
pub const PREFIX: &str = "\x1b_G";

/// How to place a transmitted image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Placement {
    /// Width in cells (`c=`).
    pub columns: Option<usize>,
    /// Height in cells (`r=`).
    pub rows: Option<usize>,
    /// The image id (`i=`), so the image can be deleted or replaced.
    pub id: Option<u32>,
    /// Leave the cursor where it is (`C=1`) instead of moving it past the image.
    pub keep_cursor: bool,
}

/// Transmits and displays the PNG whose base64 is `base64_png` (`a=T,f=100,q=2`:
/// quiet, no replies to read back).
pub fn encode(base64_png: &str, place: Placement) -> String {
    let mut keys = String::from("a=T,f=100,q=2");
    if place.keep_cursor {
        keys.push_str(",C=1");
    }
    if let Some(c) = place.columns {
        let _ = write!(keys, ",c={c}");
    }
    if let Some(r) = place.rows {
        let _ = write!(keys, ",r={r}");
    }
    if let Some(i) = place.id {
        let _ = write!(keys, ",i={i}");
    }
    if base64_png.len() <= CHUNK {
        return format!("{PREFIX}{keys};{base64_png}\x1b\\");
    }
    let mut out = String::with_capacity(base64_png.len() + base64_png.len() / CHUNK * 16 + 64);
    let chunks: Vec<&[u8]> = base64_png.as_bytes().chunks(CHUNK).collect();
    let last = chunks.len() - 1;
    for (n, chunk) in chunks.iter().enumerate() {
        // base64 is ASCII: every chunk boundary is a char boundary.
        let chunk = std::str::from_utf8(chunk).unwrap_or_default();
        let more = u8::from(n != last);
        if n == 0 {
            let _ = write!(out, "{PREFIX}{keys},m={more};{chunk}\x1b\\");
        } else {
            let _ = write!(out, "{PREFIX}m={more};{chunk}\x1b\\");
        }
    }
    out
}

/// Deletes the image `id` and frees its data (`a=d,d=I`).
pub fn delete(id: u32) -> String {
    format!("{PREFIX}a=d,d=I,i={id},q=2\x1b\\")
}

/// Deletes every image and frees their data (`a=d,d=A`).
pub fn delete_all() -> &'static str {
    "\x1b_Ga=d,d=A,q=2\x1b\\"
}

/// The ids of the images a line transmits (`i=` of each first chunk).
pub fn image_ids(line: &str) -> Vec<u32> {
    let mut ids = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find(PREFIX) {
        rest = &rest[at + PREFIX.len()..];
        let keys = rest.split([';', '\x1b']).next().unwrap_or_default();
        if !keys.split(',').any(|k| k == "a=T") {
            continue;
        }
        if let Some(id) = keys
            .split(',')
            .find_map(|k| k.strip_prefix("i="))
            .and_then(|v| v.parse().ok())
        {
            ids.push(id);
        }
    }
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_images_are_one_sequence() {
        let place = Placement {
            columns: Some(60),
            rows: Some(3),
            id: Some(7),
            keep_cursor: true,
        };
        assert_eq!(
            encode("QUJD", place),
            "\x1b_Ga=T,f=100,q=2,C=1,c=60,r=3,i=7;QUJD\x1b\\"
        );
        assert_eq!(image_ids(&encode("QUJD", place)), vec![7]);
        assert!(image_ids(&delete(7)).is_empty());
    }

    #[test]
    fn large_images_are_chunked() {
        let data = "A".repeat(CHUNK * 2 + 10);
        let out = encode(&data, Placement::default());
        let parts: Vec<&str> = out.split("\x1b\\").filter(|p| !p.is_empty()).collect();
        assert_eq!(parts.len(), 3);
        assert!(parts[0].starts_with("\x1b_Ga=T,f=100,q=2,m=1;"));
        assert!(parts[1].starts_with("\x1b_Gm=1;"));
        assert!(parts[2].starts_with("\x1b_Gm=0;"));
        let payload: usize = parts
            .iter()
            .map(|p| p.split(';').nth(1).unwrap_or("").len())
            .sum();
        assert_eq!(payload, data.len());
    }
}
