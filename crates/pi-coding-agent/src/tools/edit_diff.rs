//! The edit tool's text work: line endings and BOM, matching every
//! `oldText` against the original content (exactly once, no overlaps, with
//! pi's whitespace- and punctuation-tolerant fallback), and the numbered
//! diff pi puts into `details.diff`.

use std::borrow::Cow;
use std::io::Write;

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
pub struct AppliedEdits<'a> {
    /// The content the edits were applied to (the original, borrowed, or
    /// its fuzzy-normalized form when an edit needed the fallback).
    pub base_content: Cow<'a, str>,
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
    if !normalized.split('\n').any(line_needs_folding) {
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

/// Whether the fuzzy form changes `line` (NFKC aside).
fn line_needs_folding(line: &str) -> bool {
    line.ends_with(is_js_whitespace)
        || (!line.is_ascii() && line.chars().any(|c| fold_char(c) != c))
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
        !content.contains(old.as_ref())
            && fuzzy_content.contains(normalize_for_fuzzy_match(old).as_ref())
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
        let found = match base.find(old.as_ref()) {
            Some(start) => Some((start, old.len())),
            None => fuzzy_base
                .find(fuzzy_old.as_ref())
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
            base.matches(old.as_ref()).count()
        } else {
            fuzzy_base.matches(fuzzy_old.as_ref()).count()
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

/// What a run of lines of the line diff is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Same,
    Removed,
    Added,
}

/// A run of whole lines: `text[start..end]` of the old text (same,
/// removed) or of the new one (added).
#[derive(Debug, Clone, Copy)]
struct Part {
    kind: Kind,
    start: usize,
    end: usize,
}

impl Part {
    fn is_change(&self) -> bool {
        self.kind != Kind::Same
    }
}

/// Appends a part, joining a same run to the one before it.
fn push_part(parts: &mut Vec<Part>, part: Part) {
    if part.start == part.end {
        return;
    }
    if let Some(last) = parts.last_mut()
        && last.kind == Kind::Same
        && part.kind == Kind::Same
        && last.end == part.start
    {
        last.end = part.end;
        return;
    }
    parts.push(part);
}

/// Bytes of the longest run of whole lines both texts start with.
fn common_prefix_lines(old: &str, new: &str) -> usize {
    let differ = old
        .as_bytes()
        .iter()
        .zip(new.as_bytes())
        .position(|(a, b)| a != b)
        .unwrap_or(old.len().min(new.len()));
    old[..differ].rfind('\n').map_or(0, |i| i + 1)
}

/// Bytes of the longest run of whole lines both texts end with.
fn common_suffix_lines(old: &str, new: &str) -> usize {
    let same = old
        .as_bytes()
        .iter()
        .rev()
        .zip(new.as_bytes().iter().rev())
        .position(|(a, b)| a != b)
        .unwrap_or(old.len().min(new.len()));
    let at_line_start = |text: &str| {
        let at = text.len() - same;
        at == 0 || text.as_bytes()[at - 1] == b'\n'
    };
    if at_line_start(old) && at_line_start(new) {
        return same;
    }
    // Inside the common bytes both texts agree on where lines start.
    let tail = &old[old.len() - same..];
    tail.find('\n').map_or(0, |i| same - i - 1)
}

/// The line diff of two texts as runs. The common leading and trailing
/// lines are split off first (as the diff algorithm itself would), so only
/// the changed middle is tokenized: memory follows the change, not the file.
fn diff_parts(old: &str, new: &str) -> Vec<Part> {
    let prefix = common_prefix_lines(old, new);
    let suffix = common_suffix_lines(&old[prefix..], &new[prefix..]);
    let (old_end, new_end) = (old.len() - suffix, new.len() - suffix);
    let mut parts = Vec::new();
    push_part(
        &mut parts,
        Part {
            kind: Kind::Same,
            start: 0,
            end: prefix,
        },
    );
    let diff = TextDiff::from_lines(&old[prefix..old_end], &new[prefix..new_end]);
    // Byte offsets in the whole texts, advanced as the ops go (they cover
    // the lines in order).
    let (old_lines, new_lines) = (diff.old_slices(), diff.new_slices());
    let (mut old_at, mut new_at) = (Cursor::new(prefix), Cursor::new(prefix));
    for op in diff.ops() {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        let removed = Part {
            kind: Kind::Removed,
            start: old_at.at(old_lines, old_range.start),
            end: old_at.at(old_lines, old_range.end),
        };
        let added = Part {
            kind: Kind::Added,
            start: new_at.at(new_lines, new_range.start),
            end: new_at.at(new_lines, new_range.end),
        };
        match tag {
            DiffTag::Equal => push_part(
                &mut parts,
                Part {
                    kind: Kind::Same,
                    ..removed
                },
            ),
            DiffTag::Delete => push_part(&mut parts, removed),
            DiffTag::Insert => push_part(&mut parts, added),
            DiffTag::Replace => {
                push_part(&mut parts, removed);
                push_part(&mut parts, added);
            }
        }
    }
    push_part(
        &mut parts,
        Part {
            kind: Kind::Same,
            start: old_end,
            end: old.len(),
        },
    );
    parts
}

/// The byte offset of a line of the diffed middle, found by walking
/// forward from the last one asked for.
struct Cursor {
    line: usize,
    offset: usize,
}

impl Cursor {
    fn new(offset: usize) -> Self {
        Self { line: 0, offset }
    }

    /// The offset where line `line` starts (`line` never goes back).
    fn at(&mut self, lines: &[&str], line: usize) -> usize {
        while self.line < line {
            self.offset += lines.get(self.line).map_or(0, |l| l.len());
            self.line += 1;
        }
        self.offset
    }
}

/// The lines of a run of whole lines, without their `\n`.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.split_inclusive('\n')
        .map(|line| line.strip_suffix('\n').unwrap_or(line))
}

/// The number of lines of a run of whole lines.
fn line_count(text: &str) -> usize {
    text.matches('\n').count() + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

/// The last `n` lines of a run of whole lines.
fn last_lines(text: &str, n: usize) -> &str {
    let mut start = text.len();
    for _ in 0..n {
        // Skip the `\n` ending the line before `start`.
        let before = text[..start].strip_suffix('\n').unwrap_or(&text[..start]);
        start = before.rfind('\n').map_or(0, |i| i + 1);
        if start == 0 {
            break;
        }
    }
    &text[start..]
}

/// pi's diff of two LF-normalized texts: changed lines with their line
/// numbers (old numbers for `-`, new for `+`), up to `context_lines` of
/// unchanged lines around each change, and `...` where lines are skipped.
pub fn generate_diff_string(old: &str, new: &str, context_lines: usize) -> DiffResult {
    let parts = diff_parts(old, new);
    let width = (old.matches('\n').count().max(new.matches('\n').count()) + 1)
        .to_string()
        .len();
    let mut out: Vec<String> = Vec::new();
    let mut old_no = 1usize;
    let mut new_no = 1usize;
    let mut first_changed_line = None;
    let ellipsis = format!(" {} ...", " ".repeat(width));

    for (i, part) in parts.iter().enumerate() {
        match part.kind {
            Kind::Removed => {
                first_changed_line.get_or_insert(new_no);
                for line in lines(&old[part.start..part.end]) {
                    out.push(format!("-{old_no:>width$} {line}"));
                    old_no += 1;
                }
            }
            Kind::Added => {
                first_changed_line.get_or_insert(new_no);
                for line in lines(&new[part.start..part.end]) {
                    out.push(format!("+{new_no:>width$} {line}"));
                    new_no += 1;
                }
            }
            Kind::Same => {
                let text = &old[part.start..part.end];
                let after_change = i > 0 && parts[i - 1].is_change();
                let before_change = parts.get(i + 1).is_some_and(Part::is_change);
                let n = line_count(text);
                // (lines shown at the start, lines shown at the end) of this run.
                let (head, tail) = match (after_change, before_change) {
                    (true, true) if n > 2 * context_lines => (context_lines, context_lines),
                    (true, true) => (n, 0),
                    (true, false) => (n.min(context_lines), 0),
                    (false, true) => (0, n.min(context_lines)),
                    (false, false) => (0, 0),
                };
                let mut no = old_no;
                let shown = if head + tail >= n { n } else { head };
                for line in lines(text).take(shown) {
                    out.push(format!(" {no:>width$} {line}"));
                    no += 1;
                }
                if shown < n {
                    if after_change || before_change {
                        out.push(ellipsis.clone());
                    }
                    no = old_no + n - tail;
                    for line in lines(last_lines(text, tail)) {
                        out.push(format!(" {no:>width$} {line}"));
                        no += 1;
                    }
                }
                old_no += n;
                new_no += n;
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
