//! The stream decoder: Vertex streams the Gemini `GenerateContentResponse`
//! chunks, and pi decodes them with the same loop as the Gemini API (text
//! and thought parts, function calls with generated ids, finish reasons,
//! usage), so the Gemini decoder is used as it is.

/// The `google-vertex` SSE decoder (the Gemini one).
pub type VertexDecoder = pi_providers_google::GoogleDecoder;
