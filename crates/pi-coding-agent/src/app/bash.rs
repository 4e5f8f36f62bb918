//! The user's own shell commands (`!cmd`, `!!cmd`, rpc `bash`): run with the
//! bash tool's executor, recorded as `bashExecution` messages. A command
//! that finishes while the agent is streaming is queued and added (and
//! persisted) only after the run settles, so it never lands between a tool
//! call and its result.

use pi_agent_core::AgentMessage;
use pi_ai::CancellationToken;
use serde_json::{Value, json};

use super::{App, AppError, lock};
use crate::messages::{BashExecutionMessage, CodingMessage};
use crate::tools::{ShellConfig, run_shell_command};

impl App {
    /// Runs a user shell command and records it; returns pi's `BashResult`
    /// (`{output, exitCode, cancelled, truncated, fullOutputPath?}`).
    pub async fn run_user_bash(
        &self,
        command: &str,
        exclude_from_context: bool,
    ) -> Result<Value, AppError> {
        let custom_shell = self.settings.shell_path.as_deref();
        let shell = ShellConfig::resolve(custom_shell)
            .map_err(|_| AppError::ShellNotFound(custom_shell.unwrap_or_default().to_owned()))?;
        let cancel = CancellationToken::new();
        *lock(&self.bash_cancel) = Some(cancel.clone());
        let full_command = match &self.settings.shell_command_prefix {
            Some(prefix) => format!("{prefix}\n{command}"),
            None => command.to_owned(),
        };
        let run = run_shell_command(&shell, &self.cwd, &full_command, &cancel).await;
        *lock(&self.bash_cancel) = None;
        let run = run?;
        let full_output_path = run
            .full_output_path
            .as_ref()
            .map(|p| p.display().to_string());
        let message = BashExecutionMessage {
            command: command.to_owned(),
            output: run.output.clone(),
            exit_code: run.exit_code.map(i64::from),
            cancelled: run.cancelled,
            truncated: run.truncated,
            full_output_path: full_output_path.clone(),
            timestamp: pi_ai::now_ms(),
            exclude_from_context: exclude_from_context.then_some(true),
            extra: pi_ai::ExtraFields::new(),
        };
        let message = AgentMessage::Custom(CodingMessage::BashExecution(message));
        if self.agent.is_streaming() {
            lock(&self.pending_bash).push(message);
        } else {
            self.record(message);
        }
        // pi leaves `exitCode` out when the command was killed.
        let mut result = json!({"output": run.output});
        if let Some(code) = run.exit_code {
            result["exitCode"] = json!(code);
        }
        result["cancelled"] = json!(run.cancelled);
        result["truncated"] = json!(run.truncated);
        if let Some(path) = full_output_path {
            result["fullOutputPath"] = json!(path);
        }
        Ok(result)
    }

    /// Cancels the running user shell command, if any.
    pub fn abort_user_bash(&self) {
        if let Some(token) = lock(&self.bash_cancel).as_ref() {
            token.cancel();
        }
    }

    /// Adds a message to the transcript and the session file.
    fn record(&self, message: AgentMessage<CodingMessage>) {
        if let Err(e) = self.session().append_message(message.clone()) {
            tracing::error!("cannot save the shell command to the session file: {e}");
        }
        self.agent.append_message(message);
    }

    /// Records the shell commands that finished during the last run.
    pub(crate) fn flush_pending_bash(&self) {
        let pending = std::mem::take(&mut *lock(&self.pending_bash));
        for message in pending {
            self.record(message);
        }
    }
}
