//! The scenario of the response hook (`on_response`), with the payload
//! hook's once-per-call rule.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::StreamExt;
use pi_ai::{ErrorClass, PayloadHook, ResponseHook, StopReason};
use pretty_assertions::assert_eq;

use super::WireAdapter;
use super::scenarios::{context, options, recorded, run, serve};
use crate::mock_server::MockResponse;
use crate::summary::final_message;

/// What [`the_response_hook_sees_each_answer`] records: the status and the
/// mock's `x-mock-header` of each answer.
type Seen = Arc<Mutex<Vec<(u16, Option<String>)>>>;

/// A response hook that records into `seen` after a pause (the transport
/// waits for it).
fn recording_hook(seen: &Seen) -> ResponseHook {
    let seen = Arc::clone(seen);
    ResponseHook::new(move |response| {
        let seen = Arc::clone(&seen);
        async move {
            tokio::time::sleep(Duration::from_millis(5)).await;
            let header = response.headers.get("x-mock-header").cloned();
            seen.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push((response.status, header));
        }
    })
}

/// `on_response` sees the status and headers (lower-case names) of each
/// HTTP answer, awaited before the body is read: a streamed answer's before
/// its first event, and a 500's on every attempt. `on_payload` runs once per
/// call, however many attempts the transport makes.
pub async fn the_response_hook_sees_each_answer(wire: &WireAdapter) {
    let seen = Seen::default();
    let server = serve([MockResponse::sse(recorded(wire, wire.text.file))]).await;
    let model = (wire.model)(&server.url());
    let mut first_call = options(wire);
    first_call.base.on_response = Some(recording_hook(&seen));
    (wire.register)();
    let mut stream = pi_ai::stream_simple(&model, &context(), first_call);
    let first = stream.next().await.map(|event| event.kind());
    assert_eq!(first, Some("start"));
    let at_start = seen.lock().unwrap_or_else(PoisonError::into_inner).clone();
    assert_eq!(at_start, [(200, Some("yes".to_owned()))]);
    let message = stream.result().await;
    assert_eq!(message.stop_reason, StopReason::Stop);

    let seen = Seen::default();
    let case = &wire.server_error;
    let server = serve([MockResponse::json(500, case.body)]).await;
    let model = (wire.model)(&server.url());
    let payloads = Arc::new(AtomicUsize::new(0));
    let mut options = options(wire);
    options.base.on_response = Some(recording_hook(&seen));
    let counted = Arc::clone(&payloads);
    options.base.on_payload = Some(PayloadHook::sync(move |_, _| {
        counted.fetch_add(1, Ordering::SeqCst);
        None
    }));
    let message = final_message(&run(wire, &model, options).await);
    assert_eq!(message.error_class, Some(ErrorClass::Server));
    let seen = seen.lock().unwrap_or_else(PoisonError::into_inner).clone();
    assert_eq!(seen, vec![(500, Some("yes".to_owned())); case.attempts]);
    assert_eq!(server.requests().len(), case.attempts);
    assert_eq!(payloads.load(Ordering::SeqCst), 1, "once per call");
}
