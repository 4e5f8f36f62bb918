//! The integration tests of `pi-providers-google-vertex`, one test binary: each module is one
//! former test file (`common` holds this crate's own test data).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod decode;
mod e2e;
mod handoff;
mod parity;
mod token_flow;
