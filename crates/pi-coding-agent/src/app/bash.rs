//! User shell commands (`!cmd`, rpc `bash`): TEMPORARY until the shared executor lands.

use serde_json::Value;

use super::App;

impl App {
    /// Runs a user shell command.
    pub async fn run_user_bash(&self, _command: &str, _exclude_from_context: bool) -> Result<Value, String> {
        Err("bash is not available yet".to_owned())
    }

    /// Cancels the running user shell command.
    pub fn abort_user_bash(&self) {}
}
