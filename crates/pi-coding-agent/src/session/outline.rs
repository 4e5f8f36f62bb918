//! The outline of a message entry: what the session tree needs of it (its
//! id, its parent, what kind of message it holds and, for an assistant
//! message, its provider and model), read from its line without building
//! the message.
//!
//! A resume reads the message entries that a compaction has summarized
//! this way ([`super::horizon`]): they are in the tree, but not in the
//! context sent to the model, and when one is needed whole it is read
//! again from its line.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, Visitor};

use super::load::parse_json;
use super::store::MessageKind;

/// What the session tree needs of a message entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct MessageOutline {
    /// The entry id.
    pub(super) id: Box<str>,
    /// The parent entry id.
    pub(super) parent_id: Option<Box<str>>,
    /// What kind of message it holds.
    pub(super) kind: MessageKind,
    /// Provider and model of an assistant message.
    pub(super) model: Option<(Box<str>, Box<str>)>,
}

/// The outline of the message entry on `line`; `None` when the line is
/// not a message entry with a role this version knows, or not JSON: such
/// a line is parsed whole, which says what is wrong with it.
pub(super) fn parse_outline(line: &[u8]) -> Option<MessageOutline> {
    parse_json::<Outline>(line).ok().map(|outline| outline.0)
}

/// [`MessageOutline`] as read by serde.
struct Outline(MessageOutline);

/// The fields of the message an outline reads; others are skipped.
#[derive(Deserialize)]
struct MessageFields<'a> {
    #[serde(borrow)]
    role: Cow<'a, str>,
    #[serde(borrow, default)]
    provider: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
}

impl<'de> Deserialize<'de> for Outline {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(OutlineVisitor)
    }
}

struct OutlineVisitor;

impl<'de> Visitor<'de> for OutlineVisitor {
    type Value = Outline;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a message entry")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Outline, A::Error> {
        let mut is_message = false;
        let mut id: Option<Cow<'de, str>> = None;
        let mut parent_id: Option<Option<Cow<'de, str>>> = None;
        let mut message: Option<MessageFields<'de>> = None;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match &*key {
                "type" => {
                    // Any other type: stop here, the line is parsed whole.
                    let kind: Cow<'de, str> = map.next_value()?;
                    if kind != "message" {
                        return Err(de::Error::custom("not a message entry"));
                    }
                    is_message = true;
                }
                "id" => id = Some(map.next_value()?),
                "parentId" => parent_id = Some(map.next_value()?),
                "message" => message = Some(map.next_value()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let (Some(id), Some(message), true) = (id, message, is_message) else {
            return Err(de::Error::custom("not a message entry"));
        };
        let kind = match &*message.role {
            "user" => MessageKind::User,
            "assistant" => MessageKind::Assistant,
            "toolResult" => MessageKind::ToolResult,
            "bashExecution" => MessageKind::BashExecution,
            "custom" | "branchSummary" | "compactionSummary" => MessageKind::Other,
            _ => {
                return Err(de::Error::custom(
                    "a message role this version does not know",
                ));
            }
        };
        // As a whole read gives them: empty when an old line has none.
        let model = (kind == MessageKind::Assistant).then(|| {
            let text = |value: Option<Cow<'de, str>>| value.unwrap_or_default().into();
            (text(message.provider), text(message.model))
        });
        Ok(Outline(MessageOutline {
            id: id.into(),
            parent_id: parent_id.flatten().map(Into::into),
            kind,
            model,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::entry::SessionEntry;
    use crate::session::store::MessageKind;

    /// Every message entry of the session corpus has the outline its whole
    /// entry gives; every other line has none.
    #[test]
    fn outlines_agree_with_whole_entries() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
        let mut checked = 0;
        for dir in ["session-corpus", "pi-0.73.1", "sessions"] {
            for file in walk(&root.join(dir)) {
                // Outlines are read from current-version files only (older
                // ones are migrated first).
                let Ok(text) = std::fs::read_to_string(&file) else {
                    continue;
                };
                if !text
                    .lines()
                    .next()
                    .is_some_and(|h| h.contains(r#""version":3"#))
                {
                    continue;
                }
                for line in text.lines() {
                    let whole: Option<SessionEntry> = serde_json::from_str(line).ok();
                    let expected = whole.as_ref().and_then(|entry| {
                        let message = entry.as_message()?;
                        Some(MessageOutline {
                            id: entry.id().into(),
                            parent_id: entry.parent_id().map(Into::into),
                            kind: MessageKind::of(message),
                            model: message
                                .as_assistant()
                                .map(|a| (a.provider.as_str().into(), a.model.as_str().into())),
                        })
                    });
                    match (parse_outline(line.as_bytes()), expected) {
                        (Some(outline), Some(expected)) => {
                            assert_eq!(outline, expected, "{}: {line}", file.display());
                            checked += 1;
                        }
                        (None, None) => {}
                        // A message entry this version cannot type: its
                        // outline is read, and reading it whole later
                        // keeps it verbatim (LineSource::read_entry).
                        (Some(_), None) => {}
                        (None, Some(_)) => panic!("no outline: {}: {line}", file.display()),
                    }
                }
            }
        }
        assert!(checked > 100, "{checked} message entries checked");
    }

    fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        ignore::WalkBuilder::new(dir)
            .standard_filters(false)
            .build()
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
            .map(ignore::DirEntry::into_path)
            .collect()
    }

    #[test]
    fn lines_that_are_not_message_entries_have_no_outline() {
        for line in [
            r#"{"type":"compaction","id":"a","parentId":null,"timestamp":"t","summary":"s","firstKeptEntryId":"b","tokensBefore":1}"#,
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"future","content":[]}}"#,
            r#"{"type":"message","parentId":null,"timestamp":"t","message":{"role":"user","content":"x"}}"#,
            r#"{"type":"message","id":"a","message":{"role":"user","content":"x"}"#,
            "not json",
        ] {
            assert_eq!(parse_outline(line.as_bytes()), None, "{line}");
        }
        let escaped = r#"{"id":"a\"b","type":"message","parentId":"p\u0041","message":{"content":[{"type":"text","text":"x"}],"role":"assistant","provider":"anthropic","model":"m"}}"#;
        assert_eq!(
            parse_outline(escaped.as_bytes()),
            Some(MessageOutline {
                id: "a\"b".into(),
                parent_id: Some("pA".into()),
                kind: MessageKind::Assistant,
                model: Some(("anthropic".into(), "m".into())),
            })
        );
    }
}
