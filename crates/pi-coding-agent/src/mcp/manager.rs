//! Every configured server of one pi, and what they add to it through the
//! extension API: each ready server's allowed tools (namespaced, drawn
//! with the server's name on their card), a `read_resource` tool when it
//! has resources, and its prompts as `/` commands; all of it registered
//! again when the server's lists change, and reported by `/mcp` and the
//! `get_mcp_servers` rpc command.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Value, json};

use super::approval::Approvals;
use super::config::{McpConfig, Scope, ServerDef, Transport};
use super::naming::namespaced;
use super::prompt;
use super::server::{Server, ServerEvent, State};
use super::tool::{McpTool, ResourceTool};
use crate::extensions::{ExtensionHandle, RegisteredTool};

/// The names one server's offers are registered under.
#[derive(Debug, Default, Clone)]
struct Registered {
    /// MCP tool name -> pi tool name.
    tools: BTreeMap<String, String>,
    resource_tool: Option<String>,
    /// MCP prompt name -> command name.
    commands: BTreeMap<String, String>,
}

/// The servers of one pi.
pub struct Manager {
    servers: Vec<Arc<Server>>,
    handle: ExtensionHandle,
    cwd: PathBuf,
    agent_dir: PathBuf,
    approvals: Approvals,
    registered: Mutex<BTreeMap<String, Registered>>,
    problems: Vec<String>,
}

impl std::fmt::Debug for Manager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Manager")
            .field("servers", &self.servers)
            .finish_non_exhaustive()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The first line of `text`, cut to `max` characters.
fn first_line(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or_default().trim();
    match line.char_indices().nth(max) {
        Some((at, _)) => format!("{}...", &line[..at]),
        None => line.to_owned(),
    }
}

impl Manager {
    /// The servers `config` defines for pi in `cwd`, none started: a
    /// disabled one stays so, a project one not approved waits.
    pub fn new(
        config: McpConfig,
        handle: ExtensionHandle,
        cwd: &Path,
        agent_dir: &Path,
    ) -> Arc<Self> {
        let approvals = Approvals::new(agent_dir);
        Arc::new_cyclic(|me: &std::sync::Weak<Self>| {
            let weak = me.clone();
            let events: super::server::EventFn = Arc::new(move |server, event| {
                if let Some(manager) = weak.upgrade() {
                    manager.on_event(server, event);
                }
            });
            let servers = config
                .servers
                .into_iter()
                .map(|def| {
                    let state = if def.disabled {
                        State::Disabled
                    } else if def.scope == Scope::Project && !approvals.is_approved(cwd, &def) {
                        State::NotApproved
                    } else {
                        State::Starting
                    };
                    Server::new(def, cwd.to_path_buf(), state, Arc::clone(&events))
                })
                .collect();
            Self {
                servers,
                handle,
                cwd: cwd.to_path_buf(),
                agent_dir: agent_dir.to_path_buf(),
                approvals,
                registered: Mutex::new(BTreeMap::new()),
                problems: config.problems,
            }
        })
    }

    /// Its servers, in configuration order.
    pub fn servers(&self) -> &[Arc<Server>] {
        &self.servers
    }

    /// The configuration files that could not be read.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// Starts, in the background, every server that may start; the tools
    /// it listed last time are offered meanwhile.
    pub fn start_all(&self) {
        for server in &self.servers {
            if server.snapshot().state == State::Starting {
                self.offer_cached(server);
                server.start_in_background();
            }
        }
    }

    fn offer_cached(&self, server: &Arc<Server>) {
        if let Some(tools) = super::cache::load(&self.agent_dir, &server.def) {
            server.seed_tools(tools);
            self.register(server);
        }
    }

