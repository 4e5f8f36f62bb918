//! Syntax highlighting with syntect (pure-Rust regex engine) and the grammars bat ships
//! (`two-face`: syntect's defaults plus TypeScript, TSX, TOML, Dockerfile, ...), coloured with
//! pi's nine `syntax*` theme tokens instead of a TextMate theme. As pi's highlight.js mapping,
//! only what highlight.js classifies is coloured: plain identifiers, members and constants
//! keep the terminal's default colour.
//!
//! [`Highlighter`] is incremental: it keeps the parser state between lines, so a caller that
//! receives code line by line (a streaming code block, a `write` preview) highlights each
//! line once.

use std::sync::OnceLock;

use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxReference, SyntaxSet};

use crate::theme::{Theme, Token};

fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(two_face::syntax::extra_newlines)
}

/// Scope prefixes mapped to tokens, most specific first (VS Code Dark+ conventions, as pi's
/// highlight.js mapping).
fn scope_map() -> &'static [(Scope, Token)] {
    static MAP: OnceLock<Vec<(Scope, Token)>> = OnceLock::new();
    MAP.get_or_init(|| {
        [
            ("comment", Token::SyntaxComment),
            ("punctuation.definition.comment", Token::SyntaxComment),
            ("string", Token::SyntaxString),
            ("punctuation.definition.string", Token::SyntaxString),
            ("constant.numeric", Token::SyntaxNumber),
            ("constant.character.escape", Token::SyntaxString),
            ("constant.language", Token::SyntaxKeyword),
            ("constant", Token::SyntaxNumber),
            ("keyword.operator", Token::SyntaxOperator),
            ("keyword", Token::SyntaxKeyword),
            ("storage.type", Token::SyntaxKeyword),
            ("storage.modifier", Token::SyntaxKeyword),
            ("storage", Token::SyntaxKeyword),
            ("entity.name.function", Token::SyntaxFunction),
            ("support.function", Token::SyntaxFunction),
            ("variable.function", Token::SyntaxFunction),
            ("meta.function-call", Token::SyntaxFunction),
            ("entity.name.type", Token::SyntaxType),
            ("entity.name.class", Token::SyntaxType),
            ("entity.name.struct", Token::SyntaxType),
            ("entity.name.enum", Token::SyntaxType),
            ("entity.name.trait", Token::SyntaxType),
            ("entity.other.inherited-class", Token::SyntaxType),
            ("support.type", Token::SyntaxType),
            // highlight.js `built_in` (Rust's `println!`, ...).
            ("support.macro", Token::SyntaxType),
            ("support.class", Token::SyntaxType),
            ("entity.name.tag", Token::SyntaxKeyword),
            ("entity.other.attribute-name", Token::SyntaxVariable),
            // highlight.js `params`, `variable` (`this`, `$VAR`), `attr`; a plain
            // identifier (`variable.other`) is not coloured.
            ("variable.parameter", Token::SyntaxVariable),
            ("variable.language", Token::SyntaxVariable),
            ("variable.other.readwrite.shell", Token::SyntaxVariable),
            ("variable.other.php", Token::SyntaxVariable),
            ("support.variable", Token::SyntaxVariable),
            ("entity.name", Token::SyntaxFunction),
            ("punctuation", Token::SyntaxPunctuation),
        ]
        .into_iter()
        .filter_map(|(s, t)| Scope::new(s).ok().map(|s| (s, t)))
        .collect()
    })
}

fn token_for(stack: &[Scope]) -> Option<Token> {
    let map = scope_map();
    stack.iter().rev().find_map(|scope| {
        map.iter()
            .find(|(prefix, _)| prefix.is_prefix_of(*scope))
            .map(|(_, t)| *t)
    })
}

fn find_syntax(lang: &str) -> Option<&'static SyntaxReference> {
    let lang = lang.trim();
    if lang.is_empty() {
        return None;
    }
    let set = syntaxes();
    let alias = match lang.to_ascii_lowercase().as_str() {
        "sh" | "shell" | "zsh" | "console" => "bash",
        "typescript" | "mts" | "cts" => "ts",
        "jsx" | "javascript" | "mjs" | "cjs" => "js",
        "py" | "python3" => "python",
        "yml" => "yaml",
        "rs" => "rust",
        "c++" | "cxx" | "hpp" => "cpp",
        "golang" => "go",
        "md" => "markdown",
        "jsonc" | "json5" => "json",
        other => return set.find_syntax_by_token(other),
    };
    set.find_syntax_by_token(alias)
}

/// Whether `lang` (a fence info string or file extension) is a known language.
pub fn supports_language(lang: &str) -> bool {
    find_syntax(lang).is_some()
}

/// The language to highlight a file as, from its path (extension or file name).
pub fn language_for_path(path: &str) -> Option<String> {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let ext = name.rsplit_once('.').map_or(name, |(_, e)| e);
    find_syntax(ext)
        .or_else(|| find_syntax(name))
        .map(|s| s.name.clone())
}

/// Highlights `code` as `lang`, one string per line; `None` when the language is unknown.
pub fn highlight_code(code: &str, lang: &str, theme: &Theme) -> Option<Vec<String>> {
    let mut h = Highlighter::new(lang)?;
    Some(code.split('\n').map(|l| h.line(l, theme)).collect())
}

