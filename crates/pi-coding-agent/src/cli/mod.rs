//! The command line: flags (named as pi names them) and what they select.

mod args;
mod config;
mod entry;
mod help;
mod list_models;
mod script_host;
mod unknown;

pub use args::{Args, Mode, expand_short_flags, invalid_thinking_warning};
pub(crate) use config::config_command;
pub use entry::run_main;
pub use help::extension_flags_help;
pub use list_models::list_models;
pub use unknown::{Screened, screen};
