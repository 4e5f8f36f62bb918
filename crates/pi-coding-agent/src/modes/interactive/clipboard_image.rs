//! Ctrl+V: the image on the clipboard, read as pi reads it on Linux, saved
//! to `$TMPDIR/pi-clipboard-<uuid>.<ext>` so its path can go into the
//! editor (the model then `read`s it).
//!
//! Under Wayland (`WAYLAND_DISPLAY`, `XDG_SESSION_TYPE=wayland`) and WSL,
//! `wl-paste --list-types` names the clipboard's types and `wl-paste --type
//! <type> --no-newline` reads the preferred image type (PNG, JPEG, WebP,
//! GIF, then any `image/*`), with `xclip` as the fallback; under X11,
//! `xclip -selection clipboard -t TARGETS -o` lists the targets and `xclip
//! -selection clipboard -t <type> -o` reads one. Listing may take 1 s and
//! reading 3 s; a tool that is missing, fails or times out means "no image".
//! Other image formats (BMP from WSLg) are converted to PNG.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::process::Command;

/// The image types pi keeps as they are, in order of preference.
const SUPPORTED: [&str; 4] = ["image/png", "image/jpeg", "image/webp", "image/gif"];
/// How long listing the clipboard's types may take.
const LIST_TIMEOUT: Duration = Duration::from_secs(1);
/// How long reading the image may take.
const READ_TIMEOUT: Duration = Duration::from_secs(3);
/// The largest image read.
const MAX_BYTES: usize = 50 * 1024 * 1024;

/// An image read from the clipboard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClipboardImage {
    /// The image's bytes.
    pub bytes: Vec<u8>,
    /// Its MIME type (PNG, JPEG, WebP or GIF after conversion).
    pub mime_type: String,
}

/// Why a pasted image could not be saved.
#[derive(Debug, thiserror::Error)]
pub enum PasteImageError {
    /// Writing the temporary file failed.
    #[error("cannot save the clipboard image to {path}: {source}")]
    Save {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
}

fn base_type(mime: &str) -> String {
    mime.split(';').next().unwrap_or(mime).trim().to_lowercase()
}

/// The file extension of a supported image type.
pub fn extension_for(mime: &str) -> Option<&'static str> {
    match base_type(mime).as_str() {
        "image/png" => Some("png"),
        "image/jpeg" => Some("jpg"),
        "image/webp" => Some("webp"),
        "image/gif" => Some("gif"),
        _ => None,
    }
}

/// The type to read among the clipboard's `types`: the first supported one
/// in pi's order, else any `image/*`.
pub fn preferred_type(types: &[String]) -> Option<String> {
    let types: Vec<(&String, String)> = types
        .iter()
        .map(|t| (t, base_type(t)))
        .filter(|(t, _)| !t.trim().is_empty())
        .collect();
    SUPPORTED
        .iter()
        .find_map(|want| types.iter().find(|(_, base)| base == want))
        .or_else(|| types.iter().find(|(_, base)| base.starts_with("image/")))
        .map(|(raw, _)| raw.trim().to_owned())
}

/// Runs `program` with `args`; its output when it exits 0 within `timeout`.
async fn run(program: &str, args: &[&str], timeout: Duration) -> Option<Vec<u8>> {
    let child = Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(timeout, child).await.ok()?.ok()?;
    (output.status.success() && output.stdout.len() <= MAX_BYTES).then_some(output.stdout)
}

