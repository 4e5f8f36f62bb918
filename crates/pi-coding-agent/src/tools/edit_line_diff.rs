//! pi's numbered line diff of an edit (`details.diff`): changed lines with
//! their numbers and a few lines of context. Only the changed middle of the
//! two texts is tokenized, so memory follows the change, not the file.

use memchr::{memchr, memchr_iter, memrchr};
use similar::{DiffTag, TextDiff};

/// Lines of unchanged context shown around each change in the diff.
pub const DIFF_CONTEXT_LINES: usize = 4;

/// pi's numbered diff and the first changed line of the new file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffResult {
    /// Lines `" N text"`, `"-N text"`, `"+N text"` and `"   ..."` for
    /// skipped context, joined by `\n`.
    pub diff: String,
    /// 1-based line in the new content where the first change is.
    pub first_changed_line: Option<usize>,
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

/// Bytes compared at once (a slice comparison) before going byte by byte.
const CHUNK: usize = 4096;

/// The number of bytes both slices start with.
fn common_prefix_bytes(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut same = 0;
    while same + CHUNK <= n && a[same..same + CHUNK] == b[same..same + CHUNK] {
        same += CHUNK;
    }
    same + a[same..n]
        .iter()
        .zip(&b[same..n])
        .position(|(x, y)| x != y)
        .unwrap_or(n - same)
}

/// The number of bytes both slices end with.
fn common_suffix_bytes(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a_end, b_end) = (a.len(), b.len());
    let mut same = 0;
    while same + CHUNK <= n
        && a[a_end - same - CHUNK..a_end - same] == b[b_end - same - CHUNK..b_end - same]
    {
        same += CHUNK;
    }
    same + a[..a_end - same]
        .iter()
        .rev()
        .zip(b[..b_end - same].iter().rev())
        .position(|(x, y)| x != y)
        .unwrap_or(n - same)
}

/// Bytes of the longest run of whole lines both texts start with.
fn common_prefix_lines(old: &str, new: &str) -> usize {
    let differ = common_prefix_bytes(old.as_bytes(), new.as_bytes());
    // `differ` may fall inside a character: search bytes, not the str.
    memrchr(b'\n', &old.as_bytes()[..differ]).map_or(0, |i| i + 1)
}

/// Bytes of the longest run of whole lines both texts end with.
fn common_suffix_lines(old: &str, new: &str) -> usize {
    let same = common_suffix_bytes(old.as_bytes(), new.as_bytes());
    let at_line_start = |text: &str| {
        let at = text.len() - same;
        at == 0 || text.as_bytes()[at - 1] == b'\n'
    };
    if at_line_start(old) && at_line_start(new) {
        return same;
    }
    // Inside the common bytes both texts agree on where lines start.
    // (`same` may start inside a character: search bytes, not the str.)
    let tail = &old.as_bytes()[old.len() - same..];
    memchr(b'\n', tail).map_or(0, |i| same - i - 1)
}

/// Common lines kept in the diffed middle on each side of the change. The
/// diff algorithm's compaction slides a change through equal neighbouring
/// lines (an inserted blank line next to another blank line); over the whole
/// texts it can, and pi's jsdiff places such changes the same way, so the
/// middle keeps this many lines of the common start and end to give it the
/// same room.
const MARGIN_LINES: usize = 64;

/// `at` (a line start in `text`) moved back by `n` lines, and further
/// while the line before is the same as the line after it (a run of equal
/// lines, e.g. blank ones, that a change may slide through).
fn back_lines(text: &str, at: usize, n: usize) -> usize {
    let bytes = text.as_bytes();
    let mut start = at;
    let mut taken = 0;
    while start > 0 {
        // `start - 1` is the `\n` ending the line before `start`.
        let before = memrchr(b'\n', &bytes[..start - 1]).map_or(0, |i| i + 1);
        if taken >= n {
            if taken == 0 {
                break;
            }
            let end = memchr(b'\n', &bytes[start..at]).map_or(at, |i| start + i + 1);
            if bytes[before..start] != bytes[start..end] {
                break;
            }
        }
        start = before;
        taken += 1;
    }
    start
}

/// A common tail of `suffix` bytes of `text` (starting at a line start)
/// shortened by `n` of its first lines, and further while the next line is
/// the same as the one before it (see [`back_lines`]).
fn shorten_suffix(text: &str, suffix: usize, n: usize) -> usize {
    let bytes = text.as_bytes();
    let mut cut = bytes.len() - suffix;
    let mut taken = 0;
    loop {
        let Some(i) = memchr(b'\n', &bytes[cut..]) else {
            return 0;
        };
        let next = cut + i + 1;
        if taken >= n {
            if taken == 0 {
                break;
            }
            let before = memrchr(b'\n', &bytes[..cut - 1]).map_or(0, |j| j + 1);
            if bytes[before..cut] != bytes[cut..next] {
                break;
            }
        }
        cut = next;
        taken += 1;
    }
    bytes.len() - cut
}

/// The line diff of two texts as runs. The common leading and trailing
/// lines are split off first (as the diff algorithm itself would; a margin
/// of them stays, see [`MARGIN_LINES`]), so only the changed middle is
/// tokenized: memory follows the change, not the file. When the first or
/// last change could slide through the whole margin (the common lines
/// repeat with the change's period), the margin grows until it cannot or
/// the whole texts are diffed, so placement is the whole-text diff's.
fn diff_parts(old: &str, new: &str) -> Vec<Part> {
    let common_prefix = common_prefix_lines(old, new);
    let mut margin = MARGIN_LINES;
    loop {
        let prefix = back_lines(old, common_prefix, margin);
        let suffix = common_suffix_lines(&old[prefix..], &new[prefix..]);
        let suffix = shorten_suffix(old, suffix, margin);
        let (old_end, new_end) = (old.len() - suffix, new.len() - suffix);
        let diff = TextDiff::from_lines(&old[prefix..old_end], &new[prefix..new_end]);
        let whole = prefix == 0 && suffix == 0;
        if whole || !reaches_margin_edge(&diff, prefix > 0, suffix > 0) {
            return middle_parts(old, prefix, old_end, &diff);
        }
        margin = margin.saturating_mul(4);
    }
}

