//! Where pi looks for skills and prompt templates (its package manager's
//! `resolve`, without packages): paths listed in `settings.json` (project,
//! then global) and the auto-discovered directories — project
//! `.pi/skills`, every `.agents/skills` from the cwd up to the git root,
//! project `.pi/prompts`, then the agent dir's `skills`, `~/.agents/skills`
//! and the agent dir's `prompts`. Entries are ordered by pi's precedence
//! (project settings, project auto, user settings, user auto) and
//! deduplicated by real path.

use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use serde::Serialize;

use super::patterns;

/// Where a resource came from, as pi reports it (`sourceInfo`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceInfo {
    /// The resource's file.
    pub path: String,
    /// `auto`, `local`, ...
    pub source: String,
    /// `user`, `project` or `temporary`.
    pub scope: String,
    /// `top-level`, or `package` for a resource of a pi package.
    pub origin: String,
    /// The directory the resource belongs to, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_dir: Option<String>,
}

impl SourceInfo {
    /// This source info for the resource at `path`.
    pub fn for_path(&self, path: &str) -> Self {
        Self {
            path: path.to_owned(),
            ..self.clone()
        }
    }
}

/// The metadata of a discovered path (a [`SourceInfo`] without the path).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Metadata {
    pub source: String,
    pub scope: &'static str,
    /// `top-level` or `package`.
    pub origin: &'static str,
    pub base_dir: Option<PathBuf>,
}

impl Metadata {
    /// The source info of `path` under this metadata.
    pub fn info(&self, path: &Path) -> SourceInfo {
        SourceInfo {
            path: display(path),
            source: self.source.clone(),
            scope: self.scope.to_owned(),
            origin: self.origin.to_owned(),
            base_dir: self.base_dir.as_deref().map(display),
        }
    }

    fn rank(&self) -> u8 {
        if self.origin == "package" {
            return 4;
        }
        let scope = if self.scope == "project" { 0 } else { 2 };
        scope + u8::from(self.source != "local")
    }
}

