//! `pi --export <session file> [output]`: the session file as the HTML page of
//! [`crate::export::html`] (the renderer `/export` and rpc `export_html` use too).

use std::path::{Path, PathBuf};

use super::AppError;

/// `pi --export`: writes the session file `input` as HTML to `output`, or
/// to `pi-session-<file name without .jsonl>.html` in the current
/// directory; returns the path written (as given). Errors carry pi's wording.
pub fn export_from_file(input: &Path, output: Option<&Path>) -> Result<PathBuf, AppError> {
    if !input.exists() {
        return Err(AppError::FileNotFound(input.to_path_buf()));
    }
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
    let options = crate::export::html::PageOptions::default();
    crate::export::write_session_page(input, &path, &options)
        .map_err(|e| super::sessions::export_error(e, &path))?;
    Ok(path)
}
