//! pi's own TypeScript example extensions (`examples/extensions/` of
//! `@mariozechner/pi-coding-agent@0.73.1`, unmodified, as `.ci/setup`
//! installs the package) loaded through the extension host and driven over
//! rpc on the scenarios pi 0.73.1 ran them with
//! (`fixtures/pi-0.73.1/extensions/README.md`, `fixtures/capture/ext_examples.py`):
//! the order of the rpc lines, the dialogs and notifications sent to the
//! client, what pi-rs sent the model and wrote to the session must be what
//! pi did. (The first seven examples are in `extension_ts_examples.rs`.)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::{e2e_common, extension_common};

mod dialogs;
mod flow;
mod resources;
mod simple;
mod tools;

use std::path::PathBuf;

use e2e_common::Scenario;

/// pi's example `name` and a scenario like the capture's; `None` (the
/// test says why and passes, except under CI) without pi's package.
async fn setup(name: &str) -> Option<(Scenario, PathBuf)> {
    let file = extension_common::ts::example_path(name)?;
    Some((extension_common::ts::scenario().await, file))
}
