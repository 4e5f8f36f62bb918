//! The integration tests of `pi-http`, one test binary: each module is one
//! former test file.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod framing;
mod transport;
mod wire;
