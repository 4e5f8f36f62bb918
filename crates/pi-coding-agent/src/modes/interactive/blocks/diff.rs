//! The edit tool's diff (`-<n> old`, `+<n> new`, ` <n> ctx`, ` ...`) in
//! colour: removed lines in `toolDiffRemoved`, added in `toolDiffAdded`,
//! context in `toolDiffContext`; a run of exactly one removed and one
//! added line (a one-line change) shows the changed words in inverse video.

use pi_tui::theme::{Theme, Token};
use similar::{ChangeTag, TextDiff};

struct DiffLine<'a> {
    prefix: char,
    number: &'a str,
    content: &'a str,
}

/// `+12 text`, `-3 text`, ` 4 text`, `    ...`: prefix, number, content.
fn parse(line: &str) -> Option<DiffLine<'_>> {
    let prefix = line.chars().next()?;
    if !matches!(prefix, '+' | '-' | ' ') {
        return None;
    }
    let rest = &line[1..];
    let digits_start = rest.len() - rest.trim_start_matches(' ').len();
    let after_spaces = &rest[digits_start..];
    let digits = after_spaces.len()
        - after_spaces
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .len();
    // As the regex `^([+-\s])(\s*\d*)\s(.*)$`: without digits the number
    // gives its last space back to the separator.
    let number_end = match (digits, digits_start) {
        (0, 0) => return None,
        (0, start) => start - 1,
        (n, start) => start + n,
    };
    let content = rest[number_end..].strip_prefix(' ')?;
    Some(DiffLine {
        prefix,
        number: &rest[..number_end],
        content,
    })
}

fn tabs(text: &str) -> String {
    text.replace('\t', "   ")
}

/// The two lines of a one-line change with the changed words inverted
/// (leading whitespace of the first change is not inverted).
fn intra_line(theme: &Theme, old: &str, new: &str) -> (String, String) {
    let diff = TextDiff::configure().diff_words(old, new);
    let (mut removed, mut added) = (String::new(), String::new());
    let (mut first_removed, mut first_added) = (true, true);
    let push = |out: &mut String, first: &mut bool, value: &str| {
        let mut value = value;
        if *first {
            let trimmed = value.trim_start();
            out.push_str(&value[..value.len() - trimmed.len()]);
            value = trimmed;
            *first = false;
        }
        if !value.is_empty() {
            out.push_str(&theme.inverse(value));
        }
    };
    for change in diff.iter_all_changes() {
        let value = change.value();
        match change.tag() {
            ChangeTag::Delete => push(&mut removed, &mut first_removed, value),
            ChangeTag::Insert => push(&mut added, &mut first_added, value),
            ChangeTag::Equal => {
                removed.push_str(value);
                added.push_str(value);
            }
        }
    }
    (removed, added)
}

/// The coloured lines of a diff string.
pub fn render_diff(theme: &Theme, diff: &str) -> Vec<String> {
    let lines: Vec<&str> = diff.split('\n').collect();
    let mut out = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let Some(line) = parse(lines[i]) else {
            out.push(theme.fg(Token::ToolDiffContext, lines[i]));
            i += 1;
            continue;
        };
        match line.prefix {
            '-' => {
                let mut removed = Vec::new();
                while let Some(l) = lines
                    .get(i)
                    .and_then(|l| parse(l))
                    .filter(|l| l.prefix == '-')
                {
                    removed.push(l);
                    i += 1;
                }
                let mut added = Vec::new();
                while let Some(l) = lines
                    .get(i)
                    .and_then(|l| parse(l))
                    .filter(|l| l.prefix == '+')
                {
                    added.push(l);
                    i += 1;
                }
                if let ([old], [new]) = (removed.as_slice(), added.as_slice()) {
                    let (r, a) = intra_line(theme, &tabs(old.content), &tabs(new.content));
                    out.push(theme.fg(Token::ToolDiffRemoved, &format!("-{} {r}", old.number)));
                    out.push(theme.fg(Token::ToolDiffAdded, &format!("+{} {a}", new.number)));
                } else {
                    for l in &removed {
                        let text = format!("-{} {}", l.number, tabs(l.content));
                        out.push(theme.fg(Token::ToolDiffRemoved, &text));
                    }
                    for l in &added {
                        let text = format!("+{} {}", l.number, tabs(l.content));
                        out.push(theme.fg(Token::ToolDiffAdded, &text));
                    }
                }
            }
            '+' => {
                let text = format!("+{} {}", line.number, tabs(line.content));
                out.push(theme.fg(Token::ToolDiffAdded, &text));
                i += 1;
            }
            _ => {
                let text = format!(" {} {}", line.number, tabs(line.content));
                out.push(theme.fg(Token::ToolDiffContext, &text));
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_numbered_lines() {
        let l = parse("+12 let x = 1;").unwrap();
        assert_eq!((l.prefix, l.number, l.content), ('+', "12", "let x = 1;"));
        let l = parse("-  3 ").unwrap();
        assert_eq!((l.prefix, l.number, l.content), ('-', "  3", ""));
        let l = parse("     ...").unwrap();
        assert_eq!((l.prefix, l.content), (' ', "..."));
        assert!(parse("@@ hunk").is_none());
    }
}
