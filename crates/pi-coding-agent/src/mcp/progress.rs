//! Progress notifications routed to the tool call they belong to. A server
//! may send a call's first notification before the client has registered a
//! listener for its token (the request is written before the SDK hands the
//! token back); such early notifications are kept, a bounded number, and
//! replayed in order when the listener arrives.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, PoisonError};

use super::client::ProgressFn;

/// Early notifications kept for tokens without a listener yet.
const EARLY_LIMIT: usize = 64;

/// One notification: `(progress, total, message)`.
type Note = (f64, Option<f64>, Option<String>);

/// Listeners by progress token, and notifications that came first.
#[derive(Default)]
pub struct ProgressRouter {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    listeners: HashMap<String, ProgressFn>,
    early: VecDeque<(String, Note)>,
}

impl ProgressRouter {
    /// Hands a notification for `token` to its listener, or keeps it for
    /// the listener to come (the oldest kept one dropped past the limit).
    pub fn deliver(&self, token: String, note: Note) {
        let listener = {
            let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
            match inner.listeners.get(&token) {
                Some(listener) => listener.clone(),
                None => {
                    if inner.early.len() == EARLY_LIMIT {
                        inner.early.pop_front();
                    }
                    inner.early.push_back((token, note));
                    return;
                }
            }
        };
        listener(note.0, note.1, note.2);
    }

    /// Registers `listener` for `token` and replays what came for it first.
    pub fn listen(&self, token: String, listener: ProgressFn) {
        let early: Vec<Note> = {
            let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
            let (mine, others) = std::mem::take(&mut inner.early)
                .into_iter()
                .partition::<VecDeque<_>, _>(|(t, _)| *t == token);
            inner.early = others;
            inner.listeners.insert(token, listener.clone());
            mine.into_iter().map(|(_, note)| note).collect()
        };
        for note in early {
            listener(note.0, note.1, note.2);
        }
    }

    /// Removes the listener of `token`.
    pub fn stop(&self, token: &str) {
        self.inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .listeners
            .remove(token);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn recorder() -> (ProgressFn, Arc<Mutex<Vec<f64>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        let f: ProgressFn = Arc::new(move |p, _, _| sink.lock().unwrap().push(p));
        (f, seen)
    }

    #[test]
    fn notifications_before_the_listener_are_replayed_in_order() {
        let router = ProgressRouter::default();
        router.deliver("1".into(), (1.0, Some(3.0), None));
        router.deliver("2".into(), (9.0, None, None));
        let (f, seen) = recorder();
        router.listen("1".into(), f);
        router.deliver("1".into(), (2.0, Some(3.0), None));
        assert_eq!(*seen.lock().unwrap(), [1.0, 2.0]);
        router.stop("1");
        router.deliver("1".into(), (3.0, Some(3.0), None));
        assert_eq!(*seen.lock().unwrap(), [1.0, 2.0]);
    }

    #[test]
    fn early_notifications_are_bounded() {
        let router = ProgressRouter::default();
        for i in 0..200 {
            router.deliver("x".into(), (f64::from(i), None, None));
        }
        let (f, seen) = recorder();
        router.listen("x".into(), f);
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), EARLY_LIMIT);
        assert_eq!(seen.first(), Some(&f64::from(200 - 64)));
    }
}
