//! Approvals of project servers: a server from a project's `.mcp.json` or
//! `.pi/mcp.json` starts only once the user said yes to it in that
//! project. `<agent dir>/mcp-approvals.json` remembers each yes as the
//! hash of the definition ([`super::config::ServerDef::fingerprint`]) per
//! project directory and server name; a changed definition asks again.
//! The file holds no definition (so no secret written in one) and is
//! replaced atomically (temp file beside it, fsync, rename) under pi's
//! `<file>.lock` directory lock, so two pi processes approving at once
//! both keep their answer.
//!
//! ```json
//! {"projects": {"/home/me/repo": {"files": "3f2a…"}}}
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::config::ServerDef;
use crate::config::settings::lock::FileLock;
use crate::file_replace::{ReplaceOptions, replace_file};

/// The approvals file's name in the agent dir.
pub const FILE_NAME: &str = "mcp-approvals.json";

/// Why an approval could not be saved.
#[derive(Debug, thiserror::Error)]
pub enum ApprovalError {
    /// The lock could not be taken.
    #[error("cannot lock {}: {source}", path.display())]
    Lock {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: crate::file_replace::ReplaceError,
    },
    /// The approvals could not be turned into JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct ApprovalFile {
    /// Project directory -> server name -> fingerprint.
    #[serde(default)]
    projects: BTreeMap<String, BTreeMap<String, String>>,
}

/// The approvals of one agent dir.
#[derive(Debug, Clone)]
pub struct Approvals {
    path: PathBuf,
}

/// The key of `cwd` (its real path when it has one).
fn project_key(cwd: &Path) -> String {
    std::fs::canonicalize(cwd)
        .unwrap_or_else(|_| cwd.to_path_buf())
        .display()
        .to_string()
}

impl Approvals {
    /// The approvals kept in `agent_dir`.
    pub fn new(agent_dir: &Path) -> Self {
        Self {
            path: agent_dir.join(FILE_NAME),
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read(&self) -> ApprovalFile {
        // A missing or unreadable file approves nothing.
        std::fs::read_to_string(&self.path)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default()
    }

    /// Whether `server` (as defined now) was approved in `cwd`.
    pub fn is_approved(&self, cwd: &Path, server: &ServerDef) -> bool {
        self.read()
            .projects
            .get(&project_key(cwd))
            .and_then(|servers| servers.get(&server.name))
            .is_some_and(|fingerprint| *fingerprint == server.fingerprint())
    }

    /// Remembers that the user approved `server` (as defined now) in `cwd`.
    pub fn approve(&self, cwd: &Path, server: &ServerDef) -> Result<(), ApprovalError> {
        if let Some(dir) = self.path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _lock = FileLock::acquire(&self.path).map_err(|source| ApprovalError::Lock {
            path: self.path.clone(),
            source,
        })?;
        let mut file = self.read();
        file.projects
            .entry(project_key(cwd))
            .or_default()
            .insert(server.name.clone(), server.fingerprint());
        let text = serde_json::to_string_pretty(&file)? + "\n";
        replace_file(&self.path, ReplaceOptions::PRIVATE_FILE, text.as_bytes()).map_err(
            |source| ApprovalError::Write {
                path: self.path.clone(),
                source,
            },
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::config::{McpConfig, Scope};

    fn server(command: &str) -> ServerDef {
        let mut config = McpConfig::default();
        config.add_file(
            Path::new(".mcp.json"),
            Scope::Project,
            &format!(r#"{{"mcpServers": {{"s": {{"command": "{command}"}}}}}}"#),
        );
        config.servers.remove(0)
    }

    #[test]
    fn an_approval_holds_for_its_project_and_definition_only() {
        let agent = tempfile::tempdir().unwrap();
        let (one, two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let approvals = Approvals::new(agent.path());
        assert!(!approvals.is_approved(one.path(), &server("a")));
        approvals.approve(one.path(), &server("a")).unwrap();
        assert!(approvals.is_approved(one.path(), &server("a")));
        assert!(
            !approvals.is_approved(two.path(), &server("a")),
            "other project"
        );
        assert!(!approvals.is_approved(one.path(), &server("b")), "changed");
        approvals.approve(two.path(), &server("b")).unwrap();
        assert!(approvals.is_approved(one.path(), &server("a")), "kept");
        let text = std::fs::read_to_string(approvals.path()).unwrap();
        assert!(!text.contains("\"a\""), "no definition in the file: {text}");
        let mode = std::fs::metadata(approvals.path()).unwrap();
        assert_eq!(
            std::os::unix::fs::PermissionsExt::mode(&mode.permissions()) & 0o077,
            0
        );
        assert!(!agent.path().join("mcp-approvals.json.lock").exists());
    }
}
