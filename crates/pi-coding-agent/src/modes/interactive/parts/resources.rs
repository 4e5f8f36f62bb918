//! pi's loaded-resources listing below the startup header: `[Context]`
//! (the AGENTS.md / CLAUDE.md files), `[Skills]`, `[Prompts]` and
//! `[Extensions]`, each a heading in `mdHeading` and, collapsed, one dim comma-separated line or,
//! expanded (Ctrl+O), the files grouped by scope (`project`, `user`,
//! `path`).

use std::path::{Path, PathBuf};

use crate::modes::interactive::blocks::notice::ResourceSection;
use crate::resources::Resources;
use crate::resources::discovery::SourceInfo;

/// The sections pi shows for `resources` and the loaded `extensions`
/// (path, source) (empty ones left out).
pub fn sections(
    resources: &Resources,
    extensions: &[(String, SourceInfo)],
    cwd: &Path,
    home: Option<&Path>,
) -> Vec<ResourceSection> {
    let mut out = Vec::new();
    let files = &resources.context_files;
    if !files.is_empty() {
        out.push(ResourceSection {
            name: "Context",
            compact: files
                .iter()
                .map(|f| context_path(&f.path, cwd, home))
                .collect::<Vec<_>>()
                .join(", "),
            expanded: files
                .iter()
                .map(|f| (None, display_path(&f.path, home)))
                .collect(),
        });
    }
    let skills = &resources.skills.skills;
    if !skills.is_empty() {
        out.push(ResourceSection {
            name: "Skills",
            compact: sorted(skills.iter().map(|s| s.name.clone())),
            expanded: grouped(
                skills
                    .iter()
                    .map(|s| (&s.source_info, display_path(&s.file_path, home))),
            ),
        });
    }
    let templates = &resources.templates.templates;
    if !templates.is_empty() {
        out.push(ResourceSection {
            name: "Prompts",
            compact: sorted(templates.iter().map(|t| format!("/{}", t.name))),
            expanded: grouped(
                templates
                    .iter()
                    .map(|t| (&t.source_info, format!("/{}", t.name))),
            ),
        });
    }
    if !extensions.is_empty() {
        out.push(ResourceSection {
            name: "Extensions",
            compact: sorted(compact_extension_labels(extensions, home).into_iter()),
            expanded: grouped(
                extensions
                    .iter()
                    .map(|(path, info)| (info, extension_display_path(path, info, home))),
            ),
        });
    }
    out
}

/// True for resources that came from a package (`npm:` or `git:` source).
fn is_package(info: &SourceInfo) -> bool {
    info.source.starts_with("npm:") || info.source.starts_with("git:")
}

/// pi's `formatExtensionDisplayPath`: [`display_path`] without a trailing
/// `/index.ts` (`/index.js`); a package's path relative to its folder.
fn extension_display_path(path: &str, info: &SourceInfo, home: Option<&Path>) -> String {
    let shown = match info.base_dir.as_deref() {
        Some(base) if is_package(info) => Path::new(path)
            .strip_prefix(base)
            .ok()
            .filter(|rest| !rest.as_os_str().is_empty())
            .map_or_else(
                || display_path(Path::new(path), home),
                |rest| rest.display().to_string(),
            ),
        _ => display_path(Path::new(path), home),
    };
    for index in ["/index.ts", "/index.js"] {
        if let Some(folder) = shown.strip_suffix(index) {
            return folder.to_owned();
        }
    }
    shown
}

/// pi's compact extension labels: a package's extension as its source
/// (`name` or `name:sub/path`), any other as the shortest trailing run of
/// its path's segments that no other extension shares (a folder's
/// `index.ts` named by its folder).
fn compact_extension_labels(
    extensions: &[(String, SourceInfo)],
    home: Option<&Path>,
) -> Vec<String> {
    let segments: Vec<Option<Vec<String>>> = extensions
        .iter()
        .map(|(path, info)| {
            if is_package(info) {
                return None;
            }
            let shown = display_path(Path::new(path), home);
            let mut parts: Vec<String> = shown
                .split('/')
                .filter(|s| !s.is_empty() && *s != "~")
                .map(str::to_owned)
                .collect();
            if parts.len() > 1
                && matches!(
                    parts.last().map(String::as_str),
                    Some("index.ts" | "index.js")
                )
            {
                parts.pop();
            }
            Some(parts)
        })
        .collect();
    let suffix = |list: &[String], n: usize| list[list.len().saturating_sub(n)..].join("/");
    extensions
        .iter()
        .zip(&segments)
        .enumerate()
        .map(|(at, ((path, info), parts))| match parts {
            None => package_label(path, info),
            Some(parts) if parts.is_empty() => path.clone(),
            Some(parts) => (1..=parts.len())
                .map(|n| (n, suffix(parts, n)))
                .find(|(n, candidate)| {
                    segments.iter().enumerate().all(|(other_at, other)| {
                        other_at == at
                            || other
                                .as_ref()
                                .is_none_or(|other| suffix(other, *n) != *candidate)
                    })
                })
                .map_or_else(|| parts.join("/"), |(_, label)| label),
        })
        .collect()
}

/// pi's label of a package's extension: the package (`npm:` name or git
/// path), then `:` and the file within its `extensions/` folder unless it
/// is the package's `index`.
fn package_label(path: &str, info: &SourceInfo) -> String {
    let source = info.source.as_str();
    let name = match source.strip_prefix("npm:") {
        Some(name) => name.to_owned(),
        None => git_repo_path(source),
    };
    let inner = info
        .base_dir
        .as_deref()
        .and_then(|base| Path::new(path).strip_prefix(base).ok())
        .map(|rest| rest.display().to_string())
        .unwrap_or_else(|| path.to_owned());
    let inner = inner.strip_prefix("extensions/").unwrap_or(&inner);
    let file = Path::new(inner);
    if file.file_stem().is_some_and(|stem| stem == "index") {
        return match file.parent().filter(|p| !p.as_os_str().is_empty()) {
            Some(dir) => format!("{name}:{}", dir.display()),
            None => name,
        };
    }
    format!("{name}:{inner}")
}

