//! pi-ai's integration tests, one test binary (`it`; `cargo test -p pi-ai
//! --test it event_shape::` runs a module).

mod event_shape;
mod message_roundtrip;
