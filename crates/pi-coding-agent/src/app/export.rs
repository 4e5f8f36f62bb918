//! `pi --export <session file> [output]`: the session file as the HTML page of
//! [`crate::export::html`] (the renderer `/export` and rpc `export_html` use too).

use std::path::{Path, PathBuf};

use crate::session::SessionManager;

/// `pi --export`: writes the session file `input` as HTML to `output`, or
/// to `pi-session-<file name without .jsonl>.html` in the current
/// directory; returns the path written (as given). Errors carry pi's wording.
pub fn export_from_file(input: &Path, output: Option<&Path>) -> Result<PathBuf, String> {
    if !input.exists() {
        return Err(format!("File not found: {}", input.display()));
    }
    let session = SessionManager::open(input, None).map_err(|e| e.to_string())?;
    let messages = session.build_session_context().messages;
    let html = crate::export::session_html(&session, &messages);
    let path = output.map_or_else(
        || {
            let name = input
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let stem = name.strip_suffix(".jsonl").unwrap_or(&name);
            PathBuf::from(format!("pi-session-{stem}.html"))
        },
        Path::to_path_buf,
    );
    crate::export::write_file(&path, html.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}
