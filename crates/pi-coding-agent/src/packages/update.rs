//! `pi update`: unpinned npm packages whose registry version differs from
//! the installed one are reinstalled at `@latest` (one npm call per scope),
//! unpinned git clones are fetched and reset to their upstream. Pinned
//! sources (a version, a ref) and local paths are left alone.

use super::settings_edit::PackageEntry;
use super::{PackageError, PackageManager, Progress, Scope, Source};

/// Clones pi updates at once.
const GIT_GROUP: usize = 4;

impl PackageManager {
    /// Updates every configured package, or those of `source`'s identity.
    pub fn update(&self, source: Option<&str>, progress: Progress<'_>) -> Result<(), PackageError> {
        let wanted = source.map(|s| self.input_identity(s));
        let mut chosen: Vec<(String, Scope)> = Vec::new();
        let mut all: Vec<PackageEntry> = Vec::new();
        for scope in [Scope::User, Scope::Project] {
            for entry in self.packages(scope) {
                if wanted
                    .as_ref()
                    .is_none_or(|w| *w == self.identity(&entry.source, scope))
                {
                    chosen.push((entry.source.clone(), scope));
                }
                all.push(entry);
            }
        }
        if let Some(source) = source
            && chosen.is_empty()
        {
            return Err(PackageError::NoMatch(no_match_message(source, &all)));
        }
        if self.offline {
            return Ok(());
        }
        let mut npm: Vec<(String, Scope, String)> = Vec::new();
        let mut git = Vec::new();
        for (text, scope) in chosen {
            let parsed = Source::parse(&text);
            if parsed.pinned() {
                continue;
            }
            match parsed {
                Source::Npm(package) => {
                    if self.npm_needs_update(&package, scope) {
                        npm.push((text, scope, package.name));
                    }
                }
                Source::Git(repo) => git.push((text, scope, repo)),
                Source::Local(_) => {}
            }
        }
        for scope in [Scope::User, Scope::Project] {
            let batch: Vec<&(String, Scope, String)> =
                npm.iter().filter(|(_, s, _)| *s == scope).collect();
            match batch.as_slice() {
                [] => continue,
                [(text, _, _)] => progress(&format!("Updating {text}...")),
                _ => progress(&format!("Updating {} npm packages...", scope.as_str())),
            }
            let specs: Vec<String> = batch
                .iter()
                .map(|(_, _, name)| format!("{name}@latest"))
                .collect();
            self.npm_install(&specs, scope)?;
        }
        // pi updates four clones at a time and announces each as it
        // starts: the lines of a group come before the group's git output.
        for group in git.chunks(GIT_GROUP) {
            for (text, _, _) in group {
                progress(&format!("Updating {text}..."));
            }
            for (_, scope, repo) in group {
                self.git_update(repo, *scope)?;
            }
        }
        Ok(())
    }
}

/// pi's message for an unknown update target, with a configured source
/// that the input names without its prefix, when there is one.
fn no_match_message(source: &str, configured: &[PackageEntry]) -> String {
    let typed = source.trim();
    let suggestion = configured
        .iter()
        .find(|entry| match Source::parse(&entry.source) {
            Source::Npm(npm) => typed == npm.name || typed == npm.spec,
            Source::Git(git) => {
                let short = format!("{}/{}", git.host, git.path);
                typed == short
                    || git
                        .git_ref
                        .as_ref()
                        .is_some_and(|r| typed == format!("{short}@{r}"))
            }
            Source::Local(_) => false,
        });
    match suggestion {
        Some(entry) => format!(
            "No matching package found for {source}. Did you mean {}?",
            entry.source
        ),
        None => format!("No matching package found for {source}"),
    }
}
