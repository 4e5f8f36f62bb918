use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, Utc};
use pi_tui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pi_tui::text::visible_width;
use pi_tui::theme::{ColorMode, Theme};

use super::*;

#[derive(Default)]
struct Log {
    renamed: Vec<(PathBuf, String)>,
    deleted: Vec<PathBuf>,
}

struct FakeStore(Arc<Mutex<Log>>, Vec<SessionInfo>);

impl SessionStore for FakeStore {
    fn list_all(&self) -> Vec<SessionInfo> {
        self.1.clone()
    }
    fn rename(&self, path: &Path, name: &str) -> Result<(), StoreError> {
        self.0
            .lock()
            .unwrap()
            .renamed
            .push((path.to_path_buf(), name.to_owned()));
        Ok(())
    }
    fn delete(&self, path: &Path) -> Result<bool, StoreError> {
        self.0.lock().unwrap().deleted.push(path.to_path_buf());
        Ok(false)
    }
}

fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-03-01T12:00:00Z")
        .unwrap()
        .to_utc()
}

fn info(n: usize, first: &str, age: Duration) -> SessionInfo {
    SessionInfo {
        path: PathBuf::from(format!("/s/p/{n:04}.jsonl")),
        id: format!("id-{n}"),
        cwd: "/work/project".to_owned(),
        name: None,
        parent_session_path: None,
        created: now() - age,
        modified: now() - age,
        message_count: n * 2,
        first_message: first.to_owned(),
        exact: true,
    }
}

fn sample() -> Vec<SessionInfo> {
    let mut a = info(1, "fix the login bug", Duration::minutes(5));
    a.name = Some("Login work".to_owned());
    let mut fork = info(2, "fix the login bug (retry)", Duration::minutes(2));
    fork.parent_session_path = Some("/s/p/0001.jsonl".to_owned());
    let b = info(3, "write the docs\nfor the API", Duration::hours(3));
    let c = info(4, "refactor the parser", Duration::days(40));
    vec![fork, a, b, c]
}

