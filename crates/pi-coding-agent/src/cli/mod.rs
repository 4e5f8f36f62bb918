//! The command line: flags (named as pi names them) and what they select.

mod args;
mod list_models;

pub use args::{Args, Mode, expand_short_flags};
pub use list_models::list_models;
