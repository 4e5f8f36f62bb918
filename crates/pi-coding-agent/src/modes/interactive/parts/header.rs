//! The header part (pi's `headerContainer`): `pi v<version>` and the key
//! hints. It is the chat's first block, so it is committed into the
//! scrollback first and printed again with the chat (a session switch, a
//! tree move, `/new`).

use crate::modes::interactive::blocks::Notice;

/// The startup header.
#[derive(Clone)]
pub struct Header {
    version: String,
    /// The key bindings the hints name.
    pub keys: std::sync::Arc<pi_tui::keybindings::Keybindings>,
    /// An extension's header (pi's `setHeader`), drawn instead.
    pub custom: Option<crate::extensions::HeaderFn>,
    /// `quietStartup` without `--verbose`: no built-in header and no
    /// loaded-resources listing.
    pub quiet: bool,
}

impl Default for Header {
    fn default() -> Self {
        Self {
            version: crate::VERSION.to_owned(),
            keys: std::sync::Arc::new(crate::keybindings::defaults()),
            custom: None,
            quiet: false,
        }
    }
}

impl Header {
    /// The header as the chat's first block.
    pub fn block(&self) -> Notice {
        match &self.custom {
            Some(header) => Notice::CustomHeader(std::sync::Arc::clone(header)),
            None => Notice::Header {
                version: self.version.clone(),
                keys: std::sync::Arc::clone(&self.keys),
            },
        }
    }

    /// The chat's first block: [`Header::block`], unless the startup is
    /// quiet and no extension set a header (pi's empty header then).
    pub fn shown_block(&self) -> Option<Notice> {
        (!self.quiet || self.custom.is_some()).then(|| self.block())
    }
}
