//! Notifications fired from code that cannot wait (a model or thinking
//! level changed inside a synchronous call): queued and delivered in
//! order by one task, and drained before the next awaited event, so
//! handlers hear them in the order they happened.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use futures::future::BoxFuture;

use super::events::Event;
use super::runner::ExtensionRunner;

/// The queue of pending notifications.
#[derive(Default)]
pub(crate) struct Notifier {
    queue: Mutex<VecDeque<BoxFuture<'static, ()>>>,
    running: AtomicBool,
    gate: tokio::sync::Mutex<()>,
}

impl Notifier {
    fn pop(&self) -> Option<BoxFuture<'static, ()>> {
        self.queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop_front()
    }

    /// Waits until every queued notification was delivered.
    pub(crate) async fn flush(&self) {
        while self.running.load(Ordering::SeqCst) {
            drop(self.gate.lock().await);
            tokio::task::yield_now().await;
        }
    }
}

async fn drain(runner: Arc<ExtensionRunner>) {
    let notifier = &runner.notifier;
    let _gate = notifier.gate.lock().await;
    loop {
        while let Some(next) = notifier.pop() {
            next.await;
        }
        notifier.running.store(false, Ordering::SeqCst);
        // A notification queued after the last pop, before the flag
        // dropped, started no drainer: take it here.
        let pending = !notifier
            .queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_empty();
        if !pending || notifier.running.swap(true, Ordering::SeqCst) {
            return;
        }
    }
}

impl ExtensionRunner {
    /// Queues notification `event` for its handlers (nothing happens when
    /// none listens, or outside a tokio runtime).
    pub fn notify<E: Event<Output = ()>>(self: &Arc<Self>, event: E) {
        if !self.has_handlers(E::NAME) {
            return;
        }
        let Ok(handle) = tokio::runtime::Handle::try_current() else {
            tracing::warn!("{} not delivered: no runtime", E::NAME);
            return;
        };
        let runner = Arc::clone(self);
        self.notifier
            .queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push_back(Box::pin(async move { runner.deliver(event).await }));
        if !self.notifier.running.swap(true, Ordering::SeqCst) {
            handle.spawn(drain(Arc::clone(self)));
        }
    }
}
