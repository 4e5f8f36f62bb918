//! pi's file mutation queue: `edit` and `write` calls on the same file (by
//! its real path) run one after the other, in the order they asked, so
//! parallel calls of one batch never lose each other's changes. Calls on
//! different files still run in parallel.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, PoisonError, Weak};

use pi_agent_core::ToolError;
use pi_ai::CancellationToken;
use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

use super::OPERATION_ABORTED;

type Queues = HashMap<PathBuf, Weak<AsyncMutex<()>>>;

static QUEUES: LazyLock<Mutex<Queues>> = LazyLock::new(|| Mutex::new(HashMap::new()));

/// Waits for this file's turn (first come, first served) and holds it until
/// the guard is dropped; `Operation aborted` if the call is cancelled first.
pub(crate) async fn lock_file(
    path: &Path,
    cancel: &CancellationToken,
) -> Result<OwnedMutexGuard<()>, ToolError> {
    let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let queue = {
        let mut queues = QUEUES.lock().unwrap_or_else(PoisonError::into_inner);
        queues.retain(|_, queue| queue.strong_count() > 0);
        match queues.get(&key).and_then(Weak::upgrade) {
            Some(queue) => queue,
            None => {
                let queue = Arc::new(AsyncMutex::new(()));
                queues.insert(key, Arc::downgrade(&queue));
                queue
            }
        }
    };
    tokio::select! {
        biased;
        () = cancel.cancelled() => Err(ToolError::new(OPERATION_ABORTED)),
        guard = queue.lock_owned() => Ok(guard),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_file_is_held_by_one_call_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f.txt");
        std::fs::write(&file, "x").unwrap();
        let cancel = CancellationToken::new();
        let first = lock_file(&file, &cancel).await.unwrap();
        // The same file through another spelling of its path waits.
        let other_spelling = dir.path().join(".").join("f.txt");
        let waiting = tokio::time::timeout(
            std::time::Duration::from_millis(20),
            lock_file(&other_spelling, &cancel),
        )
        .await;
        assert!(waiting.is_err());
        // Another file does not.
        let _other = lock_file(&dir.path().join("g.txt"), &cancel).await.unwrap();
        drop(first);
        let _second = lock_file(&other_spelling, &cancel).await.unwrap();
        // A cancelled wait answers pi's abort text.
        let cancelled = CancellationToken::new();
        cancelled.cancel();
        let err = lock_file(&file, &cancelled).await.unwrap_err();
        assert_eq!(err.message(), OPERATION_ABORTED);
    }
}
