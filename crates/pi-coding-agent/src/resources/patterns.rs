//! The patterns of `skills` / `prompts` lists in `settings.json`, as pi's
//! package manager applies them: a plain glob includes, `!glob` excludes,
//! `+path` force-includes and `-path` force-excludes an exact path. A
//! resource matches a glob by its path relative to the settings' base
//! directory, its file name or its absolute path — and a `SKILL.md` also by
//! its directory's.

use std::path::Path;

use globset::{GlobBuilder, GlobMatcher};

fn posix(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// `path` relative to `base`, with `..` steps as Node's `path.relative` gives it.
pub(crate) fn relative(path: &Path, base: &Path) -> String {
    let path: Vec<_> = path.components().collect();
    let base: Vec<_> = base.components().collect();
    let common = path.iter().zip(&base).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_owned(); base.len() - common];
    parts.extend(
        path[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// The names a resource is matched by, in pi's order.
fn candidates(path: &Path, base: &Path, with_name: bool) -> Vec<String> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut out = vec![relative(path, base)];
    if with_name {
        out.push(name.clone());
    }
    out.push(posix(path));
    if name == "SKILL.md"
        && let Some(dir) = path.parent()
    {
        out.push(relative(dir, base));
        if with_name {
            out.push(
                dir.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            );
        }
        out.push(posix(dir));
    }
    out
}

fn glob(pattern: &str) -> Option<GlobMatcher> {
    GlobBuilder::new(&pattern.replace('\\', "/"))
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| tracing::warn!("settings pattern {pattern:?}: {e}"))
        .ok()
}

fn matches_any(path: &Path, patterns: &[&str], base: &Path) -> bool {
    let names = candidates(path, base, true);
    patterns
        .iter()
        .filter_map(|p| glob(p))
        .any(|g| names.iter().any(|n| g.is_match(n)))
}

fn matches_any_exact(path: &Path, patterns: &[&str], base: &Path) -> bool {
    let names = candidates(path, base, false);
    patterns.iter().any(|p| {
        let p = p
            .strip_prefix("./")
            .or_else(|| p.strip_prefix(".\\"))
            .unwrap_or(p)
            .replace('\\', "/");
        names.contains(&p)
    })
}

/// The entries that start with `prefix`, without it.
fn with_prefix(patterns: &[String], prefix: char) -> Vec<&str> {
    patterns
        .iter()
        .filter_map(|p| p.strip_prefix(prefix))
        .collect()
}

/// Whether an auto-discovered resource stays enabled under the `!`, `+`
/// and `-` entries of its scope's settings.
pub(crate) fn enabled_by_overrides(path: &Path, patterns: &[String], base: &Path) -> bool {
    let mut enabled = true;
    let excludes = with_prefix(patterns, '!');
    if !excludes.is_empty() && matches_any(path, &excludes, base) {
        enabled = false;
    }
    if matches_any_exact(path, &with_prefix(patterns, '+'), base) {
        enabled = true;
    }
    if matches_any_exact(path, &with_prefix(patterns, '-'), base) {
        enabled = false;
    }
    enabled
}

/// Whether a resource listed through a settings path is enabled by the
/// patterns of the same list (plain globs include; no plain glob includes
/// everything).
pub(crate) fn enabled_by_patterns(path: &Path, patterns: &[String], base: &Path) -> bool {
    let includes: Vec<&str> = patterns
        .iter()
        .filter(|p| !p.starts_with(['+', '-', '!']))
        .map(String::as_str)
        .collect();
    let mut enabled = includes.is_empty() || matches_any(path, &includes, base);
    let excludes = with_prefix(patterns, '!');
    if enabled && !excludes.is_empty() && matches_any(path, &excludes, base) {
        enabled = false;
    }
    if !enabled && matches_any_exact(path, &with_prefix(patterns, '+'), base) {
        enabled = true;
    }
    if matches_any_exact(path, &with_prefix(patterns, '-'), base) {
        enabled = false;
    }
    enabled
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn overrides_exclude_and_force() {
        let base = Path::new("/agent");
        let skill = Path::new("/agent/skills/foo/SKILL.md");
        assert!(enabled_by_overrides(skill, &list(&["x"]), base));
        assert!(!enabled_by_overrides(skill, &list(&["!foo"]), base));
        assert!(!enabled_by_overrides(skill, &list(&["!skills/*"]), base));
        assert!(enabled_by_overrides(
            skill,
            &list(&["!foo", "+skills/foo"]),
            base
        ));
        assert!(!enabled_by_overrides(
            skill,
            &list(&["+skills/foo", "-./skills/foo/SKILL.md"]),
            base
        ));
        // `*` does not cross directories.
        assert!(enabled_by_overrides(skill, &list(&["!skills*"]), base));
    }

    #[test]
    fn relative_paths_step_out_of_the_base() {
        assert_eq!(relative(Path::new("/a/b/c"), Path::new("/a/x")), "../b/c");
        assert_eq!(relative(Path::new("/a/b"), Path::new("/a/b")), "");
        assert_eq!(relative(Path::new("/a/b/c"), Path::new("/a")), "b/c");
    }

    #[test]
    fn plain_globs_include() {
        let base = Path::new("/agent");
        let prompt = Path::new("/x/review.md");
        assert!(enabled_by_patterns(prompt, &[], base));
        assert!(enabled_by_patterns(prompt, &list(&["review.*"]), base));
        assert!(!enabled_by_patterns(prompt, &list(&["fix.*"]), base));
        assert!(enabled_by_patterns(
            prompt,
            &list(&["fix.*", "+/x/review.md"]),
            base
        ));
    }
}
