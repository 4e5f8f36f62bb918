//! The `pi` command-line coding agent.

use std::process::ExitCode;

/// mimalloc: the allocation-heavy paths (loading a long session, decoding
/// a stream) spend a third of their time in glibc's malloc and free.
/// `main` first tells it to release freed pages at once ([`pi_alloc`]).
#[global_allocator]
static ALLOCATOR: pi_alloc::MiMalloc = pi_alloc::MiMalloc;

fn main() -> ExitCode {
    pi_alloc::release_freed_memory_at_once();
    // The built-in extensions: the MCP client (docs/mcp.md).
    let mut builtin = pi_coding_agent::extensions::ExtensionSet::default();
    builtin.push(pi_coding_agent::mcp::McpExtension::new());
    pi_coding_agent::cli::run_main(builtin)
}
