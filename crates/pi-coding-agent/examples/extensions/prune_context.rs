//! Context pruning (ours, `fixtures/capture/extensions/prune-context.ts`):
//! a `context` handler sends the model only the last four messages of the
//! conversation. The session keeps everything; only the request is cut.

use pi_coding_agent::extensions::{ContextEvent, ContextResult, Extension, ExtensionApi};

/// How many messages are sent.
pub const KEEP: usize = 4;

/// The extension: a `context` handler.
#[derive(Debug, Default)]
pub struct PruneContext;

impl Extension for PruneContext {
    fn path(&self) -> String {
        "<prune-context>".to_owned()
    }

    fn register(&self, api: &mut ExtensionApi<'_>) {
        api.on(|event: ContextEvent, _ctx| async move {
            if event.messages.len() <= KEEP {
                return Ok(None);
            }
            // Only the kept messages are copied; the transcript is shared.
            let messages = event.messages[event.messages.len() - KEEP..].to_vec();
            Ok(Some(ContextResult {
                messages: Some(messages),
            }))
        });
    }
}
