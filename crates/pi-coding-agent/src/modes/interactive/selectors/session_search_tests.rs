use super::*;

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
    assert!(matches!(
        parse_query("re:"),
        Query::Regex(Err(QueryError::EmptyRegex))
    ));
    assert!(matches!(
        parse_query("re:(["),
        Query::Regex(Err(QueryError::Regex(_)))
    ));
    assert_eq!(
        parse_query("re:  ").regex_error().as_deref(),
        Some("Empty regex")
    );
}

impl Query {
    fn regex_error(&self) -> Option<String> {
        match self {
            Query::Regex(Err(e)) => Some(e.to_string()),
            _ => None,
        }
    }
}

const TEXTS: &[&str] = &[
    "id-1 Login work fix the login bug please look at auth.rs /work/project",
    "a2  write the docs\nfor the API  and\t\tthen   more /home/me",
    "x Ünïcödé  Straße İstanbul KELVIN café 😀 emoji after /p",
    "b-3 name the gpt4 model and 4o and mini /srv/x",
    "c \"quoted\" words, back\\slash and a/b/c paths /",
    "",
];

const QUERIES: &[&str] = &[
    "login",
    "fix bug",
    "\"the login\"",
    "\"docs for the\"",
    "\"DOCS   FOR\"",
    "gpt4",
    "4gpt",
    "o4",
    "re:docs\\s+for",
    "re:^a2",
    "re:😀",
    "café",
    "straße",
    "istanbul",
    "\"istanbul kelvin\"",
    "zzz",
    "\"quoted\" back",
    "a/b",
    "\"no such phrase\"",
    "re:(",
    "p",
];

/// Splits `text` at every `step`-th character.
fn pieces(text: &str, step: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(step).map(|c| c.iter().collect()).collect()
}

#[test]
fn streamed_matching_equals_the_whole_text_computation() {
    for text in TEXTS {
        for q in QUERIES {
            let query = parse_query(q);
            let whole = match_text_whole(text, &query);
            assert_eq!(match_text(text, &query), whole, "{q:?} in {text:?}");
            for step in [1, 2, 3, 7] {
                let streamed = TextMatcher::new(&query).and_then(|mut m| {
                    for piece in pieces(text, step) {
                        m.feed(&piece);
                    }
                    m.finish()
                });
                assert_eq!(streamed, whole, "{q:?} in {text:?} by {step}");
            }
        }
    }
}

#[test]
fn scores_follow_pi() {
    // pi-tui's fuzzy score: consecutive and word-boundary matches, the
    // position (characters of the lower-cased text) times 0.1.
    let q = parse_query("login");
    let early = match_text("login x", &q).unwrap();
    let late = match_text("xxxxxxxx login", &q).unwrap();
    assert!(early < late);
    // Phrases: the position in the whitespace-normalized text, times 0.1.
    let q = parse_query("\"b c\"");
    assert_eq!(match_text("a  \n b\tc", &q), Some(0.2));
    // Regex: the position of the first match, in characters.
    let q = parse_query("re:c");
    assert_eq!(match_text("éé c", &q), Some(0.30000000000000004));
    // A swapped letters-and-digits query scores 5 worse.
    let direct = match_text("gpt4", &parse_query("gpt4")).unwrap();
    let swapped = match_text("gpt4", &parse_query("4gpt")).unwrap();
    assert!(swapped > direct);
    // Every token must match.
    assert_eq!(match_text("fix the bug", &parse_query("fix zzz")), None);
    assert!(match_text("anything", &parse_query("")).is_some());
}

#[test]
fn settles_at_the_first_match_except_for_a_regex() {
    let q = parse_query("ab \"c d\"");
    let mut m = TextMatcher::new(&q).unwrap();
    m.feed("xx a");
    assert!(!m.settled());
    m.feed("b c");
    assert!(!m.settled());
    m.feed("\n d");
    assert!(m.settled());
    let r = parse_query("re:a");
    let mut m = TextMatcher::new(&r).unwrap();
    m.feed("a");
    assert!(!m.settled());
    assert!(TextMatcher::new(&parse_query("re:[")).is_none());
}
