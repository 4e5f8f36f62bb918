//! The `anthropic-messages` wire: encodes a `pi_ai::Context` into an Anthropic Messages request and decodes its SSE stream into `pi_ai` events.
