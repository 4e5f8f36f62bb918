//! Package sources as pi 0.73.1 reads them in `pi install` and the
//! `packages` setting: `npm:<spec>`, git sources (`git:` shorthands such
//! as `git:github.com/user/repo@v1` or `git:git@host:user/repo`, and
//! protocol URLs `https://`, `http://`, `ssh://`, `git://` with an optional
//! `@ref`), and everything else as a local path.

use std::path::{Path, PathBuf};

/// One parsed source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// An npm package.
    Npm(NpmSource),
    /// A git repository.
    Git(GitSource),
    /// A file or folder on disk (as written; resolved against a base).
    Local(String),
}

/// `npm:<name>[@<version>]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NpmSource {
    /// The spec after `npm:` (`@scope/pkg@1.2.3`).
    pub spec: String,
    /// The package name (`@scope/pkg`).
    pub name: String,
    /// The version or range, when given (the source is then pinned).
    pub version: Option<String>,
}

/// A git repository and an optional ref.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitSource {
    /// The URL cloned (`https://` added to shorthands).
    pub repo: String,
    /// The host (`github.com`).
    pub host: String,
    /// The repository path (`user/repo`, without `.git`).
    pub path: String,
    /// The ref checked out (tag, branch, commit), when given.
    pub git_ref: Option<String>,
}

impl Source {
    /// Parses `source` as pi does.
    pub fn parse(source: &str) -> Self {
        if let Some(spec) = source.strip_prefix("npm:") {
            let spec = spec.trim().to_owned();
            let (name, version) = split_npm_spec(&spec);
            return Self::Npm(NpmSource {
                spec,
                name,
                version,
            });
        }
        if is_local_path(source) {
            return Self::Local(source.to_owned());
        }
        parse_git(source).map_or_else(|| Self::Local(source.to_owned()), Self::Git)
    }

    /// Whether updates skip it: a versioned npm spec or a git ref.
    pub fn pinned(&self) -> bool {
        match self {
            Self::Npm(npm) => npm.version.is_some(),
            Self::Git(git) => git.git_ref.is_some(),
            Self::Local(_) => false,
        }
    }

    /// The identity deduplication and matching use: the npm name, the git
    /// host and path (no ref, no protocol), or the local path resolved
    /// against `base`.
    pub fn identity(&self, base: &Path, home: &Path) -> String {
        match self {
            Self::Npm(npm) => format!("npm:{}", npm.name),
            Self::Git(git) => format!("git:{}/{}", git.host, git.path),
            Self::Local(path) => format!("local:{}", resolve_local(path, base, home).display()),
        }
    }
}

/// pi's `isLocalPath`: everything but the known remote prefixes.
pub fn is_local_path(value: &str) -> bool {
    let trimmed = value.trim();
    !["npm:", "git:", "github:", "http:", "https:", "ssh:"]
        .iter()
        .any(|prefix| trimmed.starts_with(prefix))
}

/// A local source resolved against `base` (`~` is the home folder).
pub fn resolve_local(path: &str, base: &Path, home: &Path) -> PathBuf {
    crate::resources::discovery::resolve_user_path(path, base, home)
}

/// `name[@version]`, scoped names included (`@scope/name@1`).
fn split_npm_spec(spec: &str) -> (String, Option<String>) {
    let (scope, rest) = match spec.strip_prefix('@') {
        Some(rest) => ("@", rest),
        None => ("", spec),
    };
    // pi's pattern: the name has no `@`, a scope one `/`; the rest is the version.
    match rest.find('@') {
        Some(at) if at > 0 && !rest[at + 1..].is_empty() => (
            format!("{scope}{}", &rest[..at]),
            Some(rest[at + 1..].to_owned()),
        ),
        Some(at) if at > 0 => (format!("{scope}{}", &rest[..at]), None),
        _ => (spec.to_owned(), None),
    }
}

/// Splits `repo@ref` (pi's `splitRef`): the ref follows the first `@` of
/// the path part.
fn split_ref(url: &str) -> (String, Option<String>) {
    let split_path = |path: &str| -> Option<(String, String)> {
        let at = path.find('@')?;
        let (repo, git_ref) = (&path[..at], &path[at + 1..]);
        (!repo.is_empty() && !git_ref.is_empty()).then(|| (repo.to_owned(), git_ref.to_owned()))
    };
    if let Some(rest) = url.strip_prefix("git@")
        && let Some(colon) = rest.find(':')
    {
        let host = &rest[..colon];
        return match split_path(&rest[colon + 1..]) {
            Some((repo, git_ref)) => (format!("git@{host}:{repo}"), Some(git_ref)),
            None => (url.to_owned(), None),
        };
    }
    if url.contains("://") {
        let Ok(mut parsed) = url::Url::parse(url) else {
            return (url.to_owned(), None);
        };
        let path = parsed.path().trim_start_matches('/').to_owned();
        return match split_path(&path) {
            Some((repo, git_ref)) => {
                parsed.set_path(&format!("/{repo}"));
                let text = parsed.to_string();
                (text.trim_end_matches('/').to_owned(), Some(git_ref))
            }
            None => (url.to_owned(), None),
        };
    }
    let Some(slash) = url.find('/') else {
        return (url.to_owned(), None);
    };
    match split_path(&url[slash + 1..]) {
        Some((repo, git_ref)) => (format!("{}/{repo}", &url[..slash]), Some(git_ref)),
        None => (url.to_owned(), None),
    }
}

