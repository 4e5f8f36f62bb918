//! pi's check of tmux's keyboard setup at start: inside tmux (`TMUX` set),
//! modified Enter keys reach pi only with `extended-keys` on; pi warns when
//! it is off, or when `extended-keys-format` is `xterm` (tmux 3.5+).

use std::time::Duration;

use tokio::process::Command;

/// How long one `tmux show` may take (pi: 2 s).
const TIMEOUT: Duration = Duration::from_secs(2);

/// pi's warning about tmux's keyboard setup, if any (none outside tmux or
/// when tmux cannot be asked).
pub async fn keyboard_warning() -> Option<String> {
    std::env::var_os("TMUX")?;
    let (keys, format) = tokio::join!(show("extended-keys"), show("extended-keys-format"));
    warning(keys?.as_str(), format.as_deref())
}

/// The warning for these option values (pi's texts).
fn warning(extended_keys: &str, format: Option<&str>) -> Option<String> {
    if extended_keys != "on" && extended_keys != "always" {
        return Some(
            "tmux extended-keys is off. Modified Enter keys may not work. Add `set -g extended-keys on` to ~/.tmux.conf and restart tmux."
                .to_owned(),
        );
    }
    (format == Some("xterm")).then(|| {
        "tmux extended-keys-format is xterm. Pi works best with csi-u. Add `set -g extended-keys-format csi-u` to ~/.tmux.conf and restart tmux."
            .to_owned()
    })
}

/// `tmux show -gv <option>`, trimmed; `None` when it fails or times out.
async fn show(option: &str) -> Option<String> {
    let output = Command::new("tmux")
        .args(["show", "-gv", option])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(TIMEOUT, output).await.ok()?.ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::warning;

    #[test]
    fn warns_as_pi() {
        assert!(warning("off", None).is_some_and(|w| w.starts_with("tmux extended-keys is off.")));
        assert_eq!(warning("on", None), None);
        assert_eq!(warning("always", Some("csi-u")), None);
        assert!(
            warning("on", Some("xterm"))
                .is_some_and(|w| w.starts_with("tmux extended-keys-format is xterm."))
        );
    }
}
