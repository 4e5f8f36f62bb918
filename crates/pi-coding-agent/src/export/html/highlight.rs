//! Code in the page: highlighted by the terminal's highlighter (pi-tui's syntect
//! grammars), each coloured run a `<span>` whose class names its theme token, so
//! the page's colours are the theme's. Highlighting is bounded: a block longer
//! than [`MAX_BLOCK`], or any code once the page has highlighted [`PAGE_BUDGET`]
//! bytes, is shown as plain (escaped) text, so a huge session exports in time.

use pi_tui::highlight::Highlighter;
use pi_tui::theme::Token;

use super::escape::push_escaped;

/// The longest code block that is highlighted.
pub const MAX_BLOCK: usize = 32 * 1024;
/// How many bytes of code one page highlights at most (syntect's grammars run at
/// about half a megabyte a second: this is a quarter of a second or so).
pub const PAGE_BUDGET: usize = 128 * 1024;

/// The class of a highlighted run (styled by the page's CSS).
pub fn token_class(token: Token) -> Option<&'static str> {
    Some(match token {
        Token::SyntaxComment => "hc",
        Token::SyntaxKeyword => "hk",
        Token::SyntaxFunction => "hf",
        Token::SyntaxVariable => "hv",
        Token::SyntaxString => "hs",
        Token::SyntaxNumber => "hn",
        Token::SyntaxType => "ht",
        Token::SyntaxOperator => "ho",
        Token::SyntaxPunctuation => "hp",
        Token::MdCodeBlock => "hb",
        _ => return None,
    })
}

/// The tokens [`token_class`] maps, for the stylesheet.
pub const TOKEN_CLASSES: [Token; 10] = [
    Token::SyntaxComment,
    Token::SyntaxKeyword,
    Token::SyntaxFunction,
    Token::SyntaxVariable,
    Token::SyntaxString,
    Token::SyntaxNumber,
    Token::SyntaxType,
    Token::SyntaxOperator,
    Token::SyntaxPunctuation,
    Token::MdCodeBlock,
];

/// What is left of the page's highlighting budget.
#[derive(Debug)]
pub struct Budget(usize);

impl Default for Budget {
    fn default() -> Self {
        Self(PAGE_BUDGET)
    }
}

impl Budget {
    /// Writes `code` (its lines, escaped) into `out`, highlighted as `lang` when
    /// the language is known and the budget allows.
    pub fn code(&mut self, out: &mut String, code: &str, lang: Option<&str>) {
        let highlighter = lang
            .filter(|_| code.len() <= MAX_BLOCK && code.len() <= self.0)
            .and_then(Highlighter::new);
        let Some(mut highlighter) = highlighter else {
            push_escaped(out, code);
            return;
        };
        self.0 -= code.len();
        let mut first = true;
        for line in code.split('\n') {
            if !first {
                out.push('\n');
            }
            first = false;
            highlighter.line_spans(line, |token, text| match token.and_then(token_class) {
                Some(class) => {
                    out.push_str("<span class=\"");
                    out.push_str(class);
                    out.push_str("\">");
                    push_escaped(out, text);
                    out.push_str("</span>");
                }
                None => push_escaped(out, text),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_code_is_highlighted_and_escaped() {
        let mut out = String::new();
        Budget::default().code(&mut out, "fn main() { let s = \"<b>\"; }", Some("rust"));
        assert!(out.contains("<span class=\"hk\">fn</span>"), "{out}");
        assert!(out.contains("&lt;b&gt;"), "{out}");
        assert!(!out.contains("<b>"), "{out}");
    }

    #[test]
    fn unknown_languages_and_a_spent_budget_give_plain_text() {
        let mut out = String::new();
        Budget::default().code(&mut out, "a < b", Some("no-such-language"));
        assert_eq!(out, "a &lt; b");
        let mut spent = Budget(3);
        let mut out = String::new();
        spent.code(&mut out, "fn x() {}", Some("rust"));
        assert_eq!(out, "fn x() {}");
    }
}
