//! The export row of `cargo xtask bench` (release only): `pi --export` of a generated
//! session of about 100 MB (the `perf` example's standard-shaped turns: a prompt,
//! thinking with a read call, a 1 KB file, an answer), timed and its peak RSS taken as
//! the whole-command rows are ([`crate::whole::Scratch::measure`]). Issue 44's goal:
//! within 3 s of wall time and under 100 MB of peak RSS on this machine.

use crate::error::TaskError;
use std::path::Path;

use crate::loopback::Answers;
use crate::whole::{Pi, Scratch, fixtures};

/// Entries of the standard shape in about 100 MB (760 bytes each).
const ENTRIES_100_MB: usize = 132_000;

/// The row: `pi --export` of the ~100 MB session (a quarter of it with `quick`).
pub fn export_row(bin: &Path, quick: bool) -> Result<crate::bench::Row, TaskError> {
    let pi = Pi::binary(bin.join("pi"));
    let perf = bin.join("examples").join("perf");
    let scratch = Scratch::new("export", Answers::recorded(&fixtures(), 0)?)?;
    let entries = if quick {
        ENTRIES_100_MB / 4
    } else {
        ENTRIES_100_MB
    };
    let (dir, bytes) = scratch.session_dir(&perf, entries, "standard")?;
    let session = std::fs::read_dir(&dir)
        .map_err(TaskError::file(&dir))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .ok_or_else(|| TaskError::Failed("the generated session is missing".to_owned()))?;
    let out = scratch.root().join("export.html");
    let (session, out) = (session.to_string_lossy(), out.to_string_lossy());
    let m = scratch.measure(&pi, &["--export", &session, &out], 2)?;
    let page = std::fs::metadata(out.as_ref()).map_or(0, |m| m.len());
    let verdict = |met: bool| if met { "met" } else { "NOT met" };
    let goal = if quick {
        String::new()
    } else {
        format!(
            "; goal <= 3 s wall: {}, < 100 MB RSS: {}",
            verdict(m.wall <= 3.0),
            verdict(m.rss_kib * 1024 < 100_000_000)
        )
    };
    Ok(crate::bench::Row {
        workload: "`pi --export` (whole command, generated standard-shaped session), wall"
            .to_owned(),
        size: format!(
            "{entries} entries, {:.1} MB -> page {:.1} MB; CPU {:.2} s{goal}",
            bytes as f64 / 1e6,
            page as f64 / 1e6,
            m.cpu
        ),
        n: 0,
        seconds: m.wall,
        rss_kib: m.rss_kib,
    })
}
