//! A running session search: the files are matched on a few worker
//! threads of their own (never on the async runtime), newest first; the
//! matches so far are taken by the picker as they come, and a wake-up
//! tells the screen to draw them. Dropping the search cancels it (a newer
//! query replaces the older one): the workers stop at their next line.

use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use super::session_scan::{Prefilter, ScanResult, SearchTarget, scan_session};
use super::session_search::{Query, parse_query};
use crate::session::SessionInfo;

/// Most worker threads of one search.
const MAX_WORKERS: usize = 8;

/// Called (from a worker thread) when new results are there to take.
pub type Waker = Arc<dyn Fn() + Send + Sync>;

#[derive(Debug, Default)]
struct Progress {
    /// Matches not taken yet: (position in the targets, score).
    matches: Vec<(usize, f64)>,
    /// Targets done.
    done: usize,
    /// Every worker has ended.
    finished: bool,
    /// A wake-up was sent and the results were not taken since.
    woken: bool,
}

#[derive(Default)]
struct Shared {
    progress: Mutex<Progress>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Progress> {
        self.progress
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// What a [`SessionSearch::take`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchStatus {
    /// Sessions searched so far.
    pub done: usize,
    /// Sessions to search.
    pub total: usize,
    /// True when the search has ended.
    pub finished: bool,
}

/// One query's search over a list of sessions.
pub struct SessionSearch {
    shared: Arc<Shared>,
    cancel: Arc<AtomicBool>,
    total: usize,
}

impl SessionSearch {
    /// Starts matching `targets` against `query` on worker threads;
    /// `waker` is called when there is something new to [`Self::take`].
    pub fn start(targets: Vec<SearchTarget>, query: Query, waker: Option<Waker>) -> Self {
        let shared = Arc::new(Shared::default());
        let cancel = Arc::new(AtomicBool::new(false));
        let total = targets.len();
        let job = Job {
            targets,
            query,
            waker,
            shared: Arc::clone(&shared),
            cancel: Arc::clone(&cancel),
        };
        let spawned = std::thread::Builder::new()
            .name("session-search".to_owned())
            .spawn(move || job.run());
        if let Err(e) = spawned {
            tracing::warn!("cannot start the session search: {e}");
            let mut progress = shared.lock();
            progress.finished = true;
        }
        Self {
            shared,
            cancel,
            total,
        }
    }

    /// Moves the matches found since the last call into `into`; how far the
    /// search is.
    pub fn take(&self, into: &mut Vec<(usize, f64)>) -> SearchStatus {
        let mut progress = self.shared.lock();
        into.append(&mut progress.matches);
        progress.woken = false;
        SearchStatus {
            done: progress.done,
            total: self.total,
            finished: progress.finished,
        }
    }

    /// Blocks until the search has ended (tests, benchmarks).
    pub fn wait(&self) {
        let mut progress = self.shared.lock();
        while !progress.finished {
            progress = self
                .shared
                .changed
                .wait(progress)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }
}

impl Drop for SessionSearch {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// What the search reads of a listed session.
pub fn target(session: &SessionInfo) -> SearchTarget {
    SearchTarget {
        path: session.path.clone(),
        id: session.id.clone(),
        name: session.name.clone(),
        cwd: session.cwd.clone(),
        first_message: session.first_message.clone(),
    }
}

/// Orders the matching `candidates` (positions in `sessions`, newest
/// first) as pi lists them: as they are for `recent`, else by score (lower
/// first), the newer first on ties. Candidates without a score are left out.
pub fn rank(
    sessions: &[SessionInfo],
    candidates: impl IntoIterator<Item = usize>,
    hits: &HashMap<usize, f64>,
    recent: bool,
) -> Vec<usize> {
    let mut order: Vec<(usize, f64)> = candidates
        .into_iter()
        .filter_map(|i| hits.get(&i).map(|score| (i, *score)))
        .collect();
    if !recent {
        order.sort_by(|a, b| {
            a.1.total_cmp(&b.1)
                .then_with(|| sessions[b.0].modified.cmp(&sessions[a.0].modified))
        });
    }
    order.into_iter().map(|(i, _)| i).collect()
}

/// Searches `sessions` for `query` and waits for the end: the positions of
/// the matches in pi's order (a blank query: every session; an invalid
/// regex: none).
pub fn search_now(sessions: &[SessionInfo], query: &str, recent: bool) -> Vec<usize> {
    if query.trim().is_empty() {
        return (0..sessions.len()).collect();
    }
    let query = parse_query(query);
    if matches!(query, Query::Regex(Err(_))) {
        return Vec::new();
    }
    let search = SessionSearch::start(sessions.iter().map(target).collect(), query, None);
    search.wait();
    let mut found = Vec::new();
    search.take(&mut found);
    let hits: HashMap<usize, f64> = found.into_iter().collect();
    rank(sessions, 0..sessions.len(), &hits, recent)
}

/// The search's own thread: runs the workers and marks the end.
struct Job {
    targets: Vec<SearchTarget>,
    query: Query,
    waker: Option<Waker>,
    shared: Arc<Shared>,
    cancel: Arc<AtomicBool>,
}

impl Job {
    fn run(self) {
        let prefilter = Prefilter::new(&self.query);
        let next = AtomicUsize::new(0);
        let workers = std::thread::available_parallelism()
            .map_or(2, NonZeroUsize::get)
            .clamp(1, MAX_WORKERS)
            .min(self.targets.len());
        std::thread::scope(|scope| {
            for _ in 1..workers {
                scope.spawn(|| self.work(&next, prefilter.as_ref()));
            }
            self.work(&next, prefilter.as_ref());
        });
        self.shared.lock().finished = true;
        self.shared.changed.notify_all();
        if !self.cancel.load(Ordering::Relaxed) {
            self.wake();
        }
    }

    fn work(&self, next: &AtomicUsize, prefilter: Option<&Prefilter>) {
        loop {
            if self.cancel.load(Ordering::Relaxed) {
                return;
            }
            let at = next.fetch_add(1, Ordering::Relaxed);
            let Some(target) = self.targets.get(at) else {
                return;
            };
            let result = scan_session(target, &self.query, prefilter, &self.cancel);
            if result == ScanResult::Cancelled {
                return;
            }
            let wake = {
                let mut progress = self.shared.lock();
                progress.done += 1;
                if let ScanResult::Match(score) = result {
                    progress.matches.push((at, score));
                }
                !std::mem::replace(&mut progress.woken, true)
            };
            if wake {
                self.wake();
            }
        }
    }

    fn wake(&self) {
        if let Some(waker) = &self.waker {
            waker();
        }
    }
}

#[cfg(test)]
#[path = "session_searcher_tests.rs"]
mod tests;