/// A path as pi prints it.
pub(crate) fn display(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// The real path of `path`, or `path` itself when it cannot be resolved.
pub(crate) fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Lexically resolves `path` against `base` (`.` and `..` removed).
pub(crate) fn resolve(base: &Path, path: &Path) -> PathBuf {
    let joined = base.join(path);
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Expands a leading `~` to `home` and resolves against `base`.
pub(crate) fn resolve_user_path(input: &str, base: &Path, home: &Path) -> PathBuf {
    let trimmed = input.trim();
    let expanded = if trimmed == "~" {
        home.to_path_buf()
    } else if let Some(rest) = trimmed.strip_prefix("~/") {
        home.join(rest)
    } else if let Some(rest) = trimmed.strip_prefix('~') {
        home.join(rest)
    } else {
        PathBuf::from(trimmed)
    };
    resolve(base, &expanded)
}

/// True when `target` is `root` or inside it.
pub(crate) fn is_under(target: &Path, root: &Path) -> bool {
    target.starts_with(root)
}

/// A directory entry, symlinks followed; broken links are skipped.
pub(crate) struct Entry {
    pub name: String,
    pub path: PathBuf,
    pub is_dir: bool,
    pub is_file: bool,
}

/// The entries of `dir`, sorted by name bytes as Node lists them.
pub(crate) fn read_dir_sorted(dir: &Path) -> Vec<Entry> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<_> = read.filter_map(Result::ok).map(|e| e.file_name()).collect();
    names.sort();
    names
        .into_iter()
        .filter_map(|name| {
            let path = dir.join(&name);
            let meta = std::fs::metadata(&path).ok()?;
            Some(Entry {
                name: name.to_string_lossy().into_owned(),
                path,
                is_dir: meta.is_dir(),
                is_file: meta.is_file(),
            })
        })
        .collect()
}

/// `.gitignore`, `.ignore` and `.fdignore` rules collected while walking
/// down from a root, each directory's rules relative to that directory.
pub(crate) struct IgnoreRules {
    root: PathBuf,
    lines: Vec<String>,
    matcher: Gitignore,
}

const IGNORE_FILE_NAMES: [&str; 3] = [".gitignore", ".ignore", ".fdignore"];

impl IgnoreRules {
    /// No rules yet, for a walk from `root`.
    pub fn new(root: &Path) -> Self {
        Self {
            root: root.to_path_buf(),
            lines: Vec::new(),
            matcher: Gitignore::empty(),
        }
    }

    /// Adds the ignore files of `dir`.
    pub fn add_dir(&mut self, dir: &Path) {
        let prefix = dir
            .strip_prefix(&self.root)
            .ok()
            .map(|rel| rel.to_string_lossy().replace('\\', "/"))
            .filter(|rel| !rel.is_empty())
            .map(|rel| format!("{rel}/"))
            .unwrap_or_default();
        let before = self.lines.len();
        for name in IGNORE_FILE_NAMES {
            let Ok(text) = crate::file_read::read_regular_to_string(
                dir.join(name),
                crate::file_read::CONFIG_FILE_LIMIT,
            ) else {
                continue;
            };
            for line in text.lines() {
                if let Some(pattern) = prefix_pattern(line, &prefix) {
                    self.lines.push(pattern);
                }
            }
        }
        if self.lines.len() != before {
            let mut builder = GitignoreBuilder::new(&self.root);
            for line in &self.lines {
                if let Err(e) = builder.add_line(None, line) {
                    tracing::debug!("ignore pattern {line:?}: {e}");
                }
            }
            self.matcher = builder.build().unwrap_or_else(|_| Gitignore::empty());
        }
    }

    /// Whether `path` (under the root) is ignored.
    pub fn ignores(&self, path: &Path, is_dir: bool) -> bool {
        self.matcher.matched(path, is_dir).is_ignore()
    }
}

/// One ignore-file line rooted at `prefix` (pi's `prefixIgnorePattern`).
fn prefix_pattern(line: &str, prefix: &str) -> Option<String> {
    let trimmed = line.trim();
    if trimmed.is_empty() || (trimmed.starts_with('#') && !trimmed.starts_with("\\#")) {
        return None;
    }
    let (negated, pattern) = match line.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (
            false,
            line.strip_prefix('\\')
                .filter(|r| r.starts_with('!'))
                .unwrap_or(line),
        ),
    };
    let pattern = pattern.strip_prefix('/').unwrap_or(pattern);
    let bang = if negated { "!" } else { "" };
    Some(format!("{bang}{prefix}{pattern}"))
}

/// Skill discovery flavour: pi's own dirs also take root `.md` files,
/// `.agents/skills` dirs only `SKILL.md` files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SkillDirMode {
    Pi,
    Agents,
}

/// The skill files under `dir`: a directory with a `SKILL.md` is a skill
/// (nothing below it is searched); otherwise its subdirectories are
/// searched, and in [`SkillDirMode::Pi`] the root's `.md` files are skills.
pub(crate) fn collect_skill_entries(dir: &Path, mode: SkillDirMode) -> Vec<PathBuf> {
    let mut rules = IgnoreRules::new(dir);
    let mut out = Vec::new();
    collect_skills_in(dir, dir, mode, &mut rules, &mut out);
    out
}

