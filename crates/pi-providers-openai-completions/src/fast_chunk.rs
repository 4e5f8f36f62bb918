//! The decoder's view of one stream chunk: its first choice, read in one
//! pass.
//!
//! [`ChatCompletionChunk`] holds every choice in a vector; pi reads only the
//! first, and servers send one. [`parse`] reads a chunk of at most one choice
//! straight into a [`Chunk`] (serde visitors that fill it in place, see
//! `read`; no vector of choices, the rare large fields boxed, strings
//! without escapes borrowed from the frame); a chunk with several choices,
//! or one the one-pass read refuses, is parsed as a [`ChatCompletionChunk`]
//! and converted ([`From`]). Every field has the type and the reader the
//! full parse gives it, so the one-pass read accepts what the full parse
//! accepts in object form, and the decoder sees the same values either way.

use std::borrow::Cow;

use serde_json::Value;

use crate::wire::{ChatCompletionChunk, ChunkChoice, ChunkUsage};

mod read;

pub(crate) use read::parse;

/// A chunk: its first choice and the rest of its fields.
#[derive(Debug, Default)]
pub(crate) struct Chunk<'a> {
    /// Completion id.
    pub(crate) id: Option<Cow<'a, str>>,
    /// Model that served the request.
    pub(crate) model: Option<Cow<'a, str>>,
    /// The first choice (the only one pi reads); `None` when there is none.
    pub(crate) first_choice: Option<ChunkChoice<'a>>,
    /// Token usage.
    pub(crate) usage: Option<Box<ChunkUsage>>,
    /// An error reported inside the stream.
    pub(crate) error: Option<Box<Value>>,
}

