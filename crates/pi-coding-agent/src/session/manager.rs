//! [`SessionManager`]: one session, its tree and its file.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use pi_agent_core::AgentMessage;
use pi_ai::{ExtraFields, UserContent};
use serde_json::Value;

use super::SessionError;
use super::entry::{
    BranchSummaryEntry, CURRENT_SESSION_VERSION, CompactionEntry, CustomEntry, CustomMessageEntry,
    LabelEntry, MessageEntry, ModelChangeEntry, SessionEntry, SessionHeader, SessionInfoEntry,
    ThinkingLevelChangeEntry,
};
use super::ids::{generate_entry_id, new_session_id, now_iso};
use super::index::EntryIndex;
use super::lines::LineSource;
use super::load::LoadDiagnostic;
use super::paths::{agent_dir, default_session_dir, session_file_name};
use super::store::{LoadedMessages, Stored};
use super::writer::SessionWriter;
use crate::messages::{CodingAgentMessage, CodingMessage};

/// Options of [`SessionManager::new_session`].
#[derive(Debug, Clone, Default)]
pub struct NewSessionOptions {
    /// Session id to use instead of a fresh UUID v7.
    pub id: Option<String>,
    /// Path of the session this one continues from.
    pub parent_session: Option<String>,
    /// Start time (ISO 8601) to use instead of now.
    pub timestamp: Option<String>,
}

impl NewSessionOptions {
    /// Options with a fresh id and start time chosen now, so the file the
    /// session will be written to is known before it starts
    /// ([`SessionManager::planned_file`]).
    pub fn planned() -> Self {
        Self {
            id: Some(new_session_id()),
            parent_session: None,
            timestamp: Some(now_iso()),
        }
    }
}

/// One session: the header, the entries in append order, the active leaf and
/// (unless in memory) the JSONL file.
///
/// Persistence follows pi, except for the first user message: a new
/// session writes nothing until its first user or assistant message exists
/// (a session that never sent anything leaves no file; pi waits for the
/// first assistant message, so a prompt killed before its answer is lost
/// there); then the header and every pending entry are written in one write,
/// and after that each entry is appended as one line
/// (`serde_json::to_string(entry) + "\n"`, one `write_all` on a file opened
/// in append mode). Earlier lines are never rewritten, except when a file
/// in an old format is migrated (as pi does).
///
/// A message entry read from the file is kept as its id, parent and place
/// in the file; its message waits in one list, in file order, that a resume
/// moves into the agent's transcript ([`Self::take_session_context`]).
/// Asked for as a whole, such an entry is read again from its line.
#[derive(Debug)]
pub struct SessionManager {
    pub(super) cwd: String,
    pub(super) session_dir: Option<PathBuf>,
    pub(super) file: Option<PathBuf>,
    pub(super) header: SessionHeader,
    pub(super) entries: Vec<Stored>,
    /// The session file, to read message entries again.
    pub(super) source: Option<LineSource>,
    /// The messages of the message entries read from it, until the context is taken.
    pub(super) loaded: LoadedMessages,
    pub(super) index: EntryIndex,
    pub(super) labels: HashMap<String, String>,
    pub(super) leaf: Option<usize>,
    pub(super) has_assistant: bool,
    /// Entries already on disk; `None` while not even the header is.
    pub(super) written: Option<usize>,
    pub(super) needs_newline: bool,
    pub(super) writer: Option<SessionWriter>,
    /// Lines to write as they are instead of serializing their entries (by
    /// id): entries copied from a file into a branched session.
    pub(super) verbatim: HashMap<String, String>,
    pub(super) diagnostics: Vec<LoadDiagnostic>,
}

pub(super) fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> SessionError + '_ {
    move |source| SessionError::Io {
        path: path.to_path_buf(),
        source,
    }
}

pub(super) fn new_header(id: String, cwd: &str, parent_session: Option<String>) -> SessionHeader {
    SessionHeader {
        kind: "session".to_owned(),
        version: Some(CURRENT_SESSION_VERSION),
        id,
        timestamp: now_iso(),
        cwd: cwd.to_owned(),
        parent_session,
        extra: ExtraFields::new(),
    }
}

