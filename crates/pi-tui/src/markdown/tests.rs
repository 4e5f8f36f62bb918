use std::sync::Arc;

use pretty_assertions::assert_eq;

use super::*;
use crate::text::visible_width;
use crate::theme::ColorMode;

const SAMPLE: &str = r#"# Release notes

## What changed

Some **bold**, *italic*, ~~struck~~ and `inline code` text with a [link](https://example.com/docs) and <https://auto.link>.
A soft break keeps its line.

### Details

- first item
- second item with a long line that needs wrapping when the terminal is narrow
  - nested one
  - nested two
- [x] done task
- [ ] open task

1. one
2. two

> quoted *text* that is long enough to wrap around at narrow widths
>
> second quote paragraph

---

| Name | Description | Size |
|------|-------------|-----:|
| `pi-tui` | the terminal widget layer with a long description | 12 |
| pi-ai | messages | 3 |

```rust
fn main() {
    // greet
    println!("hello {}", 42);
}
```

```
plain block
```

Done.
"#;

fn style(mode: ColorMode) -> MarkdownTheme {
    MarkdownTheme::new(Arc::new(Theme::dark(mode)))
}

fn snap(lines: &[String]) -> String {
    lines
        .iter()
        .map(|l| l.replace('\x1b', "␛"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn sample_no_color_80() {
    let mut md = Markdown::new(SAMPLE, style(ColorMode::NoColor));
    insta::assert_snapshot!(snap(&md.render(80)));
}

#[test]
fn sample_no_color_40() {
    let mut md = Markdown::new(SAMPLE, style(ColorMode::NoColor));
    insta::assert_snapshot!(snap(&md.render(40)));
}

#[test]
fn sample_truecolor_80() {
    let mut md = Markdown::new(SAMPLE, style(ColorMode::TrueColor));
    insta::assert_snapshot!(snap(&md.render(80)));
}

#[test]
fn sample_truecolor_40() {
    let mut md = Markdown::new(SAMPLE, style(ColorMode::TrueColor));
    insta::assert_snapshot!(snap(&md.render(40)));
}

#[test]
fn lines_never_exceed_the_width() {
    for mode in [ColorMode::NoColor, ColorMode::TrueColor] {
        let mut md = Markdown::new(SAMPLE, style(mode));
        for w in 1..90 {
            for l in md.render(w) {
                assert!(visible_width(&l) <= w, "{l:?} at {w}");
            }
        }
    }
}

#[test]
fn links_as_osc8_when_enabled() {
    let mut s = style(ColorMode::NoColor);
    s.hyperlinks = true;
    let mut md = Markdown::new("see [docs](https://x.dev) now", s);
    assert_eq!(
        md.render(80),
        vec!["see \x1b]8;;https://x.dev\x07docs\x1b]8;;\x07 now"]
    );
    let mut md = Markdown::new("see [docs](https://x.dev) now", style(ColorMode::NoColor));
    assert_eq!(md.render(80), vec!["see docs (https://x.dev) now"]);
}

#[test]
fn padding_and_thinking_style() {
    let mut s = style(ColorMode::TrueColor);
    s.padding_x = 1;
    s.italic = true;
    s.text_color = Some(Token::ThinkingText);
    let theme = s.theme.clone();
    let mut md = Markdown::new("thinking hard", s);
    let fg = theme.fg_code(Token::ThinkingText);
    assert_eq!(
        md.render(40),
        vec![format!(" {fg}\x1b[3mthinking hard\x1b[0m")]
    );
}

#[test]
fn hr_is_capped_at_80() {
    let mut md = Markdown::new("---", style(ColorMode::NoColor));
    assert_eq!(md.render(120), vec!["─".repeat(80)]);
    assert_eq!(md.render(10), vec!["─".repeat(10)]);
}

#[test]
fn paragraph_runs_into_a_list_and_headings_get_a_gap() {
    let mut md = Markdown::new("Steps:\n- a\n- b\n# Title\ntext", style(ColorMode::NoColor));
    assert_eq!(
        md.render(40),
        vec!["Steps:", "- a", "- b", "Title", "", "text"]
    );
}

/// Streaming in small deltas renders exactly what a fresh render of the same text does, at
/// every step.
#[test]
fn streaming_matches_a_full_render_at_every_step() {
    for mode in [ColorMode::NoColor, ColorMode::TrueColor] {
        let mut streamed = Markdown::new("", style(mode));
        let chars: Vec<char> = SAMPLE.chars().collect();
        let mut text = String::new();
        for (i, chunk) in chars.chunks(7).enumerate() {
            let delta: String = chunk.iter().collect();
            text.push_str(&delta);
            streamed.push_str(&delta);
            let width = if i % 5 == 0 { 40 } else { 80 };
            let got = streamed.render(width);
            let want = Markdown::new(text.clone(), style(mode)).render(width);
            assert_eq!(got, want, "after {} bytes at {width}", text.len());
        }
    }
}

#[test]
fn finished_blocks_are_frozen() {
    let mut md = Markdown::new("para one\n\n# Head\n\npara two", style(ColorMode::NoColor));
    md.render(40);
    assert_eq!(md.frozen.len(), 2);
    md.push_str(" continues");
    md.render(40);
    assert_eq!(md.frozen.len(), 2);
    assert_eq!(md.text()[md.tail_start..], *"para two continues");
}

#[test]
fn set_text_extending_is_a_push() {
    let mut md = Markdown::new("a\n\nb", style(ColorMode::NoColor));
    md.render(20);
    // `b` might still become `b.`-something that continues `a`: not frozen yet.
    assert_eq!(md.frozen.len(), 0);
    md.set_text("a\n\nb c\n");
    md.render(20);
    assert_eq!(md.frozen.len(), 1);
    assert_eq!(md.render(20), vec!["a", "", "b c"]);
    md.set_text("other");
    assert_eq!(md.render(20), vec!["other"]);
}

const TRICKY: &str = "Title\n=====\nintro line\n- item\n\n  continued item\n- next\n\npara\n---\n\n> q1\nlazy\n\n    indented code\n\n<div>\nhtml\n</div>\n\n| a | b |\n|---|---|\n| 1 | 2 |\nrow without pipes\n\n```py\ndef f():\n\treturn 1\n```\nafter fence\n\n1) one\n2) two\n\n```\nunclosed fence\nstill code";

#[test]
fn tricky_streaming_matches_full_renders() {
    for chunk in [1usize, 3, 13] {
        let mut streamed = Markdown::new("", style(ColorMode::TrueColor));
        let chars: Vec<char> = TRICKY.chars().collect();
        let mut text = String::new();
        for part in chars.chunks(chunk) {
            let delta: String = part.iter().collect();
            text.push_str(&delta);
            streamed.push_str(&delta);
            let want = Markdown::new(text.clone(), style(ColorMode::TrueColor)).render(30);
            assert_eq!(streamed.render(30), want, "chunk {chunk} after {:?}", text);
        }
    }
}

/// The whole text parsed at once (no block splitting), joined with the same separator rule.
fn reference(text: &str, width: usize, mode: ColorMode) -> Vec<String> {
    let s = style(mode);
    let blocks = parse::parse(text);
    let spans = parse::top_level_spans(text);
    assert_eq!(blocks.len(), spans.len(), "one block per span in {text:?}");
    let mut hl = |code: &str, lang: &str| highlight_code(code, lang, &s.theme);
    let mut out = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        if i > 0 {
            let blank = has_blank_line(
                text,
                content_end(text, spans[i - 1].range.end),
                spans[i].range.start,
            );
            if render::blank_between(&blocks[i - 1], b, blank) {
                out.push(String::new());
            }
        }
        out.extend(render::block(&s, b, width, None, &mut hl));
    }
    out
}

#[test]
fn block_splitting_matches_a_whole_document_parse() {
    for doc in [SAMPLE, TRICKY] {
        let chars: Vec<char> = doc.chars().collect();
        let mut streamed = Markdown::new("", style(ColorMode::NoColor));
        let mut text = String::new();
        for part in chars.chunks(5) {
            let delta: String = part.iter().collect();
            text.push_str(&delta);
            streamed.push_str(&delta);
            assert_eq!(
                streamed.render(50),
                reference(&text, 50, ColorMode::NoColor),
                "after {text:?}"
            );
        }
    }
}

const LISTS: &str = "1. one\n1. two\n1. three\n   - nested a\n   - nested b\n1. four\n\n   loose paragraph in four\n\n1. five\n\n```sh\nls\n```\n\n- a\n- b\n\n  ```rust\n  let x = 1;\n  ```\n- c\n* other bullet list\n* again\n\n7) seven\n8) eight\nafter\n";

#[test]
fn long_lists_are_frozen_item_by_item_and_match_a_whole_parse() {
    for chunk in [1usize, 4, 9] {
        let chars: Vec<char> = LISTS.chars().collect();
        let mut streamed = Markdown::new("", style(ColorMode::NoColor));
        let mut text = String::new();
        let mut saw_parts = false;
        for part in chars.chunks(chunk) {
            let delta: String = part.iter().collect();
            text.push_str(&delta);
            streamed.push_str(&delta);
            assert_eq!(
                streamed.render(40),
                reference(&text, 40, ColorMode::NoColor),
                "chunk {chunk} after {text:?}"
            );
            saw_parts |= streamed.frozen.iter().any(|f| f.joins_list);
        }
        assert!(saw_parts, "lists were frozen in parts");
    }
    let mut md = Markdown::new(LISTS, style(ColorMode::NoColor));
    insta::assert_snapshot!(md.render(40).join("\n"));
}

#[test]
fn code_blocks_take_the_configured_indent() {
    let text = "```\nlet x = 1;\n```";
    let lines = |indent: &str, width: usize| {
        let mut style = style(ColorMode::NoColor);
        style.code_indent = indent.to_owned();
        Markdown::new(text, style).render(width).to_vec()
    };
    assert_eq!(lines("  ", 40)[1], "  let x = 1;");
    assert_eq!(lines("    ", 40)[1], "    let x = 1;");
    assert_eq!(lines("", 40)[1], "let x = 1;");
    assert_eq!(lines("> ", 40)[1], "> let x = 1;");
    // Never the whole width: one column is left for the code.
    assert!(lines("          ", 4).iter().all(|l| visible_width(l) <= 4));
}