fn picker(sessions: Vec<SessionInfo>) -> (SessionPicker, Arc<Mutex<Log>>) {
    let log = Arc::new(Mutex::new(Log::default()));
    let mut all = sessions.clone();
    let mut elsewhere = info(9, "elsewhere", Duration::days(400));
    elsewhere.cwd = "/other".to_owned();
    all.push(elsewhere);
    let store = Box::new(FakeStore(Arc::clone(&log), all));
    let theme = Arc::new(Theme::dark(ColorMode::NoColor));
    let picker = SessionPicker::new(
        theme,
        sessions,
        Some(PathBuf::from("/s/p/0003.jsonl")),
        store,
    )
    .with_now(now());
    (picker, log)
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn typed(p: &mut SessionPicker, text: &str) {
    for c in text.chars() {
        p.handle_key(&key(KeyCode::Char(c)));
    }
    p.wait_for_search();
}

fn screen(p: &mut SessionPicker, width: usize) -> String {
    let lines = p.render(width, 30);
    for line in &lines {
        assert!(visible_width(line) <= width, "{line:?}");
    }
    lines.join("\n")
}

#[test]
fn ages_as_pi() {
    let n = now();
    assert_eq!(format_age(n, n), "now");
    assert_eq!(format_age(n - Duration::minutes(5), n), "5m");
    assert_eq!(format_age(n - Duration::hours(3), n), "3h");
    assert_eq!(format_age(n - Duration::days(2), n), "2d");
    assert_eq!(format_age(n - Duration::days(14), n), "2w");
    assert_eq!(format_age(n - Duration::days(120), n), "4mo");
    assert_eq!(format_age(n - Duration::days(400), n), "1y");
}

#[test]
fn threaded_list_nests_forks() {
    let (mut p, _) = picker(sample());
    insta::assert_snapshot!("picker_threaded", screen(&mut p, 90));
}

#[test]
fn empty_folder() {
    let (mut p, _) = picker(Vec::new());
    insta::assert_snapshot!("picker_empty", screen(&mut p, 90));
    p.handle_key(&ctrl('n'));
    assert!(screen(&mut p, 90).contains("No named sessions in current folder"));
}

#[test]
fn search_filters_and_sorts() {
    let (mut p, _) = picker(sample());
    typed(&mut p, "login");
    insta::assert_snapshot!("picker_filtered", screen(&mut p, 90));
    for _ in 0..5 {
        p.handle_key(&key(KeyCode::Backspace));
    }
    typed(&mut p, "\"the docs\"");
    assert_eq!(p.shown(), 1, "{}", screen(&mut p, 90));
    p.handle_key(&ctrl('u'));
    typed(&mut p, "re:PARS(er)?\\s+/work");
    assert_eq!(p.shown(), 1);
    assert!(matches!(
        p.handle_key(&key(KeyCode::Enter)),
        Outcome::Done(Action::Resume(path)) if path == Path::new("/s/p/0004.jsonl")
    ));
}

#[test]
fn scope_sort_and_path_toggles() {
    let (mut p, _) = picker(sample());
    p.handle_key(&key(KeyCode::Tab));
    p.handle_key(&ctrl('s'));
    p.handle_key(&ctrl('p'));
    insta::assert_snapshot!("picker_all_recent", screen(&mut p, 100));
}

#[test]
fn long_list_scrolls_and_narrow_terminal_fits() {
    let sessions: Vec<SessionInfo> = (0..30)
        .map(|n| {
            info(
                n,
                &format!("session number {n} with a long first message"),
                Duration::hours(n as i64),
            )
        })
        .collect();
    let (mut p, _) = picker(sessions);
    for _ in 0..15 {
        p.handle_key(&key(KeyCode::Down));
    }
    insta::assert_snapshot!("picker_long", screen(&mut p, 80));
    insta::assert_snapshot!("picker_narrow", screen(&mut p, 30));
}

#[test]
fn delete_asks_first_and_refuses_the_current_session() {
    let (mut p, log) = picker(sample());
    // The current session (0003) is the third row.
    p.handle_key(&key(KeyCode::Down));
    p.handle_key(&key(KeyCode::Down));
    p.handle_key(&ctrl('d'));
    assert!(screen(&mut p, 90).contains("Cannot delete the currently active session"));
    p.handle_key(&key(KeyCode::Up));
    p.handle_key(&ctrl('d'));
    insta::assert_snapshot!("picker_delete_confirm", screen(&mut p, 90));
    p.handle_key(&key(KeyCode::Esc));
    assert!(log.lock().unwrap().deleted.is_empty());
    p.handle_key(&ctrl('d'));
    p.handle_key(&key(KeyCode::Enter));
    assert_eq!(
        log.lock().unwrap().deleted,
        vec![PathBuf::from("/s/p/0002.jsonl")]
    );
    assert!(screen(&mut p, 90).contains("Session deleted"));
    assert_eq!(p.shown(), 3);
}

#[test]
fn rename_edits_inline() {
    let (mut p, log) = picker(sample());
    p.handle_key(&key(KeyCode::Down));
    p.handle_key(&key(KeyCode::Down));
    p.handle_key(&ctrl('r'));
    typed(&mut p, "Docs");
    insta::assert_snapshot!("picker_rename", screen(&mut p, 60));
    p.handle_key(&key(KeyCode::Enter));
    assert_eq!(
        log.lock().unwrap().renamed,
        vec![(PathBuf::from("/s/p/0003.jsonl"), "Docs".to_owned())]
    );
    assert!(screen(&mut p, 90).contains("Docs"));
}

#[test]
fn escape_cancels_or_quits_at_startup() {
    let (mut p, _) = picker(sample());
    assert!(matches!(p.handle_key(&key(KeyCode::Esc)), Outcome::Cancel));
    let (p, _) = picker(sample());
    let mut p = p.exit_on_cancel();
    assert!(matches!(
        p.handle_key(&key(KeyCode::Esc)),
        Outcome::Done(Action::Quit)
    ));
}

#[test]
fn a_running_search_says_how_far_it_is() {
    let (mut p, _) = picker(sample());
    typed(&mut p, "login");
    assert!(!p.searching());
    assert!(!screen(&mut p, 90).contains("Searching"));
    // As drawn while the workers are still at it.
    p.search = None;
    p.search_status = Some(SearchStatus {
        done: 1,
        total: 4,
        finished: false,
    });
    assert!(p.searching());
    let shown = screen(&mut p, 90);
    assert!(shown.contains("Searching 1/4 sessions…"), "{shown}");
    assert!(shown.contains("fix the login bug"), "{shown}");
    p.hits.clear();
    p.refilter();
    let shown = screen(&mut p, 90);
    assert!(shown.contains("Searching 1/4 sessions…"), "{shown}");
    assert!(!shown.contains("No sessions"), "{shown}");
}
