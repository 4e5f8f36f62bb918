//! The `google-generative-ai` wire: Gemini `streamGenerateContent` requests and SSE decoding.
