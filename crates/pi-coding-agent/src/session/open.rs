//! Opening a session file: reading it, migrating an old one (rewritten in
//! place when nothing is lost, else continued in a new file), continuing
//! the most recent one, and forking one into a new file.

use std::path::{Path, PathBuf};

use super::entry::SessionEntry;
use super::horizon::{find_horizon, scan_file};
use super::ids::new_session_id;
use super::lines::LineSource;
use super::lines::{LineSpan, MakeEntry};
use super::load::{ReadFile, current_entry_lines, load_session_file, read_session_file};
use super::manager::{io_error, new_header};
use super::migrate_file::{Migration, migrate_in_place};
use super::outline::MessageOutline;
use super::paths::{agent_dir, default_session_dir, session_file_name};
use super::store::{LoadedMessages, ModelRefs, Stored};
use super::writer::{Lost, SessionWriter};
use super::{SessionError, SessionManager, list};
use crate::file_replace::{ReplaceOptions, replace_file};

impl SessionManager {
    /// Opens a session file. A missing or empty file becomes a new session
    /// that will be written at that path. `session_dir` (for later new or
    /// forked sessions) defaults to the file's directory. A file in an older
    /// format is migrated and rewritten under its lock, which this manager
    /// then holds (docs/durability.md); one that cannot be rewritten is
    /// left as it is and the session continues in a new file.
    pub fn open(path: &Path, session_dir: Option<&Path>) -> Result<Self, SessionError> {
        Self::open_with(path, session_dir, false)
    }

    /// [`Self::open`] for writing: the file's lock is taken before it is
    /// read ([`SessionError::Locked`] when another process holds it), so
    /// that what is read is what this process appends to. Opened unlocked
    /// and locked afterwards, a file another process appended to in between
    /// would be continued from a stale leaf, on a branch of its own.
    pub fn open_locked(path: &Path, session_dir: Option<&Path>) -> Result<Self, SessionError> {
        Self::open_with(path, session_dir, true)
    }

