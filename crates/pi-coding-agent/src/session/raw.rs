//! Entries this version cannot type, kept verbatim.
//!
//! A line of a session file that is JSON but not an entry pi-rs knows (an
//! unknown `type`, or a known type in a shape it cannot read) is never
//! dropped: it becomes a [`RawEntry`] holding the line's text, stays in the
//! tree as a node (its `id` and `parentId` count, as in pi, which keeps
//! every parsed line as an entry) and is written back byte for byte.

use serde::{Serialize, Serializer};
use serde_json::Value;

/// A session entry kept as its original JSON text.
#[derive(Debug, Clone, PartialEq)]
pub struct RawEntry {
    /// `id` of the line (empty when it has none).
    pub id: String,
    /// `parentId` of the line.
    pub parent_id: Option<String>,
    /// `timestamp` of the line (empty when it has none).
    pub timestamp: String,
    /// `type` of the line (empty when it has none).
    pub kind: String,
    /// Why it could not be typed.
    pub reason: String,
    /// The line as it is in the file, without its newline.
    line: String,
}

impl RawEntry {
    /// Keeps `line` (one JSON object) verbatim; `reason` says why it is not typed.
    pub fn new(line: String, value: &Value, reason: impl Into<String>) -> Self {
        let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
        Self {
            id: text("id").unwrap_or_default(),
            parent_id: text("parentId"),
            timestamp: text("timestamp").unwrap_or_default(),
            kind: text("type").unwrap_or_default(),
            reason: reason.into(),
            line,
        }
    }

    /// Keeps a JSON value (an entry of an old file after migration).
    pub fn from_value(value: &Value, reason: impl Into<String>) -> Result<Self, serde_json::Error> {
        Ok(Self::new(serde_json::to_string(value)?, value, reason))
    }

    /// The line exactly as read.
    pub fn line(&self) -> &str {
        &self.line
    }

    /// The line as a JSON value.
    pub fn value(&self) -> Result<Value, serde_json::Error> {
        serde_json::from_str(&self.line)
    }
}

impl Serialize for RawEntry {
    /// The line's JSON, unchanged.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value()
            .map_err(serde::ser::Error::custom)?
            .serialize(serializer)
    }
}
