//! What extensions add while the app runs: tools and commands registered
//! after load (pi's `registerTool` at any time, which refreshes the tool
//! registry), their removal, and warnings for the user whatever the mode.
//!
//! The tools and commands registered at load start the lists; a later
//! registration of a name replaces the earlier one. The app hears every
//! tool change (it activates a new tool unless `--tools` left it out, and
//! lists it in the system prompt, as pi's `refreshTools` does).

use std::sync::{Arc, Mutex, PoisonError, RwLock};

use super::api::{RegisteredCommand, RegisteredTool};

/// Hears a warning an extension gives ([`super::ExtensionHandle::warn`]).
pub type WarningListener = Arc<dyn Fn(&str) + Send + Sync>;

/// The live lists of one app's extensions.
#[derive(Default)]
pub(crate) struct Live {
    tools: RwLock<Vec<RegisteredTool>>,
    commands: RwLock<Vec<RegisteredCommand>>,
    warnings: Mutex<Vec<WarningListener>>,
}

impl Live {
    /// Starts the lists with what the extensions registered at load.
    pub(crate) fn seed(&self, tools: Vec<RegisteredTool>, commands: Vec<RegisteredCommand>) {
        *self.tools.write().unwrap_or_else(PoisonError::into_inner) = tools;
        *self
            .commands
            .write()
            .unwrap_or_else(PoisonError::into_inner) = commands;
    }

    pub(crate) fn tools(&self) -> Vec<RegisteredTool> {
        self.tools
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The tool registered last as `name`.
    pub(crate) fn tool(&self, name: &str) -> Option<RegisteredTool> {
        self.tools
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .rev()
            .find(|t| t.tool.name() == name)
            .cloned()
    }

    /// Adds `tool`, replacing any registered under its name.
    pub(crate) fn add_tool(&self, tool: RegisteredTool) {
        let mut tools = self.tools.write().unwrap_or_else(PoisonError::into_inner);
        tools.retain(|t| t.tool.name() != tool.tool.name());
        tools.push(tool);
    }

    /// Removes the tool `name`; whether there was one.
    pub(crate) fn remove_tool(&self, name: &str) -> bool {
        let mut tools = self.tools.write().unwrap_or_else(PoisonError::into_inner);
        let before = tools.len();
        tools.retain(|t| t.tool.name() != name);
        tools.len() != before
    }

    pub(crate) fn commands(&self) -> Vec<RegisteredCommand> {
        self.commands
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The command `name` (the first registered, as pi finds it).
    pub(crate) fn command(&self, name: &str) -> Option<RegisteredCommand> {
        self.commands
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .find(|c| c.name == name)
            .cloned()
    }

    /// Adds `command`, replacing any registered under its name.
    pub(crate) fn add_command(&self, command: RegisteredCommand) {
        let mut commands = self
            .commands
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        match commands.iter_mut().find(|c| c.name == command.name) {
            Some(slot) => *slot = command,
            None => commands.push(command),
        }
    }

    /// Removes the command `name`; whether there was one.
    pub(crate) fn remove_command(&self, name: &str) -> bool {
        let mut commands = self
            .commands
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        let before = commands.len();
        commands.retain(|c| c.name != name);
        commands.len() != before
    }

    pub(crate) fn on_warning(&self, listener: WarningListener) {
        self.warnings
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(listener);
    }

    /// The warning listeners (empty: the mode's UI shows warnings).
    pub(crate) fn warning_listeners(&self) -> Vec<WarningListener> {
        self.warnings
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}
