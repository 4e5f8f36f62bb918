//! Images sent to the model are kept within pi's limits (`image-resize.ts`):
//! at most 2000x2000 pixels and 4.5 MB of base64. An image over a limit is
//! scaled down (Lanczos3) and re-encoded, PNG first and then JPEG at falling
//! qualities, the first encoding under the byte limit winning; when none
//! fits, the size shrinks by a quarter until one does or 1x1 fails too.

use std::io::Cursor;

use base64::Engine as _;
use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::PngEncoder;
use image::imageops::FilterType;
use image::{DynamicImage, ImageDecoder, ImageEncoder, ImageReader};

/// pi's limits and first JPEG quality.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ResizeLimits {
    /// Widest image, in pixels.
    pub max_width: u32,
    /// Tallest image, in pixels.
    pub max_height: u32,
    /// Largest base64 payload, in bytes (exclusive).
    pub max_bytes: usize,
    /// The first JPEG quality tried.
    pub jpeg_quality: u8,
}

impl Default for ResizeLimits {
    /// 2000x2000 pixels, 4.5 MiB of base64 (headroom under Anthropic's 5 MB), JPEG quality 80.
    fn default() -> Self {
        Self {
            max_width: 2000,
            max_height: 2000,
            max_bytes: 4_718_592,
            jpeg_quality: 80,
        }
    }
}

/// An image ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResizedImage {
    /// Base64 data.
    pub data: String,
    /// Its MIME type.
    pub mime_type: String,
    /// Width of the original, after EXIF orientation.
    pub original_width: u32,
    /// Height of the original, after EXIF orientation.
    pub original_height: u32,
    /// Width sent.
    pub width: u32,
    /// Height sent.
    pub height: u32,
    /// Whether it was re-encoded.
    pub was_resized: bool,
}

/// Fits `bytes` (an image of `mime_type`) within `limits`. An image already
/// within them is returned as it is; `None` when it cannot be decoded or
/// cannot be brought under the byte limit.
pub fn resize_image(bytes: &[u8], mime_type: &str, limits: ResizeLimits) -> Option<ResizedImage> {
    let image = decode_oriented(bytes)?;
    let (original_width, original_height) = (image.width(), image.height());
    let input_size = base64_len(bytes.len());
    if original_width <= limits.max_width
        && original_height <= limits.max_height
        && input_size < limits.max_bytes
    {
        return Some(ResizedImage {
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
            mime_type: mime_type.to_owned(),
            original_width,
            original_height,
            width: original_width,
            height: original_height,
            was_resized: false,
        });
    }
    let (mut width, mut height) = (original_width, original_height);
    if width > limits.max_width {
        height = scale(height, limits.max_width, width);
        width = limits.max_width;
    }
    if height > limits.max_height {
        width = scale(width, limits.max_height, height);
        height = limits.max_height;
    }
    let mut qualities = vec![limits.jpeg_quality];
    for q in [85, 70, 55, 40] {
        if !qualities.contains(&q) {
            qualities.push(q);
        }
    }
    loop {
        let resized = image.resize_exact(width, height, FilterType::Lanczos3);
        if let Some((data, mime_type)) = first_fitting(&resized, &qualities, limits.max_bytes) {
            return Some(ResizedImage {
                data,
                mime_type: mime_type.to_owned(),
                original_width,
                original_height,
                width,
                height,
                was_resized: true,
            });
        }
        if width == 1 && height == 1 {
            return None;
        }
        let next_width = if width == 1 {
            1
        } else {
            (width * 3 / 4).max(1)
        };
        let next_height = if height == 1 {
            1
        } else {
            (height * 3 / 4).max(1)
        };
        if (next_width, next_height) == (width, height) {
            return None;
        }
        (width, height) = (next_width, next_height);
    }
}

