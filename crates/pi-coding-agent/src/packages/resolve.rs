//! From the `packages` setting to resource files, as pi 0.73.1 resolves
//! them: project entries first, an identity configured in both scopes
//! loaded once (project wins); per package the `pi` manifest of its
//! `package.json` (paths, globs, `!`/`+`/`-` overrides), else the
//! convention folders `extensions/`, `skills/`, `prompts/`, `themes/`; the
//! object form's filters narrow that (`[]`: none of a kind). A missing
//! npm or git package is installed first when asked.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::settings_edit::PackageEntry;
use super::{PackageError, PackageManager, Progress, Scope, Source};
use crate::resources::discovery::{self, IgnoreRules, SkillDirMode};
use crate::resources::patterns::enabled_by_patterns;

/// The four resource kinds a package provides.
pub const KINDS: [&str; 4] = ["extensions", "skills", "prompts", "themes"];

/// One resource file of a package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageResource {
    /// The file (or, for a local folder without resources, the folder).
    pub path: PathBuf,
    /// False when a filter turned it off (`pi config` shows it unticked).
    pub enabled: bool,
    /// The package's source as configured.
    pub source: String,
    /// Its scope.
    pub scope: Scope,
    /// The package's root folder.
    pub base_dir: PathBuf,
}

impl PackageResource {
    /// pi's `sourceInfo` of the resource (origin `package`).
    pub fn source_info(&self) -> crate::resources::discovery::SourceInfo {
        crate::resources::discovery::SourceInfo {
            path: self.path.display().to_string(),
            source: self.source.clone(),
            scope: self.scope.as_str().to_owned(),
            origin: "package".to_owned(),
            base_dir: Some(self.base_dir.display().to_string()),
        }
    }
}

/// The resources of every configured package, per kind, each path once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackageResources {
    /// Extension entry files.
    pub extensions: Vec<PackageResource>,
    /// Skill files (`SKILL.md` or a top-level `.md`).
    pub skills: Vec<PackageResource>,
    /// Prompt template files.
    pub prompts: Vec<PackageResource>,
    /// Theme files.
    pub themes: Vec<PackageResource>,
}

impl PackageResources {
    fn list(&mut self, kind: &str) -> &mut Vec<PackageResource> {
        match kind {
            "extensions" => &mut self.extensions,
            "skills" => &mut self.skills,
            "prompts" => &mut self.prompts,
            _ => &mut self.themes,
        }
    }

    fn add(&mut self, kind: &str, path: PathBuf, enabled: bool, meta: &Meta) {
        let list = self.list(kind);
        let canonical = discovery::canonical(&path);
        if list
            .iter()
            .any(|r| r.path == path || discovery::canonical(&r.path) == canonical)
        {
            return;
        }
        list.push(PackageResource {
            path,
            enabled,
            source: meta.source.clone(),
            scope: meta.scope,
            base_dir: meta.base_dir.clone(),
        });
    }

    /// The enabled files of one kind, in order.
    pub fn enabled(list: &[PackageResource]) -> Vec<PathBuf> {
        list.iter()
            .filter(|r| r.enabled)
            .map(|r| r.path.clone())
            .collect()
    }
}

/// What a resolve found, and the packages it could not load.
#[derive(Debug, Clone, Default)]
pub struct Resolved {
    /// The resources.
    pub resources: PackageResources,
    /// One line per package that is missing or failed to install.
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone)]
struct Meta {
    source: String,
    scope: Scope,
    base_dir: PathBuf,
}

