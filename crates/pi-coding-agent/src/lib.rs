//! The pi coding agent as a library: the app's own message roles
//! (`bashExecution`, `custom`, `branchSummary`, `compactionSummary`) and
//! their conversion for the model, the append-only JSONL session tree,
//! compaction, the tools (read, write, edit, bash, grep, find, ls) and the
//! modes behind the `pi` binary.
//!
//! The same data is seen through three projections (see the design
//! documents): the session file keeps [`session::SessionEntry`] lines,
//! [`context::build_session_context`] rebuilds the agent transcript
//! (`Vec<AgentMessage<CodingMessage>>`) for the active leaf, and
//! [`messages::convert_to_llm`] narrows it to the `Message`s a model sees.
//!
//! The default `cli` feature adds what only the `pi` binary needs: the
//! command line ([`cli`]) and the interactive terminal UI
//! (`modes::interactive`). Without it (`default-features = false`) the
//! crate builds without clap, tracing-subscriber and the terminal crates.

pub mod app;
pub mod auth;
pub mod changelog;
#[cfg(feature = "cli")]
pub mod cli;
pub mod compaction;
pub mod config;
pub mod export;
pub mod extensions;
pub mod file_read;
pub mod file_replace;
pub mod git;
#[cfg(feature = "cli")]
pub mod keybindings;
pub mod mcp;
pub mod messages;
pub mod modes;
pub mod packages;
pub mod resources;
pub mod session;
pub mod system_prompt;
#[cfg(feature = "cli")]
pub mod themes;
pub mod tools;
pub mod user_docs;

/// The session context rebuild lives in the session layer; the old path stays.
pub use session::context;

pub use context::{
    ModelRef, SessionContext, build_session_context, build_session_context_indexed,
    session_entry_to_context_messages,
};
pub use messages::{
    CodingAgentMessage, CodingMessage, bash_execution_to_text, convert_to_llm, llm_converter,
};
pub use session::{SessionEntry, SessionError, SessionManager};

/// Version of pi-rs, as `pi --version` prints it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
