//! MCP servers as tool providers: a client on the official Rust SDK
//! (`rmcp`), built as a Rust extension on the public extension API
//! ([`McpExtension`], which the `pi` binary loads). See `docs/mcp.md`.
//!
//! - [`config`]: the `mcpServers` files (user and project), `${VAR}`
//!   expansion, definition fingerprints.
//! - [`approval`]: project servers start only once approved, remembered
//!   per project and definition.
//! - [`cache`]: each server's last tool list, offered while it starts.
//! - [`naming`]: `mcp__<server>__<tool>` names within providers' limits.
//! - [`client`] and [`http`]: one connection (stdio process or streamable
//!   HTTP), its handshake and notifications.
//! - [`server`]: one server's state, background start and restart.
//! - [`result`]: MCP results as pi tool results, truncated as pi's tools.
//! - [`tool`], [`prompt`]: tools, the resource reader and prompt commands.
//! - [`manager`]: every server and what they register.
//! - [`extension`]: the extension itself (`--no-mcp`, `/mcp`, rpc's
//!   `get_mcp_servers`).

pub mod approval;
pub mod cache;
pub mod client;
pub mod config;
pub mod extension;
pub mod http;
pub mod manager;
pub mod naming;
pub mod progress;
pub mod prompt;
pub mod result;
pub mod server;
pub mod tool;

pub use extension::McpExtension;
