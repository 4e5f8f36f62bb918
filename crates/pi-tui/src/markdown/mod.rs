//! Markdown rendering (pulldown-cmark) in pi's style, incremental for streaming.
//!
//! Headings (h1 bold + underlined, h2 bold, h3+ with a `### ` prefix, all `mdHeading`),
//! emphasis, strikethrough, inline code (`mdCode`), bulleted / numbered / nested / task lists,
//! `│ ` blockquotes, `─` rules capped at 80 columns, box-drawn tables whose cells wrap, links
//! as `text (url)` (or OSC 8 hyperlinks), and fenced code blocks with a 2-space indent,
//! highlighted by [`crate::highlight`].
//!
//! # Streaming
//!
//! The document is split into top-level blocks. A block is **frozen** once a later block has
//! started after it and nothing appended can change it any more (a blank line separates
//! them, or it is a heading or a fenced code block). Frozen blocks are parsed and rendered
//! once per width and kept; [`Markdown::push_str`] only marks the open tail dirty, and the
//! next render re-parses and re-renders just the tail (usually the last block). An open code
//! block keeps its highlighter state, so each streamed line is highlighted once.

mod parse;
mod render;
mod table;

#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::component::Component;
use crate::highlight::{Highlighter, highlight_code};
use crate::theme::{Theme, Token};
use parse::{Block, Span};

/// How a [`Markdown`] is styled.
#[derive(Debug, Clone)]
pub struct MarkdownTheme {
    /// Colours.
    pub theme: Arc<Theme>,
    /// Colour of plain text (`None`: terminal default).
    pub text_color: Option<Token>,
    /// Whole text in italics (thinking blocks).
    pub italic: bool,
    /// Spaces left and right.
    pub padding_x: usize,
    /// Write links as OSC 8 hyperlinks instead of `text (url)`.
    pub hyperlinks: bool,
    /// Indentation of code-block content (pi's `codeBlockIndent`).
    pub code_indent: String,
}

impl MarkdownTheme {
    /// Plain defaults: no text colour, no padding, links as `text (url)`, code indented by 2.
    pub fn new(theme: Arc<Theme>) -> Self {
        Self {
            theme,
            text_color: None,
            italic: false,
            padding_x: 0,
            hyperlinks: false,
            code_indent: "  ".to_owned(),
        }
    }
}

/// A frozen top-level block.
#[derive(Debug, Clone)]
struct Frozen {
    blocks: Vec<Block>,
    /// End of its content in the source (trailing whitespace excluded).
    content_end: usize,
    /// Whether the source has a blank line between it and the previous frozen block.
    blank_before: bool,
    /// It continues the list of the previous frozen block (items of one long list are frozen
    /// in parts): no separator.
    joins_list: bool,
}

/// Highlighting state of the open (last) code block.
#[derive(Debug)]
struct CodeCache {
    lang: String,
    /// Source lines already highlighted (complete lines only).
    done: String,
    lines: Vec<String>,
    hl: Highlighter,
}

impl CodeCache {
    /// All lines of `code` (which extends `done`), highlighting only what is new.
    fn finish(mut self, code: &str, theme: &Theme) -> Vec<String> {
        for line in code[self.done.len()..].split('\n') {
            self.lines.push(self.hl.line(line, theme));
        }
        self.lines
    }
}

/// A markdown document that can grow by deltas.
#[derive(Debug)]
pub struct Markdown {
    text: String,
    style: MarkdownTheme,
    /// Source offset where the open tail starts.
    tail_start: usize,
    frozen: Vec<Frozen>,
    /// Rendered lines for `out_width`: the frozen blocks' lines, then the tail's.
    out: Vec<String>,
    out_width: Option<usize>,
    frozen_lines: usize,
    /// Lines of the open tail that cannot change either (the complete lines of an open code
    /// block), counted from its start.
    tail_stable: usize,
    frozen_rendered: usize,
    dirty: bool,
    code: Option<CodeCache>,
    /// The open code block's cache after that block was frozen (consumed by its render).
    retired_code: Option<CodeCache>,
    /// The tail starts in the middle of a list whose first items are frozen: the number its
    /// next item gets (`None` for bullets).
    list_cont: Option<Option<u64>>,
}

impl Markdown {
    /// A document with initial `text`.
    pub fn new(text: impl Into<String>, style: MarkdownTheme) -> Self {
        Self {
            text: text.into(),
            style,
            tail_start: 0,
            frozen: Vec::new(),
            out: Vec::new(),
            out_width: None,
            frozen_lines: 0,
            tail_stable: 0,
            frozen_rendered: 0,
            dirty: true,
            code: None,
            retired_code: None,
            list_cont: None,
        }
    }

    /// Appends streamed text; the next render re-renders only the open tail.
    pub fn push_str(&mut self, delta: &str) {
        if delta.is_empty() {
            return;
        }
        self.text.push_str(delta);
        self.dirty = true;
    }

