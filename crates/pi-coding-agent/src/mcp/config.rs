//! MCP server definitions in the `mcpServers` JSON shape Claude Code, Codex,
//! Gemini CLI and Cursor read: `<agent dir>/mcp.json` (trusted), then the
//! project's `.mcp.json` and `.pi/mcp.json` (approved per server before
//! they start). A later file's server of the same name replaces an
//! earlier one's.
//!
//! ```json
//! {"mcpServers": {
//!   "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
//!             "env": {"TOKEN": "${MY_TOKEN}"}, "cwd": "sub"},
//!   "remote": {"url": "http://127.0.0.1:3001/mcp",
//!              "headers": {"Authorization": "Bearer ${REMOTE_TOKEN}"}},
//!   "off": {"command": "x", "disabled": true},
//!   "some": {"command": "y", "includeTools": ["a", "b"], "excludeTools": ["b"]}
//! }}
//! ```
//!
//! `${VAR}` and `${VAR:-default}` in `command`, `args`, `env`, `cwd`,
//! `url` and `headers` are read from the environment when the server
//! starts, so secrets stay out of the file; the expanded values are never
//! logged or saved.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};

/// Where a definition comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Scope {
    /// `<agent dir>/mcp.json`: the user's own, trusted.
    User,
    /// `.mcp.json` or `.pi/mcp.json` of the project: started only once the
    /// user approved it.
    Project,
}

/// How pi-rs talks to a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A process spawned with pipes for stdin and stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to pi's environment (values unexpanded).
        env: Vec<(String, String)>,
        /// Its working directory (relative: to pi's), unexpanded.
        cwd: Option<String>,
    },
    /// Streamable HTTP.
    Http {
        /// The endpoint (unexpanded).
        url: String,
        /// Headers sent with every request (values unexpanded).
        headers: Vec<(String, String)>,
    },
}

/// One server as configured.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerDef {
    /// Its name (the key in `mcpServers`).
    pub name: String,
    /// Whose file it is in.
    pub scope: Scope,
    /// That file.
    pub file: PathBuf,
    /// The definition as written (what an approval is for).
    pub raw: Value,
    /// How to reach it; `Err`: why the definition cannot be used.
    pub transport: Result<Transport, DefError>,
    /// `"disabled": true` (or `"enabled": false`).
    pub disabled: bool,
    /// `includeTools`: only these tools (`None`: all).
    pub include_tools: Option<Vec<String>>,
    /// `excludeTools`: never these tools.
    pub exclude_tools: Vec<String>,
    /// `timeout` (ms): how long one tool call may take.
    pub call_timeout: Duration,
    /// `startupTimeout` (ms): how long the start (spawn, handshake, lists)
    /// may take.
    pub startup_timeout: Duration,
}

/// Why a server's definition cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DefError {
    /// The definition is not a JSON object.
    #[error("a server's definition must be an object")]
    NotAnObject,
    /// `"type": "sse"`, the old transport.
    #[error("the HTTP+SSE transport (\"type\": \"sse\") is not supported; use streamable HTTP")]
    SseTransport,
    /// A `type` that names no transport.
    #[error("unknown transport type \"{0}\"")]
    UnknownType(String),
    /// Neither `command` nor `url`.
    #[error("needs \"command\" (stdio) or \"url\" (streamable HTTP)")]
    NoCommandOrUrl,
    /// An array (the field named) holds something else than strings.
    #[error("{0} must hold strings")]
    NotStrings(&'static str),
    /// The field named is no array.
    #[error("{0} must be an array of strings")]
    NotAnArray(&'static str),
    /// A value of the object named is no string (nor number or boolean).
    #[error("{field}.{key} must be a string")]
    NotAString {
        /// The object (`env`, `headers`).
        field: &'static str,
        /// The key whose value is wrong.
        key: String,
    },
    /// The field named is no object.
    #[error("{0} must be an object of strings")]
    NotAStringMap(&'static str),
}

/// A tool call's time limit when `timeout` is not set (Gemini CLI's).
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(600);
/// A server start's time limit when `startupTimeout` is not set.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

impl ServerDef {
    /// Whether tool `name` may be offered to the model.
    pub fn tool_allowed(&self, name: &str) -> bool {
        self.include_tools
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == name))
            && !self.exclude_tools.iter().any(|n| n == name)
    }

    /// A hash of the definition as written (keys sorted), what an approval
    /// remembers: a changed definition asks again; the environment's
    /// values are not part of it.
    pub fn fingerprint(&self) -> String {
        let text = canonical(&self.raw).to_string();
        let digest = ring::digest::digest(&ring::digest::SHA256, text.as_bytes());
        digest.as_ref().iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// `value` with every object's keys sorted.
fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), canonical(&map[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// What the configuration files hold.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct McpConfig {
    /// The servers, in file order (a replaced one at its first place).
    pub servers: Vec<ServerDef>,
    /// Files that could not be read, one line each.
    pub problems: Vec<String>,
}

/// The files read, in order, with their scope.
pub fn config_files(agent_dir: &Path, cwd: &Path) -> [(PathBuf, Scope); 3] {
    [
        (agent_dir.join("mcp.json"), Scope::User),
        (cwd.join(".mcp.json"), Scope::Project),
        (cwd.join(".pi").join("mcp.json"), Scope::Project),
    ]
}

impl McpConfig {
    /// Reads the user's and the project's files (missing ones are empty).
    pub fn load(agent_dir: &Path, cwd: &Path) -> Self {
        let mut config = Self::default();
        for (file, scope) in config_files(agent_dir, cwd) {
            let text = match std::fs::read_to_string(&file) {
                Ok(text) => text,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => {
                    config.problems.push(format!("{}: {e}", file.display()));
                    continue;
                }
            };
            config.add_file(&file, scope, &text);
        }
        config
    }

    /// Adds the servers of one file's `text`.
    pub fn add_file(&mut self, file: &Path, scope: Scope, text: &str) {
        let root: Value = match serde_json::from_str(text) {
            Ok(root) => root,
            Err(e) => {
                self.problems.push(format!("{}: {e}", file.display()));
                return;
            }
        };
        let Some(servers) = root.get("mcpServers") else {
            return;
        };
        let Some(servers) = servers.as_object() else {
            self.problems
                .push(format!("{}: mcpServers is not an object", file.display()));
            return;
        };
        for (name, raw) in servers {
            let def = parse_server(name, scope, file, raw);
            match self.servers.iter_mut().find(|s| s.name == *name) {
                Some(slot) => *slot = def,
                None => self.servers.push(def),
            }
        }
    }
}

fn strings(value: Option<&Value>, key: &'static str) -> Result<Vec<String>, DefError> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or(DefError::NotStrings(key))
            })
            .collect(),
        Some(_) => Err(DefError::NotAnArray(key)),
    }
}