/// Line-by-line highlighter that keeps the parser state between lines. Cloning it forks the
/// state (to highlight a partial line without committing to it).
#[derive(Clone)]
pub struct Highlighter {
    state: ParseState,
    stack: ScopeStack,
}

impl std::fmt::Debug for Highlighter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Highlighter").finish_non_exhaustive()
    }
}

impl Highlighter {
    /// A highlighter for `lang`, or `None` when the language is unknown.
    pub fn new(lang: &str) -> Option<Self> {
        let syntax = find_syntax(lang)?;
        Some(Self {
            state: ParseState::new(syntax),
            stack: ScopeStack::new(),
        })
    }

    /// Highlights the next line (without its newline); the result ends with no open style.
    pub fn line(&mut self, line: &str, theme: &Theme) -> String {
        let mut out = String::with_capacity(line.len() * 2);
        self.line_spans(line, |token, text| match token {
            Some(t) => out.push_str(&theme.fg(t, text)),
            None => out.push_str(text),
        });
        out
    }

    /// Parses the next line (without its newline) and hands each run of it to `emit` with
    /// the theme token that colours it (`None`: uncoloured), in order; what an HTML page
    /// draws the same highlighting with.
    pub fn line_spans(&mut self, line: &str, mut emit: impl FnMut(Option<Token>, &str)) {
        let with_nl = format!("{line}\n");
        let Ok(ops) = self.state.parse_line(&with_nl, syntaxes()) else {
            emit(Some(Token::MdCodeBlock), line);
            return;
        };
        let mut pos = 0;
        let mut run = |stack: &ScopeStack, from: usize, to: usize| {
            let to = to.min(line.len());
            if from >= to {
                return;
            }
            if let Some(text) = line.get(from..to) {
                emit(token_for(stack.as_slice()), text);
            }
        };
        for (at, op) in ops {
            run(&self.stack, pos, at);
            pos = pos.max(at);
            if self.stack.apply(&op).is_err() {
                self.stack = ScopeStack::new();
            }
        }
        run(&self.stack, pos, line.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::strip_ansi;
    use crate::theme::ColorMode;

    #[test]
    fn highlights_known_languages_with_syntax_tokens() {
        let theme = Theme::dark(ColorMode::TrueColor);
        let lines = highlight_code(
            "fn main() {\n    // hi\n    let s = \"x\";\n}",
            "rust",
            &theme,
        )
        .unwrap_or_default();
        assert_eq!(lines.len(), 4);
        assert!(
            lines[0].contains(&theme.fg_code(Token::SyntaxKeyword)),
            "{:?}",
            lines[0]
        );
        assert!(
            lines[1].contains(&theme.fg_code(Token::SyntaxComment)),
            "{:?}",
            lines[1]
        );
        assert!(
            lines[2].contains(&theme.fg_code(Token::SyntaxString)),
            "{:?}",
            lines[2]
        );
        assert_eq!(strip_ansi(&lines[2]), "    let s = \"x\";");
    }

    #[test]
    fn unknown_languages_are_not_highlighted() {
        let theme = Theme::dark(ColorMode::TrueColor);
        assert!(highlight_code("x", "no-such-lang", &theme).is_none());
        assert!(highlight_code("x", "", &theme).is_none());
        assert!(supports_language("ts"));
        assert!(supports_language("sh"));
        assert_eq!(language_for_path("src/main.rs").as_deref(), Some("Rust"));
        assert_eq!(language_for_path("notes.unknownext"), None);
    }

    #[test]
    fn plain_identifiers_keep_the_default_colour() {
        let theme = Theme::dark(ColorMode::TrueColor);
        for (code, lang, plain) in [
            (
                "let total = count + offset;",
                "rust",
                ["total", "count", "offset"],
            ),
            (
                "const total = count + offset;",
                "js",
                ["total", "count", "offset"],
            ),
            (
                "total = count + offset",
                "python",
                ["total", "count", "offset"],
            ),
        ] {
            let line = highlight_code(code, lang, &theme)
                .unwrap_or_default()
                .remove(0);
            for word in plain {
                // The word is not inside a coloured run: no SGR right before it.
                let at = line
                    .find(word)
                    .unwrap_or_else(|| panic!("{word} in {line:?}"));
                assert!(
                    !line[..at].ends_with('m'),
                    "{word} coloured in {lang}: {line:?}"
                );
            }
        }
    }

    #[test]
    fn typescript_has_its_own_grammar() {
        let theme = Theme::dark(ColorMode::TrueColor);
        for lang in ["ts", "typescript", "tsx"] {
            assert!(
                find_syntax(lang).is_some_and(|s| s.name.starts_with("TypeScript")),
                "{lang}"
            );
        }
        assert_eq!(
            language_for_path("src/app.ts").as_deref(),
            Some("TypeScript")
        );
        let line = highlight_code("let n: number = 1;", "ts", &theme)
            .unwrap_or_default()
            .remove(0);
        // `number` is a type in TypeScript (JavaScript has no such annotation).
        assert!(
            line.contains(&theme.fg(Token::SyntaxType, "number")),
            "{line:?}"
        );
    }

    #[test]
    fn no_color_is_plain_text() {
        let theme = Theme::dark(ColorMode::NoColor);
        let lines = highlight_code("let x = 1;", "rust", &theme).unwrap_or_default();
        assert_eq!(lines, vec!["let x = 1;"]);
    }
}
