//! The session picker's search (pi's `session-selector-search`): fuzzy
//! tokens, `"exact phrases"` and `re:<regex>` over a session's id, name,
//! first message and working directory, sorted by relevance or kept in
//! recency order.

use pi_tui::fuzzy::fuzzy_match;
use regex::Regex;

use crate::session::SessionInfo;

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
    /// `re:<pattern>`, case-insensitive; `Err` holds why it is invalid.
    Regex(Result<Regex, String>),
}

/// Parses a query as pi does: `re:` starts a regex; double quotes group a
/// phrase; unbalanced quotes fall back to plain whitespace tokens.
pub fn parse_query(query: &str) -> Query {
    let trimmed = query.trim();
    if let Some(pattern) = trimmed.strip_prefix("re:") {
        let pattern = pattern.trim();
        if pattern.is_empty() {
            return Query::Regex(Err("Empty regex".to_owned()));
        }
        return Query::Regex(
            regex::RegexBuilder::new(pattern)
                .case_insensitive(true)
                .build()
                .map_err(|e| e.to_string()),
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

fn normalized(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The text a session is searched in.
fn search_text(session: &SessionInfo) -> String {
    format!(
        "{} {} {} {}",
        session.id,
        session.name.as_deref().unwrap_or_default(),
        session.first_message,
        session.cwd
    )
}

/// The score of `session` for `query` (lower is better), `None` when it
/// does not match.
pub fn match_session(session: &SessionInfo, query: &Query) -> Option<f64> {
    let text = search_text(session);
    match query {
        Query::Regex(Ok(regex)) => regex.find(&text).map(|m| m.start() as f64 * 0.1),
        Query::Regex(Err(_)) => None,
        Query::Tokens(tokens) => {
            let mut total = 0.0;
            let mut lower: Option<String> = None;
            for token in tokens {
                match token {
                    Token::Phrase(phrase) => {
                        let haystack = lower.get_or_insert_with(|| normalized(&text));
                        let phrase = normalized(phrase);
                        total += haystack.find(&phrase)? as f64 * 0.1;
                    }
                    Token::Fuzzy(value) => total += fuzzy_match(value, &text)?,
                }
            }
            Some(total)
        }
    }
}

/// The positions of the matching sessions of `sessions` (newest first):
/// in their order for `recent`, else best match first (newer first on
/// ties). A blank query keeps every session in order.
pub fn filter_sessions(sessions: &[&SessionInfo], query: &str, recent: bool) -> Vec<usize> {
    if query.trim().is_empty() {
        return (0..sessions.len()).collect();
    }
    let query = parse_query(query);
    let mut scored: Vec<(f64, usize)> = sessions
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match_session(s, &query).map(|score| (score, i)))
        .collect();
    if !recent {
        scored.sort_by(|a, b| {
            a.0.total_cmp(&b.0)
                .then_with(|| sessions[b.1].modified.cmp(&sessions[a.1].modified))
        });
    }
    scored.into_iter().map(|(_, i)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(id: &str, first: &str) -> SessionInfo {
        SessionInfo {
            path: format!("/s/{id}.jsonl").into(),
            id: id.to_owned(),
            cwd: "/work/project".to_owned(),
            name: None,
            parent_session_path: None,
            created: chrono::DateTime::UNIX_EPOCH,
            modified: chrono::DateTime::UNIX_EPOCH,
            message_count: 2,
            first_message: first.to_owned(),
            exact: true,
        }
    }

    #[test]
    fn parses_phrases_regex_and_unbalanced_quotes() {
        let Query::Tokens(tokens) = parse_query(r#"foo "node cve" bar"#) else {
            panic!("tokens")
        };
        assert_eq!(
            tokens,
            vec![
                Token::Fuzzy("foo".into()),
                Token::Phrase("node cve".into()),
                Token::Fuzzy("bar".into())
            ]
        );
        let Query::Tokens(tokens) = parse_query(r#"a "b c"#) else {
            panic!("tokens")
        };
        assert_eq!(tokens.len(), 3);
        assert!(matches!(parse_query("re:"), Query::Regex(Err(_))));
        assert!(matches!(parse_query("re:(["), Query::Regex(Err(_))));
    }

    #[test]
    fn filters_by_fuzzy_phrase_and_regex() {
        let a = info("a1", "fix the login bug");
        let b = info("b2", "write docs for login");
        let sessions = [&a, &b];
        assert_eq!(filter_sessions(&sessions, "", false), vec![0, 1]);
        assert_eq!(filter_sessions(&sessions, "\"the login\"", false), vec![0]);
        assert_eq!(filter_sessions(&sessions, "re:DOCS\\s+for", false), vec![1]);
        assert_eq!(
            filter_sessions(&sessions, "re:[", false),
            Vec::<usize>::new()
        );
        assert_eq!(filter_sessions(&sessions, "login", true), vec![0, 1]);
    }
}