fn string_map(
    value: Option<&Value>,
    field: &'static str,
) -> Result<Vec<(String, String)>, DefError> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                Value::Number(n) => Ok((k.clone(), n.to_string())),
                Value::Bool(b) => Ok((k.clone(), b.to_string())),
                _ => Err(DefError::NotAString {
                    field,
                    key: k.clone(),
                }),
            })
            .collect(),
        Some(_) => Err(DefError::NotAStringMap(field)),
    }
}

fn millis(map: &Map<String, Value>, key: &str, default: Duration) -> Duration {
    map.get(key)
        .and_then(Value::as_u64)
        .filter(|ms| *ms > 0)
        .map_or(default, Duration::from_millis)
}

fn transport(map: &Map<String, Value>) -> Result<Transport, DefError> {
    let kind = map.get("type").and_then(Value::as_str);
    let command = map.get("command").and_then(Value::as_str);
    let url = map.get("url").and_then(Value::as_str);
    match (kind, command, url) {
        (Some("sse"), _, _) => Err(DefError::SseTransport),
        (Some("stdio") | None, Some(command), _) => Ok(Transport::Stdio {
            command: command.to_owned(),
            args: strings(map.get("args"), "args")?,
            env: string_map(map.get("env"), "env")?,
            cwd: map.get("cwd").and_then(Value::as_str).map(str::to_owned),
        }),
        (Some("http" | "streamable-http" | "streamableHttp") | None, None, Some(url)) => {
            Ok(Transport::Http {
                url: url.to_owned(),
                headers: string_map(map.get("headers"), "headers")?,
            })
        }
        (Some(other), _, _) if !["stdio", "http", "streamable-http"].contains(&other) => {
            Err(DefError::UnknownType(other.to_owned()))
        }
        _ => Err(DefError::NoCommandOrUrl),
    }
}

fn parse_server(name: &str, scope: Scope, file: &Path, raw: &Value) -> ServerDef {
    let empty = Map::new();
    let map = raw.as_object().unwrap_or(&empty);
    let transport = if raw.is_object() {
        transport(map)
    } else {
        Err(DefError::NotAnObject)
    };
    let include_tools = match map.get("includeTools") {
        None | Some(Value::Null) => Ok(None),
        some => strings(some, "includeTools").map(Some),
    };
    let exclude_tools = strings(map.get("excludeTools"), "excludeTools");
    let (transport, include_tools, exclude_tools) = match (transport, include_tools, exclude_tools)
    {
        (Ok(t), Ok(i), Ok(e)) => (Ok(t), i, e),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => (Err(e), None, Vec::new()),
    };
    ServerDef {
        name: name.to_owned(),
        scope,
        file: file.to_path_buf(),
        raw: raw.clone(),
        transport,
        disabled: map.get("disabled").and_then(Value::as_bool) == Some(true)
            || map.get("enabled").and_then(Value::as_bool) == Some(false),
        include_tools,
        exclude_tools,
        call_timeout: millis(map, "timeout", DEFAULT_CALL_TIMEOUT),
        startup_timeout: millis(map, "startupTimeout", DEFAULT_STARTUP_TIMEOUT),
    }
}

/// A `${VAR}` the environment does not have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("environment variable {0} is not set")]
pub struct MissingVariable(pub String);

/// `text` with `${VAR}` and `${VAR:-default}` replaced by `lookup(VAR)`
/// (a `$` not followed by `{` stays).
pub fn expand(
    text: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<String, MissingVariable> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[at..]);
            return Ok(out);
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        match (lookup(name).filter(|v| !v.is_empty()), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => return Err(MissingVariable(name.to_owned())),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// [`expand`] from the process environment.
pub fn expand_env(text: &str) -> Result<String, MissingVariable> {
    expand(text, &|name| std::env::var(name).ok())
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
