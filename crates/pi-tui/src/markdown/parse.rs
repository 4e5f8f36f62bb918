//! pulldown-cmark events to a small block tree, and the split of a document into top-level
//! blocks (the unit the streaming cache works on).

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, LinkType, Options, Parser, Tag, TagEnd};

/// Extensions pi's `marked` lexer understands (GFM tables, strikethrough, task lists).
pub(super) fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// Inline style flags of a text run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Marks {
    pub bold: bool,
    pub italic: bool,
    pub strike: bool,
    pub code: bool,
    pub link: bool,
}

/// A run of inline content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Inline {
    Text(String, Marks),
    /// A link's target, written after its text (or used for OSC 8).
    LinkStart(String),
    LinkEnd {
        url: String,
        text: String,
    },
    Break,
}

/// A block of the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Block {
    Paragraph(Vec<Inline>),
    Heading(u8, Vec<Inline>),
    Code {
        lang: String,
        text: String,
    },
    List {
        start: Option<u64>,
        items: Vec<Item>,
    },
    Quote(Vec<Block>),
    Rule,
    Table {
        head: Vec<Vec<Inline>>,
        rows: Vec<Vec<Vec<Inline>>>,
    },
    Html(String),
}

/// A list item: its blocks and task state.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct Item {
    pub task: Option<bool>,
    pub blocks: Vec<Block>,
}

/// A top-level block's source range and whether it can still change when text is appended
/// after it (paragraphs, lists, tables and quotes can absorb following lines).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Span {
    pub range: Range<usize>,
    pub closed: bool,
    /// For a list: where each of its items starts.
    pub items: Vec<usize>,
}

/// Moves `at` back over the indentation before it, to the start of its line (an indented
/// code block's range starts after its indentation; the slice must keep it).
fn line_start(src: &str, at: usize) -> usize {
    let before = &src[..at];
    let indent = before.len() - before.trim_end_matches([' ', '\t']).len();
    let start = at - indent;
    if start == 0 || src[..start].ends_with('\n') {
        start
    } else {
        at
    }
}

/// Source ranges of the top-level blocks of `src`.
pub(super) fn top_level_spans(src: &str) -> Vec<Span> {
    let mut spans = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    let mut closed = false;
    let mut items = Vec::new();
    for (event, range) in Parser::new_ext(src, options()).into_offset_iter() {
        match event {
            Event::Start(tag) => {
                if depth == 0 {
                    start = line_start(src, range.start);
                    closed = matches!(
                        tag,
                        Tag::Heading { .. } | Tag::CodeBlock(CodeBlockKind::Fenced(_))
                    );
                } else if depth == 1 && matches!(tag, Tag::Item) {
                    items.push(line_start(src, range.start));
                }
                depth += 1;
            }
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    spans.push(Span {
                        range: start..range.end,
                        closed,
                        items: std::mem::take(&mut items),
                    });
                }
            }
            Event::Rule if depth == 0 => spans.push(Span {
                range,
                closed: true,
                items: Vec::new(),
            }),
            _ if depth == 0 => spans.push(Span {
                range,
                closed: false,
                items: Vec::new(),
            }),
            _ => {}
        }
    }
    spans
}

/// Parses a document (or one block of it) into blocks.
pub(super) fn parse(src: &str) -> Vec<Block> {
    let mut b = Builder::default();
    for event in Parser::new_ext(src, options()) {
        b.event(event);
    }
    b.finish()
}

#[derive(Debug)]
enum Frame {
    Root(Vec<Block>),
    Quote(Vec<Block>),
    List(Option<u64>, Vec<Item>),
    Item(Item),
    Para(Vec<Inline>),
    Heading(u8, Vec<Inline>),
    Code(String, String),
    Html(String),
    Table {
        head: Vec<Vec<Inline>>,
        rows: Vec<Vec<Vec<Inline>>>,
        in_head: bool,
    },
    Cell(Vec<Inline>),
}

#[derive(Debug)]
struct Builder {
    stack: Vec<Frame>,
    marks: Marks,
    /// Never used: the target of inline content when no frame can take it.
    scratch: Vec<Inline>,
}

impl Default for Builder {
    fn default() -> Self {
        Self {
            stack: vec![Frame::Root(Vec::new())],
            marks: Marks::default(),
            scratch: Vec::new(),
        }
    }
}

