//! Images drawn in the terminal, as pi draws them: the kitty graphics protocol in kitty,
//! Ghostty and WezTerm ([`kitty`]), iTerm2's inline images in iTerm2 ([`iterm2`]), and a
//! one-line text placeholder everywhere else (tmux, screen, VS Code, Alacritty, unknown
//! terminals), decided from the environment ([`detect_protocol`]).
//!
//! An image drawn `rows` cells high takes `rows` lines: `rows - 1` empty ones, then one that
//! moves the cursor up to the first of them, draws the image there and (kitty, which is told
//! not to move the cursor) moves back down. So the renderer counts the image's height like any
//! text, and redraws it like any changed line.

pub mod iterm2;
pub mod kitty;

use std::hash::{BuildHasher, Hasher};
use std::io::Cursor;
use std::sync::atomic::{AtomicU32, Ordering};

use base64::Engine;

/// A way to draw images in the terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// The kitty graphics protocol (PNG only).
    Kitty,
    /// iTerm2's inline images.
    Iterm2,
}

/// The protocol of the terminal described by `env` (a variable's value by name), as pi decides
/// it: none under tmux or screen (`TMUX`, `TERM=tmux*|screen*`); kitty graphics for kitty
/// (`KITTY_WINDOW_ID`, `TERM_PROGRAM=kitty`), Ghostty (`TERM_PROGRAM=ghostty`, a `TERM`
/// naming it, `GHOSTTY_RESOURCES_DIR`) and WezTerm (`WEZTERM_PANE`, `TERM_PROGRAM=wezterm`);
/// iTerm2's for iTerm2 (`ITERM_SESSION_ID`, `TERM_PROGRAM=iTerm.app`); none otherwise.
pub fn detect_protocol(env: impl Fn(&str) -> Option<String>) -> Option<Protocol> {
    let lower = |name: &str| env(name).unwrap_or_default().to_lowercase();
    let set = |name: &str| env(name).is_some_and(|v| !v.is_empty());
    let program = lower("TERM_PROGRAM");
    let term = lower("TERM");
    if set("TMUX") || term.starts_with("tmux") || term.starts_with("screen") {
        return None;
    }
    if set("KITTY_WINDOW_ID") || program == "kitty" {
        return Some(Protocol::Kitty);
    }
    if program == "ghostty" || term.contains("ghostty") || set("GHOSTTY_RESOURCES_DIR") {
        return Some(Protocol::Kitty);
    }
    if set("WEZTERM_PANE") || program == "wezterm" {
        return Some(Protocol::Kitty);
    }
    if set("ITERM_SESSION_ID") || program == "iterm.app" {
        return Some(Protocol::Iterm2);
    }
    None
}

/// [`detect_protocol`] for this process's environment.
pub fn protocol_from_env() -> Option<Protocol> {
    detect_protocol(|name| std::env::var(name).ok())
}

/// The size of one terminal cell in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CellSize {
    /// Width in pixels.
    pub width_px: u32,
    /// Height in pixels.
    pub height_px: u32,
}

impl Default for CellSize {
    /// pi's assumption until the terminal tells: 9 x 18.
    fn default() -> Self {
        Self {
            width_px: 9,
            height_px: 18,
        }
    }
}

impl CellSize {
    /// The cell size from a window of `cols` x `rows` cells measuring `width_px` x `height_px`
    /// (`None` when the terminal does not report pixels).
    pub fn from_window(cols: u16, rows: u16, width_px: u16, height_px: u16) -> Option<Self> {
        (cols > 0 && rows > 0 && width_px > 0 && height_px > 0)
            .then(|| Self {
                width_px: u32::from(width_px) / u32::from(cols),
                height_px: u32::from(height_px) / u32::from(rows),
            })
            .filter(|c| c.width_px > 0 && c.height_px > 0)
    }

    /// The terminal's cell size from its window size in pixels (`TIOCGWINSZ`), when it
    /// reports pixels.
    pub fn from_terminal() -> Option<Self> {
        crossterm::terminal::window_size()
            .ok()
            .and_then(|w| Self::from_window(w.columns, w.rows, w.width, w.height))
    }

    /// [`CellSize::from_terminal`], else the default.
    pub fn query() -> Self {
        Self::from_terminal().unwrap_or_default()
    }
}

/// An image's size in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dimensions {
    /// Width in pixels.
    pub width_px: u32,
    /// Height in pixels.
    pub height_px: u32,
}

/// The size of the PNG, JPEG, GIF or WebP image in `bytes`, read from its header.
pub fn dimensions(bytes: &[u8]) -> Option<Dimensions> {
    let (width_px, height_px) = image::ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .ok()?
        .into_dimensions()
        .ok()?;
    Some(Dimensions {
        width_px,
        height_px,
    })
}