fn collect_skills_in(
    dir: &Path,
    root: &Path,
    mode: SkillDirMode,
    rules: &mut IgnoreRules,
    out: &mut Vec<PathBuf>,
) {
    if !dir.exists() {
        return;
    }
    rules.add_dir(dir);
    let entries = read_dir_sorted(dir);
    if let Some(skill) = entries
        .iter()
        .find(|e| e.name == "SKILL.md" && e.is_file && !rules.ignores(&e.path, false))
    {
        out.push(skill.path.clone());
        return;
    }
    for entry in entries {
        if entry.name.starts_with('.') || entry.name == "node_modules" {
            continue;
        }
        if mode == SkillDirMode::Pi
            && dir == root
            && entry.is_file
            && entry.name.ends_with(".md")
            && !rules.ignores(&entry.path, false)
        {
            out.push(entry.path);
            continue;
        }
        if entry.is_dir && !rules.ignores(&entry.path, true) {
            collect_skills_in(&entry.path, root, mode, rules, out);
        }
    }
}

/// The `.md` files directly in `dir` (auto-discovered prompt templates).
fn collect_prompt_entries(dir: &Path) -> Vec<PathBuf> {
    let mut rules = IgnoreRules::new(dir);
    rules.add_dir(dir);
    read_dir_sorted(dir)
        .into_iter()
        .filter(|e| !e.name.starts_with('.') && e.name != "node_modules")
        .filter(|e| !rules.ignores(&e.path, e.is_dir))
        .filter(|e| e.is_file && e.name.ends_with(".md"))
        .map(|e| e.path)
        .collect()
}

/// Every `.md` file under `dir`, recursively (prompt directories named in settings).
fn collect_md_files(dir: &Path, rules: &mut IgnoreRules, out: &mut Vec<PathBuf>) {
    rules.add_dir(dir);
    for entry in read_dir_sorted(dir) {
        if entry.name.starts_with('.') || entry.name == "node_modules" {
            continue;
        }
        if rules.ignores(&entry.path, entry.is_dir) {
            continue;
        }
        if entry.is_dir {
            collect_md_files(&entry.path, rules, out);
        } else if entry.is_file && entry.name.ends_with(".md") {
            out.push(entry.path);
        }
    }
}

/// The resource kinds discovered here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Skills,
    Prompts,
}

impl Kind {
    fn key(self) -> &'static str {
        match self {
            Self::Skills => "skills",
            Self::Prompts => "prompts",
        }
    }
}

/// A discovered path.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    pub path: PathBuf,
    pub metadata: Metadata,
    /// False when a settings pattern turned it off.
    pub enabled: bool,
}

/// Discovered paths with their metadata, in pi's precedence order.
#[derive(Debug, Default)]
pub(crate) struct Discovered {
    pub entries: Vec<Found>,
}

impl Discovered {
    fn add(&mut self, path: PathBuf, metadata: &Metadata, enabled: bool) {
        if !self.entries.iter().any(|f| f.path == path) {
            self.entries.push(Found {
                path,
                metadata: metadata.clone(),
                enabled,
            });
        }
    }

    fn finish(mut self) -> Self {
        self.entries.sort_by_key(|f| f.metadata.rank());
        let mut seen = std::collections::HashSet::new();
        self.entries.retain(|f| seen.insert(canonical(&f.path)));
        self
    }

    /// The enabled paths, in order.
    pub fn enabled(&self) -> Vec<PathBuf> {
        self.entries
            .iter()
            .filter(|f| f.enabled)
            .map(|f| f.path.clone())
            .collect()
    }

    /// The metadata of `path`: its own entry, else the first entry it lies under.
    pub fn metadata_for(&self, path: &Path) -> Option<&Metadata> {
        self.entries
            .iter()
            .find(|f| f.path == path)
            .or_else(|| self.entries.iter().find(|f| is_under(path, &f.path)))
            .map(|f| &f.metadata)
    }
}

