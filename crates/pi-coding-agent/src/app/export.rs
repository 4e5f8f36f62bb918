//! `pi --export <session file> [output]`: the session file as the HTML page of
//! [`crate::export::html`] (the renderer `/export` and rpc `export_html` use too).

use std::path::{Path, PathBuf};

use super::AppError;

/// `pi --share <session file>`: the file's page ([`export_from_file`]'s)
/// uploaded as a secret gist, as `/share` uploads the running session's.
pub async fn share_file(input: &Path) -> Result<crate::export::share::Shared, AppError> {
    if !input.exists() {
        return Err(AppError::FileNotFound(input.to_path_buf()));
    }
    let input = input.to_path_buf();
    let shared = crate::export::share::share_with(move |page| {
        let options = crate::export::html::PageOptions::default();
        crate::export::write_session_page(&input, page, &options).map(|_| ())
    })
    .await?;
    Ok(shared)
}

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
