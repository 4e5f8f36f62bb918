//! The pure encoder. Vertex takes the Gemini `streamGenerateContent` body
//! pi builds for the Gemini API (same `google-shared` conversion, same SDK
//! serialization, checked against pi's captures), with Vertex's
//! `thinkingConfig` rules.

use pi_ai::{ContextRef, Model};
use pi_providers_google::wire::GenerateContentRequest;

use crate::options::{VertexOptions, thinking_config};

/// Builds the request body pi would send for `context` to `model`.
pub fn build_request_body<'c>(
    model: &Model,
    context: impl Into<ContextRef<'c>>,
    options: &VertexOptions,
) -> GenerateContentRequest<'c> {
    let context = context.into();
    let mut body = pi_providers_google::build_request_body(model, context, &options.google);
    body.generation_config.thinking_config = thinking_config(model, options.google.thinking);
    body
}