/// pi's note under a resized image, for mapping coordinates back:
/// `None` when the image was sent as it was.
pub fn format_dimension_note(image: &ResizedImage) -> Option<String> {
    if !image.was_resized {
        return None;
    }
    let scale = f64::from(image.original_width) / f64::from(image.width);
    Some(format!(
        "[Image: original {}x{}, displayed at {}x{}. Multiply coordinates by {scale:.2} to map to original image.]",
        image.original_width, image.original_height, image.width, image.height
    ))
}

/// The text pi puts in place of an image it could not shrink enough.
pub const IMAGE_OMITTED_NOTE: &str =
    "[Image omitted: could not be resized below the inline image size limit.]";

/// The most pixels (width x height) an image may have to be decoded: a
/// small file can announce a huge image (a 10 MB PNG of 60,000 x 60,000
/// pixels decoded to 11.7 GB); one above is omitted as undecodable.
pub const MAX_DECODE_PIXELS: u64 = 64 * 1024 * 1024;

/// The most memory the decoder may allocate (a 64-megapixel image in 16-bit
/// RGBA is 512 MiB).
const MAX_DECODE_ALLOC: u64 = 512 * 1024 * 1024;

/// Decodes `bytes`, applying its EXIF orientation; `None` for an image
/// above [`MAX_DECODE_PIXELS`], checked from its header before decoding.
fn decode_oriented(bytes: &[u8]) -> Option<DynamicImage> {
    let mut decoder = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .ok()?
        .into_decoder()
        .ok()?;
    let (width, height) = decoder.dimensions();
    if u64::from(width) * u64::from(height) > MAX_DECODE_PIXELS {
        tracing::warn!(width, height, "an image too large to decode is omitted");
        return None;
    }
    let mut limits = image::Limits::default();
    limits.max_alloc = Some(MAX_DECODE_ALLOC);
    decoder.set_limits(limits).ok()?;
    let orientation = decoder.orientation().ok();
    let mut image = DynamicImage::from_decoder(decoder).ok()?;
    if let Some(orientation) = orientation {
        image.apply_orientation(orientation);
    }
    Some(image)
}

/// `value * numerator / denominator`, rounded half up as `Math.round`.
fn scale(value: u32, numerator: u32, denominator: u32) -> u32 {
    let scaled = u64::from(value) * u64::from(numerator);
    let rounded = (2 * scaled + u64::from(denominator)) / (2 * u64::from(denominator));
    u32::try_from(rounded.max(1)).unwrap_or(u32::MAX)
}

/// The size of `n` bytes in base64.
fn base64_len(n: usize) -> usize {
    n.div_ceil(3) * 4
}

/// The first of PNG and JPEG at `qualities` whose base64 is under `max_bytes`.
fn first_fitting(
    image: &DynamicImage,
    qualities: &[u8],
    max_bytes: usize,
) -> Option<(String, &'static str)> {
    let rgba = image.to_rgba8();
    let mut png = Vec::new();
    let encoded = PngEncoder::new(&mut png).write_image(
        rgba.as_raw(),
        rgba.width(),
        rgba.height(),
        image::ExtendedColorType::Rgba8,
    );
    if encoded.is_ok() && base64_len(png.len()) < max_bytes {
        return Some((
            base64::engine::general_purpose::STANDARD.encode(&png),
            "image/png",
        ));
    }
    let rgb = image.to_rgb8();
    for &quality in qualities {
        let mut jpeg = Vec::new();
        let encoded = JpegEncoder::new_with_quality(&mut jpeg, quality).write_image(
            rgb.as_raw(),
            rgb.width(),
            rgb.height(),
            image::ExtendedColorType::Rgb8,
        );
        if encoded.is_ok() && base64_len(jpeg.len()) < max_bytes {
            return Some((
                base64::engine::general_purpose::STANDARD.encode(&jpeg),
                "image/jpeg",
            ));
        }
    }
    None
}

#[cfg(test)]
#[path = "image_resize_tests.rs"]
pub(crate) mod tests;