impl<'a> From<ChatCompletionChunk<'a>> for Chunk<'a> {
    fn from(chunk: ChatCompletionChunk<'a>) -> Self {
        Self {
            id: chunk.id,
            model: chunk.model,
            first_choice: chunk.choices.and_then(|choices| choices.into_iter().next()),
            usage: chunk.usage,
            error: chunk.error.map(Box::new),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the decoder reads of a chunk, from either parse.
    fn summary(chunk: &Chunk<'_>) -> String {
        format!("{chunk:?}")
    }

    fn full(data: &str) -> Option<String> {
        serde_json::from_str::<ChatCompletionChunk<'_>>(data)
            .ok()
            .map(|c| summary(&Chunk::from(c)))
    }

    /// Asserts that the one-pass read takes `data` and reads it as the full
    /// parse does.
    fn same_as_full(data: &str) {
        let fast = parse(data).as_ref().map(summary);
        assert!(fast.is_some(), "{data}");
        assert_eq!(fast, full(data), "{data}");
    }

    #[test]
    fn a_one_choice_chunk_reads_as_the_full_parse_does() {
        for data in [
            r#"{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":"a \"mock\" model"},"logprobs":null,"finish_reason":null}]}"#,
            r#"{"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"finish_reason":null}]}"#,
            r#"{"choices":[{"delta":{"reasoning_content":"hm","reasoning":5,"content":null}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read","arguments":"{\"p"}}]}}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"stop","usage":{"prompt_tokens":3}}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":1200,"completion_tokens":14,"prompt_tokens_details":{"cached_tokens":2.5}}}"#,
            r#"{"error":{"message":"overloaded","metadata":{"raw":"x"}}}"#,
            r#"{"id":7,"model":["m"],"choices":[{"delta":{"reasoning_details":[{"type":"reasoning.encrypted","id":"a","data":"x"}]}}]}"#,
            r#"{}"#,
        ] {
            same_as_full(data);
        }
    }

    #[test]
    fn several_choices_and_invalid_chunks_are_left_to_the_full_parse() {
        for data in [
            r#"{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}}]}"#,
            r#"{"choices":[{"delta":{"content":"a"}}],"choices":[]}"#,
            r#"{"choices":[{"delta":5}]}"#,
            r#"{"usage":{"prompt_tokens":1},"usage":null}"#,
            r#"{"choices":[{"delta":{"content":"a"}}]"#,
        ] {
            assert!(parse(data).is_none(), "{data}");
        }
        let several = r#"{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}}]}"#;
        let chunk = Chunk::from(serde_json::from_str::<ChatCompletionChunk<'_>>(several).unwrap());
        let first = chunk
            .first_choice
            .and_then(|c| c.delta)
            .and_then(|d| d.content);
        assert_eq!(
            first.as_deref(),
            Some("a"),
            "the conversion keeps the first"
        );
    }

    #[test]
    fn strings_without_escapes_are_borrowed_and_escaped_ones_decoded() {
        let data = r#"{"id":"c\u0031","model":"m","choices":[{"delta":{"content":"plain","reasoning":"a\nb","tool_calls":[{"id":"t1","function":{"name":"read","arguments":"{\"p\":1}"}}]},"finish_reason":"stop"}]}"#;
        let chunk = parse(data).unwrap();
        assert!(matches!(chunk.id, Some(Cow::Owned(ref id)) if id == "c1"));
        assert!(matches!(chunk.model, Some(Cow::Borrowed("m"))));
        let choice = chunk.first_choice.unwrap();
        assert!(matches!(choice.finish_reason, Some(Cow::Borrowed("stop"))));
        let delta = choice.delta.unwrap();
        assert!(matches!(delta.content, Some(Cow::Borrowed("plain"))));
        assert!(matches!(delta.reasoning, Some(Cow::Owned(ref r)) if r == "a\nb"));
        let call = delta.tool_calls.unwrap().into_iter().next().unwrap();
        assert!(matches!(call.id, Some(Cow::Borrowed("t1"))));
        let function = call.function.unwrap();
        assert!(matches!(function.name, Some(Cow::Borrowed("read"))));
        assert!(matches!(function.arguments, Some(Cow::Owned(ref a)) if a == r#"{"p":1}"#));
    }

    /// The `data` of every frame of the recorded openai-completions
    /// streams: `fixtures/sse/openai-completions` and pi's recorded
    /// responses (`fixtures/pi-0.73.1/*-oai/responses.jsonl`).
    fn fixture_frames() -> Vec<(String, String)> {
        let mut frames = Vec::new();
        let wire = "openai-completions";
        for name in pi_test_support::sse_file_names(wire) {
            for frame in pi_test_support::sse_file(wire, &name) {
                frames.push((name.clone(), frame.data));
            }
        }
        let root = pi_test_support::fixture("pi-0.73.1");
        let mut folders: Vec<_> = std::fs::read_dir(&root)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.to_string_lossy().ends_with("-oai"))
            .collect();
        folders.sort();
        assert!(folders.len() >= 8, "{folders:?}");
        for folder in folders {
            let path = folder.join("responses.jsonl");
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                let response: Value = serde_json::from_str(line).unwrap();
                for body in response["sse"].as_array().into_iter().flatten() {
                    for frame in pi_test_support::parse_sse(body.as_str().unwrap()) {
                        frames.push((path.display().to_string(), frame.data));
                    }
                }
            }
        }
        frames
    }

    #[test]
    fn every_fixture_frame_reads_as_the_full_parse_does() {
        let (mut frames, mut fast_frames) = (0, 0);
        for (name, data) in fixture_frames() {
            let data = data.trim();
            if data.is_empty() || data.starts_with("[DONE]") {
                continue;
            }
            frames += 1;
            let fast = parse(data).as_ref().map(summary);
            if fast.is_some() {
                fast_frames += 1;
                assert_eq!(fast, full(data), "{name}: {data}");
            } else {
                assert!(
                    full(data).is_none(),
                    "refused a valid chunk: {name}: {data}"
                );
            }
        }
        assert!(
            frames > 150 && fast_frames + 5 > frames,
            "{fast_frames} of {frames}"
        );
    }

    #[test]
    fn edge_cases_read_as_the_full_parse_does() {
        for data in [
            // Keys written with escapes, unicode and escapes in values.
            r#"{"choices":[{"delta":{"con\u0074ent":"escaped key"}}]}"#,
            r#"{"choices":[{"delta":{"content":"line\nnext \"q\" \u00e9\ud83d\ude00 é😀 \\ \/"}}]}"#,
            r#"{"\u0069d":"c1","mod\u0065l":"m\u00e9","choices":[{"finish\u005freason":"stop"}]}"#,
            // Pretty JSON with spaces, tabs and newlines.
            "{\n  \"id\" : \"c1\",\n  \"choices\" : [\n    {\n      \"delta\" : {\n        \"content\" : \"pretty\"\n      },\n      \"finish_reason\" : null\n    }\n  ]\n}\n",
            " \t{ \"choices\" :[ ] , \"usage\" : { \"prompt_tokens\" : 3 } }\r\n",
            // Unknown keys with nested values, at every level, including
            // known names of other levels.
            r#"{"x":{"content":[1,{"a":null}]},"delta":{"content":"no"},"content":1,"content":2,"choices":[{"index":0,"logprobs":{"content":[{"token":"a","bytes":[97]}]},"content":"no","delta":{"role":"assistant","id":"no","tool_calls":[{"type":"function","name":"no","extra":{"a":[{}]},"index":1,"function":{"name":"n","extra":[[]],"id":"no"}}],"content":"yes"}}]}"#,
            // Non-string ids and names, lenient counts.
            r#"{"id":12,"model":{"name":"m"},"choices":[{"finish_reason":1.5,"delta":{"content":true,"reasoning_content":["a"],"tool_calls":[{"index":"0","id":3,"function":{"name":null,"arguments":{"a":1}}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":2.7},{"index":-1},{"index":1e30},{"index":null},{}]}}]}"#,
            r#"{"usage":{"prompt_tokens":12.0,"completion_tokens":3.9,"prompt_cache_hit_tokens":-2,"prompt_tokens_details":{"cached_tokens":"4","cache_write_tokens":1e2},"completion_tokens_details":{"reasoning_tokens":null}}}"#,
            // Usage on the choice and on the chunk; null usage.
            r#"{"choices":[{"delta":{"content":""},"usage":{"prompt_tokens":5,"completion_tokens":1}}],"usage":null}"#,
            r#"{"choices":[{"delta":{},"usage":null,"finish_reason":"length"}],"usage":{"completion_tokens":2}}"#,
            // Empty objects, empty and null choices, null delta.
            r#"{}"#,
            r#"{"choices":[]}"#,
            r#"{"choices":null}"#,
            r#"{"choices":[{}]}"#,
            r#"{"choices":[{"delta":null,"finish_reason":"stop"}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":null,"reasoning_details":null}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[],"reasoning_details":[]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"function":null}]}}]}"#,
            // Errors (the decoder checks truthiness), reasoning details.
            r#"{"error":null}"#,
            r#"{"error":{}}"#,
            r#"{"error":"overloaded","id":"c1"}"#,
            r#"{"choices":[{"delta":{"reasoning_details":[{"type":"reasoning.encrypted","id":"t1","data":"eA==","format":"x","index":0},null,5]}}]}"#,
            // Several tool calls in one delta.
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"read","arguments":""}},{"index":1,"id":"b","function":{"arguments":"{}"}}]}}]}"#,
            // Repeated unknown keys are fine; the usage object as a derived
            // struct takes an array too.
            r#"{"object":1,"object":2,"choices":[{"logprobs":1,"logprobs":2}]}"#,
            r#"{"usage":[1,2]}"#,
        ] {
            same_as_full(data);
        }
        // Refused here: either the full parse refuses them too, or they take
        // a form only the full parse reads (a struct written as an array).
        for data in [
            // Repeated known keys, written plainly or with escapes.
            r#"{"id":"a","id":"b"}"#,
            r#"{"id":"a","\u0069d":"b"}"#,
            r#"{"choices":[{"delta":{"content":"a","con\u0074ent":"b"}}]}"#,
            r#"{"choices":[{"finish_reason":null,"finish_reason":"stop"}]}"#,
            r#"{"choices":[{"delta":{},"delta":{}}]}"#,
            r#"{"choices":[{"usage":{},"usage":{}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[],"tool_calls":[]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"index":1}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"function":{"name":"a","name":"b"}}]}}]}"#,
            r#"{"error":null,"error":null}"#,
            r#"{"usage":{"prompt_tokens":1,"prompt_tokens":2}}"#,
            // Wrong types of the structured fields.
            r#"{"choices":5}"#,
            r#"{"choices":[null]}"#,
            r#"{"choices":[{"delta":"a"}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":{}}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[null]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"function":"read"}]}}]}"#,
            r#"{"choices":[{"delta":{"reasoning_details":{}}}]}"#,
            r#"{"usage":5}"#,
            // Structs as arrays, which the derived full parse reads.
            r#"{"choices":[[{"content":"a"},"stop"]]}"#,
            r#"{"choices":[{"delta":["a"]}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[[0,"a"]]}}]}"#,
            r#"["c1","m"]"#,
            // Not one JSON object.
            r#"null"#,
            r#"{"choices":[]} x"#,
            r#"{"choices":[{"delta":{"content":"a"}}]"#,
            r#"{"content":"a\q"}"#,
        ] {
            assert!(parse(data).is_none(), "{data}");
        }
        // The array forms the full parse accepts still read through it.
        assert!(full(r#"{"choices":[[{"content":"a"},"stop"]]}"#).is_some());
        assert!(full(r#"["c1","m"]"#).is_some());
    }
}
