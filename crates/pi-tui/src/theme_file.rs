//! pi's theme files: `{"name", "vars", "colors", "export"}` JSON with all 51 colour
//! tokens required. A colour is `"#rrggbb"`, an xterm-256 index (0-255), the name of a
//! var (vars may refer to other vars) or `""` (the terminal's default).

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::theme::{Color, ColorMode, Theme, Token};

/// Why a theme file cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ThemeError {
    /// Not JSON.
    #[error("Failed to parse theme {label}: {message}")]
    Json {
        /// The file or theme name.
        label: String,
        /// The parser's message.
        message: String,
    },
    /// JSON that does not follow pi's theme schema.
    #[error("Invalid theme \"{label}\":\n{details}")]
    Invalid {
        /// The file or theme name.
        label: String,
        /// Missing tokens and other errors, one per line.
        details: String,
    },
    /// A var name that is not defined, or vars that refer to each other in a loop.
    #[error("Invalid theme \"{label}\": {message}")]
    Vars {
        /// The file or theme name.
        label: String,
        /// `Variable reference not found: x` or `Circular variable reference detected: x`.
        message: String,
    },
}

/// Parses a theme file's text (`label` names it in errors) into a theme written in `mode`.
pub fn parse_theme(label: &str, text: &str, mode: ColorMode) -> Result<Theme, ThemeError> {
    let json: Value = serde_json::from_str(text).map_err(|e| ThemeError::Json {
        label: label.to_owned(),
        message: e.to_string(),
    })?;
    theme_from_json(label, &json, mode)
}

/// A theme from parsed JSON (see [`parse_theme`]).
pub fn theme_from_json(label: &str, json: &Value, mode: ColorMode) -> Result<Theme, ThemeError> {
    let invalid = |details: String| ThemeError::Invalid {
        label: label.to_owned(),
        details,
    };
    let object = json
        .as_object()
        .ok_or_else(|| invalid("  - /: Expected object".to_owned()))?;
    let mut errors = Vec::new();
    for key in object.keys() {
        if !matches!(
            key.as_str(),
            "$schema" | "name" | "vars" | "colors" | "export"
        ) {
            errors.push(format!("  - /{key}: Unexpected property"));
        }
    }
    let name = match object.get("name") {
        Some(Value::String(name)) => name.clone(),
        Some(_) => {
            errors.push("  - /name: Expected string".to_owned());
            String::new()
        }
        None => {
            errors.push("  - /name: Required property".to_owned());
            String::new()
        }
    };
    let empty = Map::new();
    let vars = match object.get("vars") {
        None => &empty,
        Some(Value::Object(vars)) => vars,
        Some(_) => {
            errors.push("  - /vars: Expected object".to_owned());
            &empty
        }
    };
    for (key, value) in vars {
        if !is_color_value(value) {
            errors.push(format!("  - /vars/{key}: Expected string or integer 0-255"));
        }
    }
    let colors = match object.get("colors") {
        Some(Value::Object(colors)) => colors,
        _ => {
            errors.push("  - /colors: Expected object".to_owned());
            &empty
        }
    };
    let mut missing: Vec<&str> = Token::ALL
        .iter()
        .map(|t| t.name())
        .filter(|n| !colors.contains_key(*n))
        .collect();
    missing.sort_unstable();
    for (key, value) in colors {
        if Token::from_name(key).is_none() {
            errors.push(format!("  - /colors/{key}: Unexpected property"));
        } else if !is_color_value(value) {
            errors.push(format!(
                "  - /colors/{key}: Expected string or integer 0-255"
            ));
        }
    }
    if let Some(export) = object.get("export") {
        match export.as_object() {
            Some(export) => {
                for (key, value) in export {
                    if !matches!(key.as_str(), "pageBg" | "cardBg" | "infoBg") {
                        errors.push(format!("  - /export/{key}: Unexpected property"));
                    } else if !is_color_value(value) {
                        errors.push(format!(
                            "  - /export/{key}: Expected string or integer 0-255"
                        ));
                    }
                }
            }
            None => errors.push("  - /export: Expected object".to_owned()),
        }
    }
    if !missing.is_empty() || !errors.is_empty() {
        let mut details = String::new();
        if !missing.is_empty() {
            details.push_str("Missing required color tokens:\n");
            for token in &missing {
                details.push_str(&format!("  - {token}\n"));
            }
        }
        if !errors.is_empty() {
            details.push_str("Other errors:\n");
            details.push_str(&errors.join("\n"));
        }
        return Err(invalid(details.trim_end().to_owned()));
    }
    let mut theme = Theme::dark(mode).with_name(name);
    for token in Token::ALL {
        let value = colors.get(token.name()).unwrap_or(&Value::Null);
        let color = resolve(value, vars).map_err(|error| ThemeError::Vars {
            label: label.to_owned(),
            message: error.to_string(),
        })?;
        theme.set_color(*token, color);
    }
    Ok(theme)
}

fn is_color_value(value: &Value) -> bool {
    match value {
        Value::String(_) => true,
        Value::Number(n) => n.as_u64().is_some_and(|n| n <= 255),
        _ => false,
    }
}