/// Decodes base64 image data (`None` when it is not base64).
pub fn decode_base64(data: &str) -> Option<Vec<u8>> {
    base64::engine::general_purpose::STANDARD.decode(data).ok()
}

/// The image in `bytes` re-encoded as PNG, in base64 (for kitty, which takes only PNG).
pub fn png_base64(bytes: &[u8]) -> Option<String> {
    let decoded = image::load_from_memory(bytes).ok()?;
    let mut png = Cursor::new(Vec::new());
    decoded.write_to(&mut png, image::ImageFormat::Png).ok()?;
    Some(base64::engine::general_purpose::STANDARD.encode(png.into_inner()))
}

/// How many rows an image takes drawn `width_cells` wide (at least one).
pub fn rows_for(dims: Dimensions, width_cells: usize, cell: CellSize) -> usize {
    let width_px = width_cells as f64 * f64::from(cell.width_px);
    let scale = width_px / f64::from(dims.width_px.max(1));
    let height_px = f64::from(dims.height_px) * scale;
    let rows = (height_px / f64::from(cell.height_px.max(1))).ceil();
    if rows.is_finite() && rows >= 1.0 {
        rows as usize
    } else {
        1
    }
}

/// pi's text placeholder of an image: `[Image: name [image/png] 800x600]`.
pub fn fallback(mime_type: &str, dims: Option<Dimensions>, filename: Option<&str>) -> String {
    let mut parts = Vec::new();
    if let Some(name) = filename {
        parts.push(name.to_owned());
    }
    parts.push(format!("[{mime_type}]"));
    if let Some(d) = dims {
        parts.push(format!("{}x{}", d.width_px, d.height_px));
    }
    format!("[Image: {}]", parts.join(" "))
}

/// A new kitty image id (random start, so two runs in one terminal do not replace each
/// other's images).
pub fn next_id() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let _ = NEXT.compare_exchange(
        0,
        (std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish() as u32
            >> 1)
            | 1,
        Ordering::Relaxed,
        Ordering::Relaxed,
    );
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    if id == 0 {
        NEXT.fetch_add(1, Ordering::Relaxed)
    } else {
        id
    }
}

/// How images are shown: the protocol (`None`: placeholders only), the cell size and the
/// widest an image is drawn (pi's `terminal.imageWidthCells`, default 60).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Display {
    /// The protocol, `None` when images are not drawn.
    pub protocol: Option<Protocol>,
    /// The terminal's cell size.
    pub cell: CellSize,
    /// The widest an image is drawn, in cells.
    pub max_width_cells: usize,
    /// The tallest an image is drawn, in rows (the screen's height less one, so the rows it
    /// moves up over are still on screen when it is drawn); a taller one is drawn narrower.
    pub max_rows: usize,
}

impl Default for Display {
    fn default() -> Self {
        Self {
            protocol: None,
            cell: CellSize::default(),
            max_width_cells: 60,
            max_rows: usize::MAX,
        }
    }
}

impl Display {
    /// The lines of an image (base64 `data`, in a format the protocol takes: PNG for kitty)
    /// for a view `width` cells wide: drawn at most `width - 2` and `max_width_cells` wide,
    /// and at most `max_rows` high.
    /// `None` when images are not drawn.
    pub fn lines(
        &self,
        data: &str,
        dims: Dimensions,
        width: usize,
        id: u32,
    ) -> Option<Vec<String>> {
        let protocol = self.protocol?;
        let mut cells = width.saturating_sub(2).min(self.max_width_cells).max(1);
        let mut rows = rows_for(dims, cells, self.cell);
        let max_rows = self.max_rows.max(1);
        if rows > max_rows {
            cells = (cells * max_rows / rows).max(1);
            rows = rows_for(dims, cells, self.cell);
            while rows > max_rows && cells > 1 {
                cells -= 1;
                rows = rows_for(dims, cells, self.cell);
            }
            rows = rows.min(max_rows);
        }
        let sequence = match protocol {
            Protocol::Kitty => kitty::encode(
                data,
                kitty::Placement {
                    columns: Some(cells),
                    rows: Some(rows),
                    id: Some(id),
                    keep_cursor: true,
                },
            ),
            Protocol::Iterm2 => iterm2::encode(data, cells),
        };
        let mut lines = vec![String::new(); rows - 1];
        let up = rows - 1;
        let mut last = String::new();
        if up > 0 {
            last.push_str(&format!("\x1b[{up}A"));
        }
        last.push_str(&sequence);
        if up > 0 && protocol == Protocol::Kitty {
            last.push_str(&format!("\x1b[{up}B"));
        }
        lines.push(last);
        Some(lines)
    }
}

/// True when `line` draws an image.
pub fn is_image_line(line: &str) -> bool {
    line.contains(kitty::PREFIX) || line.contains(iterm2::PREFIX)
}

#[cfg(test)]
mod tests;
