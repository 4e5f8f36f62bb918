//! The session picker's store backed by the app: the session files on
//! disk (listing every folder's, renaming through the open session when it
//! is the current one, deleting to the trash when there is one).

use std::path::Path;
use std::sync::Arc;

use super::session::{SessionStore, StoreError};
use crate::app::App;
use crate::session::{SessionInfo, SessionManager};

/// The session picker's store: this app's session files.
pub struct AppStore {
    app: Arc<App>,
}

impl AppStore {
    /// The store of `app`'s session files.
    pub fn new(app: Arc<App>) -> Self {
        Self { app }
    }
}

impl SessionStore for AppStore {
    fn list_all(&self) -> Vec<SessionInfo> {
        crate::session::list_all_sessions(None).unwrap_or_else(|e| {
            tracing::warn!("cannot list sessions: {e}");
            Vec::new()
        })
    }

    fn rename(&self, path: &Path, name: &str) -> Result<(), StoreError> {
        let mut session = self.app.session();
        if session.session_file() == Some(path) {
            session.append_session_info(name)?;
            return Ok(());
        }
        drop(session);
        let mut other = SessionManager::open(path, None)?;
        other.append_session_info(name)?;
        Ok(())
    }

    fn delete(&self, path: &Path) -> Result<bool, StoreError> {
        let trashed = std::process::Command::new("trash")
            .arg("--")
            .arg(path)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if trashed && !path.exists() {
            return Ok(true);
        }
        std::fs::remove_file(path)?;
        Ok(false)
    }
}
