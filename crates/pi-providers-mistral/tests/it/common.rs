//! This wire's pi 0.73.1 captures (`fixtures/pi-0.73.1-mistral`; mock
//! provider `mock-mis`).

use pi_test_support::captures::CapturedWire;

/// The captures of this wire and their mock provider.
pub const CAPTURES: CapturedWire = CapturedWire::new("pi-0.73.1-mistral", "mock-mis");
