//! The `openai-responses` wire: OpenAI Responses API input items, reasoning replay and its SSE stream.
