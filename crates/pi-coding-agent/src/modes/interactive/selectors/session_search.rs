//! The session picker's search (pi's `session-selector-search`): fuzzy
//! tokens, `"exact phrases"` and `re:<regex>` over a session's search text,
//! `id name messages cwd`, where `messages` is the text of every user and
//! assistant message joined by spaces (pi's `allMessagesText`).
//!
//! The text is fed to a [`TextMatcher`] piece by piece as a session file is
//! read ([`super::session_scan`]), so no session's text has to be held
//! (except for a regex, which needs the whole text): fuzzy tokens and
//! phrases are matched on the fly and settle at their first match.
//! Positions count characters of the lower-cased text (pi counts UTF-16
//! units: the same outside the astral planes).

use pi_tui::fuzzy::fuzzy_match;
use regex::Regex;

/// Why a `re:` query cannot be used (the picker then lists nothing).
#[derive(Debug, Clone, thiserror::Error)]
pub enum QueryError {
    /// `re:` with nothing after it.
    #[error("Empty regex")]
    EmptyRegex,
    /// The pattern does not compile.
    #[error("invalid regex: {0}")]
    Regex(#[from] regex::Error),
}

/// One search token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// Characters in order.
    Fuzzy(String),
    /// A quoted phrase, matched as a substring (whitespace-normalized).
    Phrase(String),
}

/// A parsed query.
#[derive(Debug, Clone)]
pub enum Query {
    /// Tokens that must all match (none: everything matches).
    Tokens(Vec<Token>),
    /// `re:<pattern>`, case-insensitive; the error says why it is unusable.
    Regex(Result<Regex, QueryError>),
}

/// Parses a query as pi does: `re:` starts a regex; double quotes group a
/// phrase; unbalanced quotes fall back to plain whitespace tokens.
pub fn parse_query(query: &str) -> Query {
    let trimmed = query.trim();
    if let Some(pattern) = trimmed.strip_prefix("re:") {
        let pattern = pattern.trim();
        if pattern.is_empty() {
            return Query::Regex(Err(QueryError::EmptyRegex));
        }
        return Query::Regex(
            regex::RegexBuilder::new(pattern)
                .case_insensitive(true)
                .build()
                .map_err(QueryError::from),
        );
    }
    let mut tokens = Vec::new();
    let mut buf = String::new();
    let mut in_quote = false;
    let flush = |buf: &mut String, tokens: &mut Vec<Token>, phrase: bool| {
        let value = buf.trim().to_owned();
        buf.clear();
        if !value.is_empty() {
            tokens.push(if phrase {
                Token::Phrase(value)
            } else {
                Token::Fuzzy(value)
            });
        }
    };
    for c in trimmed.chars() {
        if c == '"' {
            flush(&mut buf, &mut tokens, in_quote);
            in_quote = !in_quote;
        } else if !in_quote && c.is_whitespace() {
            flush(&mut buf, &mut tokens, false);
        } else {
            buf.push(c);
        }
    }
    if in_quote {
        return Query::Tokens(
            trimmed
                .split_whitespace()
                .map(|t| Token::Fuzzy(t.to_owned()))
                .collect(),
        );
    }
    flush(&mut buf, &mut tokens, false);
    Query::Tokens(tokens)
}

