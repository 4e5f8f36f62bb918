//! The event queue between a stream's producer (its [`super::EventSink`])
//! and its consumer ([`super::AssistantMessageEventStream`]).
//!
//! One producer, one consumer, unbounded, as tokio's unbounded channel was,
//! at a fraction of its cost per event: a send is one uncontended lock and a
//! push, and the consumer takes everything queued at once (one lock per
//! batch), then hands the events out from its own buffer.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use super::AssistantMessageEvent;

#[derive(Default)]
struct State {
    events: VecDeque<AssistantMessageEvent>,
    /// The consumer, waiting for an event.
    waker: Option<Waker>,
    /// The producer is gone: nothing more will be queued.
    sender_gone: bool,
    /// The consumer is gone or closed the queue: sends are dropped.
    receiver_gone: bool,
}

type Shared = Arc<Mutex<State>>;

fn lock(shared: &Shared) -> MutexGuard<'_, State> {
    // The state stays consistent whatever panicked while holding the lock.
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A new queue's two ends.
pub(crate) fn queue() -> (QueueSender, QueueReceiver) {
    let shared = Shared::default();
    (
        QueueSender(Arc::clone(&shared)),
        QueueReceiver {
            shared,
            ready: VecDeque::new(),
        },
    )
}

/// The producer's end; dropping it ends the queue.
pub(crate) struct QueueSender(Shared);

impl QueueSender {
    /// Queues `event` and wakes a waiting consumer (dropped when the consumer is gone).
    pub(crate) fn send(&self, event: AssistantMessageEvent) {
        let waker = {
            let mut state = lock(&self.0);
            if state.receiver_gone {
                return;
            }
            state.events.push_back(event);
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// True when the consumer dropped or closed the queue.
    pub(crate) fn is_closed(&self) -> bool {
        lock(&self.0).receiver_gone
    }
}

impl Drop for QueueSender {
    fn drop(&mut self) {
        let waker = {
            let mut state = lock(&self.0);
            state.sender_gone = true;
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// The consumer's end.
pub(crate) struct QueueReceiver {
    shared: Shared,
    /// Events taken from the shared queue, not yet handed out.
    ready: VecDeque<AssistantMessageEvent>,
}

impl QueueReceiver {
    /// The next event; `Ready(None)` once the producer is gone and every
    /// event was handed out; `Pending` (with `cx` woken on the next send)
    /// while the queue is empty.
    pub(crate) fn poll_recv(&mut self, cx: &Context<'_>) -> Poll<Option<AssistantMessageEvent>> {
        if let Some(event) = self.ready.pop_front() {
            return Poll::Ready(Some(event));
        }
        let mut state = lock(&self.shared);
        std::mem::swap(&mut state.events, &mut self.ready);
        if let Some(event) = self.ready.pop_front() {
            return Poll::Ready(Some(event));
        }
        if state.sender_gone {
            return Poll::Ready(None);
        }
        match &mut state.waker {
            Some(waker) => waker.clone_from(cx.waker()),
            None => state.waker = Some(cx.waker().clone()),
        }
        Poll::Pending
    }

    /// Stops accepting events; those already queued can still be received.
    pub(crate) fn close(&mut self) {
        lock(&self.shared).receiver_gone = true;
    }
}

impl Drop for QueueReceiver {
    fn drop(&mut self) {
        let mut state = lock(&self.shared);
        state.receiver_gone = true;
        state.events.clear();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Wake;

    use super::*;
    use crate::AssistantMessage;
    use crate::stream::DoneReason;

    struct CountWakes(AtomicUsize);

    impl Wake for CountWakes {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn event(reason: DoneReason) -> AssistantMessageEvent {
        AssistantMessageEvent::Done {
            reason,
            message: Box::new(AssistantMessage::empty(
                crate::Api::from("a"),
                crate::Provider::from("p"),
                "m",
                0,
            )),
        }
    }

    fn reason(polled: Poll<Option<AssistantMessageEvent>>) -> Option<Option<DoneReason>> {
        match polled {
            Poll::Ready(Some(AssistantMessageEvent::Done { reason, .. })) => Some(Some(reason)),
            Poll::Ready(_) => Some(None),
            Poll::Pending => None,
        }
    }

    #[test]
    fn events_come_out_in_order_then_none_once_the_sender_is_gone() {
        let wakes = Arc::new(CountWakes(AtomicUsize::new(0)));
        let waker = Waker::from(Arc::clone(&wakes));
        let cx = Context::from_waker(&waker);
        let (tx, mut rx) = queue();
        assert_eq!(reason(rx.poll_recv(&cx)), None, "empty: pending");
        tx.send(event(DoneReason::Stop));
        assert_eq!(
            wakes.0.load(Ordering::SeqCst),
            1,
            "a send wakes the waiting consumer"
        );
        tx.send(event(DoneReason::Length));
        assert_eq!(reason(rx.poll_recv(&cx)), Some(Some(DoneReason::Stop)));
        tx.send(event(DoneReason::ToolUse));
        assert_eq!(reason(rx.poll_recv(&cx)), Some(Some(DoneReason::Length)));
        assert_eq!(reason(rx.poll_recv(&cx)), Some(Some(DoneReason::ToolUse)));
        assert_eq!(reason(rx.poll_recv(&cx)), None);
        drop(tx);
        assert_eq!(
            wakes.0.load(Ordering::SeqCst),
            2,
            "the sender's drop wakes it"
        );
        assert_eq!(reason(rx.poll_recv(&cx)), Some(None));
    }

    #[test]
    fn a_closed_queue_drops_sends_and_says_so() {
        let (tx, mut rx) = queue();
        tx.send(event(DoneReason::Stop));
        assert!(!tx.is_closed());
        rx.close();
        assert!(tx.is_closed());
        tx.send(event(DoneReason::Length));
        let waker = Waker::noop();
        let cx = Context::from_waker(waker);
        assert_eq!(reason(rx.poll_recv(&cx)), Some(Some(DoneReason::Stop)));
        assert_eq!(reason(rx.poll_recv(&cx)), None);
        drop(rx);
        assert!(tx.is_closed());
    }
}
