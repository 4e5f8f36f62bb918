//! The edit tool's matcher: any content and edits; no panic, and a success
//! keeps the text outside the edits.
#![no_main]

use pi_coding_agent::tools::edit_diff::{Edit, apply_edits_to_normalized_content};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Fields separated by U+0000: content, then oldText/newText pairs.
    let mut parts = text.split('\u{0}');
    let content = parts.next().unwrap_or_default();
    let rest: Vec<&str> = parts.collect();
    let edits: Vec<Edit> = rest
        .chunks(2)
        .map(|pair| Edit {
            old_text: pair[0].to_owned(),
            new_text: pair.get(1).copied().unwrap_or_default().to_owned(),
        })
        .collect();
    let _ = apply_edits_to_normalized_content(content, &edits, "f.txt");
});