/// The repository path of a `git:` source (`user/repo` of
/// `git:github.com/user/repo@v1`), as pi's compact labels show it.
fn git_repo_path(source: &str) -> String {
    let rest = source.strip_prefix("git:").unwrap_or(source);
    let rest = rest.split_once("://").map_or(rest, |(_, r)| r);
    let rest = rest.split_once('@').map_or(rest, |(user_host, r)| {
        // `git@host:path` (scp form) vs `host/path@ref`.
        if user_host.contains('/') {
            user_host
        } else {
            r
        }
    });
    let path = rest
        .split_once(['/', ':'])
        .map_or(rest, |(_, path)| path)
        .trim_end_matches(".git");
    if path.is_empty() {
        source.to_owned()
    } else {
        path.to_owned()
    }
}

fn sorted(names: impl Iterator<Item = String>) -> String {
    let mut names: Vec<String> = names.filter(|n| !n.trim().is_empty()).collect();
    names.sort_by_key(|n| n.to_lowercase());
    names.join(", ")
}

/// pi's scope groups: project, then user, then path (command-line and
/// temporary sources); items sorted within each.
fn grouped<'a>(
    items: impl Iterator<Item = (&'a SourceInfo, String)>,
) -> Vec<(Option<String>, String)> {
    let mut groups: [(&str, Vec<String>); 3] = [
        ("project", Vec::new()),
        ("user", Vec::new()),
        ("path", Vec::new()),
    ];
    for (info, text) in items {
        let group = if info.source == "cli" || info.scope == "temporary" {
            2
        } else if info.scope == "user" {
            1
        } else if info.scope == "project" {
            0
        } else {
            2
        };
        groups[group].1.push(text);
    }
    let mut lines = Vec::new();
    for (scope, mut items) in groups {
        if items.is_empty() {
            continue;
        }
        items.sort();
        lines.push((Some(scope.to_owned()), String::new()));
        lines.extend(items.into_iter().map(|i| (None, format!("  {i}"))));
    }
    lines
}

/// `~/...` for paths under the home folder (pi's `formatDisplayPath`).
fn display_path(path: &Path, home: Option<&Path>) -> String {
    match home.and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) => format!("~/{}", rest.display()),
        None => path.display().to_string(),
    }
}

/// Relative to the working folder when inside it, else as
/// [`display_path`] (pi's `formatContextPath`).
fn context_path(path: &Path, cwd: &Path, home: Option<&Path>) -> String {
    let absolute: PathBuf = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    match absolute.strip_prefix(cwd) {
        Ok(rest) if rest.as_os_str().is_empty() => ".".to_owned(),
        Ok(rest) => rest.display().to_string(),
        Err(_) => display_path(&absolute, home),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::{compact_extension_labels, context_path, display_path, extension_display_path};
    use crate::resources::discovery::SourceInfo;

    fn info(source: &str, scope: &str, base: Option<&str>) -> SourceInfo {
        SourceInfo {
            path: String::new(),
            source: source.to_owned(),
            scope: scope.to_owned(),
            origin: "top-level".to_owned(),
            base_dir: base.map(str::to_owned),
        }
    }

    #[test]
    fn extension_labels_as_pi_shows_them() {
        let home = Path::new("/home/u");
        let local = info("local", "project", None);
        let list = vec![
            ("/home/u/p/.pi/extensions/todo.ts".to_owned(), local.clone()),
            (
                "/opt/ext/plan-mode/index.ts".to_owned(),
                info("cli", "temporary", None),
            ),
            ("/home/u/a/notify.ts".to_owned(), local.clone()),
            ("/home/u/b/notify.ts".to_owned(), local),
            (
                "/g/node_modules/pkg/extensions/index.ts".to_owned(),
                info("npm:pkg", "user", Some("/g/node_modules/pkg")),
            ),
            (
                "/g/git/github.com/me/tools/extensions/lint.ts".to_owned(),
                info(
                    "git:github.com/me/tools@v1",
                    "user",
                    Some("/g/git/github.com/me/tools"),
                ),
            ),
        ];
        assert_eq!(
            compact_extension_labels(&list, Some(home)),
            [
                "todo.ts",
                "plan-mode",
                "a/notify.ts",
                "b/notify.ts",
                "pkg",
                "me/tools:lint.ts"
            ]
        );
        assert_eq!(
            extension_display_path("/opt/ext/plan-mode/index.ts", &list[1].1, Some(home)),
            "/opt/ext/plan-mode"
        );
        assert_eq!(
            extension_display_path(&list[5].0, &list[5].1, Some(home)),
            "extensions/lint.ts"
        );
    }

    #[test]
    fn paths_as_pi_shows_them() {
        let home = Path::new("/home/u");
        let cwd = Path::new("/home/u/proj");
        assert_eq!(
            context_path(Path::new("/home/u/proj/AGENTS.md"), cwd, Some(home)),
            "AGENTS.md"
        );
        assert_eq!(
            context_path(Path::new("/home/u/AGENTS.md"), cwd, Some(home)),
            "~/AGENTS.md"
        );
        assert_eq!(
            context_path(Path::new("/etc/AGENTS.md"), cwd, Some(home)),
            "/etc/AGENTS.md"
        );
        assert_eq!(
            display_path(Path::new("/home/u/.pi/skills/a/SKILL.md"), Some(home)),
            "~/.pi/skills/a/SKILL.md"
        );
    }
}
