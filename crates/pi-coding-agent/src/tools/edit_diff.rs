//! The edit tool's text work: line endings and BOM, matching every
//! `oldText` against the original content (exactly once, no overlaps, with
//! pi's whitespace- and punctuation-tolerant fallback), and the numbered
//! diff pi puts into `details.diff` (in `edit_line_diff.rs`).

use std::borrow::Cow;
use std::io::Write;

use icu_normalizer::ComposingNormalizerBorrowed;
use memchr::{memchr_iter, memchr3, memmem};
use pi_agent_core::ToolError;
use serde::Deserialize;

#[path = "edit_line_diff.rs"]
mod line_diff;

pub use line_diff::{DIFF_CONTEXT_LINES, DiffResult, generate_diff_string};

/// The line ending a file uses (decided by its first line break).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEnding {
    /// `\n`.
    Lf,
    /// `\r\n`.
    CrLf,
}

/// One replacement of the edit tool.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Edit {
    /// Text to find; must occur exactly once in the original file.
    pub old_text: String,
    /// Text to put in its place.
    pub new_text: String,
}

/// The LF-normalized content the edits were matched against, and the result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedEdits<'a> {
    /// The content the edits were applied to (the original, borrowed, or
    /// its fuzzy-normalized form when an edit needed the fallback).
    pub base_content: Cow<'a, str>,
    /// The content after all edits.
    pub new_content: String,
}

/// The line ending of the first line break (`\n` when there is none).
pub fn detect_line_ending(content: &str) -> LineEnding {
    let Some(lf) = content.find('\n') else {
        return LineEnding::Lf;
    };
    match find(content, "\r\n") {
        Some(crlf) if crlf < lf => LineEnding::CrLf,
        Some(_) | None => LineEnding::Lf,
    }
}

/// Turns `\r\n` and lone `\r` into `\n` (borrowed when there is no `\r`).
pub fn normalize_to_lf(text: &str) -> Cow<'_, str> {
    if !text.contains('\r') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('\r') {
        out.push_str(&rest[..i]);
        out.push('\n');
        rest = &rest[i + 1..];
        rest = rest.strip_prefix('\n').unwrap_or(rest);
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Turns `\n` back into the file's line ending (borrowed for LF).
pub fn restore_line_endings(text: &str, ending: LineEnding) -> Cow<'_, str> {
    match ending {
        LineEnding::Lf => Cow::Borrowed(text),
        LineEnding::CrLf => Cow::Owned(text.replace('\n', "\r\n")),
    }
}

/// Writes `text` with `\n` turned into the file's line ending, without
/// building the converted copy in memory.
pub fn write_with_line_endings(
    out: &mut impl Write,
    text: &str,
    ending: LineEnding,
) -> std::io::Result<()> {
    match ending {
        LineEnding::Lf => out.write_all(text.as_bytes()),
        LineEnding::CrLf => {
            for line in text.split_inclusive('\n') {
                match line.strip_suffix('\n') {
                    Some(line) => {
                        out.write_all(line.as_bytes())?;
                        out.write_all(b"\r\n")?;
                    }
                    None => out.write_all(line.as_bytes())?,
                }
            }
            Ok(())
        }
    }
}

/// Splits a leading UTF-8 byte order mark off: `(bom, rest)`.
pub fn strip_bom(content: &str) -> (&str, &str) {
    match content.strip_prefix('\u{FEFF}') {
        Some(rest) => ("\u{FEFF}", rest),
        None => ("", content),
    }
}

/// The fuzzy form used when text does not match exactly: Unicode NFKC
/// normalization (full-width forms, ligatures, superscripts and the like
/// become their plain equivalents), trailing whitespace removed from every
/// line, typographic quotes and dashes made ASCII, and special spaces made
/// plain spaces. Borrowed when the text is already in that form (most
/// source files), so a large file is not copied.
pub fn normalize_for_fuzzy_match(text: &str) -> Cow<'_, str> {
    let normalized = ComposingNormalizerBorrowed::new_nfkc().normalize(text);
    if !needs_folding(&normalized) {
        return normalized;
    }
    let mut out = String::with_capacity(normalized.len());
    for (i, line) in normalized.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.extend(
            line.trim_end_matches(is_js_whitespace)
                .chars()
                .map(fold_char),
        );
    }
    Cow::Owned(out)
}

/// Whether the fuzzy form changes `text` (NFKC aside): a line ends in
/// whitespace, or a character folds.
fn needs_folding(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut start = 0;
    for end in memchr_iter(b'\n', bytes).chain(std::iter::once(bytes.len())) {
        if text[start..end]
            .chars()
            .next_back()
            .is_some_and(is_js_whitespace)
        {
            return true;
        }
        start = end + 1;
    }
    // Every folded character is non-ASCII and its UTF-8 starts with one of
    // these bytes (U+00A0; U+2002..U+2212; U+3000).
    memchr3(0xC2, 0xE2, 0xE3, bytes).is_some_and(|at| text[at..].chars().any(|c| fold_char(c) != c))
}

/// Where `needle` first occurs in `haystack` (SIMD search; a match of
/// UTF-8 text in UTF-8 text starts on a character boundary).
fn find(haystack: &str, needle: &str) -> Option<usize> {
    memmem::find(haystack.as_bytes(), needle.as_bytes())
}

