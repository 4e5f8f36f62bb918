//! The git branch of the working directory, read from `.git/HEAD` as pi's
//! footer does: `ref: refs/heads/<name>` gives the name, a bare commit id
//! gives `detached`. A `.git` file (`gitdir: <path>`, worktrees and
//! submodules) is followed. Reftable repositories keep `HEAD` pointing at
//! `refs/heads/.invalid`; their branch is not read (no branch is shown).

use std::path::{Path, PathBuf};

/// The `HEAD` file of the repository containing `cwd`, if any.
pub fn head_file(cwd: &Path) -> Option<PathBuf> {
    let mut dir = Some(cwd);
    while let Some(current) = dir {
        let dot_git = current.join(".git");
        if dot_git.is_dir() {
            return Some(dot_git.join("HEAD"));
        }
        if dot_git.is_file() {
            let text = std::fs::read_to_string(&dot_git).ok()?;
            let target = text.trim().strip_prefix("gitdir:")?.trim();
            let git_dir = current.join(target);
            return Some(git_dir.join("HEAD"));
        }
        dir = current.parent();
    }
    None
}

/// The branch named by a `HEAD` file's text.
pub fn branch_from_head(text: &str) -> Option<String> {
    let text = text.trim();
    if let Some(reference) = text.strip_prefix("ref:") {
        let name = reference.trim();
        let name = name.strip_prefix("refs/heads/").unwrap_or(name);
        if name == ".invalid" {
            return None;
        }
        return Some(name.to_owned());
    }
    (!text.is_empty()).then(|| "detached".to_owned())
}

/// The current branch of the repository containing `cwd`.
pub fn current_branch(cwd: &Path) -> Option<String> {
    let head = head_file(cwd)?;
    branch_from_head(&std::fs::read_to_string(head).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_branch_detached_and_worktrees() {
        assert_eq!(
            branch_from_head("ref: refs/heads/main\n").as_deref(),
            Some("main")
        );
        assert_eq!(
            branch_from_head("ref: refs/heads/feat/x").as_deref(),
            Some("feat/x")
        );
        assert_eq!(branch_from_head("3f2a9c0d\n").as_deref(), Some("detached"));
        assert_eq!(branch_from_head(""), None);

        let dir = tempfile::tempdir().unwrap();
        assert_eq!(current_branch(dir.path()), None);
        std::fs::create_dir_all(dir.path().join("repo/.git")).unwrap();
        std::fs::write(dir.path().join("repo/.git/HEAD"), "ref: refs/heads/dev\n").unwrap();
        std::fs::create_dir_all(dir.path().join("repo/sub")).unwrap();
        assert_eq!(
            current_branch(&dir.path().join("repo/sub")).as_deref(),
            Some("dev")
        );
        std::fs::create_dir_all(dir.path().join("wt")).unwrap();
        std::fs::create_dir_all(dir.path().join("gd")).unwrap();
        std::fs::write(dir.path().join("gd/HEAD"), "ref: refs/heads/topic\n").unwrap();
        std::fs::write(dir.path().join("wt/.git"), "gitdir: ../gd\n").unwrap();
        assert_eq!(
            current_branch(&dir.path().join("wt")).as_deref(),
            Some("topic")
        );
    }
}
