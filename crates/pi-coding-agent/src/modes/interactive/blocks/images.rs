//! The images a block carries (a tool result's, a user message's), drawn
//! inline below the block as pi draws them (a blank line, then the image,
//! at most `terminal.imageWidthCells` and the view's width less 2 wide),
//! or, where the terminal cannot draw images or `terminal.showImages` is
//! off, as pi's one-line placeholder `[Image: [image/png] 800x600]`.

use pi_ai::ImageContent;
use pi_tui::image::{self, Dimensions, Display, Protocol};

/// One image and what drawing it needs, computed once.
struct Shown {
    mime_type: String,
    data: String,
    /// Its size read from the data (`None`: not a readable image).
    dims: Option<Dimensions>,
    /// The data as PNG for kitty (`Some(None)`: it could not be converted).
    png: Option<Option<String>>,
    /// Its kitty image id.
    id: u32,
}

/// The images of a block.
#[derive(Default)]
pub struct Images {
    images: Vec<Shown>,
}

impl Images {
    /// The images among `content`'s blocks.
    pub fn new<'a>(content: impl IntoIterator<Item = &'a ImageContent>) -> Self {
        let images = content
            .into_iter()
            .map(|img| Shown {
                mime_type: img.mime_type.clone(),
                dims: image::decode_base64(&img.data).and_then(|b| image::dimensions(&b)),
                data: img.data.clone(),
                png: None,
                id: image::next_id(),
            })
            .collect();
        Self { images }
    }

    /// True when these are `content`'s images (same types and data), so a
    /// repeated result keeps its conversions and kitty ids.
    pub fn same_as<'a>(&self, content: impl IntoIterator<Item = &'a ImageContent>) -> bool {
        let mut mine = self.images.iter();
        for img in content {
            match mine.next() {
                Some(m) if m.mime_type == img.mime_type && m.data == img.data => {}
                _ => return false,
            }
        }
        mine.next().is_none()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.images.is_empty()
    }

    /// pi's placeholders, one line each.
    pub fn placeholders(&self) -> Vec<String> {
        self.images
            .iter()
            .map(|i| image::fallback(&i.mime_type, i.dims, None))
            .collect()
    }

    /// The lines drawing the images for a view `width` wide, each after a
    /// blank line; nothing when `display` draws no images. An image kitty
    /// cannot take (not PNG and not convertible) is left out, as in pi.
    pub fn lines(&mut self, display: &Display, width: usize) -> Vec<String> {
        let Some(protocol) = display.protocol else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for img in &mut self.images {
            // pi assumes 800x600 when the header cannot be read.
            let dims = img.dims.unwrap_or(Dimensions {
                width_px: 800,
                height_px: 600,
            });
            let data = if protocol == Protocol::Kitty && img.mime_type != "image/png" {
                let png = img.png.get_or_insert_with(|| {
                    image::decode_base64(&img.data).and_then(|b| image::png_base64(&b))
                });
                match png {
                    Some(png) => png.as_str(),
                    None => continue,
                }
            } else {
                img.data.as_str()
            };
            if let Some(lines) = display.lines(data, dims, width, img.id) {
                out.push(String::new());
                out.extend(lines);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn img(data: &str) -> ImageContent {
        ImageContent {
            data: data.to_owned(),
            mime_type: "image/png".to_owned(),
            extra: Default::default(),
        }
    }

    #[test]
    fn the_same_images_are_recognised() {
        let (a, b) = (img("QUJD"), img("REVG"));
        let images = Images::new([&a, &b]);
        assert!(images.same_as([&a, &b]));
        assert!(!images.same_as([&a]));
        assert!(!images.same_as([&b, &a]));
        assert!(!images.same_as([&a, &b, &b]));
        assert!(Images::default().same_as([]));
        // Unreadable data: the placeholder has no size.
        assert_eq!(images.placeholders(), vec!["[Image: [image/png]]"; 2]);
    }
}
