use std::path::Path;
use std::time::{Duration, Instant};

use super::*;

/// `count` copies of a session of `turns` user messages in `dir`; the
/// last copy also holds "zebra crossing".
fn corpus(dir: &Path, count: usize, turns: usize) -> Vec<SessionInfo> {
    let mut text = String::from(
        "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/w\"}\n",
    );
    for n in 0..turns {
        text += &format!(
            "{{\"type\":\"message\",\"id\":\"m{n}\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"question {n} about the usual things, once more and again\",\"timestamp\":{n}}}}}\n"
        );
    }
    for i in 0..count {
        let mut body = text.replace("\"id\":\"s\"", &format!("\"id\":\"s{i}\""));
        if i + 1 == count {
            body += "{\"type\":\"message\",\"id\":\"z\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:02.000Z\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"the zebra crossing\"}],\"timestamp\":99999}}\n";
        }
        std::fs::write(dir.join(format!("s{i:03}.jsonl")), body).unwrap();
    }
    crate::session::list_sessions_in(dir).unwrap()
}

#[test]
fn finds_the_matches_of_every_worker() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = corpus(dir.path(), 12, 50);
    let found = search_now(&sessions, "\"zebra crossing\"", false);
    assert_eq!(found.len(), 1);
    assert_eq!(sessions[found[0]].id, "s11");
    // Fuzzy tokens match every session; recent keeps the listing order.
    let all = search_now(&sessions, "usual things", true);
    assert_eq!(all, (0..12).collect::<Vec<_>>());
    assert!(search_now(&sessions, "re:(", false).is_empty());
    assert_eq!(search_now(&sessions, "  ", false).len(), 12);
}

#[test]
fn results_stream_in_and_wake_the_screen() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = corpus(dir.path(), 6, 20);
    let wakes = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&wakes);
    let waker: Waker = Arc::new(move || {
        counter.fetch_add(1, Ordering::Relaxed);
    });
    let search = SessionSearch::start(
        sessions.iter().map(target).collect(),
        parse_query("question"),
        Some(waker),
    );
    search.wait();
    let mut found = Vec::new();
    let status = search.take(&mut found);
    assert_eq!(
        status,
        SearchStatus {
            done: 6,
            total: 6,
            finished: true
        }
    );
    assert_eq!(found.len(), 6);
    assert!(wakes.load(Ordering::Relaxed) >= 1);
    // Taken once: nothing more.
    let mut again = Vec::new();
    search.take(&mut again);
    assert!(again.is_empty());
}

#[test]
fn dropping_the_search_stops_its_workers() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = corpus(dir.path(), 40, 4_000);
    // A regex reads every line of every file: seconds in a debug build.
    let search = SessionSearch::start(
        sessions.iter().map(target).collect(),
        parse_query("re:never there"),
        None,
    );
    let shared = Arc::clone(&search.shared);
    std::thread::sleep(Duration::from_millis(20));
    drop(search);
    let start = Instant::now();
    while !shared.lock().finished {
        assert!(start.elapsed() < Duration::from_secs(10), "still running");
        std::thread::sleep(Duration::from_millis(1));
    }
    let done = shared.lock().done;
    assert!(done < 40, "{done} of 40 searched after the cancel");
}
