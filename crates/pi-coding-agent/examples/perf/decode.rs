//! Per wire, the answer's body framed and decoded in memory: the bytes cut
//! into the chunks a TLS connection hands out, then pi-http's framing (SSE,
//! or Bedrock's event-stream) and the wire's decoder into the event stream,
//! each frame borrowed from its chunk, exactly as a live body is read after
//! the HTTP response arrives ([`pi_http::replay_body`]). No socket, no HTTP:
//! the loopback rows of [`crate::wire`] add those.
#![allow(clippy::panic)]

use bytes::Bytes;
use futures::StreamExt;
use pi_ai::{AssistantMessage, AssistantMessageEventStream};
use pi_http::{BodyFraming, SseDecoder, replay_body};

use crate::wire::{Answer, Wire, assert_answered, model_at};

/// The largest TLS record's plaintext (16 KiB): what a read of a provider's
/// HTTPS answer hands the framing at most.
const CHUNK: usize = 16 * 1024;

/// The mean CPU seconds of at least `reps` decodes of `answer` (and of
/// enough for [`crate::MIN_CPU_SECONDS`]). The chunks are cut before the
/// clock starts.
pub fn decode(wire: &Wire, answer: &Answer, reps: usize) -> f64 {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let body = Bytes::from(answer.body.clone());
    let (mut total, mut runs) = (0.0, 0usize);
    while runs < reps || (total < crate::MIN_CPU_SECONDS && runs < 1_000) {
        // Views of one buffer, as reqwest hands a body out: dropping them
        // frees nothing.
        let chunks: Vec<Bytes> = (0..body.len())
            .step_by(CHUNK)
            .map(|at| body.slice(at..body.len().min(at + CHUNK)))
            .collect();
        let start = crate::cpu_seconds();
        let message = rt.block_on(drain(stream(wire, chunks)));
        total += crate::cpu_seconds() - start;
        runs += 1;
        assert_answered(wire, &message);
    }
    total / runs as f64
}

/// Reads every event and returns the final message.
async fn drain(mut stream: AssistantMessageEventStream) -> AssistantMessage {
    while stream.next().await.is_some() {}
    stream.result().await
}

/// The wire's decoder (and framing) over `chunks`.
fn stream(wire: &Wire, chunks: Vec<Bytes>) -> AssistantMessageEventStream {
    let model = model_at(wire, "http://127.0.0.1:9");
    let initial = AssistantMessage::empty(
        model.api.clone(),
        model.provider.clone(),
        model.id.clone(),
        0,
    );
    fn sse<D: SseDecoder>(
        initial: AssistantMessage,
        chunks: Vec<Bytes>,
        decoder: D,
    ) -> AssistantMessageEventStream {
        replay_body(initial, chunks, None, decoder)
    }
    match wire.api {
        "anthropic-messages" => sse(
            initial,
            chunks,
            pi_providers_anthropic::AnthropicDecoder::new(model),
        ),
        "openai-completions" => sse(
            initial,
            chunks,
            pi_providers_openai_completions::OpenAiCompletionsDecoder::new(&model),
        ),
        "openai-responses" => sse(
            initial,
            chunks,
            pi_providers_openai_responses::OpenAiResponsesDecoder::new(model, None),
        ),
        "azure-openai-responses" => sse(
            initial,
            chunks,
            pi_providers_azure_openai_responses::AzureOpenAiResponsesDecoder::new(model),
        ),
        "google-generative-ai" => sse(
            initial,
            chunks,
            pi_providers_google::GoogleDecoder::new(&model),
        ),
        "google-vertex" => sse(
            initial,
            chunks,
            pi_providers_google_vertex::VertexDecoder::new(&model),
        ),
        "mistral-conversations" => sse(
            initial,
            chunks,
            pi_providers_mistral::MistralDecoder::new(&model),
        ),
        "openai-codex-responses" => sse(
            initial,
            chunks,
            pi_providers_openai_codex_responses::OpenAiCodexDecoder::new(model, None),
        ),
        "bedrock-converse-stream" => {
            let framing: Box<dyn BodyFraming> =
                Box::new(pi_providers_amazon_bedrock::EventStreamFraming::new());
            let decoder = pi_providers_amazon_bedrock::BedrockDecoder::new(&model);
            replay_body(initial, chunks, Some(framing), decoder)
        }
        other => panic!("no in-memory decoder for {other}"),
    }
}
