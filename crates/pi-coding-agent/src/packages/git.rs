//! git sources: cloned to `<agent dir>/git/<host>/<path>` (user),
//! `.pi/git/<host>/<path>` (project) or the temp dir (`-e`); a ref is
//! checked out after the clone, and `npm install` runs when the repository
//! has a `package.json`. A clone is made in a hidden folder beside its
//! target and renamed into place once complete, so a failure leaves
//! nothing behind.

use std::path::{Path, PathBuf};

use super::process::Cmd;
use super::{GitSource, PackageError, PackageManager, Scope};

impl PackageManager {
    /// Where the clone lives.
    pub(crate) fn git_install_path(&self, git: &GitSource, scope: Scope) -> PathBuf {
        match scope {
            Scope::Temporary => self.temporary_dir(&format!("git-{}", git.host), &git.path),
            Scope::Project => self
                .cwd
                .join(".pi")
                .join("git")
                .join(&git.host)
                .join(&git.path),
            Scope::User => self.agent_dir.join("git").join(&git.host).join(&git.path),
        }
    }

    /// The folder all clones of `scope` are under (none for `-e`).
    fn git_root(&self, scope: Scope) -> Option<PathBuf> {
        match scope {
            Scope::Temporary => None,
            Scope::Project => Some(self.cwd.join(".pi").join("git")),
            Scope::User => Some(self.agent_dir.join("git")),
        }
    }

    /// `npm install` for a repository with a `package.json` (without dev
    /// dependencies unless `npmCommand` is set, as pi).
    fn git_dependencies(&self, dir: &Path) -> Result<(), PackageError> {
        if !dir.join("package.json").exists() {
            return Ok(());
        }
        let args: &[&str] = if self.npm_command.is_some() {
            &["install"]
        } else {
            &["install", "--omit=dev"]
        };
        self.npm(args)?.cwd(dir).run(self.output)
    }

    /// Clones `git` for `scope` unless it is there already.
    pub(crate) fn git_install(&self, git: &GitSource, scope: Scope) -> Result<(), PackageError> {
        let target = self.git_install_path(git, scope);
        if target.exists() {
            return Ok(());
        }
        if let Some(root) = self.git_root(scope) {
            super::ensure_git_ignore(&root)?;
        }
        let parent = target.parent().map(Path::to_path_buf).unwrap_or_default();
        let first_missing = parent
            .ancestors()
            .take_while(|dir| !dir.exists())
            .last()
            .map(Path::to_path_buf);
        let io = |source| PackageError::Io {
            path: parent.clone(),
            source,
        };
        std::fs::create_dir_all(&parent).map_err(io)?;
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let staging = tempfile::Builder::new()
            .prefix(&format!(".{name}.installing-"))
            .tempdir_in(&parent)
            .map_err(io)?;
        let result = self
            .clone_into(git, staging.path(), &target)
            .and_then(|()| {
                std::fs::rename(staging.path(), &target).map_err(|source| PackageError::Io {
                    path: target.clone(),
                    source,
                })
            });
        if result.is_err() {
            drop(staging);
            if let Some(dir) = first_missing {
                let _ = std::fs::remove_dir_all(dir);
            }
        } else {
            // Renamed away: nothing left to delete.
            let _ = staging.keep();
        }
        result
    }

    /// Clone, checkout and dependencies in `dir`; failures name `target`.
    fn clone_into(&self, git: &GitSource, dir: &Path, target: &Path) -> Result<(), PackageError> {
        let dir_text = dir.to_string_lossy().into_owned();
        let shown = format!("git clone {} {}", git.repo, target.display());
        Cmd::new("git", ["clone", git.repo.as_str(), dir_text.as_str()])
            .run_as(self.output, &shown)?;
        if let Some(git_ref) = &git.git_ref {
            Cmd::new("git", ["checkout", git_ref.as_str()])
                .cwd(dir)
                .run(self.output)?;
        }
        self.git_dependencies(dir)
    }

    /// Fetches the clone's upstream and resets to it when it moved.
    pub(crate) fn git_update(&self, git: &GitSource, scope: Scope) -> Result<(), PackageError> {
        let dir = self.git_install_path(git, scope);
        if !dir.exists() {
            return self.git_install(git, scope);
        }
        let (target, fetch) = self.git_update_target(&dir)?;
        Cmd::new("git", fetch).cwd(&dir).run(self.output)?;
        let head = Cmd::new("git", ["rev-parse", "HEAD"]).cwd(&dir).capture()?;
        let upstream = Cmd::new("git", ["rev-parse", target.as_str()])
            .cwd(&dir)
            .capture()?;
        if head == upstream {
            return Ok(());
        }
        Cmd::new("git", ["reset", "--hard", target.as_str()])
            .cwd(&dir)
            .run(self.output)?;
        Cmd::new("git", ["clean", "-fdx"])
            .cwd(&dir)
            .run(self.output)?;
        self.git_dependencies(&dir)
    }

    /// The ref to update to and the fetch that refreshes only it.
    fn git_update_target(&self, dir: &Path) -> Result<(String, Vec<String>), PackageError> {
        let fetch = |refspec: String| -> Vec<String> {
            ["fetch", "--prune", "--no-tags", "origin"]
                .into_iter()
                .map(str::to_owned)
                .chain([refspec])
                .collect()
        };
        let upstream = Cmd::new("git", ["rev-parse", "--abbrev-ref", "@{upstream}"])
            .cwd(dir)
            .capture();
        if let Ok(upstream) = upstream
            && let Some(branch) = upstream.strip_prefix("origin/")
            && !branch.is_empty()
        {
            return Ok((
                "@{upstream}".to_owned(),
                fetch(format!("+refs/heads/{branch}:refs/remotes/origin/{branch}")),
            ));
        }
        let _ = Cmd::new("git", ["remote", "set-head", "origin", "-a"])
            .cwd(dir)
            .capture();
        let head_ref = Cmd::new("git", ["symbolic-ref", "refs/remotes/origin/HEAD"])
            .cwd(dir)
            .capture()
            .unwrap_or_default();
        let refspec = match head_ref.strip_prefix("refs/remotes/origin/") {
            Some(branch) if !branch.is_empty() => {
                format!("+refs/heads/{branch}:refs/remotes/origin/{branch}")
            }
            _ => "+HEAD:refs/remotes/origin/HEAD".to_owned(),
        };
        Ok(("origin/HEAD".to_owned(), fetch(refspec)))
    }

    /// Deletes the clone and the folders it leaves empty.
    pub(crate) fn git_remove(&self, git: &GitSource, scope: Scope) -> Result<(), PackageError> {
        let dir = self.git_install_path(git, scope);
        if !dir.exists() {
            return Ok(());
        }
        std::fs::remove_dir_all(&dir).map_err(|source| PackageError::Io {
            path: dir.clone(),
            source,
        })?;
        if let Some(root) = self.git_root(scope) {
            for parent in dir.ancestors().skip(1) {
                if parent == root || !parent.starts_with(&root) {
                    break;
                }
                if std::fs::remove_dir(parent).is_err() {
                    break;
                }
            }
        }
        Ok(())
    }
}
