//! How a [`SessionManager`](super::SessionManager) keeps its entries.
//!
//! Entries are parsed and in memory, except the message entries read from
//! the session file: those are known by id, parent and place in the file,
//! while their messages wait, in file order, in a [`LoadedMessages`] list
//! until a resume moves them into the agent's transcript
//! ([`SessionManager::take_session_context`](super::SessionManager::take_session_context)).
//! Asked for as a whole entry, such a message entry is read again from its
//! line (and kept).

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use pi_agent_core::AgentMessage;
use pi_ai::Message;

use pi_ai::ExtraFields;

use super::context::{ModelRef, PathEntry, context_message};
use super::entry::{CustomEntry, SessionEntry};
use super::lines::{LineSource, LineSpan, RereadError};
use super::outline::MessageOutline;
use super::walk::Shape;
use crate::messages::{CodingAgentMessage, CodingMessage};

/// The messages of the message entries read from the file, in file order;
/// `None` once handed out.
pub(super) type LoadedMessages = Vec<Option<CodingAgentMessage>>;

/// One entry of a session.
#[derive(Debug)]
pub(super) enum Stored {
    /// An entry in memory.
    Parsed(Box<SessionEntry>),
    /// A message entry read from the session file.
    Read(ReadMessage),
}

/// A message entry known by its line in the session file.
#[derive(Debug)]
pub(super) struct ReadMessage {
    /// Its id and its parent's, in no more room than their text (these
    /// stay in memory for every message entry of the file).
    id: Box<str>,
    parent_id: Option<Box<str>>,
    /// Provider and model of an assistant message, shared with the
    /// entries before it that name the same ([`ModelRefs`]).
    model: Option<Arc<ModelRef>>,
    /// What kind of message it is.
    kind: MessageKind,
    span: LineSpan,
    /// Its message's position in the [`LoadedMessages`], until handed out.
    slot: Option<u32>,
    /// The entry read again, on first use.
    entry: OnceLock<Box<SessionEntry>>,
}

/// What kind of message a message entry holds, as far as compaction's cut
/// asks (known without reading the entry again).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MessageKind {
    /// A user message.
    User,
    /// An assistant message.
    Assistant,
    /// A tool result.
    ToolResult,
    /// A `!cmd` run (`bashExecution`).
    BashExecution,
    /// A custom message or a summary.
    Other,
}

impl MessageKind {
    /// The kind of `message`.
    pub(crate) fn of(message: &CodingAgentMessage) -> Self {
        match message {
            AgentMessage::Standard(Message::User(_)) => Self::User,
            AgentMessage::Standard(Message::Assistant(_)) => Self::Assistant,
            AgentMessage::Standard(Message::ToolResult(_)) => Self::ToolResult,
            AgentMessage::Custom(CodingMessage::BashExecution(_)) => Self::BashExecution,
            AgentMessage::Custom(
                CodingMessage::Custom(_)
                | CodingMessage::BranchSummary(_)
                | CodingMessage::CompactionSummary(_),
            ) => Self::Other,
        }
    }
}

/// The provider and model of the assistant messages read so far, one
/// shared copy per run of messages naming the same (a session rarely
/// switches models, and 10,000 copies of the same two strings cost 0.8 MB).
#[derive(Debug, Default)]
pub(super) struct ModelRefs {
    last: Option<Arc<ModelRef>>,
}

impl ModelRefs {
    /// The shared reference to `provider` and `model`.
    fn get(&mut self, provider: &str, model: &str) -> Arc<ModelRef> {
        match &self.last {
            Some(last) if last.provider == provider && last.model_id == model => Arc::clone(last),
            _ => Arc::clone(self.last.insert(Arc::new(ModelRef {
                provider: provider.to_owned(),
                model_id: model.to_owned(),
            }))),
        }
    }
}

/// Where the whole entries of [`Stored::Read`] come from.
#[derive(Debug, Clone, Copy)]
pub(super) struct Sources<'a> {
    /// The session file.
    pub(super) file: Option<&'a LineSource>,
    /// The messages not handed out yet.
    pub(super) loaded: &'a [Option<CodingAgentMessage>],
}

