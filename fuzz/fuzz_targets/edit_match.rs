//! The edit tool's matcher and numbered diff: any content and edits; no
//! panic, a success keeps the text outside the edits, and the diff (which
//! splits off common leading and trailing lines first) equals the line diff
//! over the whole texts.
#![no_main]

#[path = "reference_diff.rs"]
mod reference_diff;

use pi_coding_agent::tools::edit_diff::{
    Edit, apply_edits_to_normalized_content, generate_diff_string, normalize_to_lf,
};

/// Aborts when the current diff and the whole-text diff disagree.
fn same_diff(old: &str, new: &str, context: usize) {
    let current = generate_diff_string(old, new, context);
    let reference = reference_diff::generate_diff_string(old, new, context);
    if (current.diff, current.first_changed_line) != reference {
        std::process::abort();
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Fields separated by U+0000: content, then oldText/newText pairs.
    let mut parts = text.split('\u{0}');
    // The tool matches and diffs the LF form of the file (a `\r` would be a
    // line break to the whole-text diff, not to the edit tool).
    let content = normalize_to_lf(parts.next().unwrap_or_default());
    let content: &str = &content;
    let rest: Vec<&str> = parts.collect();
    let edits: Vec<Edit> = rest
        .chunks(2)
        .map(|pair| Edit {
            old_text: pair[0].to_owned(),
            new_text: pair.get(1).copied().unwrap_or_default().to_owned(),
        })
        .collect();
    if let Some(other) = rest.first() {
        same_diff(content, &normalize_to_lf(other), 1 + content.len() % 4);
    }
    if let Ok(applied) = apply_edits_to_normalized_content(content, &edits, "f.txt") {
        same_diff(&applied.base_content, &applied.new_content, 4);
    }
});
