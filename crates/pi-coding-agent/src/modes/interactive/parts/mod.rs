//! The parts of the screen that own their state, top to bottom as pi's
//! containers: the [`header`] with the loaded [`resources`], (the transcript, in `super::transcript`),
//! the [`queue`], the [`status`] spinner, the [`widgets`] around the
//! editor, (the editor, `pi_tui::editor::Editor`) and the [`footer`]. None
//! of them knows the `Ui` that joins them.

pub mod footer;
pub mod header;
pub mod queue;
pub mod resources;
pub mod status;
pub mod widgets;
