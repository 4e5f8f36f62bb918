//! The interactive mode's rendering cost, through the real state (`Ui`)
//! and `InlineRenderer` writing into memory:
//!
//! - `stream_frame`: one streamed delta (~100 bytes of markdown) and the
//!   frame after it, with a 5,000-message resumed session in the scrollback
//!   and 100 KB of the answer already streamed (goal: < 2 ms);
//! - `stream_200kb_total`: the whole 200 KB answer, one frame per delta;
//! - `keystroke_with_bash_100k_lines`: one key typed while a bash tool that
//!   printed 100,000 lines runs (goal: < 16 ms);
//! - `resize_step`: the frame after each step of a resize: the screen
//!   cleared and the chat's last screenful printed at the new width;
//! - `resize_reprint`: the frame once the size settled, which prints the
//!   whole 5,000-message chat again at the new width (as pi).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

#[path = "support/gen.rs"]
mod generator;

use std::path::Path;
use std::sync::Arc;

use pi_agent_core::{AgentMessage, AgentToolResult};
use pi_ai::{AssistantMessage, AssistantMessageEvent, Message, SharedMessage, UserBlock};
use pi_coding_agent::app::{SessionChoice, StartOptions, build_app};
use pi_coding_agent::modes::interactive::events::UiEvent;
use pi_coding_agent::modes::interactive::ui::Ui;
use pi_tui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pi_tui::renderer::InlineRenderer;
use pi_tui::theme::{ColorMode, Theme};
use serde_json::json;

const HISTORY: usize = 5_000;
const ANSWER_BYTES: usize = 200 * 1024;
const COLS: u16 = 120;
const ROWS: u16 = 40;

fn main() {
    divan::main();
}

/// ~100 bytes of markdown per delta, cycling through paragraphs, lists and code.
fn deltas() -> Vec<String> {
    let pieces = [
        "The renderer keeps finished blocks in the scrollback and redraws only the live region. ",
        "It **never** walks the transcript, so a long session costs nothing per frame.\n\n",
        "- a list item with `inline code` and a [link](https://example.com) in it\n",
        "- another item that is long enough to wrap on a narrow terminal window\n\n",
        "```rust\nfn frame(ui: &mut Ui) -> Vec<String> {\n    ui.frame(120, 40)\n}\n```\n\n",
    ];
    let mut out = Vec::new();
    let mut total = 0;
    let mut i = 0;
    while total < ANSWER_BYTES {
        let piece = pieces[i % pieces.len()].to_owned();
        total += piece.len();
        out.push(piece);
        i += 1;
    }
    out
}

struct Bench {
    ui: Ui,
    renderer: InlineRenderer<Vec<u8>>,
    partial: SharedMessage,
    _dir: tempfile::TempDir,
}

impl Bench {
    fn frame(&mut self) {
        self.ui
            .frame(usize::from(COLS), usize::from(ROWS))
            .draw(&mut self.renderer)
            .unwrap();
        self.renderer.writer_mut().clear();
    }

    fn delta(&mut self, text: &str) {
        self.ui
            .handle_event(UiEvent::MessageUpdate(AssistantMessageEvent::TextDelta {
                content_index: 0,
                delta: text.to_owned(),
                partial: self.partial.clone(),
            }));
        self.frame();
    }
}

