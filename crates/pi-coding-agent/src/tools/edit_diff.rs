//! The edit tool's text work: line endings and BOM, matching every
//! `oldText` against the original content (exactly once, no overlaps, with
//! pi's whitespace- and punctuation-tolerant fallback), and the numbered
//! diff pi puts into `details.diff`.

use icu_normalizer::ComposingNormalizerBorrowed;
use pi_agent_core::ToolError;
use serde::Deserialize;
use similar::{DiffTag, TextDiff};

/// Lines of unchanged context shown around each change in the diff.
pub const DIFF_CONTEXT_LINES: usize = 4;

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
pub struct AppliedEdits {
    /// The content the edits were applied to (the original, or its
    /// fuzzy-normalized form when an edit needed the fallback).
    pub base_content: String,
    /// The content after all edits.
    pub new_content: String,
}

/// pi's numbered diff and the first changed line of the new file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffResult {
    /// Lines `" N text"`, `"-N text"`, `"+N text"` and `"   ..."` for
    /// skipped context, joined by `\n`.
    pub diff: String,
    /// 1-based line in the new content where the first change is.
    pub first_changed_line: Option<usize>,
}

/// The line ending of the first line break (`\n` when there is none).
pub fn detect_line_ending(content: &str) -> LineEnding {
    let Some(lf) = content.find('\n') else {
        return LineEnding::Lf;
    };
    match content.find("\r\n") {
        Some(crlf) if crlf < lf => LineEnding::CrLf,
        Some(_) | None => LineEnding::Lf,
    }
}

/// Turns `\r\n` and lone `\r` into `\n`.
pub fn normalize_to_lf(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// Turns `\n` back into the file's line ending.
pub fn restore_line_endings(text: &str, ending: LineEnding) -> String {
    match ending {
        LineEnding::Lf => text.to_owned(),
        LineEnding::CrLf => text.replace('\n', "\r\n"),
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
/// plain spaces.
pub fn normalize_for_fuzzy_match(text: &str) -> String {
    let normalized = ComposingNormalizerBorrowed::new_nfkc().normalize(text);
    let trimmed: Vec<&str> = normalized
        .split('\n')
        .map(|line| line.trim_end_matches(is_js_whitespace))
        .collect();
    trimmed
        .join("\n")
        .chars()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => '\'',
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => '"',
            '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
            '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
            other => other,
        })
        .collect()
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
pub fn apply_edits_to_normalized_content(
    content: &str,
    edits: &[Edit],
    path: &str,
) -> Result<AppliedEdits, ToolError> {
    let total = edits.len();
    let edits: Vec<(String, String)> = edits
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

    let fuzzy_content = normalize_for_fuzzy_match(content);
    let needs_fuzzy = edits.iter().any(|(old, _)| {
        !content.contains(old.as_str()) && fuzzy_content.contains(&normalize_for_fuzzy_match(old))
    });
    let base = if needs_fuzzy {
        fuzzy_content
    } else {
        content.to_owned()
    };
    let fuzzy_base = if needs_fuzzy {
        base.clone()
    } else {
        normalize_for_fuzzy_match(&base)
    };

    let mut matches = Vec::with_capacity(edits.len());
    for (i, (old, _)) in edits.iter().enumerate() {
        let fuzzy_old = normalize_for_fuzzy_match(old);
        let found = match base.find(old.as_str()) {
            Some(start) => Some((start, old.len())),
            None => fuzzy_base
                .find(&fuzzy_old)
                .map(|start| (start, fuzzy_old.len())),
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
            base.matches(old.as_str()).count()
        } else {
            fuzzy_base.matches(fuzzy_old.as_str()).count()
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

    let mut new_content = String::with_capacity(base.len());
    let mut cursor = 0;
    for m in &matches {
        new_content.push_str(&base[cursor..m.start]);
        new_content.push_str(&edits[m.edit_index].1);
        cursor = m.start + m.len;
    }
    new_content.push_str(&base[cursor..]);

    if new_content == base {
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

/// A run of lines of the line diff.
enum Part<'a> {
    Same(Vec<&'a str>),
    Removed(Vec<&'a str>),
    Added(Vec<&'a str>),
}

impl Part<'_> {
    fn is_change(&self) -> bool {
        match self {
            Part::Same(_) => false,
            Part::Removed(_) | Part::Added(_) => true,
        }
    }
}

fn diff_parts<'a>(old: &'a str, new: &'a str) -> Vec<Part<'a>> {
    let diff = TextDiff::from_lines(old, new);
    let strip = |line: &&'a str| line.strip_suffix('\n').unwrap_or(line);
    let old_lines: Vec<&'a str> = diff.old_slices().iter().map(strip).collect();
    let new_lines: Vec<&'a str> = diff.new_slices().iter().map(strip).collect();
    let mut parts = Vec::new();
    for op in diff.ops() {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        let removed = || Part::Removed(old_lines[old_range.clone()].to_vec());
        let added = || Part::Added(new_lines[new_range.clone()].to_vec());
        match tag {
            DiffTag::Equal => parts.push(Part::Same(old_lines[old_range.clone()].to_vec())),
            DiffTag::Delete => parts.push(removed()),
            DiffTag::Insert => parts.push(added()),
            DiffTag::Replace => {
                parts.push(removed());
                parts.push(added());
            }
        }
    }
    parts
}

/// pi's diff of two LF-normalized texts: changed lines with their line
/// numbers (old numbers for `-`, new for `+`), up to `context_lines` of
/// unchanged lines around each change, and `...` where lines are skipped.
pub fn generate_diff_string(old: &str, new: &str, context_lines: usize) -> DiffResult {
    let parts = diff_parts(old, new);
    let width = old
        .split('\n')
        .count()
        .max(new.split('\n').count())
        .to_string()
        .len();
    let mut out: Vec<String> = Vec::new();
    let mut old_no = 1usize;
    let mut new_no = 1usize;
    let mut first_changed_line = None;
    let ellipsis = format!(" {} ...", " ".repeat(width));

    for (i, part) in parts.iter().enumerate() {
        match part {
            Part::Removed(lines) => {
                first_changed_line.get_or_insert(new_no);
                for line in lines {
                    out.push(format!("-{old_no:>width$} {line}"));
                    old_no += 1;
                }
            }
            Part::Added(lines) => {
                first_changed_line.get_or_insert(new_no);
                for line in lines {
                    out.push(format!("+{new_no:>width$} {line}"));
                    new_no += 1;
                }
            }
            Part::Same(lines) => {
                let after_change = i > 0 && parts[i - 1].is_change();
                let before_change = parts.get(i + 1).is_some_and(Part::is_change);
                let n = lines.len();
                // (lines shown at the start, lines shown at the end) of this run.
                let (head, tail) = match (after_change, before_change) {
                    (true, true) if n > 2 * context_lines => (context_lines, context_lines),
                    (true, true) => (n, 0),
                    (true, false) => (n.min(context_lines), 0),
                    (false, true) => (0, n.min(context_lines)),
                    (false, false) => (0, 0),
                };
                for (k, line) in lines.iter().enumerate() {
                    if k < head || k >= n - tail {
                        out.push(format!(" {old_no:>width$} {line}"));
                    } else if k == head && (after_change || before_change) {
                        out.push(ellipsis.clone());
                    }
                    old_no += 1;
                    new_no += 1;
                }
            }
        }
    }
    DiffResult {
        diff: out.join("\n"),
        first_changed_line,
    }
}

#[cfg(test)]
#[path = "edit_diff_tests.rs"]
mod tests;
