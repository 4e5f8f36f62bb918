//! Streaming a large markdown answer into [`pi_tui::markdown::Markdown`] in small deltas.

fn main() {
    divan::main();
}