/// Why a colour value does not resolve (pi's wording).
#[derive(Debug, thiserror::Error)]
enum ColorError {
    /// Neither a 0-255 index, a `#rrggbb` string nor a var name.
    #[error("Invalid color value: {0}")]
    Value(String),
    /// A `#` string that is not `#rrggbb`.
    #[error("Invalid hex color: {0}")]
    Hex(String),
    /// Vars that refer to each other in a loop.
    #[error("Circular variable reference detected: {0}")]
    Circular(String),
    /// A var name that is not defined.
    #[error("Variable reference not found: {0}")]
    NotFound(String),
}

/// A colour value with var references followed.
fn resolve(value: &Value, vars: &Map<String, Value>) -> Result<Color, ColorError> {
    let mut seen = HashSet::new();
    let mut current = value;
    loop {
        match current {
            Value::Number(n) => {
                let index = n
                    .as_u64()
                    .and_then(|n| u8::try_from(n).ok())
                    .ok_or_else(|| ColorError::Value(n.to_string()))?;
                return Ok(Color::Indexed(index));
            }
            Value::String(s) if s.is_empty() => return Ok(Color::Default),
            Value::String(s) if s.starts_with('#') => {
                return parse_hex(s).ok_or_else(|| ColorError::Hex(s.clone()));
            }
            Value::String(s) => {
                if !seen.insert(s.as_str()) {
                    return Err(ColorError::Circular(s.clone()));
                }
                current = vars.get(s).ok_or_else(|| ColorError::NotFound(s.clone()))?;
            }
            other => return Err(ColorError::Value(other.to_string())),
        }
    }
}

fn parse_hex(text: &str) -> Option<Color> {
    let hex = text.strip_prefix('#')?;
    if hex.len() != 6 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let byte = |i: usize| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok();
    Some(Color::Rgb(byte(0)?, byte(2)?, byte(4)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full(overrides: &[(&str, Value)], vars: Value) -> Value {
        let mut colors = Map::new();
        for token in Token::ALL {
            colors.insert(token.name().to_owned(), Value::from("#101010"));
        }
        for (k, v) in overrides {
            colors.insert((*k).to_owned(), v.clone());
        }
        let mut json = serde_json::json!({"name": "mine", "colors": colors});
        if !vars.is_null() {
            json["vars"] = vars;
        }
        json
    }

    #[test]
    fn hex_index_var_and_default_values() {
        let json = full(
            &[
                ("accent", Value::from("primary")),
                ("border", Value::from(33)),
                ("text", Value::from("")),
                ("error", Value::from("alias")),
            ],
            serde_json::json!({"primary": "#ff8000", "alias": "primary"}),
        );
        let theme = theme_from_json("mine", &json, ColorMode::TrueColor).unwrap();
        assert_eq!(theme.name(), "mine");
        assert_eq!(theme.color(Token::Accent), Color::Rgb(0xff, 0x80, 0));
        assert_eq!(theme.color(Token::Error), Color::Rgb(0xff, 0x80, 0));
        assert_eq!(theme.color(Token::Border), Color::Indexed(33));
        assert_eq!(theme.color(Token::Text), Color::Default);
        assert_eq!(
            theme.fg(Token::Accent, "x"),
            "\x1b[38;2;255;128;0mx\x1b[39m"
        );
        let fallback = theme.with_mode(ColorMode::Ansi256);
        assert_eq!(fallback.fg(Token::Accent, "x"), "\x1b[38;5;208mx\x1b[39m");
    }

    #[test]
    fn missing_tokens_are_listed() {
        let mut json = full(&[], Value::Null);
        json["colors"].as_object_mut().unwrap().remove("mdHeading");
        let err = theme_from_json("t.json", &json, ColorMode::TrueColor).unwrap_err();
        insta::assert_snapshot!(err.to_string(), @r#"
        Invalid theme "t.json":
        Missing required color tokens:
          - mdHeading
        "#);
    }

    #[test]
    fn bad_files_are_errors_not_panics() {
        let cases = [
            "not json",
            "[]",
            r#"{"name": 3, "colors": {}}"#,
            r#"{"name": "x", "colors": {"accent": true}, "extra": 1}"#,
        ];
        for text in cases {
            assert!(
                parse_theme("t", text, ColorMode::TrueColor).is_err(),
                "{text}"
            );
        }
        let looped = full(
            &[("accent", Value::from("a"))],
            serde_json::json!({"a": "b", "b": "a"}),
        );
        let err = theme_from_json("t", &looped, ColorMode::TrueColor).unwrap_err();
        assert!(
            err.to_string()
                .contains("Circular variable reference detected")
        );
        let unknown = full(&[("accent", Value::from("nope"))], serde_json::json!({}));
        let err = theme_from_json("t", &unknown, ColorMode::TrueColor).unwrap_err();
        assert!(
            err.to_string()
                .contains("Variable reference not found: nope")
        );
        let bad_hex = full(&[("accent", Value::from("#12345"))], Value::Null);
        assert!(theme_from_json("t", &bad_hex, ColorMode::TrueColor).is_err());
    }
}
