//! The MCP client as a built-in extension, on the public extension API
//! only: `--no-mcp` is a flag it registers; servers start from its
//! `session_start` handler in the background; the project's servers wait
//! for the user's approval (a dialog in the terminal UI, one warning line
//! elsewhere); `/mcp` (registered then, where servers are configured)
//! shows them; rpc's `get_mcp_servers` reports them; they stop at
//! `session_shutdown` when pi quits.

use std::sync::{Arc, Mutex, PoisonError};

use serde_json::json;

use super::config::McpConfig;
use super::manager::{Manager, describe};
use crate::extensions::{
    BeforeAgentStartEvent, DialogOptions, Extension, ExtensionApi, ExtensionContext,
    ExtensionError, FlagKind, NotifyLevel, SessionShutdownEvent, SessionStartEvent,
};

/// The flag that turns MCP off.
pub const NO_MCP_FLAG: &str = "no-mcp";

/// The MCP client extension.
#[derive(Debug, Default, Clone)]
pub struct McpExtension {
    manager: Slot,
}

impl McpExtension {
    /// The extension (servers are read when the first session starts).
    pub fn new() -> Self {
        Self::default()
    }
}

type Slot = Arc<Mutex<Option<Arc<Manager>>>>;

fn current(slot: &Slot) -> Option<Arc<Manager>> {
    slot.lock().unwrap_or_else(PoisonError::into_inner).clone()
}

fn failed(error: impl std::fmt::Display) -> ExtensionError {
    ExtensionError::new(error.to_string())
}

/// Reads the configuration and starts what may start; asks about or
/// reports the project servers that need approval.
fn start(slot: &Slot, ctx: &ExtensionContext) {
    let no_mcp = ctx
        .pi()
        .flag(NO_MCP_FLAG)
        .is_some_and(|v| v.as_bool() == Some(true));
    if no_mcp || current(slot).is_some() {
        return;
    }
    let Some(agent_dir) = ctx.agent_dir() else {
        return;
    };
    let config = McpConfig::load(&agent_dir, ctx.cwd());
    for problem in &config.problems {
        ctx.pi().warn(&format!("MCP configuration: {problem}"));
    }
    if config.servers.is_empty() {
        return;
    }
    let manager = Manager::new(config, ctx.pi(), ctx.cwd(), &agent_dir);
    *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(Arc::clone(&manager));
    // `/mcp` exists where servers are configured (elsewhere pi-rs's
    // commands stay pi's).
    let commands = Arc::clone(slot);
    ctx.pi().register_command(
        "mcp",
        Some("MCP servers, their state and tools (/mcp approve [name])"),
        move |args, ctx| {
            let slot = Arc::clone(&commands);
            async move { command(&slot, &args, &ctx).await }
        },
    );
    manager.start_all();
    let waiting = manager.awaiting_approval();
    if waiting.is_empty() {
        return;
    }
    if ctx.ui().is_terminal() {
        let ctx = ctx.clone();
        tokio::spawn(async move { ask_approvals(&manager, &ctx).await });
    } else {
        let names: Vec<&str> = waiting.iter().map(|s| s.name()).collect();
        ctx.pi().warn(&format!(
            "MCP: project server{} {} not started: not approved for this project; \
             approve with /mcp approve in an interactive pi here",
            if names.len() == 1 { "" } else { "s" },
            names.join(", "),
        ));
    }
}

/// Asks about each project server waiting for approval, one dialog each.
async fn ask_approvals(manager: &Manager, ctx: &ExtensionContext) {
    for server in manager.awaiting_approval() {
        let file = server.def.file.display().to_string();
        let question = format!(
            "{}\n\nfrom {file}\n\nThe answer is remembered for this project; a changed definition asks again.",
            describe(&server.def)
        );
        let yes = ctx
            .ui()
            .confirm(
                &format!("Start MCP server \"{}\"?", server.name()),
                &question,
                DialogOptions::default(),
            )
            .await;
        if yes && let Err(error) = manager.approve(&server) {
            ctx.ui()
                .notify(&format!("MCP: {error}"), Some(NotifyLevel::Error));
        }
    }
}

