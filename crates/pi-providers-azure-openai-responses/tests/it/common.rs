//! This wire's pi 0.73.1 captures (`fixtures/pi-0.73.1-azure`, made by
//! `fixtures/capture/responses_family_scenarios.py`; mock provider `mock-az`).

use pi_test_support::captures::CapturedWire;

/// The captures of this wire and their mock provider.
pub const CAPTURES: CapturedWire = CapturedWire::new("pi-0.73.1-azure", "mock-az");
