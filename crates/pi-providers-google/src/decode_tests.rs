use futures::StreamExt;
use pi_ai::{AssistantMessage, AssistantMessageEventStream, CancellationToken, Model, Usage};
use pi_http::SseFrame;
use pretty_assertions::assert_eq;

use super::*;

fn model() -> Model {
    pi_ai::get_model("google", "gemini-2.5-flash")
        .expect("catalog model")
        .clone()
}

fn frame(data: &str) -> SseFrame {
    SseFrame {
        event: "message".to_owned(),
        data: data.to_owned(),
    }
}

/// A text chunk with `usage` (a `usageMetadata` JSON text, or none).
fn text_chunk(text: &str, usage: Option<&str>) -> String {
    let usage = usage.map_or(String::new(), |u| format!(r#","usageMetadata":{u}"#));
    format!(
        r#"{{"candidates":[{{"content":{{"parts":[{{"text":"{text}"}}],"role":"model"}},"index":0}}],"responseId":"r"{usage}}}"#
    )
}

/// Decodes `chunks` one by one; after each, the message's usage or the
/// frame's error.
async fn usage_after_each(chunks: Vec<String>) -> Vec<Result<Usage, String>> {
    let model = model();
    let initial = AssistantMessage::empty(
        model.api.clone(),
        model.provider.clone(),
        model.id.clone(),
        0,
    );
    let mut decoder = GoogleDecoder::with_fixed_id_time(&model, 0);
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let out = std::sync::Arc::clone(&seen);
    let mut stream = AssistantMessageEventStream::new(
        initial,
        CancellationToken::new(),
        move |mut sink| async move {
            sink.start();
            for data in &chunks {
                let result = decoder.frame(frame(data).as_frame_ref(), &mut sink);
                let usage = sink.update(|message| message.usage);
                out.lock().unwrap().push(match result {
                    Ok(_) => Ok(usage),
                    Err(error) => Err(error.into_message()),
                });
            }
            let end = decoder.end_of_stream(&mut sink);
            assert_eq!(end, StreamEnd::Done(DoneReason::Stop));
            sink.done(DoneReason::Stop);
        },
    );
    while stream.next().await.is_some() {}
    seen.lock().unwrap().clone()
}

/// pi's usage of `usageMetadata` text `json`.
fn expected(json: &str) -> Usage {
    let decoder = GoogleDecoder::new(&model());
    decoder.usage(serde_json::from_str(json).unwrap())
}

#[tokio::test]
async fn the_usage_follows_every_chunk_whether_its_counts_repeat_or_not() {
    let a = r#"{"promptTokenCount":5123,"cachedContentTokenCount":4096,"totalTokenCount":5200}"#;
    let b = r#"{"promptTokenCount":5123,"cachedContentTokenCount":4096,"candidatesTokenCount":77,"thoughtsTokenCount":3,"totalTokenCount":5203}"#;
    // The same counts written differently (as the real API writes them).
    let a_spaced =
        r#"{ "promptTokenCount": 5123, "cachedContentTokenCount": 4096, "totalTokenCount": 5200 }"#;
    let two_parts = r#"{"candidates":[{"content":{"parts":[{"text":"x"},{"text":"y"}]}}],"usageMetadata":{"promptTokenCount":9,"totalTokenCount":9}}"#;
    let chunks = vec![
        text_chunk("1", None),
        text_chunk("2", Some(a)),
        text_chunk("3", Some(a)),
        text_chunk("4", Some(b)),
        text_chunk("5", Some(a)),
        text_chunk("6", Some("null")),
        text_chunk("7", Some(a_spaced)),
        two_parts.to_owned(),
        text_chunk("8", Some(a)),
        text_chunk("9", Some(a)),
        text_chunk("10", Some(b)),
    ];
    let nine = r#"{"promptTokenCount":9,"totalTokenCount":9}"#;
    let want: Vec<Result<Usage, String>> = [
        Usage::default(),
        expected(a),
        expected(a),
        expected(b),
        expected(a),
        expected(a),
        expected(a),
        expected(nine),
        expected(a),
        expected(a),
        expected(b),
    ]
    .into_iter()
    .map(Ok)
    .collect();
    assert_eq!(usage_after_each(chunks).await, want);
    assert!(expected(a).cost.total > 0.0, "the model has prices");
}

#[tokio::test]
async fn an_odd_usage_metadata_reads_as_the_owned_parse_reads_it() {
    let a = r#"{"promptTokenCount":12,"totalTokenCount":14}"#;
    for odd in [
        r#"{"promptTokenCount":"12"}"#,
        r#""x""#,
        r#"{"promptTokenCount":-1}"#,
        r#"{"promptTokenCount":1,"promptTokenCount":2}"#,
        // A struct as an array of its fields: serde accepts it.
        r#"[1]"#,
        r#"{"promptTokenCount":7,"extra":{"deep":[1,{"x":null}]}}"#,
    ] {
        let chunk = text_chunk("b", Some(odd));
        let want = match serde_json::from_str::<StreamChunk>(&chunk) {
            Ok(owned) => {
                let metadata = owned.usage_metadata.unwrap();
                Ok(GoogleDecoder::new(&model()).usage(metadata))
            }
            Err(owned) => Err(format!("Invalid JSON in Google stream event: {owned}")),
        };
        let seen = usage_after_each(vec![text_chunk("a", Some(a)), chunk]).await;
        assert_eq!(seen, vec![Ok(expected(a)), want], "{odd}");
    }
}

#[test]
fn frames_are_trimmed_as_str_trim_trims_them() {
    for data in [
        "{}",
        " {} ",
        "\u{a0}{}\u{2003}",
        "\n{}\r\n",
        "\u{b}{}\u{c}",
        "",
        " ",
        "x",
        "é",
        "{\"text\":\"é\"}",
    ] {
        assert_eq!(trimmed(data), data.trim(), "{data:?}");
    }
}
