//! The pi 0.73.1 captures of this wire (`fixtures/pi-0.73.1-azure`, made by
//! `fixtures/capture/responses_family_scenarios.py`): their folders and
//! sessions, and the mock models (`models.json` there, provider
//! `mock-az`) as pi reads a models.json entry.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use pi_ai::Model;
use pi_test_support::captures::{CapturedSession as Session, Captures};
use pi_test_support::fixtures::rebase;

/// The mock provider of the captures.
pub const PROVIDER: &str = "mock-az";

/// [`model`] served by the mock server at `server_url`.
pub fn model_at(id: &str, server_url: &str) -> Model {
    let mut model = model(id);
    model.base_url = rebase(&model.base_url, server_url);
    model
}

/// The captures of this wire.
pub const CAPTURES: Captures = Captures::new("pi-0.73.1-azure");

/// Model `id` of `mock-az`, with pi's defaults for unset fields.
pub fn model(id: &str) -> Model {
    CAPTURES.model(PROVIDER, id)
}

/// The API key of `mock-az`.
pub fn api_key() -> String {
    CAPTURES.api_key(PROVIDER)
}

/// `fixtures/pi-0.73.1-azure`.
pub fn captures_dir() -> PathBuf {
    CAPTURES.dir()
}

/// The capture folders, sorted.
pub fn capture_folders() -> Vec<String> {
    CAPTURES.folders()
}

/// Reads the session of capture `folder`.
pub fn session(folder: &str) -> Session {
    CAPTURES.session(folder)
}

/// The environment assignments in front of `pi` in a capture's `command.txt`.
pub fn command_env(folder: &str) -> Vec<(String, String)> {
    CAPTURES.command_env(folder)
}

/// The `provider/model` given to `--model` in a capture's `command.txt`.
pub fn command_model(folder: &str) -> (String, String) {
    CAPTURES.command_model(folder)
}
