//! The pi coding agent as a library: the app's own message roles
//! (`bashExecution`, `custom`, `branchSummary`, `compactionSummary`) and
//! their conversion for the model, the append-only JSONL session tree,
//! compaction, the tools (read, write, edit, bash, grep, find, ls) and the
//! modes behind the `pi` binary.

/// Version of pi-rs, as `pi --version` prints it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