impl PackageManager {
    /// The configured packages, project first, one per identity.
    pub fn configured(&self) -> Vec<(PackageEntry, Scope)> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for scope in [Scope::Project, Scope::User] {
            for entry in self.packages(scope) {
                if seen.insert(self.identity(&entry.source, scope)) {
                    out.push((entry, scope));
                }
            }
        }
        out
    }

    /// Resolves the `packages` setting; with `install`, a missing npm or git
    /// package is installed first (`progress` says so), else skipped.
    pub fn resolve(&self, install: bool, progress: Progress<'_>) -> Resolved {
        let mut resolved = Resolved::default();
        for (entry, scope) in self.configured() {
            self.resolve_one(&entry, scope, install, progress, &mut resolved);
        }
        resolved
    }

    /// Resolves `-e` sources (npm and git: installed under the temp dir for
    /// this run).
    pub fn resolve_temporary(&self, sources: &[String], progress: Progress<'_>) -> Resolved {
        let mut resolved = Resolved::default();
        for source in sources {
            let entry = PackageEntry {
                source: source.clone(),
                filter: None,
            };
            self.resolve_one(&entry, Scope::Temporary, true, progress, &mut resolved);
        }
        resolved
    }

    fn resolve_one(
        &self,
        entry: &PackageEntry,
        scope: Scope,
        install: bool,
        progress: Progress<'_>,
        out: &mut Resolved,
    ) {
        let source = Source::parse(&entry.source);
        let mut meta = Meta {
            source: entry.source.clone(),
            scope,
            base_dir: PathBuf::new(),
        };
        let path = match self.install_path(&source, scope) {
            Ok(path) => path,
            Err(e) => {
                out.warnings.push(format!("Package {}: {e}", entry.source));
                return;
            }
        };
        if let Source::Local(_) = source {
            if path.is_file() {
                meta.base_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
                out.resources.add("extensions", path, true, &meta);
            } else if path.is_dir() {
                meta.base_dir.clone_from(&path);
                if !collect_package(&path, entry, &meta, &mut out.resources) {
                    out.resources.add("extensions", path, true, &meta);
                }
            }
            return;
        }
        let needs_install = match &source {
            Source::Npm(npm) => {
                !path.exists() || (npm.version.is_some() && !Self::npm_matches_pin(npm, &path))
            }
            _ => !path.exists(),
        };
        if needs_install {
            if !install || self.offline {
                out.warnings.push(format!(
                    "Package {} is not installed (run `pi install {}`)",
                    entry.source, entry.source
                ));
                return;
            }
            progress(&format!("Installing {}...", entry.source));
            if let Err(e) = self.install_source(&source, scope) {
                out.warnings
                    .push(format!("Could not install {}: {e}", entry.source));
                return;
            }
        } else if scope == Scope::Temporary
            && let Source::Git(git) = &source
            && git.git_ref.is_none()
            && !self.offline
        {
            // As pi: a cached `-e` checkout is refreshed; a failed refresh keeps it.
            progress(&format!("Refreshing {}...", entry.source));
            let _ = self.git_update(git, scope);
        }
        meta.base_dir.clone_from(&path);
        collect_package(&path, entry, &meta, &mut out.resources);
    }

    /// Installs an npm or git source for `scope` (local: checks it exists).
    pub(crate) fn install_source(&self, source: &Source, scope: Scope) -> Result<(), PackageError> {
        match source {
            Source::Npm(npm) => self.npm_install(std::slice::from_ref(&npm.spec), scope),
            Source::Git(git) => self.git_install(git, scope),
            Source::Local(path) => {
                let resolved = super::source::resolve_local(path, &self.cwd, &self.home);
                if resolved.exists() {
                    Ok(())
                } else {
                    Err(PackageError::PathMissing(resolved))
                }
            }
        }
    }
}

/// The `pi` object of `<root>/package.json`, if any.
fn manifest(root: &Path) -> Option<serde_json::Map<String, Value>> {
    let text = crate::file_read::read_regular_to_string(
        root.join("package.json"),
        crate::file_read::CONFIG_FILE_LIMIT,
    )
    .ok()?;
    let value: Value = serde_json::from_str(&text).ok()?;
    value.get("pi")?.as_object().cloned()
}

fn strings(value: Option<&Value>) -> Option<Vec<String>> {
    Some(
        value?
            .as_array()?
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
    )
}

fn is_override(entry: &str) -> bool {
    entry.starts_with(['!', '+', '-'])
}

/// Adds a package's resources; false when it has neither a manifest nor a
/// convention folder (a local folder is then an extension itself).
fn collect_package(
    root: &Path,
    entry: &PackageEntry,
    meta: &Meta,
    out: &mut PackageResources,
) -> bool {
    let manifest = manifest(root);
    if entry.filter.is_some() {
        for kind in KINDS {
            match entry.patterns(kind) {
                Some(patterns) => {
                    let all = manifest_files(root, manifest.as_ref(), kind);
                    for file in all {
                        let enabled =
                            !patterns.is_empty() && enabled_by_patterns(&file, &patterns, root);
                        out.add(kind, file, enabled, meta);
                    }
                }
                None => default_resources(root, manifest.as_ref(), kind, meta, out),
            }
        }
        return true;
    }
    if let Some(manifest) = &manifest {
        for kind in KINDS {
            if let Some(entries) = strings(manifest.get(kind)) {
                add_manifest_entries(root, &entries, kind, meta, out);
            }
        }
        return true;
    }
    let mut any = false;
    for kind in KINDS {
        let dir = root.join(kind);
        if dir.exists() {
            any = true;
            for file in resource_files(&dir, kind) {
                out.add(kind, file, true, meta);
            }
        }
    }
    any
}

/// A kind without a filter: the manifest's entries, else its folder.
fn default_resources(
    root: &Path,
    manifest: Option<&serde_json::Map<String, Value>>,
    kind: &str,
    meta: &Meta,
    out: &mut PackageResources,
) {
    if let Some(entries) = manifest.and_then(|m| strings(m.get(kind))) {
        add_manifest_entries(root, &entries, kind, meta, out);
        return;
    }
    for file in resource_files(&root.join(kind), kind) {
        out.add(kind, file, true, meta);
    }
}

/// The manifest's files of `kind` that its own overrides allow.
fn add_manifest_entries(
    root: &Path,
    entries: &[String],
    kind: &str,
    meta: &Meta,
    out: &mut PackageResources,
) {
    let overrides: Vec<String> = entries.iter().filter(|e| is_override(e)).cloned().collect();
    for file in files_of_entries(root, entries, kind) {
        if enabled_by_patterns(&file, &overrides, root) {
            out.add(kind, file, true, meta);
        }
    }
}