    /// Waits until no server is starting without a tool list to offer (a
    /// first start, or a changed definition), each at most its
    /// `startupTimeout`: what a mode without a terminal does before its
    /// first request, since a tool not listed yet cannot be offered.
    pub async fn wait_for_unlisted(&self) {
        let started = std::time::Instant::now();
        for server in &self.servers {
            while {
                let snapshot = server.snapshot();
                snapshot.state == State::Starting && snapshot.offer.tools.is_empty()
            } && started.elapsed() < server.def.startup_timeout
            {
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
        }
    }

    /// The project servers waiting for the user's approval.
    pub fn awaiting_approval(&self) -> Vec<Arc<Server>> {
        self.servers
            .iter()
            .filter(|s| s.snapshot().state == State::NotApproved)
            .cloned()
            .collect()
    }

    /// Remembers the user's approval of `server` and starts it.
    pub fn approve(&self, server: &Arc<Server>) -> Result<(), super::approval::ApprovalError> {
        self.approvals.approve(&self.cwd, &server.def)?;
        self.offer_cached(server);
        server.start_in_background();
        Ok(())
    }

    /// The server called `name`.
    pub fn server(&self, name: &str) -> Option<&Arc<Server>> {
        self.servers.iter().find(|s| s.name() == name)
    }

    /// Stops every server (on exit).
    pub async fn stop_all(&self) {
        for server in &self.servers {
            server.stop().await;
        }
    }

    fn on_event(&self, server: &Arc<Server>, event: ServerEvent) {
        match event {
            ServerEvent::Listed => {
                super::cache::save(&self.agent_dir, &server.def, &server.snapshot().offer.tools);
                self.register(server);
            }
            ServerEvent::Crashed => {
                if let State::Failed(reason) = server.snapshot().state {
                    self.handle.warn(&format!(
                        "MCP server {} {reason}; it restarts on its next use",
                        server.name()
                    ));
                }
            }
            ServerEvent::StartFailed => {
                if let State::Failed(reason) = server.snapshot().state {
                    self.handle
                        .warn(&format!("MCP server {} failed: {reason}", server.name()));
                }
            }
        }
    }

    /// Registers what `server` offers now, under the names it had before
    /// where they still apply, and removes what it no longer offers.
    fn register(&self, server: &Arc<Server>) {
        let offer = server.snapshot().offer;
        let mut all = lock(&self.registered);
        let previous = all.remove(server.name()).unwrap_or_default();
        let mut taken: HashSet<String> = self
            .handle
            .all_tools()
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        for name in previous.tools.values().chain(&previous.resource_tool) {
            taken.remove(name);
        }
        let mut next = Registered::default();
        for tool in offer
            .tools
            .iter()
            .filter(|t| server.def.tool_allowed(&t.name))
        {
            let name = previous
                .tools
                .get(tool.name.as_ref())
                .filter(|n| !taken.contains(*n))
                .cloned()
                .unwrap_or_else(|| namespaced(server.name(), &tool.name, &|n| taken.contains(n)));
            taken.insert(name.clone());
            let mcp_tool = McpTool::new(name.clone(), tool, Arc::clone(server));
            let snippet = first_line(mcp_tool_description(tool), 200);
            self.handle
                .add_tool(card(Arc::new(mcp_tool), snippet, server.name(), &tool.name));
            next.tools.insert(tool.name.to_string(), name);
        }
        if !offer.resources.is_empty() {
            let name = previous
                .resource_tool
                .clone()
                .filter(|n| !taken.contains(n))
                .unwrap_or_else(|| {
                    namespaced(server.name(), "read_resource", &|n| taken.contains(n))
                });
            let tool = ResourceTool::new(name.clone(), Arc::clone(server));
            let snippet = format!("Read a resource of the MCP server {}", server.name());
            self.handle.add_tool(card(
                Arc::new(tool),
                snippet,
                server.name(),
                "read_resource",
            ));
            next.resource_tool = Some(name);
        }
        for (mcp, name) in &previous.tools {
            if !next.tools.contains_key(mcp) {
                self.handle.unregister_tool(name);
            }
        }
        if let Some(name) = previous.resource_tool
            && next.resource_tool.as_ref() != Some(&name)
        {
            self.handle.unregister_tool(&name);
        }
        next.commands =
            prompt::register_prompts(&self.handle, server, &offer.prompts, &previous.commands);
        all.insert(server.name().to_owned(), next);
    }

    /// Every server's state and offers, as the rpc command answers them.
    pub fn report(&self) -> Value {
        let registered = lock(&self.registered).clone();
        let servers: Vec<Value> = self
            .servers
            .iter()
            .map(|server| {
                let snapshot = server.snapshot();
                let names = registered.get(server.name()).cloned().unwrap_or_default();
                let transport = match &server.def.transport {
                    Ok(Transport::Stdio { .. }) => "stdio",
                    Ok(Transport::Http { .. }) => "http",
                    Err(_) => "invalid",
                };
                let mut entry = json!({
                    "name": server.name(),
                    "scope": server.def.scope,
                    "file": server.def.file.display().to_string(),
                    "transport": transport,
                    "state": snapshot.state.name(),
                });
                if let State::Failed(reason) = &snapshot.state {
                    entry["error"] = json!(reason);
                }
                if let Some(version) = &snapshot.protocol_version {
                    entry["protocolVersion"] = json!(version);
                }
                if let Some(info) = &snapshot.server_info {
                    entry["serverInfo"] = json!(info);
                }
                entry["tools"] = names
                    .tools
                    .iter()
                    .map(|(mcp, name)| json!({"name": name, "mcpName": mcp}))
                    .chain(
                        names
                            .resource_tool
                            .iter()
                            .map(|name| json!({"name": name, "mcpName": null})),
                    )
                    .collect();
                entry["prompts"] = names
                    .commands
                    .values()
                    .map(|c| json!(format!("/{c}")))
                    .collect();
                entry["resources"] = json!(snapshot.offer.resources.len());
                entry
            })
            .collect();
        json!({"servers": servers, "problems": self.problems})
    }
}

fn mcp_tool_description(tool: &rmcp::model::Tool) -> &str {
    tool.description
        .as_deref()
        .or(tool.title.as_deref())
        .unwrap_or("MCP tool")
}

/// `tool` with its card header naming the server: `tool [server]`, then
/// the arguments in one line.
fn card(
    tool: Arc<dyn pi_agent_core::AgentTool>,
    snippet: String,
    server: &str,
    mcp_name: &str,
) -> RegisteredTool {
    let mut registered = RegisteredTool::new(tool);
    registered.prompt_snippet = Some(snippet);
    let (server, mcp_name) = (server.to_owned(), mcp_name.to_owned());
    registered.set_render_call(move |args, ctx| {
        let theme = ctx.theme;
        let header = format!(
            "{} {}",
            theme.fg("toolTitle", &theme.bold(&mcp_name)),
            theme.fg("muted", &format!("[MCP {server}]"))
        );
        let args = match args {
            Value::Object(map) if map.is_empty() => String::new(),
            Value::Null => String::new(),
            other => other.to_string(),
        };
        let width = ctx.width.max(8);
        let args: String = if args.chars().count() > width * 3 {
            args.chars().take(width * 3 - 3).collect::<String>() + "..."
        } else {
            args
        };
        Ok(if args.is_empty() {
            vec![header]
        } else {
            vec![header, theme.fg("dim", &args)]
        })
    });
    registered
}

/// A server definition in one line for the approval question: the
/// command and arguments, or the URL, as written (unexpanded: no secret
/// from the environment), and the names of the variables and headers it
/// sets (not their values).
pub fn describe(def: &ServerDef) -> String {
    match &def.transport {
        Ok(Transport::Stdio {
            command,
            args,
            env,
            cwd,
        }) => {
            let mut text = std::iter::once(command.as_str())
                .chain(args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" ");
            if !env.is_empty() {
                let keys: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
                text.push_str(&format!(" (env: {})", keys.join(", ")));
            }
            if let Some(cwd) = cwd {
                text.push_str(&format!(" (in {cwd})"));
            }
            text
        }
        Ok(Transport::Http { url, headers }) => {
            let mut text = url.clone();
            if !headers.is_empty() {
                let keys: Vec<&str> = headers.iter().map(|(k, _)| k.as_str()).collect();
                text.push_str(&format!(" (headers: {})", keys.join(", ")));
            }
            text
        }
        Err(reason) => format!("(invalid: {reason})"),
    }
}
