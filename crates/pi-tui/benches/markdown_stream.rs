//! Streaming a 200 KB markdown answer into [`pi_tui::markdown::Markdown`] in small deltas,
//! rendering after every delta (what the live region does per frame at most).
//!
//! `cargo bench -p pi-tui --bench markdown_stream`: time per whole stream; divide by the
//! reported item count (deltas) for the cost of one delta.

use std::sync::Arc;

use divan::Bencher;
use divan::counter::ItemsCount;
use pi_tui::markdown::{Markdown, MarkdownTheme};
use pi_tui::theme::{ColorMode, Theme};

fn main() {
    divan::main();
}

/// A realistic answer: headings, prose with inline styles, lists, a table and code blocks,
/// repeated to `size` bytes.
fn answer(size: usize) -> String {
    let section = r#"## Section

Here is a paragraph with **bold**, *italic* and `code`, explaining what the change does and
why it matters for the reader, with a [link](https://example.com/page) at the end.

- first point about the design
- second point with more words in it
  - a nested detail

| Column | Meaning |
|--------|---------|
| a | the first column |
| b | the second column |

```rust
fn compute(values: &[u64]) -> u64 {
    // Sum the squares.
    values.iter().map(|v| v * v).sum()
}
```

"#;
    let mut s = String::with_capacity(size + section.len());
    while s.len() < size {
        s.push_str(section);
    }
    s
}

fn deltas(text: &str, size: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut n = size.min(rest.len());
        while !rest.is_char_boundary(n) {
            n += 1;
        }
        let (d, r) = rest.split_at(n);
        out.push(d);
        rest = r;
    }
    out
}

fn style() -> MarkdownTheme {
    MarkdownTheme::new(Arc::new(Theme::dark(ColorMode::TrueColor)))
}

/// The whole 200 KB stream, 16-byte deltas, a render after each.
#[divan::bench(sample_count = 5)]
fn stream_200kb_render_each_delta(bencher: Bencher) {
    let text = answer(200 * 1024);
    let parts = deltas(&text, 16);
    bencher.counter(ItemsCount::new(parts.len())).bench(|| {
        let mut md = Markdown::new("", style());
        for d in &parts {
            md.push_str(d);
            divan::black_box(md.render_ref(100).len());
        }
    });
}

/// One more delta on top of an answer that is already 200 KB long (the steady state).
#[divan::bench(sample_count = 20)]
fn one_delta_after_200kb(bencher: Bencher) {
    let text = answer(200 * 1024);
    let mut md = Markdown::new(text, style());
    md.render_ref(100);
    let mut i = 0u64;
    bencher.bench_local(|| {
        i += 1;
        md.push_str(if i.is_multiple_of(8) {
            "\n\nNew paragraph "
        } else {
            "word "
        });
        divan::black_box(md.render_ref(100).len());
    });
}

/// One more delta at the end of a single 50 KB bulleted list (one top-level block that stays
/// open, so it is re-parsed and re-rendered per delta: the worst case of the block cache).
#[divan::bench(sample_count = 20)]
fn one_delta_in_a_50kb_list(bencher: Bencher) {
    let mut text = String::new();
    let mut i = 0;
    while text.len() < 50 * 1024 {
        text.push_str(&format!(
            "- item {i} with **some** words and `code` in it\n"
        ));
        i += 1;
    }
    let mut md = Markdown::new(text, style());
    md.render_ref(100);
    bencher.bench_local(|| {
        md.push_str("word ");
        divan::black_box(md.render_ref(100).len());
    });
}
