//! `AssistantMessageEventStream`: the consumer side. A `futures::Stream` of
//! events that always ends with exactly one `done` or `error` event, plus
//! [`AssistantMessageEventStream::result`] for the settled message.

use std::any::Any;
use std::collections::VecDeque;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context as TaskContext, Poll};

use futures::future::{BoxFuture, FutureExt};
use futures::{Stream, StreamExt};
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use super::queue::{QueueReceiver, queue};
use super::sink::{OpenToolCalls, settle_failure};
use super::{AssistantMessageEvent, ErrorReason, EventSink, SharedMessage};
use crate::{AssistantContent, AssistantMessage, ErrorClass};

/// The `errorMessage` of a cancelled stream, as pi writes it.
pub const ABORTED_MESSAGE: &str = "Request was aborted";

/// A stream of [`AssistantMessageEvent`]s for one model call.
///
/// Contract: once created it never fails with a Rust error. Provider
/// failures, a producer that stops without a terminal event, a panicking
/// producer and cancellation all end the stream with an `error` event whose
/// message keeps the partial content. Exactly one `done` or `error` event is
/// yielded, and it is the last.
pub struct AssistantMessageEventStream {
    producer: Option<BoxFuture<'static, Result<(), Box<dyn Any + Send>>>>,
    rx: QueueReceiver,
    cancel: CancellationToken,
    cancelled: Pin<Box<WaitForCancellationFutureOwned>>,
    partial: SharedMessage,
    open: OpenToolCalls,
    final_message: Option<AssistantMessage>,
    failure: Option<String>,
    /// Text and thinking blocks started and not yet ended.
    open_blocks: Vec<usize>,
    end_blocks_on_abort: Arc<AtomicBool>,
    /// Events to yield before anything else (the ends of an aborted stream).
    queued: VecDeque<AssistantMessageEvent>,
}

impl AssistantMessageEventStream {
    /// Runs `producer` with an [`EventSink`] for a message that starts as
    /// `initial`. The producer is polled by the consumer (no task is spawned);
    /// when `cancel` fires it is dropped (aborting its I/O) and the stream
    /// ends with an `aborted` error.
    pub fn new<F, Fut>(initial: AssistantMessage, cancel: CancellationToken, producer: F) -> Self
    where
        F: FnOnce(EventSink) -> Fut,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let (tx, rx) = queue();
        let partial = SharedMessage::new(initial);
        let open = OpenToolCalls::default();
        let end_blocks_on_abort = Arc::new(AtomicBool::new(false));
        let sink = EventSink::new(
            tx,
            partial.clone(),
            Arc::clone(&open),
            cancel.clone(),
            Arc::clone(&end_blocks_on_abort),
        );
        let future = AssertUnwindSafe(producer(sink)).catch_unwind().boxed();
        Self {
            producer: Some(future),
            rx,
            cancelled: Box::pin(cancel.clone().cancelled_owned()),
            cancel,
            partial,
            open,
            final_message: None,
            failure: None,
            open_blocks: Vec::new(),
            end_blocks_on_abort,
            queued: VecDeque::new(),
        }
    }

    /// A stream that fails at once with `error_message` (for example: no
    /// provider registered for the api, or a missing api key).
    pub fn failed(message: AssistantMessage, error_message: impl Into<String>) -> Self {
        let error_message = error_message.into();
        Self::new(message, CancellationToken::new(), move |sink| async move {
            sink.error(ErrorReason::Error, error_message);
        })
    }

    /// Consumes the rest of the stream and returns the settled message.
    pub async fn result(mut self) -> AssistantMessage {
        while self.next().await.is_some() {}
        match self.final_message.take() {
            Some(message) => message,
            // Unreachable by construction: the stream always ends with a terminal event.
            None => self.partial.snapshot(),
        }
    }

    fn terminate(&mut self, reason: ErrorReason, message: String) -> AssistantMessageEvent {
        self.producer = None;
        self.rx.close();
        let class = (reason == ErrorReason::Aborted).then_some(ErrorClass::Aborted);
        let error = settle_failure(&self.partial, &self.open, reason, class, message);
        self.final_message = Some(error.clone());
        AssistantMessageEvent::Error {
            reason,
            error: Box::new(error),
        }
    }

    /// The `text_end` / `thinking_end` events of the blocks still open.
    fn end_open_blocks(&mut self) {
        for content_index in std::mem::take(&mut self.open_blocks) {
            let block = self.partial.lock().content.get(content_index).cloned();
            let partial = self.partial.clone();
            let event = match block {
                Some(AssistantContent::Text(t)) => AssistantMessageEvent::TextEnd {
                    content_index,
                    content: t.text,
                    partial,
                },
                Some(AssistantContent::Thinking(t)) => AssistantMessageEvent::ThinkingEnd {
                    content_index,
                    content: t.thinking,
                    partial,
                },
                _ => continue,
            };
            self.queued.push_back(event);
        }
    }

    /// Queues the ends of the open blocks when the producer asked for them
    /// on an abort ([`EventSink::end_blocks_on_abort`]).
    fn end_blocks_if_asked(&mut self) {
        if self.end_blocks_on_abort.load(Ordering::Relaxed) {
            self.end_open_blocks();
        }
    }

    /// Ends the stream as cancelled: the ends of the open blocks if asked
    /// for, then the `aborted` error; returns the first of them.
    fn abort(&mut self) -> Option<AssistantMessageEvent> {
        tracing::debug!("stream cancelled");
        self.end_blocks_if_asked();
        let error = self.terminate(ErrorReason::Aborted, ABORTED_MESSAGE.to_owned());
        self.queued.push_back(error);
        self.queued.pop_front()
    }

    /// `Pending`, with `cx` registered to be woken by a cancellation, unless
    /// the call was cancelled meanwhile.
    fn pending_unless_cancelled(
        &mut self,
        cx: &mut TaskContext<'_>,
    ) -> Poll<Option<AssistantMessageEvent>> {
        if self.cancelled.as_mut().poll(cx).is_ready() {
            return Poll::Ready(self.abort());
        }
        Poll::Pending
    }

    /// Notes which text and thinking blocks are open.
    fn track(&mut self, event: &AssistantMessageEvent) {
        match event {
            AssistantMessageEvent::TextStart { content_index, .. }
            | AssistantMessageEvent::ThinkingStart { content_index, .. } => {
                self.open_blocks.push(*content_index);
            }
            AssistantMessageEvent::TextEnd { content_index, .. }
            | AssistantMessageEvent::ThinkingEnd { content_index, .. } => {
                self.open_blocks.retain(|i| i != content_index);
            }
            _ => {}
        }
    }
}

