//! `@` file completion: an in-process walk (the `ignore` crate: `.gitignore`
//! respected, hidden files included, `.git` skipped, symlinks followed)
//! collecting up to 100 entries whose name (or path, when the query has a
//! `/`) contains the query, scored as pi does (exact file name 100, prefix
//! 80, name substring 50, path substring 30, +10 for directories); the best
//! 20 are offered.

use std::path::Path;

/// Entries collected by the walk before scoring (pi: fd `--max-results 100`).
const MAX_WALKED: usize = 100;
/// Suggestions shown.
const MAX_SHOWN: usize = 20;

/// One completion for `@query`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSuggestion {
    /// The text that replaces `@query` (`@path`, directories end with `/`,
    /// quoted when the path has spaces).
    pub value: String,
    /// The entry's name (`name/` for directories).
    pub label: String,
    /// The path relative to the search base.
    pub description: String,
    /// True for directories.
    pub is_dir: bool,
}

/// pi's score of an entry for `query` (0: no match).
pub fn score_entry(path: &str, query: &str, is_dir: bool) -> u32 {
    let name = path.rsplit('/').next().unwrap_or(path).to_lowercase();
    let query = query.to_lowercase();
    let mut score = if name == query {
        100
    } else if name.starts_with(&query) {
        80
    } else if name.contains(&query) {
        50
    } else if path.to_lowercase().contains(&query) {
        30
    } else {
        0
    };
    if is_dir && score > 0 {
        score += 10;
    }
    score
}

/// The completion value for a path (`@path`, quoted when it has a space).
fn completion_value(path: &str, is_dir: bool) -> String {
    let path = if is_dir {
        format!("{path}/")
    } else {
        path.to_owned()
    };
    if path.contains(' ') {
        format!("@\"{path}\"")
    } else {
        format!("@{path}")
    }
}

/// Splits `src/comp` into the directory to search (`src`) and the query
/// (`comp`) when that directory exists under `base`.
fn scoped(base: &Path, query: &str) -> Option<(String, String)> {
    let (dir, rest) = query.rsplit_once('/')?;
    let dir = if dir.is_empty() { "/" } else { dir };
    base.join(dir)
        .is_dir()
        .then(|| (dir.trim_end_matches('/').to_owned(), rest.to_owned()))
}

/// The `@` suggestions for `query` under `base`.
pub fn file_suggestions(base: &Path, query: &str) -> Vec<FileSuggestion> {
    let (root, display_base, query) = match scoped(base, query) {
        Some((dir, rest)) => (base.join(&dir), Some(dir), rest),
        None => (base.to_path_buf(), None, query.to_owned()),
    };
    let full_path = query.contains('/');
    let lower = query.to_lowercase();
    let mut entries: Vec<(String, bool)> = Vec::new();
    let walker = ignore::WalkBuilder::new(&root)
        .hidden(false)
        .follow_links(true)
        .require_git(false)
        .filter_entry(|e| e.file_name() != ".git")
        .build();
    for entry in walker.flatten() {
        if entry.depth() == 0 {
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(&root) else {
            continue;
        };
        let path = relative.to_string_lossy().replace('\\', "/");
        let name = entry.file_name().to_string_lossy().to_lowercase();
        let haystack = if full_path { path.to_lowercase() } else { name };
        if !lower.is_empty() && !haystack.contains(&lower) {
            continue;
        }
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        entries.push((path, is_dir));
        if entries.len() >= MAX_WALKED {
            break;
        }
    }
    let mut scored: Vec<(u32, String, bool)> = entries
        .into_iter()
        .map(|(path, is_dir)| {
            let score = if query.is_empty() {
                1
            } else {
                score_entry(&path, &query, is_dir)
            };
            (score, path, is_dir)
        })
        .filter(|(score, _, _)| *score > 0)
        .collect();
    // Stable: equal scores keep the walk's order, as pi's sort.
    scored.sort_by_key(|e| std::cmp::Reverse(e.0));
    scored
        .into_iter()
        .take(MAX_SHOWN)
        .map(|(_, path, is_dir)| {
            let shown = match &display_base {
                Some(dir) if dir == "/" => format!("/{path}"),
                Some(dir) => format!("{dir}/{path}"),
                None => path.clone(),
            };
            let name = path.rsplit('/').next().unwrap_or(&path).to_owned();
            FileSuggestion {
                value: completion_value(&shown, is_dir),
                label: if is_dir { format!("{name}/") } else { name },
                description: shown,
                is_dir,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_as_pi() {
        assert_eq!(score_entry("src/main.rs", "main.rs", false), 100);
        assert_eq!(score_entry("src/main.rs", "mai", false), 80);
        assert_eq!(score_entry("src/main.rs", "ain", false), 50);
        assert_eq!(score_entry("src/main.rs", "src/m", false), 30);
        assert_eq!(score_entry("src", "src", true), 110);
        assert_eq!(score_entry("src/main.rs", "zzz", false), 0);
    }

    #[test]
    fn walks_ranks_and_scopes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src/components")).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/config"), "").unwrap();
        std::fs::write(root.join("src/components/button.rs"), "").unwrap();
        std::fs::write(root.join("src/comp.rs"), "").unwrap();
        std::fs::write(root.join("my file.txt"), "").unwrap();
        std::fs::write(root.join(".hidden"), "").unwrap();

        let found = file_suggestions(root, "comp");
        let values: Vec<&str> = found.iter().map(|s| s.value.as_str()).collect();
        // The directory "components" (80+10) before the file "comp.rs" (80).
        assert_eq!(values, ["@src/components/", "@src/comp.rs"]);

        let scoped = file_suggestions(root, "src/comp");
        assert_eq!(scoped[0].value, "@src/components/");
        assert_eq!(scoped[0].label, "components/");

        let all = file_suggestions(root, "");
        assert!(all.iter().any(|s| s.value == "@.hidden"), "{all:?}");
        assert!(all.iter().all(|s| !s.value.contains(".git/")), "{all:?}");
        assert!(all.iter().any(|s| s.value == "@\"my file.txt\""), "{all:?}");
    }
}
