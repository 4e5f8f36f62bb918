//! The block tree to terminal lines, in pi's markdown style.

use super::MarkdownTheme;
use super::parse::{Block, Inline, Marks};
use super::table::render_table;
use crate::text::{truncate_to_width, visible_width, wrap};
use crate::theme::Token;

/// A highlighter for code blocks: `(code, lang)` to one styled line per code line, or `None`
/// for an unknown language.
pub(super) type Highlight<'a> = dyn FnMut(&str, &str) -> Option<Vec<String>> + 'a;

/// The style surrounding inline text (default text, heading, quote).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Base {
    pub fg: Option<Token>,
    pub bold: bool,
    pub italic: bool,
    pub underline: bool,
}

/// Tabs as three spaces (as pi) and no other control characters.
pub(super) fn clean(text: &str) -> String {
    if !text.chars().any(|c| c.is_control() && c != '\n') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\t' => out.push_str("   "),
            '\n' => out.push('\n'),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// One self-contained styled run: opens its style and resets after, so runs never leak.
fn run(style: &MarkdownTheme, text: &str, fg: Option<Token>, attrs: &[&str]) -> String {
    let text = clean(text);
    if !style.theme.has_color() || text.is_empty() {
        return text;
    }
    let mut open = String::new();
    if let Some(t) = fg {
        open.push_str(&style.theme.fg_code(t));
    }
    for a in attrs {
        open.push_str(a);
    }
    if open.is_empty() {
        return text;
    }
    // A run may hold newlines (soft breaks): style each line on its own.
    text.split('\n')
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{open}{l}\x1b[0m")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Renders inline content to one string (with `\n` for line breaks).
pub(super) fn inline(style: &MarkdownTheme, items: &[Inline], base: Base) -> String {
    let mut out = String::new();
    for item in items {
        match item {
            Inline::Text(t, m) => out.push_str(&styled_text(style, t, *m, base)),
            Inline::Break => out.push('\n'),
            Inline::LinkStart(url) => {
                if style.hyperlinks {
                    out.push_str(&format!("\x1b]8;;{url}\x07"));
                }
            }
            Inline::LinkEnd { url, text } => {
                if style.hyperlinks {
                    out.push_str("\x1b]8;;\x07");
                } else {
                    let bare = url.strip_prefix("mailto:").unwrap_or(url);
                    if text != url && text != bare {
                        out.push_str(&run(
                            style,
                            &format!(" ({url})"),
                            Some(Token::MdLinkUrl),
                            &[],
                        ));
                    }
                }
            }
        }
    }
    out
}

fn styled_text(style: &MarkdownTheme, text: &str, m: Marks, base: Base) -> String {
    let mut attrs: Vec<&str> = Vec::new();
    if m.bold || base.bold {
        attrs.push("\x1b[1m");
    }
    if m.italic || base.italic {
        attrs.push("\x1b[3m");
    }
    if m.strike {
        attrs.push("\x1b[9m");
    }
    if m.link || base.underline {
        attrs.push("\x1b[4m");
    }
    let fg = if m.code {
        Some(Token::MdCode)
    } else if m.link {
        Some(Token::MdLink)
    } else {
        base.fg
    };
    run(style, text, fg, &attrs)
}

fn default_base(style: &MarkdownTheme) -> Base {
    Base {
        fg: style.text_color,
        italic: style.italic,
        ..Base::default()
    }
}

/// Whether a blank line separates `prev` and `next` (pi: always after headings, code, rules,
/// quotes and tables; not after lists; a paragraph runs straight into a list).
pub(super) fn blank_between(prev: &Block, next: &Block, blank_in_source: bool) -> bool {
    if blank_in_source {
        return true;
    }
    !matches!(
        (prev, next),
        (Block::List { .. } | Block::Html(_), _) | (Block::Paragraph(_), Block::List { .. })
    )
}

/// Renders blocks separated as pi does (blank lines where the source had them or pi adds
/// them).
pub(super) fn blocks(
    style: &MarkdownTheme,
    items: &[Block],
    width: usize,
    base: Option<Base>,
    hl: &mut Highlight<'_>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (i, b) in items.iter().enumerate() {
        if i > 0 && blank_between(&items[i - 1], b, false) {
            out.push(String::new());
        }
        out.extend(block(style, b, width, base, hl));
    }
    out
}

fn code_lines(
    style: &MarkdownTheme,
    lang: &str,
    text: &str,
    width: usize,
    hl: &mut Highlight<'_>,
) -> Vec<String> {
    let border = |s: &str| {
        truncate_to_width(
            &run(style, s, Some(Token::MdCodeBlockBorder), &[]),
            width,
            "",
        )
    };
    let indent = code_indent(style, width);
    let mut out = vec![border(&format!("```{lang}"))];
    let text = clean(text);
    let highlighted = if lang.is_empty() {
        None
    } else {
        hl(&text, lang)
    };
    let lines = highlighted.unwrap_or_else(|| {
        text.split('\n')
            .map(|l| run(style, l, Some(Token::MdCodeBlock), &[]))
            .collect()
    });
    for l in lines {
        out.extend(wrap(&format!("{indent}{l}"), width));
    }
    out.push(border("```"));
    out
}

/// The code-block indentation, cut to leave at least one column at `width`.
fn code_indent(style: &MarkdownTheme, width: usize) -> String {
    let room = width.saturating_sub(1);
    if visible_width(&style.code_indent) > room {
        truncate_to_width(&style.code_indent, room, "")
    } else {
        style.code_indent.clone()
    }
}

/// The rows one source line of a code block takes at `width` (indented, wrapped).
pub(super) fn code_rows(style: &MarkdownTheme, line: &str, width: usize) -> usize {
    let indent = code_indent(style, width);
    wrap(&format!("{indent}{line}"), width).len()
}

/// Renders one block at `width` (every line at most `width` cells).
pub(super) fn block(
    style: &MarkdownTheme,
    b: &Block,
    width: usize,
    base: Option<Base>,
    hl: &mut Highlight<'_>,
) -> Vec<String> {
    let width = width.max(1);
    let base_style = base.unwrap_or_else(|| default_base(style));
    match b {
        Block::Paragraph(items) => wrap(&inline(style, items, base_style), width),
        Block::Heading(level, items) => {
            let hb = Base {
                fg: Some(Token::MdHeading),
                bold: true,
                italic: false,
                underline: *level == 1,
            };
            let mut text = String::new();
            if *level >= 3 {
                let prefix = format!("{} ", "#".repeat(usize::from(*level)));
                text.push_str(&styled_text(style, &prefix, Marks::default(), hb));
            }
            text.push_str(&inline(style, items, hb));
            wrap(&text, width)
        }
        Block::Code { lang, text } => code_lines(style, lang, text, width, hl),
        Block::List { start, items } => {
            let mut out = Vec::new();
            for (i, item) in items.iter().enumerate() {
                let bullet = match start {
                    Some(n) => format!("{}. ", n + i as u64),
                    None => "- ".to_owned(),
                };
                let bw = visible_width(&bullet);
                let inner = width.saturating_sub(bw).max(1);
                let mut lines = blocks_tight(style, &item.blocks, inner, base, hl);
                if let Some(done) = item.task {
                    let mark = if done { "[x] " } else { "[ ] " };
                    match lines.first_mut() {
                        Some(first) => first.insert_str(0, mark),
                        None => lines.push(mark.to_owned()),
                    }
                }
                let styled_bullet = run(style, &bullet, Some(Token::MdListBullet), &[]);
                if lines.is_empty() {
                    lines.push(String::new());
                }
                let pad = " ".repeat(bw);
                for (k, l) in lines.into_iter().enumerate() {
                    let line = if k == 0 {
                        format!("{styled_bullet}{l}")
                    } else {
                        format!("{pad}{l}")
                    };
                    out.push(truncate_to_width(&line, width, ""));
                }
            }
            out
        }
        Block::Quote(inner) => {
            let qb = Base {
                fg: Some(Token::MdQuote),
                italic: true,
                ..Base::default()
            };
            let inner_w = width.saturating_sub(2).max(1);
            let mut lines = blocks(style, inner, inner_w, Some(qb), hl);
            while lines.last().is_some_and(String::is_empty) {
                lines.pop();
            }
            let border = run(style, "│ ", Some(Token::MdQuoteBorder), &[]);
            lines
                .into_iter()
                .map(|l| truncate_to_width(&format!("{border}{l}"), width, ""))
                .collect()
        }
        Block::Rule => vec![run(
            style,
            &"─".repeat(width.min(80)),
            Some(Token::MdHr),
            &[],
        )],
        Block::Table { head, rows } => render_table(style, head, rows, width, base_style),
        Block::Html(raw) => wrap(&run(style, raw, base_style.fg, &[]), width),
    }
}

/// Blocks of a list item: no blank lines between them (as pi).
fn blocks_tight(
    style: &MarkdownTheme,
    items: &[Block],
    width: usize,
    base: Option<Base>,
    hl: &mut Highlight<'_>,
) -> Vec<String> {
    items
        .iter()
        .flat_map(|b| block(style, b, width, base, hl))
        .collect()
}