/// A git source: with `git:`, shorthands too; without, protocol URLs only.
pub fn parse_git(source: &str) -> Option<GitSource> {
    let trimmed = source.trim();
    let (prefixed, url) = match trimmed.strip_prefix("git:") {
        Some(rest) => (true, rest.trim()),
        None => (false, trimmed),
    };
    let lower = url.to_ascii_lowercase();
    let protocol = ["https://", "http://", "ssh://", "git://"]
        .iter()
        .any(|p| lower.starts_with(p));
    if !prefixed && !protocol {
        return None;
    }
    let (repo_without_ref, git_ref) = split_ref(url);
    let mut repo = repo_without_ref.clone();
    let (host, path) = if let Some(rest) = repo_without_ref.strip_prefix("git@")
        && let Some(colon) = rest.find(':')
    {
        (rest[..colon].to_owned(), rest[colon + 1..].to_owned())
    } else if protocol {
        let parsed = url::Url::parse(&repo_without_ref).ok()?;
        (
            parsed.host_str().unwrap_or_default().to_owned(),
            parsed.path().trim_start_matches('/').to_owned(),
        )
    } else {
        let slash = repo_without_ref.find('/')?;
        let host = &repo_without_ref[..slash];
        if !host.contains('.') && host != "localhost" {
            return None;
        }
        repo = format!("https://{repo_without_ref}");
        (host.to_owned(), repo_without_ref[slash + 1..].to_owned())
    };
    let path = path
        .strip_suffix(".git")
        .unwrap_or(&path)
        .trim_start_matches('/')
        .to_owned();
    if host.is_empty() || path.is_empty() || path.split('/').count() < 2 {
        return None;
    }
    Some(GitSource {
        repo,
        host,
        path,
        git_ref,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(source: &str) -> (String, String, String, Option<String>) {
        let Source::Git(g) = Source::parse(source) else {
            panic!("{source} is not git");
        };
        (g.repo, g.host, g.path, g.git_ref)
    }

    #[test]
    fn npm_specs_split_name_and_version() {
        let cases = [
            ("npm:pkg", "pkg", None),
            ("npm:pkg@1.2.3", "pkg", Some("1.2.3")),
            ("npm:@scope/pkg", "@scope/pkg", None),
            ("npm:@scope/pkg@^2", "@scope/pkg", Some("^2")),
        ];
        for (source, name, version) in cases {
            let Source::Npm(npm) = Source::parse(source) else {
                panic!("{source}");
            };
            assert_eq!(npm.name, name, "{source}");
            assert_eq!(npm.version.as_deref(), version, "{source}");
        }
        assert!(Source::parse("npm:pkg@1").pinned());
        assert!(!Source::parse("npm:@s/pkg").pinned());
    }

    #[test]
    fn git_shorthands_and_urls() {
        let s = |v: &str| v.to_owned();
        assert_eq!(
            git("git:github.com/user/repo@v1"),
            (
                s("https://github.com/user/repo"),
                s("github.com"),
                s("user/repo"),
                Some(s("v1"))
            )
        );
        assert_eq!(
            git("git:git@github.com:user/repo@v1.0.0"),
            (
                s("git@github.com:user/repo"),
                s("github.com"),
                s("user/repo"),
                Some(s("v1.0.0"))
            )
        );
        assert_eq!(
            git("https://github.com/user/repo.git"),
            (
                s("https://github.com/user/repo.git"),
                s("github.com"),
                s("user/repo"),
                None
            )
        );
        assert_eq!(
            git("ssh://git@github.com/user/repo@main"),
            (
                s("ssh://git@github.com/user/repo"),
                s("github.com"),
                s("user/repo"),
                Some(s("main"))
            )
        );
        assert_eq!(
            git("git:localhost/user/kit"),
            (
                s("https://localhost/user/kit"),
                s("localhost"),
                s("user/kit"),
                None
            )
        );
    }

    #[test]
    fn everything_else_is_local() {
        for source in [
            "./pkg",
            "/abs/pkg",
            "~/pkg",
            "pkg",
            "git:nohost/x",
            "file:///tmp/x",
        ] {
            assert!(
                matches!(Source::parse(source), Source::Local(_)),
                "{source}"
            );
        }
        // Without `git:` a shorthand is a path.
        assert!(matches!(
            Source::parse("github.com/user/repo"),
            Source::Local(_)
        ));
    }

    #[test]
    fn identity_ignores_refs_and_protocols() {
        let base = Path::new("/base");
        let home = Path::new("/home/u");
        let id = |s: &str| Source::parse(s).identity(base, home);
        assert_eq!(id("git:github.com/u/r@v1"), id("https://github.com/u/r"));
        assert_eq!(id("git:git@github.com:u/r"), id("git:github.com/u/r"));
        assert_eq!(id("npm:a@1"), id("npm:a"));
        assert_eq!(id("./x"), "local:/base/x");
    }
}
