//! pi's loaded-resources listing below the startup header: `[Context]`
//! (the AGENTS.md / CLAUDE.md files), `[Skills]` and `[Prompts]`, each a
//! heading in `mdHeading` and, collapsed, one dim comma-separated line or,
//! expanded (Ctrl+O), the files grouped by scope (`project`, `user`,
//! `path`).

use std::path::{Path, PathBuf};

use crate::modes::interactive::blocks::notice::ResourceSection;
use crate::resources::Resources;
use crate::resources::discovery::SourceInfo;

/// The sections pi shows for `resources` (empty ones left out).
pub fn sections(resources: &Resources, cwd: &Path, home: Option<&Path>) -> Vec<ResourceSection> {
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
    out
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

    use super::{context_path, display_path};

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