/// Whether the first change (when text was split off before the middle)
/// or the last one (when text was split off after it) could slide through
/// all the common lines between it and that edge of the diffed middle.
fn reaches_margin_edge(diff: &TextDiff<'_, '_, '_, str>, at_start: bool, at_end: bool) -> bool {
    let ops = diff.ops();
    let (old_lines, new_lines) = (diff.old_slices(), diff.new_slices());
    let is_change = |op: &&similar::DiffOp| op.tag() != DiffTag::Equal;
    let lines_of = |ops: &[similar::DiffOp]| {
        ops.iter().fold((0, 0), |(o, n), op| {
            (o + op.old_range().len(), n + op.new_range().len())
        })
    };
    // Counted from the ends (both sides have the same number of common
    // lines there): the empty side of an op's ranges may point anywhere.
    let Some(first) = ops.iter().position(|op| is_change(&op)) else {
        return false;
    };
    let first_end = ops[first..]
        .iter()
        .position(|op| !is_change(&op))
        .map_or(ops.len(), |i| first + i);
    let (lead, _) = lines_of(&ops[..first]);
    let (old_len, new_len) = lines_of(&ops[first..first_end]);
    let up = at_start
        && (slides_up(old_lines, lead..lead + old_len, lead)
            || slides_up(new_lines, lead..lead + new_len, lead));
    let last = ops.iter().rposition(|op| is_change(&op)).unwrap_or(first);
    let last_start = ops[..last]
        .iter()
        .rposition(|op| !is_change(&op))
        .map_or(0, |i| i + 1);
    let (trail, _) = lines_of(&ops[last + 1..]);
    let (old_len, new_len) = lines_of(&ops[last_start..=last]);
    let (old_end, new_end) = (old_lines.len() - trail, new_lines.len() - trail);
    let down = at_end
        && (slides_down(old_lines, old_end - old_len..old_end, trail)
            || slides_down(new_lines, new_end - new_len..new_end, trail));
    up || down
}

/// Whether the non-empty run `lines[run]` can move up by `by` lines: each
/// line before it equals the run's line that many lines from its end.
fn slides_up(lines: &[&str], run: std::ops::Range<usize>, by: usize) -> bool {
    !run.is_empty()
        && by <= run.start
        && (1..=by).all(|j| lines[run.start - j] == lines[run.end - j])
}

/// Whether the non-empty run `lines[run]` can move down by `by` lines.
fn slides_down(lines: &[&str], run: std::ops::Range<usize>, by: usize) -> bool {
    !run.is_empty()
        && run.end + by <= lines.len()
        && (0..by).all(|j| lines[run.start + j] == lines[run.end + j])
}

/// The runs of `diff` (of `old[prefix..old_end]` and the matching middle
/// of the new text), framed by the common lines split off before and after it.
fn middle_parts(
    old: &str,
    prefix: usize,
    old_end: usize,
    diff: &TextDiff<'_, '_, '_, str>,
) -> Vec<Part> {
    let mut parts = Vec::new();
    push_part(
        &mut parts,
        Part {
            kind: Kind::Same,
            start: 0,
            end: prefix,
        },
    );
    // Byte offsets in the whole texts, advanced as the ops go (they cover
    // the lines in order).
    let (old_lines, new_lines) = (diff.old_slices(), diff.new_slices());
    let (mut old_at, mut new_at) = (Cursor::new(prefix), Cursor::new(prefix));
    for op in diff.ops() {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        // Only the side an op covers is looked up: the empty range of the
        // other side may point anywhere (compaction moves it).
        let mut removed = || Part {
            kind: Kind::Removed,
            start: old_at.at(old_lines, old_range.start),
            end: old_at.at(old_lines, old_range.end),
        };
        let mut added = || Part {
            kind: Kind::Added,
            start: new_at.at(new_lines, new_range.start),
            end: new_at.at(new_lines, new_range.end),
        };
        match tag {
            DiffTag::Equal => push_part(
                &mut parts,
                Part {
                    kind: Kind::Same,
                    ..removed()
                },
            ),
            DiffTag::Delete => push_part(&mut parts, removed()),
            DiffTag::Insert => push_part(&mut parts, added()),
            DiffTag::Replace => {
                push_part(&mut parts, removed());
                push_part(&mut parts, added());
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
/// forward from the last one asked for (from the start again when asked for
/// an earlier one, which the ops' order makes rare).
struct Cursor {
    base: usize,
    line: usize,
    offset: usize,
}

impl Cursor {
    fn new(offset: usize) -> Self {
        Self {
            base: offset,
            line: 0,
            offset,
        }
    }

    /// The offset where line `line` starts.
    fn at(&mut self, lines: &[&str], line: usize) -> usize {
        if line < self.line {
            self.line = 0;
            self.offset = self.base;
        }
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
    newlines(text) + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

/// The number of `\n` in `text`.
fn newlines(text: &str) -> usize {
    memchr_iter(b'\n', text.as_bytes()).count()
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
    let width = (newlines(old).max(newlines(new)) + 1).to_string().len();
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
