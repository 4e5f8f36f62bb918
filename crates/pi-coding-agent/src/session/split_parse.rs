//! Parsing the lines of a long session file on two threads.
//!
//! Parsing every line into typed entries is most of a resume's time (a
//! 20,000-message session: about half of a `pi -c -p`). The calling
//! thread reads the file in batches of lines and hands some of them to a
//! second thread; each thread parses its batches, and the calling thread
//! takes the results batch by batch in file order, so the entries, their
//! spans and the diagnostics are exactly what a single pass gives.

use std::collections::VecDeque;
use std::io::{self, BufRead};
use std::sync::mpsc;
use std::thread;

use super::lines::{EntrySink, Line, LineReader, MakeEntry, ParsedLine, parse_line};

/// Files of fewer lines are parsed on the calling thread alone: starting a
/// thread costs about as much as parsing a few dozen lines, and a short
/// file is parsed in a millisecond or two.
const MIN_LINES: usize = 1024;

/// How many bytes of lines one batch holds (a batch ends after the line
/// that reaches it): small enough that both threads are busy from the
/// start and that the batches in flight stay a small part of the memory,
/// large enough that handing them over costs little.
const BATCH_BYTES: usize = 64 * 1024;

/// How many batches the second thread has at once: the one it parses and
/// the next ones, so that it does not run out while this thread parses.
const HELPER_BATCHES: usize = 6;

/// How many batches may wait to be handed over before this thread stops
/// parsing and waits for the second one (what the batches in flight may
/// hold in memory).
const MAX_QUEUED: usize = 16;

/// Whether a file of `lines` lines (0: unknown) is worth a second thread:
/// it is long and the process may run on more than one processor.
pub(super) fn worth_it(lines: usize) -> bool {
    lines >= MIN_LINES && thread::available_parallelism().is_ok_and(|n| n.get() > 1)
}

/// Lines read into one buffer, to be parsed together.
#[derive(Default)]
struct Batch {
    text: Vec<u8>,
    lines: Vec<Line>,
}

impl Batch {
    /// Reads lines into this (emptied) batch until it holds
    /// [`BATCH_BYTES`] or the file ends.
    fn fill<R: BufRead>(&mut self, reader: &mut LineReader<R>) -> io::Result<()> {
        self.text.clear();
        self.lines.clear();
        self.text.reserve(BATCH_BYTES);
        while self.text.len() < BATCH_BYTES {
            match reader.next_into(&mut self.text)? {
                Some(line) => self.lines.push(line),
                None => break,
            }
        }
        Ok(())
    }

    /// Every line of the batch, parsed ([`parse_line`]).
    fn parse(&self, horizon: Option<u64>) -> Vec<ParsedLine> {
        self.lines
            .iter()
            .map(|line| {
                let bytes = self.text.get(line.range.clone()).unwrap_or_default();
                parse_line(bytes, line.span, horizon)
            })
            .collect()
    }

    /// Hands what the lines parsed to to `sink`, in order.
    fn drain_into<T, M: MakeEntry<T>>(
        &self,
        parsed: Vec<ParsedLine>,
        sink: &mut EntrySink<'_, T, M>,
    ) {
        for (line, parsed) in self.lines.iter().zip(parsed) {
            sink.push(line, parsed, &self.text);
        }
    }
}

/// A batch read, in file order: sent to the second thread, or parsed here.
enum Slot {
    /// At the second thread; its results come back in the order sent.
    Helper,
    /// Parsed on this thread.
    Own(Batch, Vec<ParsedLine>),
}

