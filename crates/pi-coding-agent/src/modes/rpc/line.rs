//! One input line of rpc mode, decoded without I/O: skipped when blank, a
//! parse error (the text of the error response), or a command object with
//! its `id` and `type`. The loop in [`super::run`] dispatches on the result.

use serde_json::Value;

/// What one input line asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    /// Empty or only whitespace: no response.
    Blank,
    /// Not a command: the error of the `parse` response.
    Invalid(String),
    /// A JSON object to dispatch.
    Command(Command),
}

/// A decoded command line.
#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    /// The client's `id`, echoed in the response.
    pub id: Option<Value>,
    /// The `type` field, or `"undefined"` (as pi names a missing one).
    pub kind: String,
    /// The whole command object.
    pub value: Value,
}

/// Decodes one line as read (with or without its `\n`, any bytes).
pub fn decode_line(bytes: &[u8]) -> Line {
    // A line that is not UTF-8 gets an error response; the next lines
    // are read as usual.
    let Ok(line) = std::str::from_utf8(bytes) else {
        return Line::Invalid("Failed to parse command: the line is not valid UTF-8".to_owned());
    };
    let line = line.strip_suffix('\n').unwrap_or(line);
    let line = line.trim_end_matches('\r');
    if line.trim().is_empty() {
        return Line::Blank;
    }
    match serde_json::from_str(line) {
        Ok(value @ Value::Object(_)) => Line::Command(Command {
            id: value.get("id").cloned(),
            kind: value
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("undefined")
                .to_owned(),
            value,
        }),
        Ok(_) => Line::Invalid("Failed to parse command: expected a JSON object".to_owned()),
        Err(e) => Line::Invalid(format!("Failed to parse command: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lines_decode_to_commands_errors_or_nothing() {
        assert_eq!(decode_line(b"  \r\n"), Line::Blank);
        assert_eq!(
            decode_line(b"[1]\n"),
            Line::Invalid("Failed to parse command: expected a JSON object".to_owned())
        );
        assert_eq!(
            decode_line(b"{\"type\":\"get_state\xff\"}\n"),
            Line::Invalid("Failed to parse command: the line is not valid UTF-8".to_owned())
        );
        assert!(
            matches!(decode_line(b"{\"type\":"), Line::Invalid(e) if e.starts_with("Failed to parse command: EOF"))
        );
        let Line::Command(command) = decode_line(b"{\"id\":7,\"type\":\"get_state\"}\r\n") else {
            panic!("not a command");
        };
        assert_eq!(command.id, Some(json!(7)));
        assert_eq!(command.kind, "get_state");
        let Line::Command(command) = decode_line(b"{\"type\":3}") else {
            panic!("not a command");
        };
        assert_eq!((command.id, command.kind.as_str()), (None, "undefined"));
    }
}
