//! `/share` as pi does it: the session page uploaded as a secret GitHub gist with the
//! `gh` CLI. `gh auth status` first (nothing is written or uploaded when `gh` is
//! missing or not logged in), then the page is written to a fresh temporary folder as
//! `session.html`, `gh gist create --public=false` uploads it, and the gist's link is
//! returned, with a viewer link only when `PI_SHARE_VIEWER_URL` names a viewer.
//! Only the user's own command (`/share`, `pi --share`, rpc `share`) calls this.

use std::path::Path;

use tokio::process::Command;

/// The environment variable naming a viewer of shared gists (pi's name): the gist's
/// id is appended to it.
pub const VIEWER_URL_ENV: &str = "PI_SHARE_VIEWER_URL";

/// Where a shared session went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shared {
    /// The gist's page, as `gh` printed it.
    pub gist_url: String,
    /// The viewer's page of the gist, when a viewer is configured.
    pub viewer_url: Option<String>,
}

impl Shared {
    /// What the user is told: `Share URL: ...` (with a viewer) and `Gist: ...`.
    pub fn message(&self) -> String {
        match &self.viewer_url {
            Some(viewer) => format!("Share URL: {viewer}\nGist: {}", self.gist_url),
            None => format!("Gist: {}", self.gist_url),
        }
    }
}

/// Why a share failed (pi's wording where pi has one).
#[derive(Debug, thiserror::Error)]
pub enum ShareError {
    /// `gh` could not be run.
    #[error("GitHub CLI (gh) is not installed. Install it from https://cli.github.com/")]
    GhMissing,
    /// `gh auth status` failed.
    #[error("GitHub CLI is not logged in. Run 'gh auth login' first.")]
    NotLoggedIn,
    /// The page could not be written.
    #[error("Failed to export session: {0}")]
    Export(String),
    /// `gh gist create` failed (its error output).
    #[error("Failed to create gist: {0}")]
    Gist(String),
    /// `gh` printed no gist link.
    #[error("Failed to parse gist ID from gh output")]
    NoGistId,
}

/// Checks that `gh` is installed and logged in (`gh auth status`).
pub async fn check_gh() -> Result<(), ShareError> {
    let status = Command::new("gh")
        .args(["auth", "status"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .await
        .map_err(|_| ShareError::GhMissing)?;
    if status.success() {
        Ok(())
    } else {
        Err(ShareError::NotLoggedIn)
    }
}

/// Uploads `page` as a secret gist (`gh gist create --public=false <page>`); the viewer
/// link is made from `viewer_base` (see [`VIEWER_URL_ENV`]).
pub async fn create_gist(page: &Path, viewer_base: Option<&str>) -> Result<Shared, ShareError> {
    let output = Command::new("gh")
        .args(["gist", "create", "--public=false"])
        .arg(page)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .map_err(|_| ShareError::GhMissing)?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr).trim().to_owned();
        return Err(ShareError::Gist(if stderr.is_empty() {
            "Unknown error".to_owned()
        } else {
            stderr
        }));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    // `gh` prints the gist's URL (https://gist.github.com/<user>/<id>) last.
    let gist_url = stdout
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .ok_or(ShareError::NoGistId)?
        .to_owned();
    let gist_id = gist_url
        .rsplit('/')
        .next()
        .filter(|id| !id.is_empty())
        .ok_or(ShareError::NoGistId)?;
    let viewer_url = viewer_base
        .filter(|base| !base.is_empty())
        .map(|base| format!("{base}{gist_id}"));
    Ok(Shared {
        gist_url,
        viewer_url,
    })
}

/// The whole share: [`check_gh`], then `write_page` writes the page into the given
/// path (a fresh temporary folder's `session.html`, removed afterwards), then
/// [`create_gist`]. The viewer comes from [`VIEWER_URL_ENV`].
pub async fn share_with<E: std::fmt::Display + Send + 'static>(
    write_page: impl FnOnce(&Path) -> Result<(), E> + Send + 'static,
) -> Result<Shared, ShareError> {
    check_gh().await?;
    let dir = tempfile::Builder::new()
        .prefix("pi-share-")
        .tempdir()
        .map_err(|e| ShareError::Export(e.to_string()))?;
    let page = dir.path().join("session.html");
    // The page is written off the runtime (a long session takes a while).
    let target = page.clone();
    tokio::task::spawn_blocking(move || write_page(&target))
        .await
        .map_err(|e| ShareError::Export(e.to_string()))?
        .map_err(|e| ShareError::Export(e.to_string()))?;
    let viewer = std::env::var(VIEWER_URL_ENV).ok();
    create_gist(&page, viewer.as_deref()).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_has_a_viewer_link_only_when_one_is_configured() {
        let mut shared = Shared {
            gist_url: "https://gist.github.com/u/abc".to_owned(),
            viewer_url: None,
        };
        assert_eq!(shared.message(), "Gist: https://gist.github.com/u/abc");
        shared.viewer_url = Some("https://v/abc".to_owned());
        assert_eq!(
            shared.message(),
            "Share URL: https://v/abc\nGist: https://gist.github.com/u/abc"
        );
    }
}
