//! Integration tests of the agent loop and the `Agent`, with the scripted
//! provider from pi-ai (no network). Event sequences are snapshotted.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod abort;
mod common;
mod custom_roles;
mod errors;
mod events;
mod finalize;
mod fixture;
mod hooks;
mod lifecycle;
mod prepare;
mod queues;
mod stop_after_turn;
mod terminate;
mod tools;
