//! What the user pastes after a browser login: the full redirect URL, a
//! `code#state` pair, a `code=…&state=…` query, or the bare code.

/// The code and state found in pasted input.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PastedAuthorization {
    /// The authorization code.
    pub code: Option<String>,
    /// The state, when the input carried one.
    pub state: Option<String>,
}

/// Parses pasted input as pi does.
pub fn parse_authorization_input(input: &str) -> PastedAuthorization {
    let value = input.trim();
    if value.is_empty() {
        return PastedAuthorization::default();
    }
    if let Ok(url) = reqwest::Url::parse(value) {
        return from_pairs(url.query_pairs());
    }
    if let Some((code, state)) = value.split_once('#') {
        return PastedAuthorization {
            code: Some(code.to_owned()),
            state: Some(state.to_owned()),
        };
    }
    if value.contains("code=") {
        // A dummy base decodes the query exactly as a pasted URL's.
        let query = value.strip_prefix('?').unwrap_or(value);
        if let Ok(url) = reqwest::Url::parse(&format!("http://localhost/?{query}")) {
            return from_pairs(url.query_pairs());
        }
    }
    PastedAuthorization {
        code: Some(value.to_owned()),
        state: None,
    }
}

fn from_pairs<'a>(
    pairs: impl Iterator<Item = (std::borrow::Cow<'a, str>, std::borrow::Cow<'a, str>)>,
) -> PastedAuthorization {
    let mut found = PastedAuthorization::default();
    for (key, value) in pairs {
        match key.as_ref() {
            "code" if found.code.is_none() => found.code = Some(value.into_owned()),
            "state" if found.state.is_none() => found.state = Some(value.into_owned()),
            _ => {}
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(code: Option<&str>, state: Option<&str>) -> PastedAuthorization {
        PastedAuthorization {
            code: code.map(str::to_owned),
            state: state.map(str::to_owned),
        }
    }

    #[test]
    fn every_pasted_form_is_understood() {
        assert_eq!(
            parse_authorization_input(" http://localhost:1455/auth/callback?code=a%2Bb&state=s "),
            parsed(Some("a+b"), Some("s"))
        );
        assert_eq!(
            parse_authorization_input("abc#xyz"),
            parsed(Some("abc"), Some("xyz"))
        );
        assert_eq!(
            parse_authorization_input("code=c1&state=s1"),
            parsed(Some("c1"), Some("s1"))
        );
        assert_eq!(
            parse_authorization_input("plain"),
            parsed(Some("plain"), None)
        );
        assert_eq!(parse_authorization_input("   "), parsed(None, None));
        assert_eq!(
            parse_authorization_input("http://localhost/cb?state=s"),
            parsed(None, Some("s"))
        );
    }
}
