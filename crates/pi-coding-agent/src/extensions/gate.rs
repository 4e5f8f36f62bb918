//! Extension commands being answered: a run that an out-of-process
//! extension starts from a command (pi's `sendUserMessage`, which does not
//! wait for the run) begins once the command's answer is out, as in pi.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How many commands are being answered.
#[derive(Default)]
pub(crate) struct CommandGate {
    running: AtomicUsize,
    answered: tokio::sync::Notify,
}

/// A command in progress until dropped (after its answer was written).
pub struct CommandGuard(Arc<CommandGate>);

impl std::fmt::Debug for CommandGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandGuard").finish_non_exhaustive()
    }
}

impl Drop for CommandGuard {
    fn drop(&mut self) {
        if self.0.running.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.answered.notify_waiters();
        }
    }
}

impl CommandGate {
    /// Marks a command in progress.
    pub(crate) fn enter(self: &Arc<Self>) -> CommandGuard {
        self.running.fetch_add(1, Ordering::SeqCst);
        CommandGuard(Arc::clone(self))
    }

    /// Waits until no command is in progress.
    pub(crate) async fn answered(&self) {
        loop {
            let answered = self.answered.notified();
            tokio::pin!(answered);
            answered.as_mut().enable();
            if self.running.load(Ordering::SeqCst) == 0 {
                return;
            }
            answered.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn waits_for_every_command_in_progress() {
        let gate = Arc::new(CommandGate::default());
        gate.answered().await;
        let first = gate.enter();
        let second = gate.enter();
        let waiter = tokio::spawn({
            let gate = Arc::clone(&gate);
            async move { gate.answered().await }
        });
        drop(first);
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished());
        drop(second);
        tokio::time::timeout(std::time::Duration::from_secs(5), waiter)
            .await
            .unwrap()
            .unwrap();
    }
}
