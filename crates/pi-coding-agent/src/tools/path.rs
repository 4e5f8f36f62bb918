//! Path arguments of the tools: relative to the working directory, absolute,
//! or starting with `~`; a leading `@` (how users mention files) is dropped
//! and exotic Unicode spaces count as plain spaces.

use std::path::{Component, Path, PathBuf};

/// Unicode spaces that models and terminals put into file names by mistake.
fn is_unicode_space(c: char) -> bool {
    matches!(
        c,
        '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}'
    )
}

/// Drops a leading `@`, turns Unicode spaces into plain spaces and expands
/// `~` / `~/...` to the home directory.
pub fn expand_path(path: &str) -> String {
    let path = path.strip_prefix('@').unwrap_or(path);
    let normalized: String = path
        .chars()
        .map(|c| if is_unicode_space(c) { ' ' } else { c })
        .collect();
    let home = || dirs::home_dir().map(|h| h.to_string_lossy().into_owned());
    if normalized == "~" {
        if let Some(home) = home() {
            return home;
        }
    } else if let Some(rest) = normalized.strip_prefix("~/")
        && let Some(home) = home()
    {
        return format!("{home}/{rest}");
    }
    normalized
}

/// Resolves a tool's path argument against `cwd`: absolute paths are kept
/// as given, relative ones are joined to `cwd` and `.` / `..` are resolved
/// lexically (like Node's `path.resolve`).
pub fn resolve_to_cwd(path: &str, cwd: &Path) -> PathBuf {
    let expanded = PathBuf::from(expand_path(path));
    if expanded.is_absolute() {
        return expanded;
    }
    normalize_lexically(&cwd.join(expanded))
}

/// [`resolve_to_cwd`] for reading: when the file does not exist, also tries
/// the spellings macOS uses in file names (a narrow no-break space before
/// `AM`/`PM` in screenshot names, decomposed Unicode (NFD), a curly
/// apostrophe, NFD with a curly apostrophe) and returns the first that
/// exists, in pi's order.
pub fn resolve_read_path(path: &str, cwd: &Path) -> PathBuf {
    let resolved = resolve_to_cwd(path, cwd);
    if resolved.exists() {
        return resolved;
    }
    let text = resolved.to_string_lossy();
    let am_pm = text
        .replace(" AM.", "\u{202F}AM.")
        .replace(" PM.", "\u{202F}PM.");
    let nfd = icu_normalizer::DecomposingNormalizerBorrowed::new_nfd()
        .normalize(&text)
        .into_owned();
    let curly = text.replace('\'', "\u{2019}");
    let nfd_curly = nfd.replace('\'', "\u{2019}");
    [am_pm, nfd, curly, nfd_curly]
        .into_iter()
        .filter(|candidate| *candidate != text)
        .map(PathBuf::from)
        .find(|candidate| candidate.exists())
        .unwrap_or(resolved)
}

/// Removes `.` components and folds `..` into the parent, without touching
/// the file system (Node's `path.normalize` of an absolute path).
pub(crate) fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(component);
                }
            }
            Component::Prefix(_) | Component::RootDir | Component::Normal(_) => {
                out.push(component);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_resolve_against_cwd() {
        let cwd = Path::new("/work/project");
        assert_eq!(
            resolve_to_cwd("src/main.rs", cwd),
            PathBuf::from("/work/project/src/main.rs")
        );
        assert_eq!(
            resolve_to_cwd("./a/../b.txt", cwd),
            PathBuf::from("/work/project/b.txt")
        );
        assert_eq!(
            resolve_to_cwd("../other/x", cwd),
            PathBuf::from("/work/other/x")
        );
        assert_eq!(resolve_to_cwd(".", cwd), PathBuf::from("/work/project"));
    }

    #[test]
    fn absolute_paths_and_at_prefix() {
        let cwd = Path::new("/work/project");
        assert_eq!(
            resolve_to_cwd("/etc/hosts", cwd),
            PathBuf::from("/etc/hosts")
        );
        assert_eq!(
            resolve_to_cwd("@notes.txt", cwd),
            PathBuf::from("/work/project/notes.txt")
        );
        assert_eq!(expand_path("a\u{00A0}b.txt"), "a b.txt");
    }

    #[test]
    fn tilde_expands_to_home() {
        let home = dirs::home_dir().unwrap();
        assert_eq!(expand_path("~"), home.to_string_lossy());
        assert_eq!(
            resolve_to_cwd("~/x/y.txt", Path::new("/tmp")),
            home.join("x/y.txt")
        );
        // Only a leading `~` or `~/` is special.
        assert_eq!(expand_path("~user/x"), "~user/x");
    }

    #[test]
    fn read_paths_try_macos_spellings() {
        let dir = tempfile::tempdir().unwrap();
        // "Capture d’écran" as macOS stores it: NFD, curly apostrophe.
        let stored = "Capture d\u{2019}e\u{301}cran.png";
        std::fs::write(dir.path().join(stored), "x").unwrap();
        assert_eq!(
            resolve_read_path("Capture d'\u{e9}cran.png", dir.path()),
            dir.path().join(stored)
        );
        let missing = resolve_read_path("nothing here.txt", dir.path());
        assert_eq!(missing, dir.path().join("nothing here.txt"));
    }
}
