//! Partial JSON: any text, whole and fed in fragments; the final value of a
//! complete document equals serde_json's.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&size, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let _ = pi_ai::parse_partial_json(text);
    let mut partial = pi_ai::PartialJson::new();
    let mut value = serde_json::Value::Null;
    let mut start = 0;
    let step = usize::from(size).max(1);
    while start < text.len() {
        let mut end = (start + step).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        partial.push(&text[start..end], &mut value);
        start = end;
    }
    if let Ok(expected) = serde_json::from_str::<serde_json::Value>(text) {
        if partial.finish().ok() != Some(expected) {
            std::process::abort();
        }
    }
});