impl Stored {
    /// An entry in memory only.
    pub(super) fn new(entry: SessionEntry) -> Self {
        Self::Parsed(Box::new(entry))
    }

    /// An entry read from the file line at `span` (`None`: keep it in
    /// memory); a message entry's message goes to `loaded` (a message past
    /// the 2^32nd stays in memory with its entry).
    pub(super) fn read(
        entry: SessionEntry,
        span: Option<LineSpan>,
        loaded: &mut LoadedMessages,
        models: &mut ModelRefs,
    ) -> Self {
        match (entry, span, u32::try_from(loaded.len())) {
            (SessionEntry::Message(e), Some(span), Ok(slot)) => {
                let read = ReadMessage::new(
                    e.id.into_boxed_str(),
                    e.parent_id.map(String::into_boxed_str),
                    MessageKind::of(&e.message),
                    e.message
                        .as_assistant()
                        .map(|a| models.get(a.provider.as_str(), &a.model)),
                    span,
                    Some(slot),
                );
                loaded.push(Some(e.message));
                Self::Read(read)
            }
            (entry, _, _) => Self::new(entry),
        }
    }

    /// A message entry known by its outline only: its message is read
    /// from the line at `span` when it is needed.
    pub(super) fn outline(outline: MessageOutline, span: LineSpan, models: &mut ModelRefs) -> Self {
        Self::Read(ReadMessage::new(
            outline.id,
            outline.parent_id,
            outline.kind,
            outline
                .model
                .map(|(provider, model)| models.get(&provider, &model)),
            span,
            None,
        ))
    }

    /// The entry id.
    pub(super) fn id(&self) -> &str {
        match self {
            Self::Parsed(entry) => entry.id(),
            Self::Read(read) => &read.id,
        }
    }

    /// The parent entry id.
    pub(super) fn parent_id(&self) -> Option<&str> {
        match self {
            Self::Parsed(entry) => entry.parent_id(),
            Self::Read(read) => read.parent_id.as_deref(),
        }
    }

    /// True for an assistant message.
    pub(super) fn is_assistant(&self) -> bool {
        match self {
            Self::Parsed(entry) => entry
                .as_message()
                .is_some_and(|m| m.as_assistant().is_some()),
            Self::Read(read) => read.model.is_some(),
        }
    }

    /// The entry, if it is in memory as a whole.
    pub(super) fn in_memory(&self) -> Option<&SessionEntry> {
        match self {
            Self::Parsed(entry) => Some(entry),
            Self::Read(read) => read.entry.get().map(|e| &**e),
        }
    }

    /// The entry, read again from the file (and kept) if needed.
    pub(super) fn get(&self, file: Option<&LineSource>) -> &SessionEntry {
        match self {
            Self::Parsed(entry) => entry,
            Self::Read(read) => read.entry.get_or_init(|| Box::new(read.read_again(file))),
        }
    }

