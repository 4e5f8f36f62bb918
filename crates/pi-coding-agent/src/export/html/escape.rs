//! Escaping session text for the page: element text and attribute values (`& < > " '`),
//! with terminal escape sequences (ANSI colours, OSC titles) and other control
//! characters removed, and JSON embedded in a `<script>` element.

/// Appends `text` to `out`, escaped for HTML text or a quoted attribute value, with
/// terminal escape sequences and control characters (but tab and newline) removed.
pub fn push_escaped(out: &mut String, text: &str) {
    let mut chars = text.char_indices().peekable();
    let mut start = 0;
    while let Some((at, c)) = chars.next() {
        let replacement = match c {
            '&' => "&amp;",
            '<' => "&lt;",
            '>' => "&gt;",
            '"' => "&quot;",
            '\'' => "&#39;",
            '\t' | '\n' => continue,
            '\u{1b}' => {
                out.push_str(&text[start..at]);
                skip_escape(&mut chars);
                start = chars.peek().map_or(text.len(), |(i, _)| *i);
                continue;
            }
            c if c.is_control() => "",
            _ => continue,
        };
        out.push_str(&text[start..at]);
        out.push_str(replacement);
        start = at + c.len_utf8();
    }
    out.push_str(&text[start..]);
}

/// Skips the rest of an escape sequence after its ESC: CSI (`ESC [ ... final`), OSC and
/// other strings (`ESC ] ... BEL` or `ESC \`), or a two-character escape.
fn skip_escape(chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>) {
    match chars.next() {
        Some((_, '[')) => {
            for (_, c) in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        }
        Some((_, ']' | 'P' | '_' | '^' | 'X')) => {
            while let Some((_, c)) = chars.next() {
                if c == '\u{7}' {
                    break;
                }
                if c == '\u{1b}' {
                    if chars.peek().is_some_and(|(_, c)| *c == '\\') {
                        chars.next();
                    }
                    break;
                }
            }
        }
        _ => {}
    }
}

/// `text` escaped for HTML text or a quoted attribute, terminal sequences removed.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    push_escaped(&mut out, text);
    out
}

/// JSON made safe inside a `<script>` element: `<`, `>`, `&` and the JavaScript line
/// separators as `\u` escapes (they only occur inside JSON strings, where the
/// escapes mean the same characters), so no `</script>` or `<!--` can appear.
pub fn script_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// A writer that passes JSON through with `<`, `>` and `&` as `\u` escapes (what
/// [`script_json`] does, streamed): serde_json writes them only inside strings.
pub struct ScriptJsonWriter<'a>(pub &'a mut dyn std::io::Write);

impl std::io::Write for ScriptJsonWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut start = 0;
        for (i, byte) in buf.iter().enumerate() {
            let escape: &[u8] = match byte {
                b'<' => b"\\u003c",
                b'>' => b"\\u003e",
                b'&' => b"\\u0026",
                _ => continue,
            };
            self.0.write_all(&buf[start..i])?;
            self.0.write_all(escape)?;
            start = i + 1;
        }
        self.0.write_all(&buf[start..])?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_drops_terminal_sequences() {
        assert_eq!(
            escape(r#"<a href="x">&'"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(
            escape("\u{1b}[31mred\u{1b}[0m \u{1b}]0;title\u{7}ok\u{1b}]8;;u\u{1b}\\x\u{0}\ty\n"),
            "red okx\ty\n"
        );
    }

    #[test]
    fn script_json_cannot_close_its_element() {
        let json = serde_json::to_string("</script><!-- & \u{2028}").unwrap_or_default();
        let safe = script_json(&json);
        assert!(!safe.contains('<') && !safe.contains('>') && !safe.contains('&'));
        let back: String = serde_json::from_str(&safe).unwrap_or_default();
        assert_eq!(back, "</script><!-- & \u{2028}");
        let mut streamed = Vec::new();
        serde_json::to_writer(ScriptJsonWriter(&mut streamed), "</script><!-- &")
            .unwrap_or_default();
        assert_eq!(
            String::from_utf8(streamed).unwrap_or_default(),
            "\"\\u003c/script\\u003e\\u003c!-- \\u0026\""
        );
    }
}