/// Non-overlapping occurrences of `needle` (as JavaScript's `split` counts).
fn count(haystack: &str, needle: &str) -> usize {
    memmem::find_iter(haystack.as_bytes(), needle.as_bytes()).count()
}

/// Typographic quotes and dashes to ASCII, special spaces to a space.
fn fold_char(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => '"',
        '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
        '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
        other => other,
    }
}

/// Whitespace as JavaScript's `trimEnd` sees it: the `Zs` spaces, tab,
/// vertical tab, form feed, the BOM and the line terminators (unlike Rust's
/// `char::is_whitespace`, U+0085 is not included and U+FEFF is).
fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// Where an edit matched in the base content.
struct Match {
    edit_index: usize,
    start: usize,
    len: usize,
}

/// Applies `edits` to LF-normalized content. Every `oldText` is matched
/// against the same original content (not after earlier edits), must occur
/// exactly once and must not overlap another edit's match; the errors are
/// pi's texts. When any edit only matches in fuzzy form, all matching and
/// replacing happens in the fuzzy form of the file.
pub fn apply_edits_to_normalized_content<'a>(
    content: &'a str,
    edits: &[Edit],
    path: &str,
) -> Result<AppliedEdits<'a>, ToolError> {
    let total = edits.len();
    let edits: Vec<(Cow<'_, str>, Cow<'_, str>)> = edits
        .iter()
        .map(|e| (normalize_to_lf(&e.old_text), normalize_to_lf(&e.new_text)))
        .collect();
    if let Some(i) = edits.iter().position(|(old, _)| old.is_empty()) {
        return Err(ToolError::new(if total == 1 {
            format!("oldText must not be empty in {path}.")
        } else {
            format!("edits[{i}].oldText must not be empty in {path}.")
        }));
    }

    // Borrowed from `content` unless the file has something to fold, so
    // memory stays near the size of the file.
    let fuzzy_content = normalize_for_fuzzy_match(content);
    let needs_fuzzy = edits.iter().any(|(old, _)| {
        find(content, old).is_none()
            && find(&fuzzy_content, &normalize_for_fuzzy_match(old)).is_some()
    });
    let (base, fuzzy_of_content) = if needs_fuzzy {
        (fuzzy_content, None)
    } else {
        (Cow::Borrowed(content), Some(fuzzy_content))
    };
    // Occurrences are counted in the fuzzy form of the base, as pi does.
    let fuzzy_base = match fuzzy_of_content {
        Some(fuzzy) => fuzzy,
        None => normalize_for_fuzzy_match(&base),
    };

    let mut matches = Vec::with_capacity(edits.len());
    for (i, (old, _)) in edits.iter().enumerate() {
        let fuzzy_old = normalize_for_fuzzy_match(old);
        let found = match find(&base, old) {
            Some(start) => Some((start, old.len())),
            None => find(&fuzzy_base, &fuzzy_old).map(|start| (start, fuzzy_old.len())),
        };
        let Some((start, len)) = found else {
            return Err(ToolError::new(if total == 1 {
                format!(
                    "Could not find the exact text in {path}. The old text must match exactly \
                     including all whitespace and newlines."
                )
            } else {
                format!(
                    "Could not find edits[{i}] in {path}. The oldText must match exactly \
                     including all whitespace and newlines."
                )
            }));
        };
        let occurrences = if fuzzy_old.is_empty() {
            count(&base, old)
        } else {
            count(&fuzzy_base, &fuzzy_old)
        };
        if occurrences > 1 {
            return Err(ToolError::new(if total == 1 {
                format!(
                    "Found {occurrences} occurrences of the text in {path}. The text must be \
                     unique. Please provide more context to make it unique."
                )
            } else {
                format!(
                    "Found {occurrences} occurrences of edits[{i}] in {path}. Each oldText must \
                     be unique. Please provide more context to make it unique."
                )
            }));
        }
        matches.push(Match {
            edit_index: i,
            start,
            len,
        });
    }

    matches.sort_by_key(|m| m.start);
    for pair in matches.windows(2) {
        if pair[0].start + pair[0].len > pair[1].start {
            return Err(ToolError::new(format!(
                "edits[{}] and edits[{}] overlap in {path}. Merge them into one edit or target \
                 disjoint regions.",
                pair[0].edit_index, pair[1].edit_index
            )));
        }
    }

    drop(fuzzy_base);
    let inserted: usize = matches.iter().map(|m| edits[m.edit_index].1.len()).sum();
    let mut new_content = String::with_capacity(base.len() + inserted);
    let mut cursor = 0;
    for m in &matches {
        new_content.push_str(&base[cursor..m.start]);
        new_content.push_str(&edits[m.edit_index].1);
        cursor = m.start + m.len;
    }
    new_content.push_str(&base[cursor..]);

    if new_content == base.as_ref() {
        return Err(ToolError::new(if total == 1 {
            format!(
                "No changes made to {path}. The replacement produced identical content. This \
                 might indicate an issue with special characters or the text not existing as \
                 expected."
            )
        } else {
            format!("No changes made to {path}. The replacements produced identical content.")
        }));
    }
    Ok(AppliedEdits {
        base_content: base,
        new_content,
    })
}

#[cfg(test)]
#[path = "edit_diff_tests.rs"]
mod tests;