/// The string entries of `key` in a settings file (missing or invalid:
/// none). pi's older `skills` object form counts by its `customDirectories`.
fn settings_entries(file: &Path, key: &str) -> Vec<String> {
    let Ok(text) =
        crate::file_read::read_regular_to_string(file, crate::file_read::CONFIG_FILE_LIMIT)
    else {
        return Vec::new();
    };
    let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Vec::new();
    };
    let list = match value.get(key) {
        Some(serde_json::Value::Object(legacy)) => legacy.get("customDirectories"),
        other => other,
    };
    list.and_then(serde_json::Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether a settings entry is a pattern (`!x`, `+x`, `-x`, globs) rather than a path.
fn is_pattern(entry: &str) -> bool {
    entry.starts_with(['!', '+', '-']) || entry.contains(['*', '?'])
}

/// Where to look.
#[derive(Debug, Clone)]
pub(crate) struct Roots<'a> {
    pub cwd: &'a Path,
    pub agent_dir: &'a Path,
    pub home: &'a Path,
    /// The resources of the `packages` setting (and `-e` packages).
    pub packages: &'a crate::packages::PackageResources,
}

fn settings_paths(
    roots: &Roots<'_>,
    kind: Kind,
    base: &Path,
    entries: &[String],
    meta: &Metadata,
    out: &mut Discovered,
) {
    let patterns: Vec<String> = entries.iter().filter(|e| is_pattern(e)).cloned().collect();
    for entry in entries.iter().filter(|e| !is_pattern(e)) {
        let path = resolve_user_path(entry, base, roots.home);
        let files = if path.is_file() {
            vec![path]
        } else if path.is_dir() {
            match kind {
                Kind::Skills => collect_skill_entries(&path, SkillDirMode::Pi),
                Kind::Prompts => {
                    let mut rules = IgnoreRules::new(&path);
                    let mut files = Vec::new();
                    collect_md_files(&path, &mut rules, &mut files);
                    files
                }
            }
        } else {
            Vec::new()
        };
        for file in files {
            let enabled = patterns::enabled_by_patterns(&file, &patterns, base);
            out.add(file, meta, enabled);
        }
    }
}

/// Adds auto-discovered `paths`, each enabled unless its scope's settings
/// entries turn it off.
fn add_auto(
    out: &mut Discovered,
    paths: Vec<PathBuf>,
    meta: &Metadata,
    entries: &[String],
    base: &Path,
) {
    for path in paths {
        let enabled = patterns::enabled_by_overrides(&path, entries, base);
        out.add(path, meta, enabled);
    }
}

/// The git repository root at or above `start`.
fn git_root(start: &Path) -> Option<&Path> {
    start.ancestors().find(|dir| dir.join(".git").exists())
}

