//! Markdown to HTML for the export: CommonMark plus tables, strikethrough and task
//! lists; raw HTML in the text is shown as text and script links are dropped.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag};

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

/// `text` as HTML.
pub fn to_html(text: &str) -> String {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let events = Parser::new_ext(text, options).map(|event| match event {
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
        Event::Start(Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        }) if is_unsafe_url(&dest_url) || dest_url.starts_with("http") => {
            // No network: remote images are not fetched.
            Event::Start(Tag::Link {
                link_type,
                dest_url: if is_unsafe_url(&dest_url) {
                    CowStr::Borrowed("#")
                } else {
                    dest_url
                },
                title,
                id,
            })
        }
        other => other,
    });
    let mut html = String::with_capacity(text.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, events);
    html
}

/// Text with `& < > " '` escaped for HTML.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_markdown_and_neutralises_html() {
        let html = to_html(
            "# Title\n\n**bold** `code`\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1)) <b onclick=x>hi</b>\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
        );
        assert!(html.contains("<h1>Title</h1>"));
        assert!(html.contains("<strong>bold</strong>"));
        assert!(html.contains("<code>code</code>"));
        assert!(html.contains("&lt;script&gt;"));
        assert!(!html.contains("<script"));
        assert!(!html.contains("<b onclick"));
        assert!(!html.contains("javascript:"));
        assert!(html.contains("<table>"));
    }

    #[test]
    fn escapes_text() {
        assert_eq!(
            escape(r#"<a href="x">&'"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