impl SessionManager {
    pub(super) fn blank(cwd: &str, session_dir: Option<PathBuf>) -> Self {
        Self {
            cwd: cwd.to_owned(),
            session_dir,
            file: None,
            header: new_header(new_session_id(), cwd, None),
            entries: Vec::new(),
            source: None,
            loaded: LoadedMessages::new(),
            index: EntryIndex::new(),
            labels: HashMap::new(),
            leaf: None,
            has_assistant: false,
            written: None,
            needs_newline: false,
            writer: None,
            verbatim: HashMap::new(),
            diagnostics: Vec::new(),
        }
    }

    pub(super) fn ensure_dir(dir: &Path) -> Result<(), SessionError> {
        fs::create_dir_all(dir).map_err(io_error(dir))
    }

    /// A new session for `cwd`, stored in `session_dir` or in the default
    /// directory of `cwd` under the agent directory (created with the first
    /// write: a run that fails before it leaves no directory behind).
    pub fn create(cwd: &str, session_dir: Option<&Path>) -> Result<Self, SessionError> {
        let dir =
            session_dir.map_or_else(|| default_session_dir(&agent_dir(), cwd), Path::to_path_buf);
        let mut manager = Self::blank(cwd, Some(dir));
        manager.new_session(NewSessionOptions::default());
        Ok(manager)
    }

    /// A session that is never written to disk.
    pub fn in_memory(cwd: &str) -> Self {
        Self::blank(cwd, None)
    }

    /// Starts a new, empty session (new id and, when persisting, a new file
    /// path; nothing is written until the first assistant message). Returns
    /// the new file path.
    pub fn new_session(&mut self, options: NewSessionOptions) -> Option<PathBuf> {
        let id = options.id.unwrap_or_else(new_session_id);
        self.header = new_header(id, &self.cwd, options.parent_session);
        if let Some(timestamp) = options.timestamp {
            self.header.timestamp = timestamp;
        }
        self.entries.clear();
        self.source = None;
        self.loaded.clear();
        self.index.clear();
        self.labels.clear();
        self.leaf = None;
        self.has_assistant = false;
        self.written = None;
        self.needs_newline = false;
        self.writer = None;
        self.verbatim.clear();
        self.diagnostics.clear();
        self.file = self
            .session_dir
            .as_ref()
            .map(|dir| dir.join(session_file_name(&self.header.timestamp, &self.header.id)));
        self.file.clone()
    }

    /// The file a session started with `options` would be written to
    /// (`None` in memory, or when `options` leave the id or time open).
    pub fn planned_file(&self, options: &NewSessionOptions) -> Option<PathBuf> {
        let (id, timestamp) = (options.id.as_ref()?, options.timestamp.as_ref()?);
        Some(
            self.session_dir
                .as_ref()?
                .join(session_file_name(timestamp, id)),
        )
    }

    pub(super) fn rebuild_index(&mut self) {
        self.index.clear();
        self.index.reserve(self.entries.len(), &self.entries);
        self.has_assistant = false;
        let mut labels = HashMap::new();
        for (i, stored) in self.entries.iter().enumerate() {
            self.index.insert(stored.id(), i, &self.entries);
            self.has_assistant |= stored.is_assistant();
            // Labels are always in memory: only message entries are not.
            if let Some(SessionEntry::Label(label)) = stored.in_memory() {
                match label.label.as_deref().filter(|l| !l.is_empty()) {
                    Some(text) => {
                        labels.insert(label.target_id.clone(), text.to_owned());
                    }
                    None => {
                        labels.remove(&label.target_id);
                    }
                }
            }
        }
        self.labels = labels;
        self.leaf = self.entries.len().checked_sub(1);
    }

    fn apply_label(&mut self, target: &str, label: Option<String>) {
        match label.filter(|l| !l.is_empty()) {
            Some(label) => {
                self.labels.insert(target.to_owned(), label);
            }
            None => {
                self.labels.remove(target);
            }
        }
    }