fn level(l: HeadingLevel) -> u8 {
    match l {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

impl Builder {
    /// Where inline content goes: the open paragraph/heading/cell, or an implicit paragraph
    /// of a tight list item.
    fn inline_target(&mut self) -> &mut Vec<Inline> {
        if !matches!(
            self.stack.last(),
            Some(Frame::Para(_) | Frame::Heading(..) | Frame::Cell(_))
        ) {
            self.stack.push(Frame::Para(Vec::new()));
        }
        match self.stack.last_mut() {
            Some(Frame::Para(v) | Frame::Heading(_, v) | Frame::Cell(v)) => v,
            _ => &mut self.scratch,
        }
    }

    fn push_block(&mut self, block: Block) {
        // An implicit paragraph of a tight item ends where a block starts.
        self.close_implicit_para();
        match self.stack.last_mut() {
            Some(Frame::Root(v) | Frame::Quote(v)) => v.push(block),
            Some(Frame::Item(item)) => item.blocks.push(block),
            _ => {}
        }
    }

    fn close_implicit_para(&mut self) {
        if let [
            ..,
            Frame::Item(_) | Frame::Root(_) | Frame::Quote(_),
            Frame::Para(_),
        ] = self.stack.as_slice()
            && let Some(Frame::Para(p)) = self.stack.pop()
        {
            self.push_block(Block::Paragraph(p));
        }
    }

    fn text(&mut self, t: &str) {
        match self.stack.last_mut() {
            Some(Frame::Code(_, s) | Frame::Html(s)) => s.push_str(t),
            _ => {
                let marks = self.marks;
                self.inline_target().push(Inline::Text(t.to_owned(), marks));
            }
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(end) => self.end(end),
            Event::Text(t) => self.text(&t),
            Event::Code(t) => {
                let marks = Marks {
                    code: true,
                    ..self.marks
                };
                self.inline_target()
                    .push(Inline::Text(t.to_string(), marks));
            }
            Event::Html(t) | Event::InlineHtml(t) => self.text(&t),
            Event::InlineMath(t) | Event::DisplayMath(t) | Event::FootnoteReference(t) => {
                self.text(&t);
            }
            Event::SoftBreak | Event::HardBreak => self.inline_target().push(Inline::Break),
            Event::Rule => self.push_block(Block::Rule),
            Event::TaskListMarker(done) => {
                if let Some(Frame::Item(item)) = self.stack.last_mut() {
                    item.task = Some(done);
                }
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => {
                self.close_implicit_para();
                self.stack.push(Frame::Para(Vec::new()));
            }
            Tag::Heading { level: l, .. } => self.stack.push(Frame::Heading(level(l), Vec::new())),
            Tag::BlockQuote(_) => {
                self.close_implicit_para();
                self.stack.push(Frame::Quote(Vec::new()));
            }
            Tag::CodeBlock(kind) => {
                self.close_implicit_para();
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => {
                        info.split_whitespace().next().unwrap_or("").to_owned()
                    }
                    CodeBlockKind::Indented => String::new(),
                };
                self.stack.push(Frame::Code(lang, String::new()));
            }
            Tag::HtmlBlock => self.stack.push(Frame::Html(String::new())),
            Tag::List(start) => {
                self.close_implicit_para();
                self.stack.push(Frame::List(start, Vec::new()));
            }
            Tag::Item => self.stack.push(Frame::Item(Item::default())),
            Tag::Table(_) => self.stack.push(Frame::Table {
                head: Vec::new(),
                rows: Vec::new(),
                in_head: false,
            }),
            Tag::TableHead => {
                if let Some(Frame::Table { in_head, .. }) = self.stack.last_mut() {
                    *in_head = true;
                }
            }
            Tag::TableRow => {
                if let Some(Frame::Table { rows, .. }) = self.stack.last_mut() {
                    rows.push(Vec::new());
                }
            }
            Tag::TableCell => self.stack.push(Frame::Cell(Vec::new())),
            Tag::Emphasis => self.marks.italic = true,
            Tag::Strong => self.marks.bold = true,
            Tag::Strikethrough => self.marks.strike = true,
            Tag::Link {
                dest_url,
                link_type,
                ..
            } => {
                let url = match link_type {
                    LinkType::Email => format!("mailto:{dest_url}"),
                    _ => dest_url.to_string(),
                };
                self.marks.link = true;
                self.inline_target().push(Inline::LinkStart(url));
            }
            _ => {}
        }
    }

    fn end(&mut self, end: TagEnd) {
        match end {
            TagEnd::Emphasis => self.marks.italic = false,
            TagEnd::Strong => self.marks.bold = false,
            TagEnd::Strikethrough => self.marks.strike = false,
            TagEnd::Link => {
                self.marks.link = false;
                let target = self.inline_target();
                // The link text is everything since its start marker.
                let start = target
                    .iter()
                    .rposition(|i| matches!(i, Inline::LinkStart(_)))
                    .unwrap_or(0);
                let text: String = target[start..]
                    .iter()
                    .filter_map(|i| match i {
                        Inline::Text(t, _) => Some(t.as_str()),
                        _ => None,
                    })
                    .collect();
                let url = match target.get(start) {
                    Some(Inline::LinkStart(u)) => u.clone(),
                    _ => String::new(),
                };
                target.push(Inline::LinkEnd { url, text });
            }
            TagEnd::Paragraph => {
                if let Some(Frame::Para(p)) = self.stack.pop() {
                    self.push_block(Block::Paragraph(p));
                }
            }
            TagEnd::Heading(_) => {
                if let Some(Frame::Heading(l, h)) = self.stack.pop() {
                    self.push_block(Block::Heading(l, h));
                }
            }
            TagEnd::BlockQuote(_) => {
                self.close_implicit_para();
                if let Some(Frame::Quote(q)) = self.stack.pop() {
                    self.push_block(Block::Quote(q));
                }
            }
            TagEnd::CodeBlock => {
                if let Some(Frame::Code(lang, mut text)) = self.stack.pop() {
                    if text.ends_with('\n') {
                        text.pop();
                    }
                    self.push_block(Block::Code { lang, text });
                }
            }
            TagEnd::HtmlBlock => {
                if let Some(Frame::Html(h)) = self.stack.pop() {
                    self.push_block(Block::Html(h.trim().to_owned()));
                }
            }
            TagEnd::Item => {
                self.close_implicit_para();
                if let Some(Frame::Item(item)) = self.stack.pop()
                    && let Some(Frame::List(_, items)) = self.stack.last_mut()
                {
                    items.push(item);
                }
            }
            TagEnd::List(_) => {
                if let Some(Frame::List(start, items)) = self.stack.pop() {
                    self.push_block(Block::List { start, items });
                }
            }
            TagEnd::TableHead => {
                if let Some(Frame::Table { in_head, .. }) = self.stack.last_mut() {
                    *in_head = false;
                }
            }
            TagEnd::TableCell => {
                if let Some(Frame::Cell(cell)) = self.stack.pop()
                    && let Some(Frame::Table {
                        head,
                        rows,
                        in_head,
                    }) = self.stack.last_mut()
                {
                    match (*in_head, rows.last_mut()) {
                        (true, _) | (false, None) => head.push(cell),
                        (false, Some(row)) => row.push(cell),
                    }
                }
            }
            TagEnd::Table => {
                if let Some(Frame::Table { head, rows, .. }) = self.stack.pop() {
                    self.push_block(Block::Table { head, rows });
                }
            }
            _ => {}
        }
    }

    fn finish(mut self) -> Vec<Block> {
        // Close whatever an unfinished stream left open.
        while self.stack.len() > 1 {
            let end = match self.stack.last() {
                Some(Frame::Para(_)) => TagEnd::Paragraph,
                Some(Frame::Heading(..)) => TagEnd::Heading(HeadingLevel::H1),
                Some(Frame::Quote(_)) => TagEnd::BlockQuote(None),
                Some(Frame::Code(..)) => TagEnd::CodeBlock,
                Some(Frame::Html(_)) => TagEnd::HtmlBlock,
                Some(Frame::Item(_)) => TagEnd::Item,
                Some(Frame::List(..)) => TagEnd::List(false),
                Some(Frame::Cell(_)) => TagEnd::TableCell,
                Some(Frame::Table { .. }) => TagEnd::Table,
                Some(Frame::Root(_)) | None => break,
            };
            self.end(end);
        }
        match self.stack.pop() {
            Some(Frame::Root(v)) => v,
            _ => Vec::new(),
        }
    }
}
