//! The stream decoder: the Responses API events as openai-responses decodes
//! them, except that pi's Azure provider prices usage without a service
//! tier multiplier.

use pi_ai::{EventSink, Model, calculate_cost};
use pi_http::{DecodeError, SseDecoder, SseFrameRef, StreamEnd};
use pi_providers_openai_responses::OpenAiResponsesDecoder;

/// Decodes one Azure Responses stream into events.
#[derive(Debug, Clone)]
pub struct AzureOpenAiResponsesDecoder {
    inner: OpenAiResponsesDecoder,
    model: Model,
}

impl AzureOpenAiResponsesDecoder {
    /// A decoder for a call to `model`.
    pub fn new(model: Model) -> Self {
        Self {
            inner: OpenAiResponsesDecoder::new(model.clone(), None),
            model,
        }
    }
}

impl SseDecoder for AzureOpenAiResponsesDecoder {
    /// openai-responses' decoding; at the terminal event the cost is priced
    /// again from the usage alone (pi passes Azure no service-tier pricing).
    fn frame(
        &mut self,
        frame: SseFrameRef<'_>,
        sink: &mut EventSink,
    ) -> Result<Option<StreamEnd>, DecodeError> {
        let end = self.inner.frame(frame, sink)?;
        if end.is_some() {
            let model = &self.model;
            sink.update(|m| {
                calculate_cost(model, &mut m.usage);
            });
        }
        Ok(end)
    }

    fn end_of_stream(&mut self, sink: &mut EventSink) -> StreamEnd {
        self.inner.end_of_stream(sink)
    }

    fn http_error_message(&self, status: u16, body: &str) -> String {
        self.inner.http_error_message(status, body)
    }

    fn ends_blocks_on_abort(&self) -> bool {
        self.inner.ends_blocks_on_abort()
    }
}