/// A resumed session of `HISTORY` messages, drawn once (all committed).
fn setup() -> Bench {
    let dir = tempfile::tempdir().unwrap();
    let agent_dir = dir.path().join("agent");
    std::fs::create_dir_all(&agent_dir).unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pi-0.73.1");
    std::fs::copy(fixtures.join("models.json"), agent_dir.join("models.json")).unwrap();
    let session = dir.path().join("session.jsonl");
    generator::write_session(&session, HISTORY);
    // The generated session's working directory is this one (a session
    // opened by path must have an existing one).
    let text = std::fs::read_to_string(&session).unwrap();
    let text = text.replace("/home/user/project", &dir.path().display().to_string());
    std::fs::write(&session, text).unwrap();
    let app = build_app(StartOptions {
        cwd: dir.path().to_path_buf(),
        model: Some("mock-oai/mock-gpt".into()),
        session: SessionChoice::Open(session.display().to_string()),
        session_dir: Some(dir.path().join("sessions")),
        agent_dir: Some(agent_dir),
        ..StartOptions::default()
    })
    .unwrap();
    let theme = Arc::new(Theme::dark(ColorMode::TrueColor));
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let ui = Ui::new(app, theme, tx);
    let mut bench = Bench {
        ui,
        renderer: InlineRenderer::new(Vec::new(), COLS, ROWS),
        partial: SharedMessage::new(AssistantMessage::empty(
            "openai-completions".into(),
            "mock-oai".into(),
            "mock-gpt",
            0,
        )),
        _dir: dir,
    };
    bench.frame();
    let start = AssistantMessage::empty(
        "openai-completions".into(),
        "mock-oai".into(),
        "mock-gpt",
        0,
    );
    bench
        .ui
        .handle_event(UiEvent::MessageStart(AgentMessage::Standard(
            Message::Assistant(start),
        )));
    bench
}

#[divan::bench(sample_count = 200)]
fn stream_frame(bencher: divan::Bencher) {
    let deltas = deltas();
    let mut bench = setup();
    for d in &deltas[..deltas.len() / 2] {
        bench.delta(d);
    }
    let mut i = 0;
    bencher.bench_local(|| {
        bench.delta(&deltas[i % deltas.len()]);
        i += 1;
    });
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn stream_200kb_total(bencher: divan::Bencher) {
    let deltas = deltas();
    bencher.with_inputs(setup).bench_local_values(|mut bench| {
        for d in &deltas {
            bench.delta(d);
        }
        bench
    });
}

#[divan::bench(sample_count = 100)]
fn keystroke_with_bash_100k_lines(bencher: divan::Bencher) {
    let mut bench = setup();
    let output: String = (0..100_000).map(|i| format!("output line {i}\n")).collect();
    bench.ui.handle_event(UiEvent::ToolStart {
        id: "call_1".into(),
        name: "bash".into(),
        args: json!({"command": "seq 100000"}),
    });
    bench.ui.handle_event(UiEvent::ToolUpdate {
        id: "call_1".into(),
        partial: AgentToolResult {
            content: vec![UserBlock::text(output)],
            details: serde_json::Value::Null,
            terminate: None,
        },
    });
    bench.frame();
    let key = KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE);
    bencher.bench_local(|| {
        bench.ui.handle_key(key);
        bench.frame();
    });
}

/// A resize to `cols` and its frame: a step (the last screenful) or the
/// settled size (the whole chat).
fn resize_frame(bench: &mut Bench, cols: u16, settled: bool) {
    bench.renderer.resize(cols, ROWS);
    if settled {
        bench.ui.request_reprint();
    } else {
        bench.ui.request_tail_reprint();
    }
    bench
        .ui
        .frame(usize::from(cols), usize::from(ROWS))
        .draw(&mut bench.renderer)
        .unwrap();
    bench.renderer.writer_mut().clear();
}

#[divan::bench(sample_count = 100)]
fn resize_step(bencher: divan::Bencher) {
    let mut bench = setup();
    let mut cols = COLS;
    bencher.bench_local(|| {
        cols = if cols == COLS { COLS - 20 } else { COLS };
        resize_frame(&mut bench, cols, false);
    });
}

#[divan::bench(sample_count = 10)]
fn resize_reprint(bencher: divan::Bencher) {
    let mut bench = setup();
    let mut cols = COLS;
    bencher.bench_local(|| {
        cols = if cols == COLS { COLS - 20 } else { COLS };
        resize_frame(&mut bench, cols, true);
    });
}