    /// Writes what is pending, if the session persists and has an assistant message.
    pub(super) fn persist(&mut self) -> Result<(), SessionError> {
        let Some(path) = self.file.clone() else {
            return Ok(());
        };
        let start = self.written.unwrap_or(0);
        // Unlike pi, a user message is written at once too, so that a
        // prompt is on disk before its request is sent.
        let durable = self.has_assistant
            || self.entries[start..].iter().any(|stored| {
                stored
                    .in_memory()
                    .and_then(SessionEntry::as_message)
                    .is_some_and(|m| matches!(m, AgentMessage::Standard(pi_ai::Message::User(_))))
            });
        if !durable {
            return Ok(());
        }
        let mut content = String::new();
        if self.needs_newline {
            content.push('\n');
        }
        if self.written.is_none() {
            content.push_str(&serde_json::to_string(&self.header)?);
            content.push('\n');
        }
        for stored in &self.entries[start..] {
            match self.verbatim.get(stored.id()) {
                Some(line) => content.push_str(line),
                None => content.push_str(&stored.get(self.source.as_ref()).to_line()?),
            }
            content.push('\n');
        }
        if self.writer.is_none() {
            // The session directory is made with the first file written in it.
            if let Some(dir) = self.session_dir.as_deref()
                && path.starts_with(dir)
            {
                Self::ensure_dir(dir)?;
            }
            self.hold(SessionWriter::open_locked(&path)?);
        }
        if let Some(writer) = self.writer.as_mut() {
            if let Err(lost) = writer.check(&path) {
                return self.continue_after_loss(&path, lost);
            }
            writer.append(&path, content.as_bytes())?;
        }
        self.written = Some(self.entries.len());
        self.needs_newline = false;
        self.verbatim.clear();
        Ok(())
    }

