//! The header part (pi's `headerContainer`): `pi v<version>` and the key
//! hints. It is the chat's first block, so it is committed into the
//! scrollback first and printed again with the chat (a session switch, a
//! tree move, `/new`).

use crate::modes::interactive::blocks::Notice;

/// The startup header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    version: String,
}

impl Default for Header {
    fn default() -> Self {
        Self {
            version: crate::VERSION.to_owned(),
        }
    }
}

impl Header {
    /// The header as the chat's first block.
    pub fn block(&self) -> Notice {
        Notice::Header {
            version: self.version.clone(),
        }
    }
}
