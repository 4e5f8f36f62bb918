//! Exporting a session: a self-contained HTML page ([`html`]) or the active branch as
//! a linear JSONL session file ([`branch_jsonl`]), and sharing the page as a secret
//! gist ([`share`]). `/export`, `pi --export` and the rpc `export_html` command all
//! use these; `/share`, `pi --share` and rpc `share` upload the same page.

// The page's theme colours and highlighting are pi-tui's: with the `cli`
// feature only.
#[cfg(feature = "cli")]
pub mod html;
pub mod share;

use serde_json::{Value, json};

use crate::session::CURRENT_SESSION_VERSION;
use crate::session::SessionManager;

/// Writes the page of the session file `session_file` to `output` ([`html::write_page`],
/// streamed: the file is read one entry at a time and the page written as it goes),
/// creating its folder and replacing the file atomically as [`write_file`] does; a
/// failed export leaves `output` as it was.
#[cfg(feature = "cli")]
pub fn write_session_page(
    session_file: &std::path::Path,
    output: &std::path::Path,
    options: &html::PageOptions,
) -> Result<html::Stats, html::ExportError> {
    if let Some(dir) = output.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    // The session error, kept whole (the writer's error type is io::Error).
    let mut session_error = None;
    let mut stats = None;
    let written = crate::file_replace::replace_file_with(
        output,
        crate::file_replace::ReplaceOptions::USER_FILE,
        |out| match html::write_page(session_file, options, out) {
            Ok(s) => {
                stats = Some(s);
                Ok(())
            }
            Err(html::ExportError::Io(e)) => Err(e),
            Err(e) => {
                let message = e.to_string();
                session_error = Some(e);
                Err(std::io::Error::other(message))
            }
        },
    );
    if let Some(e) = session_error {
        return Err(e);
    }
    written.map_err(std::io::Error::from)?;
    Ok(stats.unwrap_or_default())
}

/// The active branch as a session file of its own, as pi's `exportToJsonl`: a new
/// header (stamped `now`) and the branch's entries with their `parentId`s re-chained
/// into one line of descent.
pub fn branch_jsonl(session: &SessionManager, now: &str) -> Result<String, serde_json::Error> {
    let header = json!({
        "type": "session",
        "version": CURRENT_SESSION_VERSION,
        "id": session.session_id(),
        "timestamp": now,
        "cwd": session.cwd(),
    });
    let mut lines = vec![serde_json::to_string(&header)?];
    let mut previous: Option<String> = None;
    for entry in session.branch_path(None) {
        let mut value = serde_json::to_value(entry)?;
        if let Value::Object(map) = &mut value {
            map.insert(
                "parentId".to_owned(),
                previous.clone().map_or(Value::Null, Value::String),
            );
        }
        previous = Some(entry.id().to_owned());
        lines.push(serde_json::to_string(&value)?);
    }
    let mut text = lines.join("\n");
    text.push('\n');
    Ok(text)
}

/// Writes an export to `path`, creating its folder (pi creates it too). A
/// regular file (or a new one, created with the process's umask) is replaced
/// atomically at its real path, keeping its mode and owner; a FIFO, a device or
/// `/dev/stdout` is written to as it is ([`crate::file_replace`]).
pub fn write_file(path: &std::path::Path, content: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    crate::file_replace::replace_file(
        path,
        crate::file_replace::ReplaceOptions::USER_FILE,
        content,
    )?;
    Ok(())
}
