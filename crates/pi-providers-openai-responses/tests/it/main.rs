//! The integration tests of `pi-providers-openai-responses`, one test binary: each module is one
//! former test file (`common` holds this crate's own test data).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod decode;
mod e2e;
mod parity;
mod request_snapshots;
