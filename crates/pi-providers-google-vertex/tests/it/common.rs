//! This wire's pi 0.73.1 captures (`fixtures/pi-0.73.1-vertex`, whose
//! models.json has two mock providers: `mock-vtx` with an API key,
//! `mock-vtx-adc` with Application Default Credentials) and the test
//! service account.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use pi_providers_google_vertex::VertexEnv;
use pi_test_support::captures::Captures;
use serde_json::{Value, json};

/// The test service account (`test-service-account.json`) as JSON.
pub fn service_account() -> Value {
    let text = std::fs::read_to_string(CAPTURES.dir().join("test-service-account.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The public half of the test service account's key (PEM).
pub fn public_key_pem() -> Vec<u8> {
    std::fs::read(CAPTURES.dir().join("test-service-account.pub.pem")).unwrap()
}

/// Writes `credentials` to `dir/adc.json` and returns its path.
pub fn write_credentials(dir: &Path, credentials: &Value) -> PathBuf {
    let path = dir.join("adc.json");
    std::fs::write(&path, serde_json::to_vec_pretty(credentials).unwrap()).unwrap();
    path
}

/// The test service account with its `token_uri` at `token_url`.
pub fn service_account_at(token_url: &str) -> Value {
    let mut sa = service_account();
    sa["token_uri"] = json!(token_url);
    sa
}

/// An ADC environment: credentials file, project, location and the SDK's
/// base URL variable (the model server), nothing from the process.
pub fn adc_env(credentials: &Path, model_server: &str) -> VertexEnv {
    VertexEnv::fixed([
        (
            "GOOGLE_APPLICATION_CREDENTIALS",
            credentials.to_str().unwrap(),
        ),
        ("GOOGLE_CLOUD_PROJECT", "mock-project"),
        ("GOOGLE_CLOUD_LOCATION", "us-central1"),
        ("GOOGLE_VERTEX_BASE_URL", model_server),
    ])
}

/// A token endpoint answer.
pub fn token_answer(token: &str, expires_in: u64) -> String {
    json!({"access_token": token, "expires_in": expires_in, "token_type": "Bearer"}).to_string()
}

/// The captures of this wire.
pub const CAPTURES: Captures = Captures::new("pi-0.73.1-vertex");