fn panic_text(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_owned()
    }
}

impl Stream for AssistantMessageEventStream {
    type Item = AssistantMessageEvent;

    fn poll_next(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if let Some(event) = this.queued.pop_front() {
            return Poll::Ready(Some(event));
        }
        if this.final_message.is_some() {
            return Poll::Ready(None);
        }
        // The token's state is read at every event (one lock); its future,
        // which registers for the wake-up, only before waiting.
        if this.cancel.is_cancelled() {
            return Poll::Ready(this.abort());
        }
        loop {
            match this.rx.poll_recv(cx) {
                Poll::Ready(Some(event)) => {
                    if let Some(message) = event.final_message() {
                        this.final_message = Some(message.clone());
                        this.producer = None;
                    }
                    // The producer saw the cancellation first (it fired
                    // after the check above): its `aborted` error ends the
                    // open blocks as a cancellation seen here would.
                    if let AssistantMessageEvent::Error {
                        reason: ErrorReason::Aborted,
                        ..
                    } = event
                    {
                        this.end_blocks_if_asked();
                        if !this.queued.is_empty() {
                            this.queued.push_back(event);
                            return Poll::Ready(this.queued.pop_front());
                        }
                    }
                    this.track(&event);
                    return Poll::Ready(Some(event));
                }
                Poll::Ready(None) => {
                    // Every sink is gone and the channel is drained without a terminal event.
                    let message = this.failure.take().unwrap_or_else(|| {
                        "provider stream ended without a done or error event".to_owned()
                    });
                    return Poll::Ready(Some(this.terminate(ErrorReason::Error, message)));
                }
                Poll::Pending => {}
            }
            let Some(producer) = this.producer.as_mut() else {
                return this.pending_unless_cancelled(cx);
            };
            match producer.as_mut().poll(cx) {
                Poll::Pending => return this.pending_unless_cancelled(cx),
                Poll::Ready(Ok(())) => this.producer = None,
                Poll::Ready(Err(payload)) => {
                    let text = panic_text(payload.as_ref());
                    tracing::error!("provider panicked: {text}");
                    this.failure = Some(format!("provider panicked: {text}"));
                    this.producer = None;
                }
            }
        }
    }
}
