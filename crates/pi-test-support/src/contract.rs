//! The streaming contract every wire's event sequence obeys, checked on a
//! complete sequence.

use pi_ai::AssistantMessageEvent;

/// The block family of an event kind (`text_delta` -> `text`).
fn family(kind: &str) -> &'static str {
    match kind.split('_').next() {
        Some("text") => "text",
        Some("thinking") => "thinking",
        _ => "toolcall",
    }
}

/// The content index of a block event.
fn content_index(event: &AssistantMessageEvent) -> Option<usize> {
    use AssistantMessageEvent as E;
    match event {
        E::TextStart { content_index, .. }
        | E::TextDelta { content_index, .. }
        | E::TextEnd { content_index, .. }
        | E::ThinkingStart { content_index, .. }
        | E::ThinkingDelta { content_index, .. }
        | E::ThinkingEnd { content_index, .. }
        | E::ToolCallStart { content_index, .. }
        | E::ToolCallDelta { content_index, .. }
        | E::ToolCallEnd { content_index, .. } => Some(*content_index),
        E::Start { .. } | E::Done { .. } | E::Error { .. } => None,
    }
}

/// The rule of the streaming contract a sequence broke.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContractBroken {
    /// The sequence is empty.
    #[error("no events")]
    NoEvents,
    /// The first event (of a request that was not refused) is not `start`.
    #[error("the first event is {0}, not start")]
    FirstNotStart(&'static str),
    /// Not exactly one terminal event.
    #[error("{0} terminal events, not one")]
    Terminals(usize),
    /// The last event is not the terminal one.
    #[error("the last event is {0}, not terminal")]
    LastNotTerminal(&'static str),
    /// A block started out of content order or twice.
    #[error("{kind} at {index}: blocks start once each, in content order (next is {next})")]
    StartOutOfOrder {
        /// The start event's kind.
        kind: &'static str,
        /// Its content index.
        index: usize,
        /// The content index the next block start must have.
        next: usize,
    },
    /// A delta or end before the start of a block of its kind.
    #[error("{kind} at {index} before the start of its block")]
    BeforeStart {
        /// The event's kind.
        kind: &'static str,
        /// Its content index.
        index: usize,
    },
    /// The settled message does not hold exactly the started blocks.
    #[error("the settled message holds {settled} blocks, {started} were started")]
    Settled {
        /// Blocks in the settled message.
        settled: usize,
        /// Blocks started by events.
        started: usize,
    },
}

/// Checks the contract: `start` first (unless the request was refused:
/// then the lone `error` is the whole stream), exactly one terminal event
/// and it is last, blocks started in content order and once each, every
/// delta and end after the start of a block of its own kind, and the
/// settled message holding exactly the blocks that were started.
pub fn check_stream_contract(events: &[AssistantMessageEvent]) -> Result<(), ContractBroken> {
    let Some(last) = events.last() else {
        return Err(ContractBroken::NoEvents);
    };
    let refused = matches!(events, [AssistantMessageEvent::Error { .. }]);
    if !refused && !matches!(events[0], AssistantMessageEvent::Start { .. }) {
        return Err(ContractBroken::FirstNotStart(events[0].kind()));
    }
    let terminals = events.iter().filter(|e| e.is_terminal()).count();
    if terminals != 1 {
        return Err(ContractBroken::Terminals(terminals));
    }
    if !last.is_terminal() {
        return Err(ContractBroken::LastNotTerminal(last.kind()));
    }
    let mut started: Vec<&'static str> = Vec::new();
    for event in events {
        let Some(index) = content_index(event) else {
            continue;
        };
        let kind = event.kind();
        let family = family(kind);
        if kind.ends_with("_start") {
            if index != started.len() {
                return Err(ContractBroken::StartOutOfOrder {
                    kind,
                    index,
                    next: started.len(),
                });
            }
            started.push(family);
        } else if started.get(index) != Some(&family) {
            return Err(ContractBroken::BeforeStart { kind, index });
        }
    }
    let settled = last.final_message().map_or(0, |m| m.content.len());
    if settled != started.len() {
        return Err(ContractBroken::Settled {
            settled,
            started: started.len(),
        });
    }
    Ok(())
}

/// Panics with the broken rule when `events` break the contract.
pub fn assert_stream_contract(events: &[AssistantMessageEvent]) {
    if let Err(rule) = check_stream_contract(events) {
        let kinds: Vec<&str> = events.iter().map(AssistantMessageEvent::kind).collect();
        panic!("stream contract broken: {rule}\nevents: {kinds:?}");
    }
}

#[cfg(test)]
mod tests {
    use pi_ai::{
        AssistantMessage, AssistantMessageEventStream, CancellationToken, DoneReason, ErrorReason,
    };

    use super::*;

    fn initial() -> AssistantMessage {
        AssistantMessage::empty(
            pi_ai::Api::ANTHROPIC_MESSAGES,
            pi_ai::Provider::ANTHROPIC,
            "m",
            0,
        )
    }

    async fn events(
        body: impl FnOnce(&mut pi_ai::EventSink) -> bool + Send + 'static,
    ) -> Vec<AssistantMessageEvent> {
        use futures::StreamExt;
        AssistantMessageEventStream::new(initial(), CancellationToken::new(), |mut sink| async {
            if body(&mut sink) {
                sink.done(DoneReason::Stop);
            } else {
                sink.error(ErrorReason::Error, "failed");
            }
        })
        .collect()
        .await
    }

    fn start(sink: &mut pi_ai::EventSink) {
        sink.start();
    }

    #[tokio::test]
    async fn a_refused_request_is_a_lone_error() {
        let refused = events(|_| false).await;
        assert_eq!(check_stream_contract(&refused), Ok(()));
    }

    #[tokio::test]
    async fn a_stream_must_start() {
        let started = events(|sink| {
            start(sink);
            true
        })
        .await;
        assert_eq!(check_stream_contract(&started), Ok(()));
        let err = check_stream_contract(&started[1..]).unwrap_err();
        assert!(err.to_string().contains("not start"), "{err}");
        let err = check_stream_contract(&started[..1]).unwrap_err();
        assert_eq!(err, ContractBroken::Terminals(0));
        assert!(err.to_string().contains("0 terminal"), "{err}");
        let err = check_stream_contract(&[]).unwrap_err();
        assert_eq!(err.to_string(), "no events");
    }

    #[tokio::test]
    async fn blocks_follow_their_starts() {
        let good = events(|sink| {
            start(sink);
            let index = sink.text_start();
            sink.text_delta(index, "hi");
            sink.text_end(index);
            true
        })
        .await;
        assert_eq!(check_stream_contract(&good), Ok(()), "{good:?}");
        // Dropping the text_start leaves a delta before its start.
        let kinds: Vec<&str> = good.iter().map(AssistantMessageEvent::kind).collect();
        let at = kinds.iter().position(|k| *k == "text_start").unwrap();
        let mut broken = good.clone();
        broken.remove(at);
        let err = check_stream_contract(&broken).unwrap_err();
        assert!(err.to_string().contains("before the start"), "{err}");
    }
}