/// Lower-cased, whitespace runs as one space, trimmed (pi's
/// `normalizeWhitespaceLower`).
pub(crate) fn normalized(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Calls `f` with each character of `text` lower-cased (one character may
/// lower-case to two).
fn for_each_lower(text: &str, mut f: impl FnMut(char)) {
    for c in text.chars() {
        if c.is_ascii() {
            f(c.to_ascii_lowercase());
        } else {
            c.to_lowercase().for_each(&mut f);
        }
    }
}

fn is_boundary(c: char) -> bool {
    c.is_whitespace() || matches!(c, '-' | '_' | '.' | '/' | ':')
}

/// pi's fuzzy match of one (lower-cased) query over a stream of
/// lower-cased characters: the greedy left-to-right scan of
/// `pi_tui::fuzzy`, one character at a time.
#[derive(Debug, Clone)]
struct FuzzyScan {
    query: Vec<char>,
    at: usize,
    score: f64,
    last: Option<usize>,
    consecutive: f64,
}

impl FuzzyScan {
    fn new(query: Vec<char>) -> Self {
        Self {
            query,
            at: 0,
            score: 0.0,
            last: None,
            consecutive: 0.0,
        }
    }

    fn done(&self) -> bool {
        self.at == self.query.len()
    }

    /// The character `c` at position `i`, after `prev`.
    fn push(&mut self, i: usize, c: char, prev: Option<char>) {
        if self.done() || c != self.query[self.at] {
            return;
        }
        // pi starts the last match at -1: a match at 0 is consecutive.
        if self.last.map_or(i == 0, |l| l + 1 == i) {
            self.consecutive += 1.0;
            self.score -= self.consecutive * 5.0;
        } else {
            self.consecutive = 0.0;
            if let Some(last) = self.last {
                self.score += (i - last - 1) as f64 * 2.0;
            }
        }
        if prev.is_none_or(is_boundary) {
            self.score -= 10.0;
        }
        self.score += i as f64 * 0.1;
        self.last = Some(i);
        self.at += 1;
    }
}

/// `gpt4` also matches as `4gpt` and the reverse (pi-tui's swapped query).
fn swapped(query: &[char]) -> Option<Vec<char>> {
    let split = query.iter().position(|c| !c.is_ascii_lowercase())?;
    let (head, tail) = query.split_at(split);
    if !head.is_empty() && tail.iter().all(char::is_ascii_digit) {
        return Some(tail.iter().chain(head).copied().collect());
    }
    let split = query.iter().position(|c| !c.is_ascii_digit())?;
    let (digits, letters) = query.split_at(split);
    (!digits.is_empty() && letters.iter().all(char::is_ascii_lowercase))
        .then(|| letters.iter().chain(digits).copied().collect())
}

/// A fuzzy token: its query and, when it has one, its swapped form.
#[derive(Debug, Clone)]
struct FuzzyToken {
    primary: FuzzyScan,
    swapped: Option<FuzzyScan>,
}

/// A phrase token: Knuth–Morris–Pratt over the normalized stream.
#[derive(Debug, Clone)]
struct PhraseToken {
    phrase: Vec<char>,
    fail: Vec<usize>,
    matched: usize,
    found: Option<usize>,
}

impl PhraseToken {
    fn new(phrase: &str) -> Self {
        let phrase: Vec<char> = normalized(phrase).chars().collect();
        let mut fail = vec![0; phrase.len()];
        let mut k = 0;
        for i in 1..phrase.len() {
            while k > 0 && phrase[i] != phrase[k] {
                k = fail[k - 1];
            }
            if phrase[i] == phrase[k] {
                k += 1;
            }
            fail[i] = k;
        }
        Self {
            phrase,
            fail,
            matched: 0,
            found: None,
        }
    }

    fn done(&self) -> bool {
        self.found.is_some() || self.phrase.is_empty()
    }

    /// The normalized character `c` at position `i`.
    fn push(&mut self, i: usize, c: char) {
        if self.done() {
            return;
        }
        while self.matched > 0 && self.phrase[self.matched] != c {
            self.matched = self.fail[self.matched - 1];
        }
        if self.phrase[self.matched] == c {
            self.matched += 1;
        }
        if self.matched == self.phrase.len() {
            self.found = Some(i + 1 - self.phrase.len());
        }
    }

    fn score(&self) -> Option<f64> {
        if self.phrase.is_empty() {
            return Some(0.0);
        }
        self.found.map(|at| at as f64 * 0.1)
    }
}

#[derive(Debug, Clone)]
enum TokenState {
    Fuzzy(FuzzyToken),
    Phrase(PhraseToken),
}

/// Matches one session's search text, fed in order with [`Self::feed`]:
/// `id`, `" "`, `name`, `" "`, each message's text (`" "` between them),
/// `" "`, `cwd`.
#[derive(Debug, Clone)]
pub struct TextMatcher<'q> {
    tokens: Vec<TokenState>,
    regex: Option<(&'q Regex, String)>,
    /// Position in the lower-cased text.
    at: usize,
    prev: Option<char>,
    /// Position in the normalized text.
    norm_at: usize,
    norm_started: bool,
    norm_space: bool,
    any_phrase: bool,
}

impl<'q> TextMatcher<'q> {
    /// A matcher for `query`; `None` when nothing can match (an invalid
    /// regex).
    pub fn new(query: &'q Query) -> Option<Self> {
        let (tokens, regex) = match query {
            Query::Regex(Ok(regex)) => (Vec::new(), Some((regex, String::new()))),
            Query::Regex(Err(_)) => return None,
            Query::Tokens(tokens) => (
                tokens
                    .iter()
                    .map(|t| match t {
                        Token::Fuzzy(value) => {
                            let query: Vec<char> = value.to_lowercase().chars().collect();
                            TokenState::Fuzzy(FuzzyToken {
                                swapped: swapped(&query).map(FuzzyScan::new),
                                primary: FuzzyScan::new(query),
                            })
                        }
                        Token::Phrase(value) => TokenState::Phrase(PhraseToken::new(value)),
                    })
                    .collect::<Vec<_>>(),
                None,
            ),
        };
        let any_phrase = tokens.iter().any(|t| matches!(t, TokenState::Phrase(_)));
        Some(Self {
            tokens,
            regex,
            at: 0,
            prev: None,
            norm_at: 0,
            norm_started: false,
            norm_space: false,
            any_phrase,
        })
    }

    /// True when more text cannot change the result: every token has
    /// found its first match (a regex needs the whole text).
    pub fn settled(&self) -> bool {
        self.regex.is_none()
            && self.tokens.iter().all(|t| match t {
                TokenState::Fuzzy(f) => f.primary.done(),
                TokenState::Phrase(p) => p.done(),
            })
    }

    /// The next piece of the search text.
    pub fn feed(&mut self, piece: &str) {
        if let Some((_, text)) = &mut self.regex {
            text.push_str(piece);
            return;
        }
        if self.settled() {
            return;
        }
        let Self {
            tokens,
            at,
            prev,
            norm_at,
            norm_started,
            norm_space,
            any_phrase,
            ..
        } = self;
        for_each_lower(piece, |c| {
            for token in tokens.iter_mut() {
                if let TokenState::Fuzzy(f) = token {
                    f.primary.push(*at, c, *prev);
                    if let Some(s) = &mut f.swapped {
                        s.push(*at, c, *prev);
                    }
                }
            }
            *at += 1;
            *prev = Some(c);
            if !*any_phrase {
                return;
            }
            if c.is_whitespace() {
                *norm_space = *norm_started;
                return;
            }
            let mut emit = |c: char| {
                for token in tokens.iter_mut() {
                    if let TokenState::Phrase(p) = token {
                        p.push(*norm_at, c);
                    }
                }
                *norm_at += 1;
            };
            if std::mem::take(norm_space) {
                emit(' ');
            }
            emit(c);
            *norm_started = true;
        });
    }

    /// The score (lower is better), `None` when the text does not match.
    pub fn finish(self) -> Option<f64> {
        if let Some((regex, text)) = &self.regex {
            let found = regex.find(text)?;
            return Some(text[..found.start()].chars().count() as f64 * 0.1);
        }
        let mut total = 0.0;
        for token in &self.tokens {
            total += match token {
                TokenState::Fuzzy(f) if f.primary.done() => f.primary.score,
                TokenState::Fuzzy(f) => match &f.swapped {
                    Some(s) if s.done() => s.score + 5.0,
                    _ => return None,
                },
                TokenState::Phrase(p) => p.score()?,
            };
        }
        Some(total)
    }
}

/// The score of `text` (a whole search text) for `query`, `None` when it
/// does not match: pi's `matchSession` on a string.
pub fn match_text(text: &str, query: &Query) -> Option<f64> {
    let mut matcher = TextMatcher::new(query)?;
    matcher.feed(text);
    matcher.finish()
}

/// pi's reference computation of [`match_text`] with whole strings (tests
/// compare the streamed matcher against it).
pub fn match_text_whole(text: &str, query: &Query) -> Option<f64> {
    match query {
        Query::Regex(Ok(regex)) => regex
            .find(text)
            .map(|m| text[..m.start()].chars().count() as f64 * 0.1),
        Query::Regex(Err(_)) => None,
        Query::Tokens(tokens) => {
            let mut total = 0.0;
            let haystack = normalized(text);
            for token in tokens {
                match token {
                    Token::Phrase(phrase) => {
                        let phrase = normalized(phrase);
                        if phrase.is_empty() {
                            continue;
                        }
                        let at = haystack.find(&phrase)?;
                        total += haystack[..at].chars().count() as f64 * 0.1;
                    }
                    Token::Fuzzy(value) => total += fuzzy_match(value, text)?,
                }
            }
            Some(total)
        }
    }
}

#[cfg(test)]
#[path = "session_search_tests.rs"]
mod tests;
