//! Image bytes as `read` and `@file` get them (any format, any damage, any
//! announced size): resizing never panics, and an image announcing more
//! pixels than the decode bound is never decoded (libFuzzer's `-rss_limit_mb`
//! catches a decode that allocates without bound).
#![no_main]

use pi_coding_agent::tools::image_resize::{ResizeLimits, resize_image};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&selector, bytes)) = data.split_first() else {
        return;
    };
    let limits = if selector % 2 == 0 {
        ResizeLimits::default()
    } else {
        // Small limits force the resize and re-encode paths.
        ResizeLimits {
            max_width: 16,
            max_height: 16,
            max_bytes: 2048,
            ..ResizeLimits::default()
        }
    };
    let _ = resize_image(bytes, "image/png", limits);
});