/// [`read_entries`](super::lines::read_entries) on two threads. The
/// second thread is kept busy with [`HELPER_BATCHES`] batches; this thread
/// reads the file, parses a batch of its own whenever the second thread
/// has not finished the oldest one, and hands every batch to `sink` in
/// file order. Each thread thus parses as much as it has time for.
pub(super) fn read_entries<R, T, M>(
    reader: &mut LineReader<R>,
    horizon: Option<u64>,
    sink: &mut EntrySink<'_, T, M>,
) -> io::Result<()>
where
    R: BufRead,
    M: MakeEntry<T>,
{
    thread::scope(|scope| {
        let (to_helper, inbox) = mpsc::channel::<Batch>();
        let (to_caller, parsed_batches) = mpsc::channel::<(Batch, Vec<ParsedLine>)>();
        scope.spawn(move || {
            for batch in inbox {
                let parsed = batch.parse(horizon);
                if to_caller.send((batch, parsed)).is_err() {
                    break;
                }
            }
        });
        let helper_gone = || io::Error::other("the session parser's second thread stopped");

        let mut queue: VecDeque<Slot> = VecDeque::new();
        // Batches the second thread has parsed, not handed over yet.
        let mut ready: VecDeque<(Batch, Vec<ParsedLine>)> = VecDeque::new();
        let mut at_helper = 0;
        let mut spare: Vec<Batch> = Vec::new();
        let mut end = false;
        loop {
            // Take what the second thread has finished, and keep it busy:
            // a thread that runs out of work sleeps, and waking it costs
            // more than parsing a batch.
            loop {
                match parsed_batches.try_recv() {
                    Ok(result) => {
                        ready.push_back(result);
                        at_helper -= 1;
                    }
                    Err(mpsc::TryRecvError::Empty) => break,
                    Err(mpsc::TryRecvError::Disconnected) => return Err(helper_gone()),
                }
            }
            while !end && at_helper < HELPER_BATCHES && queue.len() < MAX_QUEUED {
                let mut batch = spare.pop().unwrap_or_default();
                batch.fill(reader)?;
                if batch.lines.is_empty() {
                    end = true;
                    break;
                }
                to_helper.send(batch).map_err(|_| helper_gone())?;
                at_helper += 1;
                queue.push_back(Slot::Helper);
            }
            // Hand over what is ready, in file order; wait for the second
            // thread only when there is nothing else to do.
            while let Some(front) = queue.pop_front() {
                let (batch, parsed) = match front {
                    Slot::Own(batch, parsed) => (batch, parsed),
                    Slot::Helper => match ready.pop_front() {
                        Some(result) => result,
                        None if end || queue.len() + 1 >= MAX_QUEUED => {
                            at_helper -= 1;
                            parsed_batches.recv().map_err(|_| helper_gone())?
                        }
                        None => {
                            queue.push_front(Slot::Helper);
                            break;
                        }
                    },
                };
                batch.drain_into(parsed, sink);
                spare.push(batch);
            }
            if end && queue.is_empty() {
                return Ok(());
            }
            // Parse a batch here.
            if !end {
                let mut batch = spare.pop().unwrap_or_default();
                batch.fill(reader)?;
                if batch.lines.is_empty() {
                    end = true;
                } else {
                    let parsed = batch.parse(horizon);
                    queue.push_back(Slot::Own(batch, parsed));
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;
    use std::io::BufReader;

    use super::*;
    use crate::session::entry::SessionEntry;
    use crate::session::lines::LineSpan;
    use crate::session::load::LoadDiagnostic;

    /// What a pass over `text` gives: each entry's id and span, and the
    /// diagnostics.
    type Outcome = (Vec<(String, Option<LineSpan>)>, Vec<LoadDiagnostic>);

    fn read(text: &str, two_threads: bool) -> Outcome {
        let mut reader = LineReader::new(BufReader::new(text.as_bytes()));
        let mut entries = Vec::new();
        let mut diagnostics = Vec::new();
        let mut make = |entry: SessionEntry, span| (entry.id().to_owned(), span);
        if two_threads {
            let mut sink = EntrySink::new(true, &mut make, &mut entries, &mut diagnostics);
            read_entries(&mut reader, None, &mut sink).unwrap();
        } else {
            // 0 lines: unknown, so one thread.
            super::super::lines::read_entries(
                &mut reader,
                0,
                true,
                None,
                &mut make,
                &mut entries,
                &mut diagnostics,
            )
            .unwrap();
        }
        (entries, diagnostics)
    }

    /// Many batches of good lines mixed with blank lines, lines that are
    /// not JSON, entries kept verbatim, long lines and a torn last line:
    /// two threads give what one gives, in the same order.
    #[test]
    fn two_threads_read_what_one_reads() {
        let mut text = String::new();
        let mut parent = "null".to_owned();
        for i in 0..20_000 {
            let id = format!("e{i:07}");
            match i % 500 {
                7 => text.push_str("not json at all\n"),
                8 => text.push_str("\n   \n"),
                9 => {
                    let _ = writeln!(text, r#"{{"type":"future-kind","id":"{id}","x":[1,2]}}"#);
                }
                10 => {
                    let long = "y".repeat(300_000);
                    let _ = writeln!(
                        text,
                        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"t","message":{{"role":"user","content":"{long}","timestamp":1}}}}"#
                    );
                }
                _ => {
                    let _ = writeln!(
                        text,
                        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"t","message":{{"role":"user","content":[{{"type":"text","text":"turn {i}"}}],"timestamp":1}}}}"#
                    );
                }
            }
            parent = format!("\"{id}\"");
        }
        text.push_str(r#"{"type":"message","id":"torn","#);

        let one = read(&text, false);
        let two = read(&text, true);
        assert_eq!(one, two);
        assert!(one.0.len() > 19_800, "{}", one.0.len());
        assert!(one.1.len() >= 80, "{:?}", one.1.len());
        assert!(
            one.0
                .iter()
                .any(|(id, span)| id == "e0000009" && span.is_none()),
            "the unknown entry is kept verbatim"
        );
    }

    /// An empty input and one shorter than a batch.
    #[test]
    fn short_inputs() {
        for text in [
            "",
            "\n",
            "{\"type\":\"label\",\"id\":\"a\",\"parentId\":null,\"timestamp\":\"t\",\"targetId\":\"x\"}\n",
        ] {
            assert_eq!(read(text, false), read(text, true), "{text:?}");
        }
    }
}