    /// Replaces the text (an extension of the current text is treated as a push).
    pub fn set_text(&mut self, text: impl Into<String>) {
        let text = text.into();
        if let Some(rest) = text.strip_prefix(self.text.as_str()) {
            let rest = rest.to_owned();
            self.push_str(&rest);
            return;
        }
        let style = self.style.clone();
        *self = Self::new(text, style);
    }

    /// The source text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Changes the style (drops the rendered lines, keeps the parse).
    pub fn set_style(&mut self, style: MarkdownTheme) {
        self.style = style;
        self.out_width = None;
        self.code = None;
    }

    /// The rendered lines for `width`, without copying them.
    pub fn render_ref(&mut self, width: usize) -> &[String] {
        if self.out_width != Some(width) {
            self.out.clear();
            self.out_width = Some(width);
            self.frozen_lines = 0;
            self.frozen_rendered = 0;
            self.dirty = true;
        }
        if self.dirty {
            self.update(width);
            self.dirty = false;
        }
        &self.out
    }

    /// How many of the lines of the last render can no longer change as text is appended:
    /// the frozen blocks' lines and the complete lines of an open code block (a streamed
    /// answer commits them to the scrollback once they scroll off the screen).
    pub fn stable_lines(&self) -> usize {
        if self.out_width.is_some() && !self.dirty {
            (self.frozen_lines + self.tail_stable).min(self.out.len())
        } else {
            0
        }
    }

    fn content_width(&self, width: usize) -> usize {
        width.saturating_sub(self.style.padding_x * 2).max(1)
    }

    fn pad(&self, width: usize) -> String {
        if width > self.style.padding_x * 2 {
            " ".repeat(self.style.padding_x)
        } else {
            String::new()
        }
    }

    /// Freezes finished blocks, renders newly frozen ones and re-renders the tail.
    fn update(&mut self, width: usize) {
        let tail_spans = self.freeze();
        let cw = self.content_width(width);
        let pad = self.pad(width);
        self.out.truncate(self.frozen_lines);
        // Newly frozen blocks.
        let theme = self.style.theme.clone();
        let mut retired = self.retired_code.take();
        for i in self.frozen_rendered..self.frozen.len() {
            let f = &self.frozen[i];
            let mut hl = |code: &str, lang: &str| match retired.take() {
                Some(c) if c.lang == lang && code.starts_with(c.done.as_str()) => {
                    Some(c.finish(code, &theme))
                }
                _ => highlight_code(code, lang, &theme),
            };
            let lines = render::blocks(&self.style, &f.blocks, cw, None, &mut hl);
            if i > 0
                && !f.joins_list
                && let (Some(prev), Some(first)) =
                    (self.frozen[i - 1].blocks.last(), f.blocks.first())
                && render::blank_between(prev, first, f.blank_before)
            {
                self.out.push(String::new());
            }
            self.out
                .extend(lines.into_iter().map(|l| format!("{pad}{l}")));
        }
        self.frozen_rendered = self.frozen.len();
        self.frozen_lines = self.out.len();
        // The open tail.
        let mut prev: Option<(Block, usize)> = self
            .frozen
            .last()
            .and_then(|f| f.blocks.last().cloned().map(|b| (b, f.content_end)));
        let text = std::mem::take(&mut self.text);
        let last_index = tail_spans.len().saturating_sub(1);
        self.tail_stable = 0;
        for (k, span) in tail_spans.iter().enumerate() {
            let src = &text[span.range.clone()];
            let mut blocks = parse::parse(src);
            let continues = k == 0 && self.list_cont.is_some();
            if continues {
                continue_list(&mut blocks, self.list_cont.flatten());
            }
            let is_last = k == last_index;
            let mut lines = Vec::new();
            for (j, b) in blocks.iter().enumerate() {
                if let Some((p, end)) = &prev
                    && !(continues && j == 0)
                {
                    let blank = j == 0 && has_blank_line(&text, *end, span.range.start);
                    if render::blank_between(p, b, blank) {
                        lines.push(String::new());
                    }
                }
                let streaming_code = is_last && j + 1 == blocks.len();
                let rendered = match b {
                    Block::Code { lang, text: code } if streaming_code => {
                        let highlighted = self.highlight_open(&render::clean(code), lang);
                        let mut hl = |_: &str, _: &str| highlighted.clone();
                        render::block(&self.style, b, cw, None, &mut hl)
                    }
                    _ => {
                        let mut hl =
                            |code: &str, lang: &str| highlight_code(code, lang, &self.style.theme);
                        render::block(&self.style, b, cw, None, &mut hl)
                    }
                };
                if streaming_code
                    && tail_spans.len() == 1
                    && blocks.len() == 1
                    && let Block::Code { text: code, .. } = b
                {
                    // The lines above the partial last one (and the fence) are final.
                    let code = render::clean(code);
                    if let Some(at) = code.rfind('\n') {
                        let partial = render::code_rows(&self.style, &code[at + 1..], cw);
                        self.tail_stable =
                            (lines.len() + rendered.len()).saturating_sub(1 + partial);
                    }
                }
                lines.extend(rendered);
                prev = Some((b.clone(), content_end(&text, span.range.end)));
            }
            self.out
                .extend(lines.into_iter().map(|l| format!("{pad}{l}")));
        }
        self.text = text;
    }

