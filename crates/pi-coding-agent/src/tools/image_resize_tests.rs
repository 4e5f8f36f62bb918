use super::*;

/// A PNG of `width` x `height` with a gradient and noise-like pattern
/// (so it does not compress to nothing).
pub(crate) fn test_png(width: u32, height: u32) -> Vec<u8> {
    let image = image::RgbImage::from_fn(width, height, |x, y| {
        let n = x
            .wrapping_mul(2_654_435_761)
            .wrapping_add(y.wrapping_mul(40_503))
            >> 7;
        image::Rgb([(x % 256) as u8, (y % 256) as u8, (n % 256) as u8])
    });
    let mut out = Vec::new();
    DynamicImage::ImageRgb8(image)
        .write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    out
}

#[test]
fn a_small_image_is_sent_as_it_is() {
    let png = test_png(40, 30);
    let out = resize_image(&png, "image/png", ResizeLimits::default()).unwrap();
    assert!(!out.was_resized);
    assert_eq!((out.width, out.height), (40, 30));
    assert_eq!(
        out.data,
        base64::engine::general_purpose::STANDARD.encode(&png)
    );
    assert_eq!(format_dimension_note(&out), None);
}

#[test]
fn a_large_image_fits_pis_limits_and_gets_pis_note() {
    // (A 4000x3000 read is in tests/it/tools_files.rs; this one is cheaper.)
    let png = test_png(3000, 600);
    let limits = ResizeLimits::default();
    let out = resize_image(&png, "image/png", limits).unwrap();
    assert!(out.was_resized);
    assert_eq!((out.original_width, out.original_height), (3000, 600));
    assert_eq!((out.width, out.height), (2000, 400));
    assert!(out.data.len() < limits.max_bytes);
    assert_eq!(
        format_dimension_note(&out).unwrap(),
        "[Image: original 3000x600, displayed at 2000x400. Multiply coordinates by 1.50 to map to original image.]"
    );
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&out.data)
        .unwrap();
    let decoded = image::load_from_memory(&bytes).unwrap();
    assert_eq!((decoded.width(), decoded.height()), (2000, 400));
}

#[test]
fn a_byte_limit_forces_jpeg_then_smaller_sizes() {
    let png = test_png(300, 200);
    let limits = ResizeLimits {
        max_bytes: 6_000,
        ..ResizeLimits::default()
    };
    let out = resize_image(&png, "image/png", limits).unwrap();
    assert!(out.was_resized);
    assert_eq!(out.mime_type, "image/jpeg");
    assert!(out.data.len() < 6_000);
    assert!(out.width <= 300 && out.height <= 200);
    let impossible = ResizeLimits {
        max_bytes: 10,
        ..ResizeLimits::default()
    };
    assert_eq!(resize_image(&png, "image/png", impossible), None);
}

#[test]
fn tall_images_scale_by_height_and_round_like_pi() {
    assert_eq!(scale(3001, 2000, 4000), 1501);
    assert_eq!(scale(1, 2000, 4000), 1);
    let png = test_png(500, 2500);
    let out = resize_image(&png, "image/png", ResizeLimits::default()).unwrap();
    assert_eq!((out.width, out.height), (400, 2000));
    assert_eq!(
        format_dimension_note(&out).unwrap(),
        "[Image: original 500x2500, displayed at 400x2000. Multiply coordinates by 1.25 to map to original image.]"
    );
}

#[test]
fn undecodable_bytes_are_none() {
    assert_eq!(
        resize_image(
            b"\x89PNG\r\n\x1a\nbroken",
            "image/png",
            ResizeLimits::default()
        ),
        None
    );
}

/// A PNG whose header announces `width` x `height` over the pixel data of
/// a 1 x 1 image: what a decompression bomb shows before decoding.
fn announced_png(width: u32, height: u32) -> Vec<u8> {
    let mut png = test_png(1, 1);
    // Signature (8), IHDR length (4) and type (4), then width and height.
    png[16..20].copy_from_slice(&width.to_be_bytes());
    png[20..24].copy_from_slice(&height.to_be_bytes());
    let crc = crc32fast::hash(&png[12..29]);
    png[29..33].copy_from_slice(&crc.to_be_bytes());
    png
}

#[test]
fn an_image_announcing_too_many_pixels_is_not_decoded() {
    let started = std::time::Instant::now();
    let bomb = announced_png(60_000, 60_000);
    assert_eq!(
        resize_image(&bomb, "image/png", ResizeLimits::default()),
        None
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(1));
    // Just under the bound, the header is accepted and decoding goes on
    // (and fails on the missing pixels, without allocating the image).
    let side = (MAX_DECODE_PIXELS as f64).sqrt() as u32;
    assert_eq!(
        resize_image(
            &announced_png(side, side),
            "image/png",
            ResizeLimits::default()
        ),
        None
    );
}
