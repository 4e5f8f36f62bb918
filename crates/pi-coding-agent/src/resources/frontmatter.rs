//! YAML frontmatter of markdown resources (`SKILL.md`, prompt templates), split
//! as pi splits it: line endings normalized to `\n`, a block opened by `---` at
//! the very start and closed by the next `\n---`; the body after it trimmed.

use serde_yaml_ng::{Mapping, Value};

/// Frontmatter fields and the body of a markdown file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Frontmatter {
    /// The fields; empty without frontmatter or when it is not a mapping.
    pub fields: Mapping,
    /// The text after the frontmatter (trimmed), or the whole text without one.
    pub body: String,
}

/// The frontmatter block is not valid YAML.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct FrontmatterError(#[from] serde_yaml_ng::Error);

impl Frontmatter {
    /// The field `key`, if present.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.fields.get(key)
    }

    /// The field `key` when it is a non-empty string (JavaScript truthiness
    /// for strings).
    pub fn non_empty_str(&self, key: &str) -> Option<&str> {
        self.get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    }
}

/// Replaces `\r\n` and lone `\r` with `\n`.
pub fn normalize_newlines(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// Splits `content` into YAML text and body, without parsing.
fn split(content: &str) -> (Option<String>, String) {
    let normalized = normalize_newlines(content);
    if !normalized.starts_with("---") {
        return (None, normalized);
    }
    let Some(end) = normalized
        .get(3..)
        .and_then(|rest| rest.find("\n---"))
        .map(|i| i + 3)
    else {
        return (None, normalized);
    };
    let yaml = normalized.get(4..end).unwrap_or_default().to_owned();
    let body = normalized
        .get(end + 4..)
        .unwrap_or_default()
        .trim()
        .to_owned();
    (Some(yaml), body)
}

/// Parses the frontmatter of `content`; an empty or non-mapping block gives
/// no fields.
pub fn parse_frontmatter(content: &str) -> Result<Frontmatter, FrontmatterError> {
    let (yaml, body) = split(content);
    let fields = match yaml.filter(|y| !y.is_empty()) {
        None => Mapping::new(),
        // pi's YAML parser ends a block scalar on the last line with a line
        // break (clip chomping), as if the text ended with one; libyaml
        // needs to see it.
        Some(yaml) => match serde_yaml_ng::from_str::<Value>(&format!("{yaml}\n"))? {
            Value::Mapping(map) => map,
            _ => Mapping::new(),
        },
    };
    Ok(Frontmatter { fields, body })
}

/// The body of `content` without its frontmatter.
pub fn strip_frontmatter(content: &str) -> Result<String, FrontmatterError> {
    parse_frontmatter(content).map(|f| f.body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_fields_and_trims_the_body() {
        let f = parse_frontmatter(
            "---\r\nname: a\r\ndescription: |\r\n  x\r\n  y\r\n---\r\n\r\nBody\r\n",
        )
        .unwrap();
        assert_eq!(f.non_empty_str("name"), Some("a"));
        assert_eq!(f.non_empty_str("description"), Some("x\ny\n"));
        assert_eq!(f.body, "Body");
    }

    #[test]
    fn without_frontmatter_the_body_is_the_whole_text_untrimmed() {
        let f = parse_frontmatter("\n# Title\n").unwrap();
        assert!(f.fields.is_empty());
        assert_eq!(f.body, "\n# Title\n");
        // An unclosed block is no frontmatter either.
        assert_eq!(
            parse_frontmatter("---\nname: a\n").unwrap().body,
            "---\nname: a\n"
        );
    }

    #[test]
    fn empty_and_scalar_blocks_have_no_fields() {
        assert!(parse_frontmatter("---\n---\nB").unwrap().fields.is_empty());
        assert!(
            parse_frontmatter("---\njust text\n---\nB")
                .unwrap()
                .fields
                .is_empty()
        );
        assert_eq!(parse_frontmatter("---\n---\nB").unwrap().body, "B");
    }

    #[test]
    fn invalid_yaml_is_an_error() {
        let error = parse_frontmatter("---\nname: x\ndescription: [unclosed bracket\n---\n")
            .unwrap_err()
            .to_string();
        // Lines count from the start of the YAML block, as in pi's message.
        assert!(
            error.contains("line 3") || error.contains("line 2"),
            "{error}"
        );
        assert!(parse_frontmatter("---\na: 1\na: 2\n---\n").is_err());
    }

    #[test]
    fn booleans_are_yaml_1_2() {
        let f = parse_frontmatter("---\na: true\nb: yes\n---\n").unwrap();
        assert_eq!(f.get("a"), Some(&Value::Bool(true)));
        assert_eq!(f.get("b").and_then(Value::as_str), Some("yes"));
    }
}
