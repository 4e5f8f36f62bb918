//! Tool-call ids as Mistral requires them: exactly 9 ASCII letters or
//! digits. pi keeps an id that already is one (after dropping other
//! characters) and otherwise hashes it, retrying with a counter when two ids
//! of one request would collide.

use std::cell::RefCell;
use std::collections::HashMap;

use pi_ai::short_hash;

/// Length of a Mistral tool-call id.
pub const TOOL_CALL_ID_LENGTH: usize = 9;

/// The Mistral id for `id` at collision `attempt` (pi's
/// `deriveMistralToolCallId`).
pub fn derive_tool_call_id(id: &str, attempt: u32) -> String {
    let normalized: String = id.chars().filter(char::is_ascii_alphanumeric).collect();
    if attempt == 0 && normalized.len() == TOOL_CALL_ID_LENGTH {
        return normalized;
    }
    let base = if normalized.is_empty() {
        id
    } else {
        &normalized
    };
    let seed = if attempt == 0 {
        base.to_owned()
    } else {
        format!("{base}:{attempt}")
    };
    short_hash(&seed)
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(TOOL_CALL_ID_LENGTH)
        .collect()
}

/// The id mapping of one request: the same input id always gets the same
/// Mistral id, and two input ids never share one.
#[derive(Debug, Default)]
pub struct MistralToolCallIds {
    maps: RefCell<(HashMap<String, String>, HashMap<String, String>)>,
}

impl MistralToolCallIds {
    /// An empty mapping.
    pub fn new() -> Self {
        Self::default()
    }

    /// The Mistral id of `id`.
    pub fn normalize(&self, id: &str) -> String {
        let mut maps = self.maps.borrow_mut();
        let (forward, reverse) = &mut *maps;
        if let Some(known) = forward.get(id) {
            return known.clone();
        }
        let mut attempt = 0;
        loop {
            let candidate = derive_tool_call_id(id, attempt);
            match reverse.get(&candidate) {
                Some(owner) if owner != id => attempt += 1,
                _ => {
                    forward.insert(id.to_owned(), candidate.clone());
                    reverse.insert(candidate.clone(), id.to_owned());
                    return candidate;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_hash_matches_pi() {
        // Values printed by pi 0.73.1's `shortHash` (node).
        assert_eq!(
            short_hash("toolcall:0"),
            include_str!("../tests/data/hash-toolcall0.txt").trim()
        );
    }

    #[test]
    fn nine_alphanumerics_are_kept_and_others_hashed() {
        assert_eq!(derive_tool_call_id("Ab3dE5gH7", 0), "Ab3dE5gH7");
        assert_eq!(derive_tool_call_id("Ab3-dE5_gH7", 0), "Ab3dE5gH7");
        let hashed = derive_tool_call_id("toolu_01ABCdef", 0);
        assert_eq!(hashed.len(), 9);
        assert!(hashed.chars().all(|c| c.is_ascii_alphanumeric()));
    }

    #[test]
    fn collisions_get_another_id() {
        let ids = MistralToolCallIds::new();
        let a = ids.normalize("Ab3dE5gH7");
        let b = ids.normalize("Ab3dE5gH7!");
        assert_eq!(a, "Ab3dE5gH7");
        assert_ne!(a, b);
        assert_eq!(b, derive_tool_call_id("Ab3dE5gH7!", 1));
        assert_eq!(ids.normalize("Ab3dE5gH7!"), b);
    }
}
