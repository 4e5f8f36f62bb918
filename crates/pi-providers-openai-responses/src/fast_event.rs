//! The hot events of a stream, the five `*.delta` events, parsed in one
//! pass with the delta borrowed from the frame.
//!
//! [`crate::wire::StreamEvent`] is internally tagged (`"type"`, which the
//! API writes after the other fields), so serde decodes it by first
//! buffering the whole object into an intermediate tree, and its deltas are
//! owned strings. Here the object is read straight into a struct of the tag
//! and the delta, and the result is accepted only when it is what the
//! tagged parse would give (a delta tag, a string delta); anything else
//! returns `None` and the caller parses the frame the tagged way, so the
//! outcome, errors included, never differs from it.

use std::borrow::Cow;

use serde::Deserialize;

/// Which delta event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DeltaKind {
    /// `response.reasoning_summary_text.delta`.
    ReasoningSummaryText,
    /// `response.reasoning_text.delta`.
    ReasoningText,
    /// `response.output_text.delta`.
    OutputText,
    /// `response.refusal.delta`.
    Refusal,
    /// `response.function_call_arguments.delta`.
    FunctionCallArguments,
}

impl DeltaKind {
    fn of(tag: &str) -> Option<Self> {
        Some(match tag {
            "response.reasoning_summary_text.delta" => Self::ReasoningSummaryText,
            "response.reasoning_text.delta" => Self::ReasoningText,
            "response.output_text.delta" => Self::OutputText,
            "response.refusal.delta" => Self::Refusal,
            "response.function_call_arguments.delta" => Self::FunctionCallArguments,
            _ => return None,
        })
    }
}

/// The fields of a delta event that pi reads.
#[derive(Deserialize)]
struct Flat<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    delta: Option<Cow<'a, str>>,
}

/// `data` as a delta event, when it is a well-formed one.
pub(crate) fn delta_event(data: &str) -> Option<(DeltaKind, Cow<'_, str>)> {
    let flat: Flat<'_> = serde_json::from_str(data).ok()?;
    Some((DeltaKind::of(&flat.kind)?, flat.delta?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::StreamEvent;

    fn tagged(kind: DeltaKind, delta: String) -> StreamEvent {
        match kind {
            DeltaKind::ReasoningSummaryText => StreamEvent::ReasoningSummaryTextDelta { delta },
            DeltaKind::ReasoningText => StreamEvent::ReasoningTextDelta { delta },
            DeltaKind::OutputText => StreamEvent::OutputTextDelta { delta },
            DeltaKind::Refusal => StreamEvent::RefusalDelta { delta },
            DeltaKind::FunctionCallArguments => StreamEvent::FunctionCallArgumentsDelta { delta },
        }
    }

    #[test]
    fn each_delta_event_parses_as_the_tagged_parse_does() {
        for tag in [
            "response.reasoning_summary_text.delta",
            "response.reasoning_text.delta",
            "response.output_text.delta",
            "response.refusal.delta",
            "response.function_call_arguments.delta",
        ] {
            let data = format!(
                r#"{{"item_id":"m","output_index":0,"delta":"a \"b\" \u00e9","logprobs":[],"type":"{tag}","sequence_number":5}}"#
            );
            let fast = delta_event(&data).map(|(kind, delta)| tagged(kind, delta.into_owned()));
            assert_eq!(
                fast,
                serde_json::from_str::<StreamEvent>(&data).ok(),
                "{data}"
            );
            assert!(fast.is_some(), "{data}");
        }
    }

    #[test]
    fn anything_else_is_left_to_the_tagged_parse() {
        for data in [
            r#"{"type":"response.output_text.done","text":"x"}"#,
            r#"{"type":"response.output_text.delta"}"#,
            r#"{"type":"response.output_text.delta","delta":null}"#,
            r#"{"type":"response.output_text.delta","delta":5}"#,
            r#"{"type":"response.output_text.delta","type":"response.output_text.delta","delta":"x"}"#,
            r#"{"delta":"x"}"#,
            r#"{"type":"response.output_text.delta","delta":"x"} trailing"#,
        ] {
            assert!(delta_event(data).is_none(), "{data}");
        }
    }
}
