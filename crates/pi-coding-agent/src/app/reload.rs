//! pi's `session.reload()` for the app (`/reload`, an extension's
//! `ctx.reload()`): the extensions hear `session_shutdown` (`reload`), the
//! skills, prompt templates, context files (`AGENTS.md` / `CLAUDE.md`) and
//! `SYSTEM.md` / `APPEND_SYSTEM.md` are read again and the system prompt is
//! rebuilt from them, then `session_start` and `resources_discover` (both
//! `reload`) let the extensions add their paths again.

use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError};

use super::{App, lock};
use crate::extensions::{SessionShutdownEvent, SessionStartEvent};
use crate::resources::Resources;

impl App {
    /// Reloads what pi's `session.reload()` reloads in the app; the next
    /// turn's system prompt lists the skills and context files as they are
    /// now on disk.
    pub async fn reload(&self) {
        self.extensions
            .emit(SessionShutdownEvent {
                reason: "reload".to_owned(),
                target_session_file: None,
            })
            .await;
        self.reload_resources();
        let settings = crate::config::Settings::load(&self.agent_dir, &self.cwd).settings;
        self.auto_compaction
            .store(settings.compaction().enabled, Ordering::SeqCst);
        self.auto_retry
            .store(settings.retry().enabled, Ordering::SeqCst);
        self.extensions
            .emit(SessionStartEvent {
                reason: "reload".to_owned(),
                previous_session_file: None,
            })
            .await;
        self.discover_resources("reload").await;
    }

    /// Reads the skills, prompt templates, context files and system prompt
    /// files again (the command line's options as at start-up) and
    /// rebuilds the system prompt.
    pub fn reload_resources(&self) {
        let resources = Arc::new(Resources::load(&self.resource_options));
        resources.log_diagnostics();
        {
            let mut options = lock(&self.prompt_options);
            options.custom_prompt = resources.system_prompt.clone();
            options.append = resources.append_text();
            options.skills = resources.skills.skills.clone();
            options.context_files = resources.context_files.clone();
        }
        *self
            .resources
            .write()
            .unwrap_or_else(PoisonError::into_inner) = resources;
        self.rebuild_system_prompt();
    }
}