/// The auto-discovered and settings-listed paths of `kind`.
pub(crate) fn discover(roots: &Roots<'_>, kind: Kind) -> Discovered {
    let project_base = roots.cwd.join(".pi");
    let project_local = Metadata {
        source: "local".to_owned(),
        origin: "top-level",
        scope: "project",
        base_dir: None,
    };
    let user_local = Metadata {
        source: "local".to_owned(),
        origin: "top-level",
        scope: "user",
        base_dir: None,
    };
    let project_auto = Metadata {
        source: "auto".to_owned(),
        origin: "top-level",
        scope: "project",
        base_dir: Some(project_base.clone()),
    };
    let user_auto = Metadata {
        source: "auto".to_owned(),
        origin: "top-level",
        scope: "user",
        base_dir: Some(roots.agent_dir.to_path_buf()),
    };
    let project_entries = settings_entries(&project_base.join("settings.json"), kind.key());
    let user_entries = settings_entries(&roots.agent_dir.join("settings.json"), kind.key());
    let mut out = Discovered::default();
    settings_paths(
        roots,
        kind,
        &project_base,
        &project_entries,
        &project_local,
        &mut out,
    );
    settings_paths(
        roots,
        kind,
        roots.agent_dir,
        &user_entries,
        &user_local,
        &mut out,
    );
    let (project, user) = match kind {
        Kind::Skills => {
            let home_agents = roots.home.join(".agents").join("skills");
            let mut project = collect_skill_entries(&project_base.join("skills"), SkillDirMode::Pi);
            let repo = git_root(roots.cwd);
            for dir in roots.cwd.ancestors() {
                let skills = dir.join(".agents").join("skills");
                if skills != home_agents {
                    project.extend(collect_skill_entries(&skills, SkillDirMode::Agents));
                }
                if Some(dir) == repo {
                    break;
                }
            }
            let mut user = collect_skill_entries(&roots.agent_dir.join("skills"), SkillDirMode::Pi);
            user.extend(collect_skill_entries(&home_agents, SkillDirMode::Agents));
            (project, user)
        }
        Kind::Prompts => (
            collect_prompt_entries(&project_base.join("prompts")),
            collect_prompt_entries(&roots.agent_dir.join("prompts")),
        ),
    };
    add_auto(
        &mut out,
        project,
        &project_auto,
        &project_entries,
        &project_base,
    );
    add_auto(&mut out, user, &user_auto, &user_entries, roots.agent_dir);
    let packaged = match kind {
        Kind::Skills => &roots.packages.skills,
        Kind::Prompts => &roots.packages.prompts,
    };
    for resource in packaged {
        let meta = Metadata {
            source: resource.source.clone(),
            scope: resource.scope.as_str(),
            origin: "package",
            base_dir: Some(resource.base_dir.clone()),
        };
        out.add(resource.path.clone(), &meta, resource.enabled);
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignore_lines_are_rooted_at_their_directory() {
        assert_eq!(
            prefix_pattern("/build", "sub/").as_deref(),
            Some("sub/build")
        );
        assert_eq!(
            prefix_pattern("!keep.md", "a/").as_deref(),
            Some("!a/keep.md")
        );
        assert_eq!(prefix_pattern("# note", ""), None);
        assert_eq!(prefix_pattern("\\#hash", "").as_deref(), Some("\\#hash"));
        assert_eq!(prefix_pattern("   ", ""), None);
    }

    #[test]
    fn settings_lists_and_the_legacy_skills_object() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("settings.json");
        std::fs::write(&file, r#"{"skills": ["a", 1, "b"], "prompts": "x"}"#).unwrap();
        assert_eq!(settings_entries(&file, "skills"), ["a", "b"]);
        assert!(settings_entries(&file, "prompts").is_empty());
        std::fs::write(
            &file,
            r#"{"skills": {"enableSkillCommands": true, "customDirectories": ["~/s"]}}"#,
        )
        .unwrap();
        assert_eq!(settings_entries(&file, "skills"), ["~/s"]);
        assert!(settings_entries(&dir.path().join("none.json"), "skills").is_empty());
    }

    #[test]
    fn skill_dirs_stop_at_skill_md_and_honour_ignore_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |rel: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x").unwrap();
        };
        write("a/SKILL.md");
        write("a/inner/SKILL.md");
        write("b/c/SKILL.md");
        write("top.md");
        write("skip/SKILL.md");
        write(".hidden/SKILL.md");
        write("b/.gitignore");
        std::fs::write(root.join(".ignore"), "skip/\n").unwrap();
        std::fs::write(root.join("b/.gitignore"), "c/\n").unwrap();
        let rel = |mode| -> Vec<String> {
            collect_skill_entries(root, mode)
                .iter()
                .map(|p| p.strip_prefix(root).unwrap().to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(rel(SkillDirMode::Pi), ["a/SKILL.md", "top.md"]);
        assert_eq!(rel(SkillDirMode::Agents), ["a/SKILL.md"]);
    }

    #[test]
    fn resolve_removes_dot_segments() {
        assert_eq!(
            resolve(Path::new("/a/b"), Path::new("../c/./d")),
            PathBuf::from("/a/c/d")
        );
        assert_eq!(
            resolve(Path::new("/a"), Path::new("/x/y")),
            PathBuf::from("/x/y")
        );
        assert_eq!(
            resolve_user_path("~/s", Path::new("/cwd"), Path::new("/home/u")),
            PathBuf::from("/home/u/s")
        );
    }
}
