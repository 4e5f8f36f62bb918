//! The decoder's view of one stream chunk, with its strings borrowed from
//! the frame.
//!
//! A chunk usually carries one candidate with one text part. [`parse`] reads
//! such a chunk straight into these borrowed types (serde visitors that fill
//! them in place, see `read`; no owned strings, no vectors); a chunk with
//! several candidates or parts is not taken here (`None`), and the caller
//! parses it as a [`StreamChunk`] and converts it ([`From`]). Every field
//! has the type the owned parse gives it (strings borrowed instead of
//! owned), so the fast parse accepts what the owned one accepts in object
//! form, refuses the rest, and the decoder sees the same values either way.
//! The fields a text chunk lacks are boxed, so the structs stay small.

use std::borrow::Cow;

use crate::wire::{
    Blob, Candidate as OwnedCandidate, FunctionCall, FunctionResponse, Part as OwnedPart,
    PromptFeedback, StreamChunk, StreamError, UsageMetadata,
};

mod read;

pub(crate) use read::parse;

/// A chunk: its first candidate and the rest of its fields.
#[derive(Debug, Default)]
pub(crate) struct Chunk<'a> {
    /// The first candidate (the only one pi reads); `None` when there is none.
    pub(crate) first_candidate: Option<Candidate<'a>>,
    pub(crate) usage_metadata: Option<UsageMetadata>,
    /// Read only to accept what the owned parse accepts.
    _model_version: Option<Cow<'a, str>>,
    pub(crate) response_id: Option<Cow<'a, str>>,
    pub(crate) prompt_feedback: Option<Box<PromptFeedback>>,
    pub(crate) error: Option<Box<StreamError>>,
}

/// A candidate.
#[derive(Debug, Default)]
pub(crate) struct Candidate<'a> {
    pub(crate) content: Option<Content<'a>>,
    pub(crate) finish_reason: Option<Cow<'a, str>>,
}

/// A candidate's content: its parts, in order.
#[derive(Debug, Default)]
pub(crate) struct Content<'a> {
    /// The part of a one-part chunk.
    first: Option<Part<'a>>,
    /// The parts of a chunk converted from the owned parse.
    rest: Vec<Part<'a>>,
}

impl<'a> Content<'a> {
    /// The parts in order.
    pub(crate) fn parts(self) -> impl Iterator<Item = Part<'a>> {
        self.first.into_iter().chain(self.rest)
    }
}

/// A part (see [`OwnedPart`]).
#[derive(Debug, Default)]
pub(crate) struct Part<'a> {
    pub(crate) function_call: Option<Box<FunctionCall>>,
    /// Read only to accept what the owned parse accepts.
    _function_response: Option<Box<FunctionResponse>>,
    /// Read only to accept what the owned parse accepts.
    _inline_data: Option<Box<Blob>>,
    pub(crate) text: Option<Cow<'a, str>>,
    pub(crate) thought: Option<bool>,
    pub(crate) thought_signature: Option<Cow<'a, str>>,
}

impl From<OwnedPart> for Part<'_> {
    fn from(part: OwnedPart) -> Self {
        Self {
            function_call: part.function_call.map(Box::new),
            _function_response: part.function_response.map(Box::new),
            _inline_data: part.inline_data.map(Box::new),
            text: part.text.map(Cow::Owned),
            thought: part.thought,
            thought_signature: part.thought_signature.map(Cow::Owned),
        }
    }
}

impl From<OwnedCandidate> for Candidate<'_> {
    fn from(candidate: OwnedCandidate) -> Self {
        Self {
            content: candidate.content.map(|content| Content {
                first: None,
                rest: content.parts.into_iter().map(Part::from).collect(),
            }),
            finish_reason: candidate.finish_reason.map(Cow::Owned),
        }
    }
}