/// `/mcp` as text: one block per server.
pub fn status_text(manager: Option<&Manager>) -> String {
    let Some(manager) = manager else {
        return "No MCP servers configured (mcp.json in the agent dir, .mcp.json or .pi/mcp.json in the project).".to_owned();
    };
    let report = manager.report();
    let mut out = String::from("MCP servers:");
    for server in report["servers"].as_array().into_iter().flatten() {
        let str_of = |key: &str| server[key].as_str().unwrap_or_default().to_owned();
        out.push_str(&format!(
            "\n\n{} ({}, {}): {}",
            str_of("name"),
            str_of("transport"),
            if server["scope"] == "project" {
                "project"
            } else {
                "user"
            },
            str_of("state")
        ));
        if let Some(error) = server["error"].as_str() {
            out.push_str(&format!(" - {error}"));
        }
        if let Some(info) = server["serverInfo"].as_str() {
            out.push_str(&format!(
                "\n  server {info}, protocol {}",
                str_of("protocolVersion")
            ));
        }
        for tool in server["tools"].as_array().into_iter().flatten() {
            out.push_str(&format!(
                "\n  tool {}",
                tool["name"].as_str().unwrap_or_default()
            ));
        }
        for prompt in server["prompts"].as_array().into_iter().flatten() {
            out.push_str(&format!(
                "\n  prompt {}",
                prompt.as_str().unwrap_or_default()
            ));
        }
        if server["state"] == "not approved" {
            out.push_str(&format!("\n  /mcp approve {} starts it", str_of("name")));
        }
    }
    for problem in manager.problems() {
        out.push_str(&format!("\n\nProblem: {problem}"));
    }
    out
}

/// `/mcp [approve [name]]`.
async fn command(slot: &Slot, args: &str, ctx: &ExtensionContext) -> Result<(), ExtensionError> {
    let manager = current(slot);
    let mut words = args.split_whitespace();
    match words.next() {
        None => {
            ctx.ui()
                .notify(&status_text(manager.as_deref()), Some(NotifyLevel::Info));
            Ok(())
        }
        Some("approve") => {
            let Some(manager) = manager else {
                return Err(failed("No MCP servers configured"));
            };
            let name = words.next();
            let waiting: Vec<_> = manager
                .awaiting_approval()
                .into_iter()
                .filter(|s| name.is_none_or(|n| s.name() == n))
                .collect();
            if waiting.is_empty() {
                return Err(failed(match name {
                    Some(name) => format!("No MCP server \"{name}\" waits for approval"),
                    None => "No MCP server waits for approval".to_owned(),
                }));
            }
            for server in &waiting {
                manager.approve(server).map_err(failed)?;
            }
            let names: Vec<&str> = waiting.iter().map(|s| s.name()).collect();
            ctx.ui().notify(
                &format!("MCP: approved and starting {}", names.join(", ")),
                Some(NotifyLevel::Info),
            );
            Ok(())
        }
        Some(other) => Err(failed(format!(
            "Unknown /mcp subcommand \"{other}\" (use /mcp or /mcp approve [name])"
        ))),
    }
}

impl Extension for McpExtension {
    fn path(&self) -> String {
        "<mcp>".to_owned()
    }

    fn register(&self, api: &mut ExtensionApi<'_>) {
        api.register_flag(
            NO_MCP_FLAG,
            FlagKind::Boolean,
            Some("Start no MCP server (mcp.json, .mcp.json, .pi/mcp.json)"),
            Some(json!(false)),
        );
        let slot = Arc::clone(&self.manager);
        api.on::<SessionStartEvent, _, _>(move |_, ctx| {
            let slot = Arc::clone(&slot);
            async move {
                start(&slot, &ctx);
                Ok(None)
            }
        });
        // Without a terminal (print, json, rpc) the first request waits
        // for servers that have no tool list to offer yet; later runs offer
        // the cached list at once.
        let slot = Arc::clone(&self.manager);
        api.on::<BeforeAgentStartEvent, _, _>(move |_, ctx| {
            let slot = Arc::clone(&slot);
            async move {
                if let Some(manager) = current(&slot)
                    && !ctx.ui().is_terminal()
                {
                    manager.wait_for_unlisted().await;
                }
                Ok(None)
            }
        });
        let slot = Arc::clone(&self.manager);
        api.on::<SessionShutdownEvent, _, _>(move |event, _| {
            let slot = Arc::clone(&slot);
            async move {
                if event.reason == "quit"
                    && let Some(manager) = current(&slot)
                {
                    manager.stop_all().await;
                }
                Ok(None)
            }
        });
        let slot = Arc::clone(&self.manager);
        api.register_rpc_command("get_mcp_servers", move |_, _| {
            let slot = Arc::clone(&slot);
            async move {
                Ok(Some(match current(&slot) {
                    Some(manager) => manager.report(),
                    None => json!({"servers": [], "problems": []}),
                }))
            }
        });
    }
}
