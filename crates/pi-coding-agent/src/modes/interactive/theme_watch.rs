//! The custom theme file in use, watched as pi watches it (`fs.watch` in
//! pi's theme code): a cheap poll of its modification time and size on the
//! runtime; a change sends [`UiEvent::ThemeFileChanged`] and the UI loads
//! the theme again (a file that is missing or cannot be parsed for now
//! keeps the theme shown, as in pi).

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use tokio::sync::mpsc::UnboundedSender;

use super::events::UiEvent;

/// How often the file is looked at.
pub const POLL: Duration = Duration::from_millis(200);

/// The theme file to watch (`None`: a built-in theme), shared between the
/// UI, which sets it, and the poll.
pub type WatchedTheme = Arc<Mutex<Option<PathBuf>>>;

/// What identifies a version of the file.
type Stamp = Option<(Option<SystemTime>, u64)>;

async fn stamp(path: &PathBuf) -> Stamp {
    tokio::fs::metadata(path)
        .await
        .ok()
        .map(|m| (m.modified().ok(), m.len()))
}

/// Polls the watched file until the UI's channel closes.
pub async fn poll(watched: WatchedTheme, tx: UnboundedSender<UiEvent>) {
    let mut last: Option<(PathBuf, Stamp)> = None;
    loop {
        tokio::time::sleep(POLL).await;
        if tx.is_closed() {
            return;
        }
        let path = watched
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let Some(path) = path else {
            last = None;
            continue;
        };
        let now = stamp(&path).await;
        if let Some((previous_path, previous)) = &last
            && *previous_path == path
            && now.is_some()
            && now != *previous
        {
            let _ = tx.send(UiEvent::ThemeFileChanged(path.clone()));
        }
        last = Some((path, now));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_change_of_the_watched_file_is_sent_once() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("mine.json");
        std::fs::write(&file, "{}").unwrap();
        let watched: WatchedTheme = Arc::new(Mutex::new(Some(file.clone())));
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let task = tokio::spawn(poll(Arc::clone(&watched), tx));
        // The first look only records the file.
        tokio::time::sleep(POLL * 3).await;
        assert!(rx.try_recv().is_err());
        std::fs::write(&file, "{\"name\": \"mine\"}").unwrap();
        let event = tokio::time::timeout(POLL * 10, rx.recv()).await.unwrap();
        assert!(matches!(event, Some(UiEvent::ThemeFileChanged(p)) if p == file));
        tokio::time::sleep(POLL * 3).await;
        assert!(rx.try_recv().is_err());
        // A removed file keeps the theme; nothing is sent.
        std::fs::remove_file(&file).unwrap();
        tokio::time::sleep(POLL * 3).await;
        assert!(rx.try_recv().is_err());
        // Nothing watched (a built-in theme): nothing sent.
        *watched.lock().unwrap() = None;
        std::fs::write(&file, "{\"name\": \"again\"}").unwrap();
        tokio::time::sleep(POLL * 3).await;
        assert!(rx.try_recv().is_err());
        drop(rx);
        tokio::time::timeout(POLL * 5, task).await.unwrap().unwrap();
    }
}