/// Every file a filter chooses from: the manifest's (after its own
/// overrides), else the convention folder's.
fn manifest_files(
    root: &Path,
    manifest: Option<&serde_json::Map<String, Value>>,
    kind: &str,
) -> Vec<PathBuf> {
    if let Some(entries) = manifest
        .and_then(|m| strings(m.get(kind)))
        .filter(|e| !e.is_empty())
    {
        let overrides: Vec<String> = entries.iter().filter(|e| is_override(e)).cloned().collect();
        return files_of_entries(root, &entries, kind)
            .into_iter()
            .filter(|f| enabled_by_patterns(f, &overrides, root))
            .collect();
    }
    resource_files(&root.join(kind), kind)
}

/// The files manifest entries name: paths and globs relative to the root.
fn files_of_entries(root: &Path, entries: &[String], kind: &str) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for entry in entries.iter().filter(|e| !is_override(e)) {
        if entry.contains(['*', '?']) {
            paths.extend(glob_under(root, entry));
        } else {
            paths.push(discovery::resolve(root, Path::new(entry)));
        }
    }
    let mut files = Vec::new();
    for path in paths {
        if path.is_file() {
            files.push(path);
        } else if path.is_dir() {
            files.extend(resource_files(&path, kind));
        }
    }
    files
}

/// Files and folders under `root` matching `pattern` (no hidden names).
fn glob_under(root: &Path, pattern: &str) -> Vec<PathBuf> {
    let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
    let Ok(glob) = globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
    else {
        tracing::warn!("package manifest pattern {pattern:?} is not a glob");
        return Vec::new();
    };
    let matcher = glob.compile_matcher();
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in discovery::read_dir_sorted(&dir) {
            if entry.name.starts_with('.') {
                continue;
            }
            let relative = super::settings_edit::relative(&entry.path, root);
            if matcher.is_match(&relative) {
                out.push(entry.path.clone());
            }
            if entry.is_dir {
                stack.push(entry.path);
            }
        }
    }
    out.sort();
    out
}

/// The resource files of one folder: skills by `SKILL.md` (and top-level
/// `.md`), extensions by pi's entry rules, prompts (`.md`) and themes
/// (`.json`) recursively; hidden names, `node_modules` and ignore files
/// are skipped.
pub(crate) fn resource_files(dir: &Path, kind: &str) -> Vec<PathBuf> {
    match kind {
        "skills" => discovery::collect_skill_entries(dir, SkillDirMode::Pi),
        "extensions" => extension_entries(dir),
        "prompts" => files_with(dir, ".md"),
        _ => files_with(dir, ".json"),
    }
}

fn files_with(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, suffix: &str, rules: &mut IgnoreRules, out: &mut Vec<PathBuf>) {
        rules.add_dir(dir);
        for entry in discovery::read_dir_sorted(dir) {
            if entry.name.starts_with('.') || entry.name == "node_modules" {
                continue;
            }
            if rules.ignores(&entry.path, entry.is_dir) {
                continue;
            }
            if entry.is_dir {
                walk(&entry.path, suffix, rules, out);
            } else if entry.is_file && entry.name.ends_with(suffix) {
                out.push(entry.path);
            }
        }
    }
    let mut out = Vec::new();
    if dir.is_dir() {
        walk(dir, suffix, &mut IgnoreRules::new(dir), &mut out);
    }
    out
}

/// A folder's own entries: its manifest's `pi.extensions` (that exist),
/// else `index.ts` / `index.js`.
fn folder_entries(dir: &Path) -> Option<Vec<PathBuf>> {
    if let Some(entries) = manifest(dir).and_then(|m| strings(m.get("extensions"))) {
        let found: Vec<PathBuf> = entries
            .iter()
            .map(|e| discovery::resolve(dir, Path::new(e)))
            .filter(|p| p.exists())
            .collect();
        if !found.is_empty() {
            return Some(found);
        }
    }
    ["index.ts", "index.js"]
        .iter()
        .map(|name| dir.join(name))
        .find(|p| p.exists())
        .map(|p| vec![p])
}

/// The extensions of an `extensions/` folder: the folder's own entries,
/// else its `.ts` / `.js` files and its sub-folders' entries.
fn extension_entries(dir: &Path) -> Vec<PathBuf> {
    if !dir.exists() {
        return Vec::new();
    }
    if let Some(entries) = folder_entries(dir) {
        return entries;
    }
    let mut rules = IgnoreRules::new(dir);
    rules.add_dir(dir);
    let mut out = Vec::new();
    for entry in discovery::read_dir_sorted(dir) {
        if entry.name.starts_with('.') || entry.name == "node_modules" {
            continue;
        }
        if rules.ignores(&entry.path, entry.is_dir) {
            continue;
        }
        if entry.is_file && (entry.name.ends_with(".ts") || entry.name.ends_with(".js")) {
            out.push(entry.path);
        } else if entry.is_dir
            && let Some(entries) = folder_entries(&entry.path)
        {
            out.extend(entries);
        }
    }
    out
}