    /// Moves finished leading blocks of the tail into `frozen`; returns the tail's spans.
    fn freeze(&mut self) -> Vec<Span> {
        let spans: Vec<Span> = parse::top_level_spans(&self.text[self.tail_start..])
            .into_iter()
            .map(|s| Span {
                range: s.range.start + self.tail_start..s.range.end + self.tail_start,
                closed: s.closed,
                items: s.items.iter().map(|i| i + self.tail_start).collect(),
            })
            .collect();
        let mut first_open = 0;
        for i in 0..spans.len().saturating_sub(1) {
            let (cur, next) = (&spans[i], &spans[i + 1]);
            let end = content_end(&self.text, cur.range.end);
            // Until the next block's first line is complete it may still turn out to continue
            // this one (`1` becoming `1.`, the next item of a loose list).
            let settled = self.text[next.range.start..].contains('\n');
            if !(cur.closed || (settled && has_blank_line(&self.text, end, next.range.start))) {
                break;
            }
            self.freeze_range(cur.range.clone(), end);
            self.list_cont = None;
            first_open = i + 1;
            self.tail_start = next.range.start;
        }
        if first_open > 0 {
            // The open code block (if any) was frozen: its highlighted lines are reused once.
            self.retired_code = self.code.take();
        }
        let mut tail: Vec<Span> = spans.into_iter().skip(first_open).collect();
        // A long open list: every item but the last is final, freeze them.
        // The last item counts only once its first line is complete (`-x` is no item).
        if let [open] = tail.as_mut_slice()
            && let Some(last) = open
                .items
                .iter()
                .rposition(|&at| self.text[at..].contains('\n'))
                .filter(|&k| k >= 1)
        {
            let cut = open.items[last];
            let done = last;
            let number = self.freeze_range(open.range.start..cut, content_end(&self.text, cut));
            self.list_cont = Some(number.map(|n| n + done as u64));
            self.tail_start = cut;
            open.range.start = cut;
            open.items.drain(..last);
        }
        tail
    }

    /// Freezes the blocks of `range` (continuing a list frozen in parts when the tail was in
    /// one); returns the starting number of the list it froze (if ordered).
    fn freeze_range(&mut self, range: std::ops::Range<usize>, end: usize) -> Option<u64> {
        let joins_list = self.list_cont.is_some();
        let blank_before = self
            .frozen
            .last()
            .is_some_and(|f| has_blank_line(&self.text, f.content_end, range.start));
        let mut blocks = parse::parse(&self.text[range]);
        if joins_list {
            continue_list(&mut blocks, self.list_cont.flatten());
        }
        let number = match blocks.first() {
            Some(Block::List { start, .. }) => *start,
            _ => None,
        };
        self.frozen.push(Frozen {
            blocks,
            content_end: end,
            blank_before,
            joins_list,
        });
        number
    }

    /// Highlights the open code block, reusing the lines highlighted by earlier renders.
    fn highlight_open(&mut self, code: &str, lang: &str) -> Option<Vec<String>> {
        let reusable = self
            .code
            .as_ref()
            .is_some_and(|c| c.lang == lang && code.starts_with(c.done.as_str()));
        if !reusable {
            self.code = Highlighter::new(lang).map(|hl| CodeCache {
                lang: lang.to_owned(),
                done: String::new(),
                lines: Vec::new(),
                hl,
            });
        }
        let theme = self.style.theme.clone();
        let cache = self.code.as_mut()?;
        let rest = &code[cache.done.len()..];
        // Complete lines are highlighted for good; the partial last line on a copy.
        let complete = rest.rfind('\n').map_or(0, |i| i + 1);
        for line in rest[..complete].split_terminator('\n') {
            cache.lines.push(cache.hl.line(line, &theme));
        }
        cache.done.push_str(&rest[..complete]);
        let mut lines = cache.lines.clone();
        let partial = &rest[complete..];
        // `code.split('\n')` has one more piece than newlines: the partial line, maybe empty.
        lines.push(cache.hl.clone().line(partial, &theme));
        Some(lines)
    }
}

/// Numbers the first list of `blocks` from `next` (the list continues one frozen in parts).
fn continue_list(blocks: &mut [Block], next: Option<u64>) {
    if let Some(Block::List { start, .. }) = blocks.first_mut()
        && start.is_some()
    {
        *start = next;
    }
}

/// Offset of the end of the content before `end` (trailing whitespace skipped).
fn content_end(text: &str, end: usize) -> usize {
    text[..end.min(text.len())].trim_end().len()
}

/// Whether the source between `from` (a content end) and `to` holds a blank line.
fn has_blank_line(text: &str, from: usize, to: usize) -> bool {
    let (from, to) = (from.min(text.len()), to.min(text.len()));
    from < to && text[from..to].matches('\n').count() >= 2
}

impl Component for Markdown {
    fn render(&mut self, width: usize) -> Vec<String> {
        self.render_ref(width).to_vec()
    }

    fn invalidate(&mut self) {
        self.out_width = None;
        self.code = None;
    }
}
