//! Test support shared by every pi-rs wire (dev-only: it appears only in
//! `[dev-dependencies]`). One place for what each provider crate's tests
//! need:
//!
//! - [`fixtures`]: paths into the repository's `fixtures/`, recorded SSE
//!   bodies, and pi's mock models (`fixtures/pi-0.73.1/models.json`).
//! - [`sse`]: recorded SSE text framed by the transport's own parser, or
//!   split into raw frames for the mock server.
//! - [`mod@replay`]: a wire's [`pi_http::SseDecoder`] run over frames with no
//!   HTTP, ending the stream exactly as `pi_http::stream_sse` does.
//! - [`contract`]: the streaming contract every event sequence obeys.
//! - [`summary`]: events without their (always-latest) partial snapshots.
//! - [`contexts`]: small contexts and options for request snapshots.
//! - [`parity`]: JSON Lines captures and the payload differences allowed.
//! - [`mock_server`]: a loopback HTTP server that records requests and
//!   answers with canned (or broken) responses.
//! - [`event_stream`]: recorded answers as AWS event-stream messages, for
//!   the mock server of a wire that is not SSE.
//! - [`external`]: tmux, Node and pi's npm package as `.ci/setup`
//!   installs them (missing: a skip, or a failure under `CI=true`).
//! - [`browser`]: headless Chromium driven through the DevTools protocol.
//! - [`full_disk`]: a directory whose disk can be made full (a tmpfs, or
//!   a file size limit on child processes).
//! - [`e2e`]: the end-to-end scenarios every wire runs over real HTTP,
//!   driven by a small per-wire [`e2e::WireAdapter`] through
//!   [`wire_e2e_suite!`].
//!
//! Failing loudly is this crate's job: its helpers panic with a message
//! when a fixture is missing or an expectation does not hold.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod browser;
pub mod captures;
pub mod contexts;
pub mod contract;
pub mod e2e;
pub mod event_stream;
pub mod external;
pub mod fixtures;
pub mod full_disk;
pub mod mock_server;
pub mod parity;
pub mod replay;
pub mod sse;
pub mod summary;

pub use contract::assert_stream_contract;
pub use fixtures::{fixture, fixtures_dir, mock_api_key, mock_model, sse_dir, sse_file_names};
pub use replay::{REPLAY_TIMESTAMP, replay, replay_events, replay_from};
pub use sse::{parse_sse, raw_frames, read_sse, sse_file, sse_file_raw_frames};
pub use summary::{assert_failed_keeping_text, event_summary, final_message};
