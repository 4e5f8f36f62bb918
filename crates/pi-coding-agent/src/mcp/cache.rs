//! The tools each server listed last time, kept per definition
//! (`<agent dir>/mcp-cache/<fingerprint>.json`), so that pi offers a
//! server's tools from its first request on, while the server still
//! starts in the background: the model's first request has the same tools
//! (and the same system prompt) as the next ones, and a prompt that calls
//! one of them waits for that server only. The real list replaces the
//! cached one once the server answers. Written atomically (temp file
//! beside it, fsync, rename); a file that cannot be read is no cache.

use std::path::{Path, PathBuf};

use rmcp::model::Tool;

use super::config::ServerDef;
use crate::file_replace::{ReplaceOptions, replace_file};

/// The cache folder's name in the agent dir.
pub const DIR_NAME: &str = "mcp-cache";

fn file(agent_dir: &Path, def: &ServerDef) -> PathBuf {
    agent_dir
        .join(DIR_NAME)
        .join(format!("{}.json", def.fingerprint()))
}

/// The tools `def` listed last time, if known.
pub fn load(agent_dir: &Path, def: &ServerDef) -> Option<Vec<Tool>> {
    let text = std::fs::read_to_string(file(agent_dir, def)).ok()?;
    serde_json::from_str(&text).ok()
}

/// Remembers `tools` as what `def` lists (nothing is written when they
/// did not change).
pub fn save(agent_dir: &Path, def: &ServerDef, tools: &[Tool]) {
    if load(agent_dir, def).is_some_and(|cached| cached == tools) {
        return;
    }
    let path = file(agent_dir, def);
    let Ok(text) = serde_json::to_string(tools) else {
        return;
    };
    let written = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .map_err(|e| e.to_string())
        .and_then(|()| {
            replace_file(&path, ReplaceOptions::PRIVATE_FILE, text.as_bytes())
                .map(|_| ())
                .map_err(|e| e.to_string())
        });
    if let Err(error) = written {
        tracing::debug!(server = %def.name, "cannot cache the MCP tool list: {error}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::config::{McpConfig, Scope};
    use serde_json::json;

    #[test]
    fn a_saved_list_loads_for_the_same_definition_only() {
        let agent = tempfile::tempdir().unwrap();
        let mut config = McpConfig::default();
        config.add_file(
            Path::new("mcp.json"),
            Scope::User,
            r#"{"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}"#,
        );
        let tools: Vec<Tool> = serde_json::from_value(json!([
            {"name": "t", "description": "d", "inputSchema": {"type": "object"}}
        ]))
        .unwrap();
        assert_eq!(load(agent.path(), &config.servers[0]), None);
        save(agent.path(), &config.servers[0], &tools);
        assert_eq!(load(agent.path(), &config.servers[0]), Some(tools));
        assert_eq!(load(agent.path(), &config.servers[1]), None);
    }
}
