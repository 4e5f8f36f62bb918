//! Ids and timestamps in pi's formats.

use uuid::Uuid;

/// A new short entry id: the first 8 hex digits of a random (v4) UUID, drawn
/// again while `taken` says it exists (up to 100 tries, then a full UUID),
/// as pi's `generateId` does.
pub fn generate_entry_id(taken: impl Fn(&str) -> bool) -> String {
    for _ in 0..100 {
        let uuid = Uuid::new_v4().to_string();
        let short = &uuid[..8];
        if !taken(short) {
            return short.to_owned();
        }
    }
    Uuid::new_v4().to_string()
}

/// A new session id: a time-ordered (v7) UUID, as pi 0.73 writes in headers.
pub fn new_session_id() -> String {
    Uuid::now_v7().to_string()
}

/// The current time as pi writes it: ISO 8601 in UTC with milliseconds,
/// e.g. `2026-11-29T23:54:11.135Z`.
pub fn now_iso() -> String {
    chrono::Utc::now()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}
