//! The user's own shell commands (`!cmd`, `!!cmd`, rpc `bash`): run with the
//! bash tool's executor, recorded as `bashExecution` messages. A command
//! that finishes while the agent is streaming is queued and added (and
//! persisted) only after the run settles, so it never lands between a tool
//! call and its result.

use pi_agent_core::{AgentMessage, ToolUpdateFn};
use pi_ai::CancellationToken;
use serde::Serialize;

use super::{App, AppError, lock};
use crate::messages::{BashExecutionMessage, CodingMessage};
use crate::tools::{ShellConfig, run_shell_command};

/// What a user shell command gave (pi's `BashResult`; serialized as rpc's
/// `bash` answer: `{output, exitCode?, cancelled, truncated, fullOutputPath?}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BashResult {
    /// The output (its tail when truncated).
    pub output: String,
    /// The exit code; none when the command was killed (pi leaves it out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Cancelled by the user.
    pub cancelled: bool,
    /// The output was cut.
    pub truncated: bool,
    /// Where the full output was saved, when it was cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_output_path: Option<String>,
}

impl App {
    /// A `!` / `!!` command typed in the editor: extensions may take it
    /// over (`user_bash`, whose result is recorded instead, as pi does);
    /// otherwise it runs as [`App::run_user_bash`]. (pi's rpc `bash`
    /// command does not ask extensions.)
    pub async fn run_editor_bash(
        &self,
        command: &str,
        exclude_from_context: bool,
        on_output: &ToolUpdateFn,
    ) -> Result<BashResult, AppError> {
        if self.extensions.has_handlers("user_bash") {
            let event = crate::extensions::UserBashEvent {
                command: command.to_owned(),
                exclude_from_context,
                cwd: self.cwd.display().to_string(),
            };
            if let Some(result) = self
                .extensions
                .emit_user_bash(event)
                .await
                .and_then(|r| r.result)
            {
                self.record_bash(command, &result, exclude_from_context);
                return Ok(result);
            }
        }
        self.run_user_bash(command, exclude_from_context, on_output)
            .await
    }

    /// Runs a user shell command and records it; `on_output` gets the output
    /// so far while it runs (the bash tool's updates: at most every 100 ms).
    pub async fn run_user_bash(
        &self,
        command: &str,
        exclude_from_context: bool,
        on_output: &ToolUpdateFn,
    ) -> Result<BashResult, AppError> {
        let custom_shell = self.settings.shell_path.as_deref();
        let shell = ShellConfig::resolve(custom_shell)
            .map_err(|_| AppError::ShellNotFound(custom_shell.unwrap_or_default().to_owned()))?;
        let cancel = CancellationToken::new();
        *lock(&self.bash_cancel) = Some(cancel.clone());
        let full_command = match &self.settings.shell_command_prefix {
            Some(prefix) => format!("{prefix}\n{command}"),
            None => command.to_owned(),
        };
        let run = run_shell_command(&shell, &self.cwd, &full_command, &cancel, on_output).await;
        *lock(&self.bash_cancel) = None;
        let run = run?;
        let result = BashResult {
            output: run.output,
            exit_code: run.exit_code,
            cancelled: run.cancelled,
            truncated: run.truncated,
            full_output_path: run.full_output_path.map(|p| p.display().to_string()),
        };
        self.record_bash(command, &result, exclude_from_context);
        Ok(result)
    }

    /// Records a shell command's result as a `bashExecution` message (held
    /// back until the run settles while one is active).
    fn record_bash(&self, command: &str, result: &BashResult, exclude_from_context: bool) {
        let message = BashExecutionMessage {
            command: command.to_owned(),
            output: result.output.clone(),
            exit_code: result.exit_code.map(i64::from),
            cancelled: result.cancelled,
            truncated: result.truncated,
            full_output_path: result.full_output_path.clone(),
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

#[cfg(test)]
mod tests {
    use super::BashResult;

    #[test]
    fn results_serialize_as_pi_writes_them() {
        let killed = BashResult {
            output: "x\n".into(),
            exit_code: None,
            cancelled: true,
            truncated: false,
            full_output_path: None,
        };
        assert_eq!(
            serde_json::to_string(&killed).unwrap(),
            r#"{"output":"x\n","cancelled":true,"truncated":false}"#
        );
        let cut = BashResult {
            exit_code: Some(2),
            cancelled: false,
            truncated: true,
            full_output_path: Some("/tmp/out".into()),
            ..killed
        };
        assert_eq!(
            serde_json::to_string(&cut).unwrap(),
            r#"{"output":"x\n","exitCode":2,"cancelled":false,"truncated":true,"fullOutputPath":"/tmp/out"}"#
        );
    }
}