impl From<StreamChunk> for Chunk<'_> {
    fn from(chunk: StreamChunk) -> Self {
        Self {
            first_candidate: chunk.candidates.into_iter().next().map(Candidate::from),
            usage_metadata: chunk.usage_metadata,
            _model_version: chunk.model_version.map(Cow::Owned),
            response_id: chunk.response_id.map(Cow::Owned),
            prompt_feedback: chunk.prompt_feedback.map(Box::new),
            error: chunk.error.map(Box::new),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the decoder reads of a chunk, from either parse.
    fn summary(chunk: Chunk<'_>) -> String {
        let first = chunk.first_candidate.map(|c| {
            let parts: Vec<String> = c
                .content
                .map(|content| content.parts().map(|p| format!("{p:?}")).collect())
                .unwrap_or_default();
            (parts, c.finish_reason.map(Cow::into_owned))
        });
        format!(
            "{first:?} {:?} {:?} {:?} {:?} {:?}",
            chunk.usage_metadata,
            chunk._model_version,
            chunk.response_id,
            chunk.prompt_feedback,
            chunk.error
        )
    }

    fn owned(data: &str) -> Option<String> {
        serde_json::from_str::<StreamChunk>(data)
            .ok()
            .map(|c| summary(Chunk::from(c)))
    }

    #[test]
    fn a_one_part_chunk_reads_as_the_owned_parse_does() {
        for data in [
            r#"{"candidates":[{"content":{"parts":[{"text":"a \"mock\" model"}],"role":"model"},"index":0}],"modelVersion":"m","responseId":"r","usageMetadata":{"promptTokenCount":12,"totalTokenCount":14}}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"hm","thought":true,"thoughtSignature":"c2ln"}]},"finishReason":"STOP"}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"read","args":{"path":"a"}}}]}}]}"#,
            r#"{"candidates":[],"promptFeedback":{"blockReason":"SAFETY"}}"#,
            r#"{"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED"}}"#,
            r#"{"candidates":[{"content":{"parts":[]}}]}"#,
        ] {
            let fast = parse(data).map(summary);
            assert!(fast.is_some(), "{data}");
            assert_eq!(fast, owned(data), "{data}");
        }
    }

    #[test]
    fn strings_without_escapes_are_borrowed_and_escaped_ones_decoded() {
        let data = r#"{"candidates":[{"content":{"parts":[{"text":"plain","thoughtSignature":"c\u0069g"}]},"finishReason":"STOP"}],"responseId":"r\n1","modelVersion":null}"#;
        let chunk = parse(data).unwrap();
        assert!(matches!(chunk.response_id, Some(Cow::Owned(ref id)) if id == "r\n1"));
        assert!(chunk._model_version.is_none());
        let candidate = chunk.first_candidate.unwrap();
        assert!(matches!(
            candidate.finish_reason,
            Some(Cow::Borrowed("STOP"))
        ));
        let part = candidate.content.unwrap().parts().next().unwrap();
        assert!(matches!(part.text, Some(Cow::Borrowed("plain"))));
        assert!(matches!(part.thought_signature, Some(Cow::Owned(ref s)) if s == "cig"));
        assert_eq!(
            parse(r#"{"responseId":5}"#).map(summary),
            None,
            "a string field holding a number is refused, as the owned parse refuses it"
        );
        assert!(owned(r#"{"responseId":5}"#).is_none());
    }

    #[test]
    fn every_fixture_frame_reads_as_the_owned_parse_does() {
        let (mut frames, mut fast_frames) = (0, 0);
        for name in pi_test_support::sse_file_names("google-generative-ai") {
            for frame in pi_test_support::sse_file("google-generative-ai", &name) {
                let data = frame.data.trim();
                if data.is_empty() {
                    continue;
                }
                frames += 1;
                if let Some(fast) = parse(data).map(summary) {
                    fast_frames += 1;
                    assert_eq!(Some(fast), owned(data), "{name}: {data}");
                }
            }
        }
        assert!(
            frames > 40 && fast_frames * 10 > frames * 7,
            "{fast_frames} of {frames}"
        );
    }

    #[test]
    fn edge_cases_read_as_the_owned_parse_does() {
        let fast_only = [
            // Escapes and unicode in text, keys written with escapes.
            r#"{"candidates":[{"content":{"parts":[{"text":"line\nnext \"q\" \u00e9\ud83d\ude00 é😀"}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"te\u0078t":"escaped key","thought":true}]}}]}"#,
            // Thought parts, with and without a signature; signature-only parts.
            r#"{"candidates":[{"content":{"parts":[{"text":"hm","thought":true,"thoughtSignature":"c2ln"}],"role":"model"}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"thoughtSignature":"c2ln"}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"t","thought":false,"thoughtSignature":null}]}}]}"#,
            // Function calls (with and without id and args).
            r#"{"candidates":[{"content":{"parts":[{"functionCall":{"id":"c1","name":"bash","args":{"command":"ls -la","n":[1,2.5,null]}},"thoughtSignature":"c2ln"}]},"finishReason":"STOP"}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"read"}}]}}]}"#,
            // Usage-only and empty chunks.
            r#"{"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":3,"thoughtsTokenCount":2,"cachedContentTokenCount":1,"totalTokenCount":10}}"#,
            r#"{"candidates":[],"usageMetadata":null}"#,
            r#"{}"#,
            r#"{"candidates":[{"finishReason":"MAX_TOKENS"}]}"#,
            r#"{"candidates":[{"content":null,"finishReason":null}]}"#,
            r#"{"candidates":[{"content":{}}]}"#,
            // Unknown fields at every level, including known names of other levels.
            r#"{"x":{"text":[1]},"text":1,"text":2,"candidates":[{"parts":5,"content":{"role":"model","text":"no","parts":[{"text":"a","extra":{"a":[{}]},"parts":1,"parts":2}]},"safetyRatings":[{"category":"X"}],"index":0}],"modelVersion":"m","responseId":"r","createTime":"2025"}"#,
            // Pretty JSON, as the real API writes it.
            "{\n  \"candidates\": [\n    {\n      \"content\": {\n        \"parts\": [\n          {\n            \"text\": \"pretty\"\n          }\n        ],\n        \"role\": \"model\"\n      },\n      \"index\": 0\n    }\n  ],\n  \"usageMetadata\": {\n    \"promptTokenCount\": 8\n  }\n}\n",
            r#"{"promptFeedback":{"blockReason":"OTHER"},"error":{"code":500,"status":"INTERNAL"}}"#,
            r#"{"candidates":[{"content":{"parts":[{"inlineData":{"data":"AA==","mimeType":"image/png"}}]}}]}"#,
        ];
        for data in fast_only {
            let fast = parse(data).map(summary);
            assert!(fast.is_some(), "{data}");
            assert_eq!(fast, owned(data), "{data}");
        }
        // Refused here: either the owned parse refuses them too, or they
        // take a form only the owned parse reads (a struct as an array).
        for data in [
            r#"{"candidates":[{"content":{"parts":[{"text":"a","te\u0078t":"b"}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"thought":"yes"}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":1}}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"inlineData":{"data":"AA=="}}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":null}}]}"#,
            r#"{"candidates":[null]}"#,
            r#"{"candidates":[{"content":{"parts":[null]}}]}"#,
            r#"{"candidates":[{"finishReason":"STOP","finishReason":"STOP"}]}"#,
            r#"{"usageMetadata":{},"usageMetadata":{}}"#,
            r#"{"candidates":[["content"]]}"#,
            r#"[[],null]"#,
            r#"{"candidates":[]} x"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"a"}]}}"#,
        ] {
            assert!(parse(data).is_none(), "{data}");
        }
        // The array forms the owned parse accepts still read the same
        // through it.
        assert!(owned(r#"{"candidates":[[null, "STOP"]]}"#).is_some());
        assert!(owned(r#"[[]]"#).is_some());
    }

    #[test]
    fn several_candidates_or_parts_and_invalid_chunks_are_left_to_the_owned_parse() {
        for data in [
            r#"{"candidates":[{"content":{"parts":[{"text":"a"},{"text":"b"}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"a"}]}},{"content":{"parts":[]}}]}"#,
            r#"{"candidates":null}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":5}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"a","text":"b"}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"functionResponse":{}}]}}]}"#,
        ] {
            assert!(parse(data).is_none(), "{data}");
        }
        let several = r#"{"candidates":[{"content":{"parts":[{"text":"a"},{"text":"b"}]}}]}"#;
        let chunk = Chunk::from(serde_json::from_str::<StreamChunk>(several).unwrap());
        let texts: Vec<String> = chunk
            .first_candidate
            .and_then(|c| c.content)
            .map(|c| {
                c.parts()
                    .filter_map(|p| p.text.map(Cow::into_owned))
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(texts, ["a", "b"], "the conversion keeps every part");
    }
}
