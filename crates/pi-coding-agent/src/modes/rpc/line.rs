//! One input line of rpc mode, decoded without I/O: skipped when blank, a
//! parse error (the error of the `parse` response), or a command with its
//! `id` and `type` typed as [`RpcCommand`] (or the error it answers with).
//! The loop in [`super::run`] dispatches on the result.

use serde_json::Value;

use super::protocol::{RpcCommand, RpcError};

/// What one input line asks for.
#[derive(Debug)]
pub enum Line {
    /// Empty or only whitespace: no response.
    Blank,
    /// Not a command object: the error of the `parse` response, with the
    /// `id` when one could be read (a line that is not UTF-8 is read lossily
    /// for it).
    Invalid(Option<Value>, RpcError),
    /// An `extension_ui_response` (the answer to a dialog an extension opened).
    UiResponse(Value),
    /// A command object.
    Command {
        /// The client's `id`, echoed in the response.
        id: Option<Value>,
        /// The `type` field, or `"undefined"` (as pi names a missing one).
        kind: String,
        /// The typed command, or the error answered for it.
        command: Result<RpcCommand, RpcError>,
    },
}

/// Decodes one line as read (with or without its `\n`, any bytes).
pub fn decode_line(bytes: &[u8]) -> Line {
    // A line that is not UTF-8 gets an error response; the next lines
    // are read as usual.
    let Ok(line) = std::str::from_utf8(bytes) else {
        let lossy = String::from_utf8_lossy(bytes);
        let id = serde_json::from_str::<Value>(lossy.trim())
            .ok()
            .and_then(|value| value.get("id").cloned());
        return Line::Invalid(id, RpcError::NotUtf8);
    };
    let line = line.strip_suffix('\n').unwrap_or(line);
    let line = line.trim_end_matches('\r');
    if line.trim().is_empty() {
        return Line::Blank;
    }
    let value = match serde_json::from_str(line) {
        Ok(value @ Value::Object(_)) => value,
        Ok(_) => return Line::Invalid(None, RpcError::NotAnObject),
        Err(e) => return Line::Invalid(None, RpcError::BadJson(e)),
    };
    if value.get("type").and_then(Value::as_str) == Some("extension_ui_response") {
        return Line::UiResponse(value);
    }
    let id = value.get("id").cloned();
    let (kind, command) = RpcCommand::from_json(&value);
    Line::Command { id, kind, command }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn invalid(bytes: &[u8]) -> String {
        match decode_line(bytes) {
            Line::Invalid(_, error) => error.to_string(),
            other => panic!("not invalid: {other:?}"),
        }
    }

    #[test]
    fn lines_decode_to_commands_errors_or_nothing() {
        assert!(matches!(decode_line(b"  \r\n"), Line::Blank));
        assert_eq!(
            invalid(b"[1]\n"),
            "Failed to parse command: expected a JSON object"
        );
        assert_eq!(
            invalid(b"{\"type\":\"get_state\xff\"}\n"),
            "Failed to parse command: the line is not valid UTF-8"
        );
        assert!(invalid(b"{\"type\":").starts_with("Failed to parse command: EOF"));
        // The id of a line that is not UTF-8 is answered when it can be read.
        let Line::Invalid(id, _) = decode_line(b"{\"id\":\"q\",\"type\":\"x\xff\"}\n") else {
            panic!("not invalid");
        };
        assert_eq!(id, Some(json!("q")));
        let Line::Command { id, kind, command } =
            decode_line(b"{\"id\":7,\"type\":\"get_state\"}\r\n")
        else {
            panic!("not a command");
        };
        assert_eq!((id, kind.as_str()), (Some(json!(7)), "get_state"));
        assert!(matches!(command, Ok(RpcCommand::GetState)));
        let Line::Command { id, kind, command } = decode_line(b"{\"type\":3}") else {
            panic!("not a command");
        };
        assert_eq!((id, kind.as_str()), (None, "undefined"));
        assert!(matches!(command, Err(RpcError::UnknownCommand(_))));
    }
}