fn lines(bytes: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

async fn via_wl_paste() -> Option<ClipboardImage> {
    let types = lines(&run("wl-paste", &["--list-types"], LIST_TIMEOUT).await?);
    let chosen = preferred_type(&types)?;
    let bytes = run(
        "wl-paste",
        &["--type", &chosen, "--no-newline"],
        READ_TIMEOUT,
    )
    .await?;
    (!bytes.is_empty()).then(|| ClipboardImage {
        bytes,
        mime_type: base_type(&chosen),
    })
}

async fn via_xclip() -> Option<ClipboardImage> {
    let targets = run(
        "xclip",
        &["-selection", "clipboard", "-t", "TARGETS", "-o"],
        LIST_TIMEOUT,
    )
    .await
    .map(|out| lines(&out))
    .unwrap_or_default();
    let mut candidates: Vec<String> = preferred_type(&targets).into_iter().collect();
    candidates.extend(SUPPORTED.iter().map(|s| (*s).to_owned()));
    for mime in candidates {
        let args = ["-selection", "clipboard", "-t", mime.as_str(), "-o"];
        if let Some(bytes) = run("xclip", &args, READ_TIMEOUT).await
            && !bytes.is_empty()
        {
            return Some(ClipboardImage {
                bytes,
                mime_type: base_type(&mime),
            });
        }
    }
    None
}

fn is_wsl(env: &dyn Fn(&str) -> Option<String>) -> bool {
    env("WSL_DISTRO_NAME").is_some()
        || env("WSLENV").is_some()
        || std::fs::read_to_string("/proc/version").is_ok_and(|v| {
            let v = v.to_lowercase();
            v.contains("microsoft") || v.contains("wsl")
        })
}

/// The image on the clipboard, if there is one (Linux tools; `None` elsewhere
/// and under Termux).
pub async fn read(env: &(dyn Fn(&str) -> Option<String> + Sync)) -> Option<ClipboardImage> {
    if !cfg!(target_os = "linux") || env("TERMUX_VERSION").is_some() {
        return None;
    }
    let wayland = env("WAYLAND_DISPLAY").is_some_and(|v| !v.is_empty())
        || env("XDG_SESSION_TYPE").as_deref() == Some("wayland");
    let wsl = is_wsl(env);
    let mut image = None;
    if wayland || wsl {
        image = match via_wl_paste().await {
            Some(image) => Some(image),
            None => via_xclip().await,
        };
    }
    if image.is_none() && !wayland {
        image = via_xclip().await;
    }
    let image = image?;
    if SUPPORTED.contains(&image.mime_type.as_str()) {
        return Some(image);
    }
    let png =
        pi_tui::image::png_base64(&image.bytes).and_then(|b| pi_tui::image::decode_base64(&b))?;
    Some(ClipboardImage {
        bytes: png,
        mime_type: "image/png".to_owned(),
    })
}

/// Saves `image` as a new `pi-clipboard-<uuid>.<ext>` in `dir`; its path.
pub async fn save(image: &ClipboardImage, dir: &Path) -> Result<PathBuf, PasteImageError> {
    let ext = extension_for(&image.mime_type).unwrap_or("png");
    let path = dir.join(format!("pi-clipboard-{}.{ext}", uuid::Uuid::new_v4()));
    let written = async {
        use tokio::io::AsyncWriteExt;
        let mut file = tokio::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .await?;
        file.write_all(&image.bytes).await?;
        file.sync_all().await
    }
    .await;
    match written {
        Ok(()) => Ok(path),
        Err(source) => {
            let _ = tokio::fs::remove_file(&path).await;
            Err(PasteImageError::Save { path, source })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn the_preferred_type_follows_pi_s_order() {
        assert_eq!(
            preferred_type(&types(&["text/plain", "image/gif", "image/png"])).as_deref(),
            Some("image/png")
        );
        assert_eq!(
            preferred_type(&types(&["image/bmp", "TARGETS"])).as_deref(),
            Some("image/bmp")
        );
        assert_eq!(preferred_type(&types(&["text/plain", "UTF8_STRING"])), None);
        assert_eq!(extension_for("image/jpeg; q=1"), Some("jpg"));
        assert_eq!(extension_for("image/bmp"), None);
    }

    #[tokio::test]
    async fn a_saved_image_is_a_new_file() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let image = ClipboardImage {
            bytes: vec![1, 2, 3],
            mime_type: "image/jpeg".to_owned(),
        };
        let path = save(&image, dir.path())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(path.to_string_lossy().ends_with(".jpg"));
        assert!(
            path.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("pi-clipboard-"))
        );
        assert_eq!(std::fs::read(&path).unwrap_or_default(), vec![1, 2, 3]);
        let missing = save(&image, &dir.path().join("nope")).await;
        assert!(matches!(missing, Err(PasteImageError::Save { .. })));
    }
}
