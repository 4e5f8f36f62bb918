//! Collects a command's output: a bounded tail in memory for the model and
//! the partial updates, and the complete output in a temp file
//! (`$TMPDIR/pi-bash-<16 hex>.log`) as soon as it goes past the limits.

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::mpsc;

use tokio::task::JoinHandle;

use super::truncate::{TruncatedBy, TruncationOptions, TruncationResult, truncate_tail};

/// The tail kept in memory is trimmed back to this many times the byte
/// limit once it grows past twice that.
const ROLLING_FACTOR: usize = 2;

/// The most bytes of output the full-output log keeps; what comes after
/// is dropped (the model's tail still follows the output to its end).
pub(crate) const MAX_LOG_BYTES: u64 = 256 * 1024 * 1024;

/// The line that ends a log that reached [`MAX_LOG_BYTES`].
const LOG_FULL_NOTE: &str =
    "\n[pi: the log stops here, at 256 MiB; the command's later output is not kept]\n";

/// The complete output (up to [`MAX_LOG_BYTES`]), written by a blocking
/// task so the runtime never waits on the disk; mode 0600.
#[derive(Debug)]
struct TempLog {
    path: PathBuf,
    chunks: mpsc::Sender<Vec<u8>>,
    writer: JoinHandle<std::io::Result<()>>,
}

impl TempLog {
    fn create() -> Self {
        let id = uuid::Uuid::new_v4().simple().to_string();
        let path = std::env::temp_dir().join(format!("pi-bash-{}.log", &id[..16]));
        let (chunks, receiver) = mpsc::channel::<Vec<u8>>();
        let file_path = path.clone();
        let writer = tokio::task::spawn_blocking(move || {
            // Private: a command's output may hold secrets.
            let created = {
                use std::os::unix::fs::OpenOptionsExt;
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o600)
                    .open(&file_path)?
            };
            let mut file = std::io::BufWriter::new(created);
            let mut written = 0u64;
            while let Ok(chunk) = receiver.recv() {
                if written >= MAX_LOG_BYTES {
                    continue;
                }
                let room = usize::try_from(MAX_LOG_BYTES - written).unwrap_or(usize::MAX);
                let part = &chunk[..chunk.len().min(room)];
                file.write_all(part)?;
                written += part.len() as u64;
                if written >= MAX_LOG_BYTES {
                    file.write_all(LOG_FULL_NOTE.as_bytes())?;
                }
            }
            file.flush()
        });
        Self {
            path,
            chunks,
            writer,
        }
    }

    fn write(&self, bytes: &[u8]) {
        // A failed send means the writer stopped on an I/O error, which
        // `close` reports.
        let _ = self.chunks.send(bytes.to_vec());
    }
}

/// A snapshot of the output so far.
#[derive(Debug, Clone)]
pub(crate) struct OutputSnapshot {
    /// Tail truncation of the whole output (totals count everything seen).
    pub truncation: TruncationResult,
    /// The temp file with the complete output, once there is one.
    pub full_output_path: Option<PathBuf>,
    /// Bytes of the last (possibly unfinished) line.
    pub last_line_bytes: usize,
}

/// Accumulates raw output chunks.
#[derive(Debug)]
pub(crate) struct OutputAccumulator {
    options: TruncationOptions,
    /// Everything until the temp log starts; afterwards a rolling tail.
    buffer: Vec<u8>,
    /// Whether `buffer` starts at the beginning of a line.
    buffer_at_line_start: bool,
    total_bytes: usize,
    newlines: usize,
    last_line_bytes: usize,
    log: Option<TempLog>,
    /// Path of the temp file, kept after it is closed.
    log_path: Option<PathBuf>,
}

impl OutputAccumulator {
    /// An empty accumulator with pi's default limits.
    pub(crate) fn new() -> Self {
        Self {
            options: TruncationOptions::default(),
            buffer: Vec::new(),
            buffer_at_line_start: true,
            total_bytes: 0,
            newlines: 0,
            last_line_bytes: 0,
            log: None,
            log_path: None,
        }
    }

    /// Lines in pi's counting: `split("\n")` of the whole output.
    fn total_lines(&self) -> usize {
        self.newlines + 1
    }

    fn over_limits(&self) -> bool {
        self.total_bytes > self.options.max_bytes || self.total_lines() > self.options.max_lines
    }

    /// Adds a chunk; starts the temp log when the output passes a limit.
    pub(crate) fn append(&mut self, chunk: &[u8]) {
        self.total_bytes += chunk.len();
        match chunk.iter().rposition(|&b| b == b'\n') {
            Some(last) => {
                self.newlines += chunk.iter().filter(|&&b| b == b'\n').count();
                self.last_line_bytes = chunk.len() - last - 1;
            }
            None => self.last_line_bytes += chunk.len(),
        }
        match &self.log {
            Some(log) => log.write(chunk),
            None if self.over_limits() => {
                let log = TempLog::create();
                log.write(&self.buffer);
                log.write(chunk);
                self.log_path = Some(log.path.clone());
                self.log = Some(log);
            }
            None => {}
        }
        self.buffer.extend_from_slice(chunk);
        if self.log_path.is_some() {
            self.trim();
        }
    }

    /// Drops the start of the in-memory tail once it is more than twice the
    /// rolling size, keeping whole characters and remembering whether the
    /// kept part starts a line.
    fn trim(&mut self) {
        let keep = self.options.max_bytes.saturating_mul(ROLLING_FACTOR);
        if self.buffer.len() <= keep.saturating_mul(2) {
            return;
        }
        let mut start = self.buffer.len() - keep;
        while start < self.buffer.len() && (self.buffer[start] & 0xC0) == 0x80 {
            start += 1;
        }
        self.buffer_at_line_start = self.buffer[start - 1] == b'\n';
        self.buffer.drain(..start);
    }

    /// The current output, tail-truncated.
    pub(crate) fn snapshot(&self) -> OutputSnapshot {
        let text = String::from_utf8_lossy(&self.buffer);
        let text = if self.buffer_at_line_start {
            &text[..]
        } else {
            text.split_once('\n').map_or(&text[..], |(_, rest)| rest)
        };
        let mut truncation = truncate_tail(text, self.options);
        if self.over_limits() {
            truncation.truncated = true;
            truncation.truncated_by.get_or_insert(TruncatedBy::Bytes);
            truncation.total_lines = self.total_lines();
            truncation.total_bytes = self.total_bytes;
        }
        OutputSnapshot {
            truncation,
            full_output_path: self.log_path.clone(),
            last_line_bytes: self.last_line_bytes,
        }
    }

    /// Flushes and closes the temp file. Write errors are logged: the output
    /// for the model is complete without it.
    pub(crate) async fn close(&mut self) {
        if let Some(log) = self.log.take() {
            let TempLog {
                path,
                chunks,
                writer,
            } = log;
            drop(chunks);
            match writer.await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::warn!("writing {} failed: {e}", path.display()),
                Err(e) => tracing::warn!("writing {} failed: {e}", path.display()),
            }
        }
    }
}
