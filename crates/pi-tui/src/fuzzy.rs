//! pi's fuzzy matching (pi-tui `fuzzy.js`): every query character in order,
//! not necessarily adjacent; a lower score is a better match (consecutive
//! and word-boundary matches score better, gaps and late matches worse).

/// The score of `query` against `text` (lower is better), `None` when the
/// characters of `query` do not all appear in order. A query like `gpt4`
/// also matches as `4gpt` (and the reverse), scored slightly worse.
pub fn fuzzy_match(query: &str, text: &str) -> Option<f64> {
    let query: Vec<char> = query.to_lowercase().chars().collect();
    let text: Vec<char> = text.to_lowercase().chars().collect();
    if let Some(score) = match_chars(&query, &text) {
        return Some(score);
    }
    let split = query.iter().position(char::is_ascii_digit)?;
    let (head, tail) = query.split_at(split);
    let swapped: Vec<char> = if !head.is_empty()
        && head.iter().all(char::is_ascii_lowercase)
        && tail.iter().all(char::is_ascii_digit)
    {
        tail.iter().chain(head).copied().collect()
    } else {
        let letters = query.iter().position(char::is_ascii_lowercase)?;
        let (digits, letters_part) = query.split_at(letters);
        if digits.is_empty()
            || !digits.iter().all(char::is_ascii_digit)
            || !letters_part.iter().all(char::is_ascii_lowercase)
        {
            return None;
        }
        letters_part.iter().chain(digits).copied().collect()
    };
    match_chars(&swapped, &text).map(|s| s + 5.0)
}

fn is_boundary(c: char) -> bool {
    c.is_whitespace() || matches!(c, '-' | '_' | '.' | '/' | ':')
}

// Positions in short labels: their conversions to f64 are exact.
fn match_chars(query: &[char], text: &[char]) -> Option<f64> {
    if query.is_empty() {
        return Some(0.0);
    }
    if query.len() > text.len() {
        return None;
    }
    let mut at = 0;
    let mut score = 0.0;
    let mut last: Option<usize> = None;
    let mut consecutive = 0.0;
    for (i, &c) in text.iter().enumerate() {
        if at == query.len() {
            break;
        }
        if c != query[at] {
            continue;
        }
        // As pi: before the first match the last match is at -1, so a
        // match at 0 counts as consecutive.
        if last.map_or(i == 0, |l| l + 1 == i) {
            consecutive += 1.0;
            score -= consecutive * 5.0;
        } else {
            consecutive = 0.0;
            if let Some(last) = last {
                score += (i - last - 1) as f64 * 2.0;
            }
        }
        if i == 0 || is_boundary(text[i - 1]) {
            score -= 10.0;
        }
        score += i as f64 * 0.1;
        last = Some(i);
        at += 1;
    }
    if at < query.len() {
        return None;
    }
    if query == text {
        score -= 100.0;
    }
    Some(score)
}

/// The items whose text matches every whitespace-separated token of
/// `query`, best first (stable for equal scores); all items, in order, for
/// a blank query.
pub fn fuzzy_filter<T>(items: Vec<T>, query: &str, text: impl Fn(&T) -> String) -> Vec<T> {
    let tokens: Vec<&str> = query.split_whitespace().collect();
    if tokens.is_empty() {
        return items;
    }
    let mut scored: Vec<(f64, T)> = items
        .into_iter()
        .filter_map(|item| {
            let haystack = text(&item);
            let mut total = 0.0;
            for token in &tokens {
                total += fuzzy_match(token, &haystack)?;
            }
            Some((total, item))
        })
        .collect();
    scored.sort_by(|a, b| a.0.total_cmp(&b.0));
    scored.into_iter().map(|(_, item)| item).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_order_characters_match() {
        assert!(fuzzy_match("gpt", "mock-gpt").is_some());
        assert!(fuzzy_match("tpg", "mock-gpt").is_none());
        assert!(fuzzy_match("", "x").is_some());
        assert!(fuzzy_match("abc", "ab").is_none());
    }

    #[test]
    fn better_matches_score_lower() {
        let exact = fuzzy_match("gpt", "gpt").unwrap();
        let prefix = fuzzy_match("gpt", "gpt-4o").unwrap();
        let scattered = fuzzy_match("gpt", "gxpxxt").unwrap();
        assert!(
            exact < prefix && prefix < scattered,
            "{exact} {prefix} {scattered}"
        );
    }

    #[test]
    fn swapped_letters_and_digits_match() {
        assert!(fuzzy_match("gpt4", "4gpt").is_some());
        assert!(fuzzy_match("4gpt", "gpt4").is_some());
        assert!(fuzzy_match("gpt4", "4xyz").is_none());
    }

    #[test]
    fn filter_needs_every_token_and_sorts() {
        let items = vec!["mock-claude", "mock-gpt", "mock-gpt-think", "other"];
        let out = fuzzy_filter(items.clone(), "gpt mock", |s| (*s).to_owned());
        assert_eq!(out, vec!["mock-gpt", "mock-gpt-think"]);
        assert_eq!(
            fuzzy_filter(items.clone(), "  ", |s| (*s).to_owned()),
            items
        );
    }
}