    fn open_with(
        path: &Path,
        session_dir: Option<&Path>,
        lock: bool,
    ) -> Result<Self, SessionError> {
        let dir = match session_dir {
            Some(dir) => dir.to_path_buf(),
            None => path
                .parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
        };
        super::check_regular(path)?;
        let held = if lock && path.exists() {
            Some(SessionWriter::open_locked(path)?)
        } else {
            None
        };
        let (writer, refused) = match migrate_in_place(path, held)? {
            Migration::Current(writer) => (writer, None),
            Migration::Rewritten(writer) => (Some(writer), None),
            Migration::Refused(reason) => (None, Some(reason)),
        };
        let loaded = match Self::read(path) {
            Ok(loaded) => Some(loaded),
            Err(SessionError::EmptyFile { .. }) => None,
            Err(SessionError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                None
            }
            Err(err) => return Err(err),
        };
        match loaded {
            Some((loaded, messages)) => {
                let mut manager = Self::from_loaded(path, dir, loaded, messages, refused);
                if let Some(writer) = writer
                    && manager.file.as_deref() == Some(path)
                {
                    manager.hold(writer);
                }
                Ok(manager)
            }
            None => {
                let cwd = std::env::current_dir()
                    .map(|d| d.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let mut manager = Self::blank(&cwd, Some(dir));
                manager.file = Some(path.to_path_buf());
                Ok(manager)
            }
        }
    }

    /// Reads a session file, message entries kept by their line; those
    /// before the horizon of its last compaction ([`super::horizon`]) as
    /// outlines.
    fn read(path: &Path) -> Result<(ReadFile<Stored>, LoadedMessages), SessionError> {
        let io = |source| SessionError::Io {
            path: path.to_path_buf(),
            source,
        };
        let started = std::time::Instant::now();
        let scan = scan_file(path).map_err(io)?;
        let horizon = match scan.last_compaction {
            Some(at) => find_horizon(path, at).map_err(io)?,
            None => None,
        };
        // Both lists sized by the file's lines up front: grown by doubling,
        // a long session's message list was copied a dozen times. The
        // message list, which may become the agent's transcript as it is,
        // has room for a run's first messages besides (never touched, so
        // never resident, until used): without it the first reply of a
        // resume copied the whole transcript into a larger list.
        let lines = scan.lines;
        let mut maker = StoredMaker {
            messages: LoadedMessages::with_capacity(lines + super::context::RUN_ROOM),
            models: ModelRefs::default(),
        };
        let loaded = read_session_file(path, true, lines, horizon, &mut maker)?;
        tracing::debug!(
            path = %path.display(),
            lines,
            horizon,
            elapsed_ms = started.elapsed().as_secs_f64() * 1000.0,
            "read the session file"
        );
        Ok((loaded, maker.messages))
    }

    /// A manager for a file just read. A file still in an old format (one
    /// [`migrate_in_place`] could not rewrite, for the reason `refused`) is
    /// left untouched and the session continues in a new file.
    fn from_loaded(
        path: &Path,
        dir: PathBuf,
        mut loaded: ReadFile<Stored>,
        messages: LoadedMessages,
        refused: Option<String>,
    ) -> Self {
        let migrated = loaded.migrated_text.take();
        let mut manager = Self::build(path, dir, loaded, messages);
        if let Some(text) = migrated {
            let reason = match (text, refused) {
                (Err(reason), _) => reason.to_string(),
                (Ok(_), Some(reason)) => reason,
                (Ok(_), None) => "it changed while it was being migrated".to_owned(),
            };
            manager.continue_in_new_file(path, &reason);
        }
        manager
    }

    /// Leaves an old-format file that cannot be rewritten untouched: the
    /// session (all its entries) continues in a new file naming it as
    /// `parentSession`, written with the next append.
    fn continue_in_new_file(&mut self, old: &Path, reason: &str) {
        self.start_new_file(old);
        tracing::warn!(
            path = %old.display(),
            "the session file is in an old format and is not migrated in place ({reason}); \
             it is left unchanged and the session continues in {}",
            self.file.as_deref().map_or_else(String::new, |p| p.display().to_string())
        );
        // Every entry was read whole (migrated).
        self.source = None;
    }

    /// Moves the session (all its entries) to a new file naming `old` as
    /// `parentSession`, written with the next append.
    fn start_new_file(&mut self, old: &Path) {
        let parent = old.to_string_lossy().into_owned();
        self.header = new_header(new_session_id(), &self.cwd, Some(parent));
        self.file = self
            .session_dir
            .as_ref()
            .map(|dir| dir.join(session_file_name(&self.header.timestamp, &self.header.id)));
        self.written = None;
        self.needs_newline = false;
        self.writer = None;
    }

    /// The session file at `path` was deleted or replaced while this
    /// process wrote it: every entry (those read from it through the file
    /// still held) is written to a new file, where the session continues,
    /// and the loss is reported as [`SessionError::FileLost`].
    pub(super) fn continue_after_loss(
        &mut self,
        path: &Path,
        lost: Lost,
    ) -> Result<(), SessionError> {
        tracing::error!(path = %path.display(), "the session file was {}", lost.verb());
        // The old file stays readable through the handle held until now.
        if let (Some(source), Some(Ok(file))) = (
            &self.source,
            self.writer.as_ref().map(SessionWriter::reader),
        ) {
            source.pin(file);
        }
        self.start_new_file(path);
        self.persist()?;
        Err(SessionError::FileLost {
            path: path.to_path_buf(),
            what: lost.verb(),
            continued_in: self.file.clone().unwrap_or_default(),
        })
    }

    fn build(
        path: &Path,
        dir: PathBuf,
        loaded: ReadFile<Stored>,
        messages: LoadedMessages,
    ) -> Self {
        let mut manager = Self::blank(&loaded.header.cwd, Some(dir));
        manager.file = Some(path.to_path_buf());
        manager.source = Some(LineSource::new(path));
        manager.header = loaded.header;
        manager.entries = loaded.entries;
        // No doubling slack, but room for a run's first appends (the
        // thinking level of a resume, its messages) without a copy.
        let room = manager.entries.len() + super::context::RUN_ROOM;
        manager.entries.shrink_to(room);
        manager.loaded = messages;
        manager.diagnostics = loaded.diagnostics;
        manager.rebuild_index();
        manager.written = Some(manager.entries.len());
        manager.needs_newline = !loaded.ends_with_newline;
        manager
    }

    /// Opens (locked, as [`Self::open_locked`]) the most recently modified valid session of `cwd`, or creates
    /// a new one when there is none.
    pub fn continue_recent(cwd: &str, session_dir: Option<&Path>) -> Result<Self, SessionError> {
        let dir =
            session_dir.map_or_else(|| default_session_dir(&agent_dir(), cwd), Path::to_path_buf);
        match list::find_most_recent_session(&dir) {
            Some(path) => Self::open_locked(&path, Some(&dir)),
            None => Self::create(cwd, Some(&dir)),
        }
    }

    /// Copies every entry of the session at `source` into a new session file
    /// for `target_cwd`, whose header names `source` as `parentSession`.
    pub fn fork_from(
        source: &Path,
        target_cwd: &str,
        session_dir: Option<&Path>,
    ) -> Result<Self, SessionError> {
        // The source's lines as they are (migrated if old), as pi copies them.
        let lines = match current_entry_lines(source)? {
            Some(lines) => lines,
            None => load_session_file(source)?
                .entries
                .iter()
                .map(SessionEntry::to_line)
                .collect::<Result<_, _>>()?,
        };
        let dir = session_dir.map_or_else(
            || default_session_dir(&agent_dir(), target_cwd),
            Path::to_path_buf,
        );
        Self::ensure_dir(&dir)?;
        let header = new_header(
            new_session_id(),
            target_cwd,
            Some(source.to_string_lossy().into_owned()),
        );
        let path = dir.join(session_file_name(&header.timestamp, &header.id));
        let mut content = serde_json::to_string(&header)?;
        content.push('\n');
        for line in &lines {
            content.push_str(line);
            content.push('\n');
        }
        replace_file(&path, ReplaceOptions::USER_FILE, content.as_bytes())
            .map_err(|e| io_error(&path)(e.into()))?;
        Self::open(&path, Some(&dir))
    }
}

/// What a resume keeps of the entries it reads: message entries by their
/// line, with their messages in file order in `messages` (or, for an
/// outline, read again when needed).
struct StoredMaker {
    messages: LoadedMessages,
    models: ModelRefs,
}

impl MakeEntry<Stored> for StoredMaker {
    fn whole(&mut self, entry: SessionEntry, span: Option<LineSpan>) -> Stored {
        Stored::read(entry, span, &mut self.messages, &mut self.models)
    }

    fn outline(&mut self, outline: MessageOutline, span: LineSpan) -> Option<Stored> {
        Some(Stored::outline(outline, span, &mut self.models))
    }
}
