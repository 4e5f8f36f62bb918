//! Markdown to HTML for the export: CommonMark plus tables, strikethrough and task
//! lists, fenced code highlighted ([`super::highlight`]); raw HTML in the text is shown
//! as text, script and data links are dropped and remote images become links (the page
//! fetches nothing).

use pulldown_cmark::{CodeBlockKind, CowStr, Event, Options, Parser, Tag, TagEnd};

use super::highlight::Budget;

/// True for link targets that could run code when clicked.
fn is_unsafe_url(url: &str) -> bool {
    let lower: String = url
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .collect::<String>()
        .to_ascii_lowercase();
    ["javascript:", "vbscript:", "data:", "file:"]
        .iter()
        .any(|scheme| lower.starts_with(scheme))
}

fn safe_event(event: Event<'_>) -> Event<'_> {
    match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) if is_unsafe_url(&dest_url) => Event::Start(Tag::Link {
            link_type,
            dest_url: CowStr::Borrowed("#"),
            title,
            id,
        }),
        // No network and no data: every image becomes a link to it.
        Event::Start(Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Link {
            link_type,
            dest_url: if is_unsafe_url(&dest_url) {
                CowStr::Borrowed("#")
            } else {
                dest_url
            },
            title,
            id,
        }),
        Event::End(TagEnd::Image) => Event::End(TagEnd::Link),
        // A line break in a message is a line break on the page, as in the terminal.
        Event::SoftBreak => Event::HardBreak,
        other => other,
    }
}

/// `text` as HTML, appended to `out`.
pub fn push_markdown(out: &mut String, text: &str, budget: &mut Budget) {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut events = Vec::new();
    let mut code: Option<(Option<String>, String)> = None;
    for event in Parser::new_ext(text, options) {
        match (&mut code, event) {
            (None, Event::Start(Tag::CodeBlock(kind))) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => info
                        .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
                        .next()
                        .filter(|l| !l.is_empty())
                        .map(str::to_owned),
                    CodeBlockKind::Indented => None,
                };
                code = Some((lang, String::new()));
            }
            (Some((_, body)), Event::Text(t)) => body.push_str(&t),
            (Some(_), Event::End(TagEnd::CodeBlock)) => {
                if let Some((lang, body)) = code.take() {
                    let mut html = String::with_capacity(body.len() + 64);
                    html.push_str("<pre class=\"code\"");
                    if let Some(lang) = &lang {
                        html.push_str(" data-lang=\"");
                        super::escape::push_escaped(&mut html, lang);
                        html.push('"');
                    }
                    html.push_str("><code>");
                    budget.code(
                        &mut html,
                        body.strip_suffix('\n').unwrap_or(&body),
                        lang.as_deref(),
                    );
                    html.push_str("</code></pre>\n");
                    events.push(Event::Html(CowStr::from(html)));
                }
            }
            (Some(_), _) => {}
            (None, event) => events.push(safe_event(event)),
        }
    }
    pulldown_cmark::html::push_html(out, events.into_iter());
}

/// `text` as HTML.
pub fn to_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 3 / 2);
    push_markdown(&mut out, text, &mut Budget::default());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_markdown_and_neutralises_html() {
        let html = to_html(
            "# Title\n\n**bold** `code`\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1)) <b onclick=x>hi</b>\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n![i](https://x/y.png) ![j](data:image/svg+xml,<svg onload=alert(1)>)\n",
        );
        assert!(html.contains("<h1>Title</h1>"));
        assert!(html.contains("<strong>bold</strong>"));
        assert!(html.contains("<code>code</code>"));
        assert!(html.contains("&lt;script&gt;"));
        assert!(!html.contains("<script"));
        assert!(!html.contains("<b onclick"));
        assert!(!html.contains("href=\"javascript:"));
        assert!(!html.contains("<img"));
        assert!(!html.contains("href=\"data:"));
        assert!(html.contains("<a href=\"https://x/y.png\">i</a>"));
        assert!(html.contains("<table>"));
    }

    #[test]
    fn fenced_code_is_highlighted_and_multiline_text_keeps_its_lines() {
        let html = to_html("line one\nline two\n\n```rust\nfn f() {}\n// </pre><script>\n```\n");
        assert!(html.contains("line one<br />\nline two"), "{html}");
        assert!(html.contains("<pre class=\"code\" data-lang=\"rust\"><code>"));
        assert!(html.contains("<span class=\"hk\">fn</span>"), "{html}");
        assert!(!html.contains("<script>"));
    }
}
