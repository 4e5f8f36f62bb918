//! The line diff of `edit` as it was before the common leading and trailing
//! lines were split off (similar's diff over the whole texts): the fuzz
//! target checks the current one gives the same result.

use similar::{DiffTag, TextDiff};

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
pub fn generate_diff_string(old: &str, new: &str, context_lines: usize) -> (String, Option<usize>) {
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
    (out.join("\n"), first_changed_line)
}

