//! Transport shared by every provider crate: HTTP, SSE framing, idle timeouts, cancellation and retries. It knows no wire format.
