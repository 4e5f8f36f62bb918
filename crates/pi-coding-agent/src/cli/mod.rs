//! The command line: flags (named as pi names them) and what they select.

mod args;

pub use args::{Args, Mode};