    /// The entry without keeping it: borrowed when it is in memory, else
    /// read again from the file and handed out (the session stays as it
    /// was, so a pass over many entries holds one at a time).
    pub(super) fn read_uncached(&self, file: Option<&LineSource>) -> Cow<'_, SessionEntry> {
        match (self, self.in_memory()) {
            (_, Some(entry)) => Cow::Borrowed(entry),
            (Self::Read(read), None) => Cow::Owned(read.read_again(file)),
            (Self::Parsed(entry), None) => Cow::Borrowed(entry),
        }
    }

    /// What the entry is, without reading it again.
    pub(super) fn shape(&self) -> Shape<'_> {
        match (self, self.in_memory()) {
            (_, Some(entry)) => Shape::Entry(entry),
            (Self::Read(read), None) => Shape::Message(read.kind),
            (Self::Parsed(entry), None) => Shape::Entry(entry),
        }
    }

    /// The length of the file line of an entry not in memory.
    pub(super) fn line_len(&self) -> Option<usize> {
        match (self, self.in_memory()) {
            (Self::Read(read), None) => Some(read.span.len),
            _ => None,
        }
    }

    /// Whether a message entry read from the file is kept in memory as a
    /// whole (read again and cached).
    #[cfg(test)]
    pub(super) fn is_cached_read(&self) -> bool {
        matches!(self, Self::Read(read) if read.entry.get().is_some())
    }

    /// The line of an entry read from the file, exactly as it is there
    /// (`None` for an entry in memory, or when the line changed).
    pub(super) fn line(&self, file: Option<&LineSource>) -> Option<String> {
        let Self::Read(read) = self else {
            return None;
        };
        let line = file?.read_line(read.span).ok()?;
        let value: serde_json::Value = serde_json::from_str(&line).ok()?;
        (value.get("id").and_then(serde_json::Value::as_str) == Some(&*read.id)).then_some(line)
    }

    /// The entry as the context plan sees it, without reading it again.
    pub(super) fn path_entry(&self) -> PathEntry<'_> {
        match (self, self.in_memory()) {
            (_, Some(entry)) => PathEntry::Entry(entry),
            (Self::Read(read), None) => PathEntry::Message {
                id: &read.id,
                model: read.model.as_deref(),
            },
            (Self::Parsed(entry), None) => PathEntry::Entry(entry),
        }
    }

    /// The position in the loaded messages of a message not handed out.
    pub(super) fn slot(&self) -> Option<usize> {
        match self {
            Self::Parsed(_) => None,
            Self::Read(read) => read.slot.map(|slot| slot as usize),
        }
    }

    /// The message this entry adds to a context, as a copy (for a message
    /// entry neither loaded nor kept, read again from the file).
    pub(super) fn context_message(&self, sources: Sources<'_>) -> Option<CodingAgentMessage> {
        if let Some(entry) = self.in_memory() {
            return context_message(entry);
        }
        let Self::Read(read) = self else {
            return None;
        };
        match read.slot.and_then(|slot| sources.loaded.get(slot as usize)) {
            Some(Some(message)) => Some(message.clone()),
            _ => context_message(&read.read_again(sources.file)),
        }
    }

    /// Hands out the loaded message of this entry, taking it from `loaded`,
    /// or gives a copy as [`Self::context_message`].
    pub(super) fn take_context_message(
        &mut self,
        file: Option<&LineSource>,
        loaded: &mut LoadedMessages,
    ) -> Option<CodingAgentMessage> {
        if let Self::Read(read) = self
            && let Some(message) = read
                .slot
                .take()
                .and_then(|slot| loaded.get_mut(slot as usize)?.take())
        {
            return Some(message);
        }
        self.context_message(Sources { file, loaded })
    }

    /// Forgets the loaded message (it was handed out or dropped).
    pub(super) fn unload(&mut self) {
        if let Self::Read(read) = self {
            read.slot = None;
        }
    }
}

impl ReadMessage {
    /// A message entry known by its line at `span`, its message at `slot`
    /// of the loaded messages (`None`: read from the line when needed).
    fn new(
        id: Box<str>,
        parent_id: Option<Box<str>>,
        kind: MessageKind,
        model: Option<Arc<ModelRef>>,
        span: LineSpan,
        slot: Option<u32>,
    ) -> Self {
        Self {
            id,
            parent_id,
            model,
            kind,
            span,
            slot,
            entry: OnceLock::new(),
        }
    }

    /// Reads the entry again. A session file is only ever appended to, so
    /// this fails only if the file was changed behind our back; the entry
    /// then reads as a `custom` entry (never part of a context) naming the
    /// problem, with its id and parent kept.
    fn read_again(&self, file: Option<&LineSource>) -> SessionEntry {
        let read = match file {
            Some(file) => file.read_entry(self.span),
            None => Err(RereadError::NoFile),
        };
        let problem = match read {
            Ok(entry) if entry.id() == &*self.id => return entry,
            Ok(entry) => format!("the line now holds entry {}", entry.id()),
            Err(problem) => problem.to_string(),
        };
        tracing::error!(id = %self.id, "cannot read a session entry again: {problem}");
        SessionEntry::Custom(CustomEntry {
            custom_type: "pi-rs:unreadable-entry".to_owned(),
            data: Some(serde_json::Value::String(problem)),
            id: self.id.to_string(),
            parent_id: self.parent_id.as_deref().map(str::to_owned),
            timestamp: String::new(),
            extra: ExtraFields::new(),
        })
    }
}