    /// Takes the advisory lock of an existing session file (a new file is
    /// locked when it is created, with the first write). The lock is held
    /// as long as this manager writes to that file; a second process
    /// asking for it gets [`SessionError::Locked`].
    pub fn lock(&mut self) -> Result<(), SessionError> {
        if self.writer.is_some() {
            return Ok(());
        }
        match self.file.clone() {
            Some(path) if path.exists() => {
                self.hold(SessionWriter::open_locked(&path)?);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Writes through `writer` (the session file, locked) from now on;
    /// entries read from the file are read from the locked one, even if
    /// another file takes its place.
    pub(super) fn hold(&mut self, writer: SessionWriter) {
        if let Some(source) = &self.source
            && let Ok(file) = writer.reader()
        {
            source.pin(file);
        }
        self.writer = Some(writer);
    }

    /// Lets go of the session file's lock (it is taken again by
    /// [`Self::lock`] or the next write).
    pub fn release_lock(&mut self) {
        self.writer = None;
    }

    fn next_id(&self) -> String {
        generate_entry_id(|id| self.index.contains(id, &self.entries))
    }

    fn leaf_id_owned(&self) -> Option<String> {
        self.leaf_id().map(str::to_owned)
    }

    /// Appends `entry` under the current leaf, makes it the leaf and writes it.
    /// The entry stays in memory even when the write fails (it is retried
    /// with the next append).
    fn append_entry(&mut self, entry: SessionEntry) -> Result<String, SessionError> {
        let id = entry.id().to_owned();
        let stored = Stored::new(entry);
        self.has_assistant |= stored.is_assistant();
        self.index.insert(&id, self.entries.len(), &self.entries);
        self.leaf = Some(self.entries.len());
        if self.entries.len() == self.entries.capacity() {
            // Grow by an eighth, not double: a resumed session's list is
            // exactly sized, and its first append would double it.
            self.entries.reserve_exact((self.entries.len() / 8).max(16));
        }
        self.entries.push(stored);
        self.persist()?;
        Ok(id)
    }

    /// Appends a message (standard, `bashExecution` or `custom`). Summaries
    /// are refused: they have their own entries ([`Self::append_compaction`],
    /// [`Self::branch_with_summary`]).
    pub fn append_message(
        &mut self,
        message: impl Into<CodingAgentMessage>,
    ) -> Result<String, SessionError> {
        let message = message.into();
        match &message {
            AgentMessage::Custom(CodingMessage::BranchSummary(_)) => {
                return Err(SessionError::SummaryAsMessage("branchSummary"));
            }
            AgentMessage::Custom(CodingMessage::CompactionSummary(_)) => {
                return Err(SessionError::SummaryAsMessage("compactionSummary"));
            }
            AgentMessage::Standard(_)
            | AgentMessage::Custom(CodingMessage::BashExecution(_) | CodingMessage::Custom(_)) => {}
        }
        let entry = SessionEntry::Message(MessageEntry {
            id: self.next_id(),
            parent_id: self.leaf_id_owned(),
            timestamp: now_iso(),
            message,
            extra: ExtraFields::new(),
        });
        self.append_entry(entry)
    }

    /// Appends a `thinking_level_change`.
    pub fn append_thinking_level_change(&mut self, level: &str) -> Result<String, SessionError> {
        let entry = SessionEntry::ThinkingLevelChange(ThinkingLevelChangeEntry {
            id: self.next_id(),
            parent_id: self.leaf_id_owned(),
            timestamp: now_iso(),
            thinking_level: level.to_owned(),
            extra: ExtraFields::new(),
        });
        self.append_entry(entry)
    }

    /// Appends a `model_change`.
    pub fn append_model_change(
        &mut self,
        provider: &str,
        model_id: &str,
    ) -> Result<String, SessionError> {
        let entry = SessionEntry::ModelChange(ModelChangeEntry {
            id: self.next_id(),
            parent_id: self.leaf_id_owned(),
            timestamp: now_iso(),
            provider: provider.to_owned(),
            model_id: model_id.to_owned(),
            extra: ExtraFields::new(),
        });
        self.append_entry(entry)
    }

    /// Appends a `compaction`: history before `first_kept_entry_id` is
    /// replaced by `summary` in the context of every later leaf.
    pub fn append_compaction(
        &mut self,
        summary: &str,
        first_kept_entry_id: &str,
        tokens_before: u64,
        details: Option<Value>,
        from_hook: Option<bool>,
    ) -> Result<String, SessionError> {
        let entry = SessionEntry::Compaction(CompactionEntry {
            id: self.next_id(),
            parent_id: self.leaf_id_owned(),
            timestamp: now_iso(),
            summary: summary.to_owned(),
            first_kept_entry_id: first_kept_entry_id.to_owned(),
            tokens_before,
            details,
            from_hook,
            extra: ExtraFields::new(),
        });
        self.append_entry(entry)
    }

    /// Appends extension state (`custom`), never part of the model context.
    pub fn append_custom_entry(
        &mut self,
        custom_type: &str,
        data: Option<Value>,
    ) -> Result<String, SessionError> {
        let entry = SessionEntry::Custom(CustomEntry {
            custom_type: custom_type.to_owned(),
            data,
            id: self.next_id(),
            parent_id: self.leaf_id_owned(),
            timestamp: now_iso(),
            extra: ExtraFields::new(),
        });
        self.append_entry(entry)
    }

    /// Appends an extension message the model sees (`custom_message`).
    pub fn append_custom_message_entry(
        &mut self,
        custom_type: &str,
        content: UserContent,
        display: bool,
        details: Option<Value>,
    ) -> Result<String, SessionError> {
        let entry = SessionEntry::CustomMessage(CustomMessageEntry {
            custom_type: custom_type.to_owned(),
            content,
            display,
            details,
            id: self.next_id(),
            parent_id: self.leaf_id_owned(),
            timestamp: now_iso(),
            extra: ExtraFields::new(),
        });
        self.append_entry(entry)
    }

    /// Appends a `session_info` with the (trimmed) display name.
    pub fn append_session_info(&mut self, name: &str) -> Result<String, SessionError> {
        let entry = SessionEntry::SessionInfo(SessionInfoEntry {
            id: self.next_id(),
            parent_id: self.leaf_id_owned(),
            timestamp: now_iso(),
            name: Some(name.trim().to_owned()),
            extra: ExtraFields::new(),
        });
        self.append_entry(entry)
    }

    /// Sets (or with `None` / an empty string clears) the label of `target_id`.
    pub fn append_label_change(
        &mut self,
        target_id: &str,
        label: Option<&str>,
    ) -> Result<String, SessionError> {
        if !self.index.contains(target_id, &self.entries) {
            return Err(SessionError::EntryNotFound(target_id.to_owned()));
        }
        let entry = SessionEntry::Label(LabelEntry {
            id: self.next_id(),
            parent_id: self.leaf_id_owned(),
            timestamp: now_iso(),
            target_id: target_id.to_owned(),
            label: label.map(str::to_owned),
            extra: ExtraFields::new(),
        });
        let id = self.append_entry(entry)?;
        self.apply_label(target_id, label.map(str::to_owned));
        Ok(id)
    }

    /// Moves the leaf to `entry_id`: the next append forks from there.
    pub fn branch(&mut self, entry_id: &str) -> Result<(), SessionError> {
        let index = self
            .index
            .get(entry_id, &self.entries)
            .ok_or_else(|| SessionError::EntryNotFound(entry_id.to_owned()))?;
        self.leaf = Some(index);
        Ok(())
    }

    /// Moves the leaf before the first entry: the next append is a new root.
    pub fn reset_leaf(&mut self) {
        self.leaf = None;
    }

    /// Like [`Self::branch`] (`None`: before the first entry), then appends a
    /// `branch_summary` of the path that was left (`fromId` `"root"` for `None`).
    pub fn branch_with_summary(
        &mut self,
        from_id: Option<&str>,
        summary: &str,
        details: Option<Value>,
        from_hook: Option<bool>,
    ) -> Result<String, SessionError> {
        match from_id {
            Some(id) => self.branch(id)?,
            None => self.reset_leaf(),
        }
        let entry = SessionEntry::BranchSummary(BranchSummaryEntry {
            id: self.next_id(),
            parent_id: from_id.map(str::to_owned),
            timestamp: now_iso(),
            from_id: from_id.unwrap_or("root").to_owned(),
            summary: summary.to_owned(),
            details,
            from_hook,
            extra: ExtraFields::new(),
        });
        self.append_entry(entry)
    }

    /// Replaces this session by a new one holding only the path from the
    /// root to `leaf_id` (labels of those entries re-created at the end),
    /// with `parentSession` naming the old file. Returns the new file path
    /// (`None` in memory); the file is written at once when the path has an
    /// assistant message, otherwise with the first one.
    pub fn create_branched_session(
        &mut self,
        leaf_id: &str,
    ) -> Result<Option<PathBuf>, SessionError> {
        self.create_branched_session_as(leaf_id, NewSessionOptions::default())
    }

    /// [`SessionManager::create_branched_session`] with the new session's
    /// id and start time from `options` (its parent is always this file).
    pub fn create_branched_session_as(
        &mut self,
        leaf_id: &str,
        options: NewSessionOptions,
    ) -> Result<Option<PathBuf>, SessionError> {
        let leaf = self
            .index
            .get(leaf_id, &self.entries)
            .ok_or_else(|| SessionError::EntryNotFound(leaf_id.to_owned()))?;
        let indices = self.path_indices(leaf);
        // Entries read from the file are copied as their lines are.
        let verbatim: HashMap<String, String> = indices
            .iter()
            .filter_map(|&i| {
                let stored = &self.entries[i];
                Some((stored.id().to_owned(), stored.line(self.source.as_ref())?))
            })
            .collect();
        let path: Vec<SessionEntry> = indices
            .into_iter()
            .map(|i| self.entries[i].get(self.source.as_ref()))
            .filter(|e| !matches!(e, SessionEntry::Label(_)))
            .cloned()
            .collect();
        let mut labels: Vec<(String, String)> = path
            .iter()
            .filter_map(|e| {
                self.labels
                    .get(e.id())
                    .map(|l| (e.id().to_owned(), l.clone()))
            })
            .collect();
        labels.sort();
        let parent_session = self.file.as_ref().map(|f| f.to_string_lossy().into_owned());
        let mut ids: std::collections::HashSet<String> =
            path.iter().map(|e| e.id().to_owned()).collect();
        let mut parent = path.last().map(|e| e.id().to_owned());
        let mut entries = path;
        for (target_id, label) in labels {
            let id = generate_entry_id(|c| ids.contains(c));
            ids.insert(id.clone());
            entries.push(SessionEntry::Label(LabelEntry {
                id: id.clone(),
                parent_id: parent.replace(id),
                timestamp: now_iso(),
                target_id,
                label: Some(label),
                extra: ExtraFields::new(),
            }));
        }
        self.new_session(NewSessionOptions {
            parent_session,
            ..options
        });
        self.entries = entries.into_iter().map(Stored::new).collect();
        self.verbatim = verbatim;
        self.rebuild_index();
        self.persist()?;
        Ok(self.file.clone())
    }
}
