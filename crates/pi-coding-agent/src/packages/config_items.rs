//! What `pi config` lists and how a toggle is written, as pi 0.73.1 does:
//! every resource of every package and of the top-level folders and
//! settings lists (both scopes), grouped by where it comes from; turning
//! one on or off writes a `+path` / `-path` entry — into the package's
//! object form in `packages` (a plain string becomes `{"source": ...}`),
//! or into the scope's `extensions` / `skills` / `prompts` / `themes` list.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::resolve::{KINDS, resource_files};
use super::settings_edit::relative;
use super::{PackageError, PackageManager, Scope};
use crate::config::SettingsWriter;
use crate::resources::discovery::{self, Kind, Roots};
use crate::resources::patterns::{enabled_by_overrides, enabled_by_patterns};

/// One resource `pi config` shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigItem {
    /// `extensions`, `skills`, `prompts` or `themes`.
    pub kind: &'static str,
    /// The file.
    pub path: PathBuf,
    /// Whether it loads.
    pub enabled: bool,
    /// The package source, or `auto` / `local` for top-level resources.
    pub source: String,
    /// Its scope.
    pub scope: Scope,
    /// From a package (else top-level).
    pub package: bool,
    /// The package root (patterns are relative to it).
    pub base_dir: PathBuf,
    /// The name shown: the file name, a skill's folder, an extension's
    /// `folder/file` outside an `extensions` folder.
    pub name: String,
}

/// A group of items with the same origin, scope and source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigGroup {
    /// `npm:x (user)`, `User (~/.pi/agent/)`, `Project settings`, ...
    pub label: String,
    /// Items per kind, in kind order, each sorted by name.
    pub kinds: Vec<(&'static str, Vec<ConfigItem>)>,
}

/// The heading of a kind.
pub fn kind_label(kind: &str) -> &'static str {
    match kind {
        "extensions" => "Extensions",
        "skills" => "Skills",
        "prompts" => "Prompts",
        _ => "Themes",
    }
}

fn display_name(kind: &str, path: &Path) -> String {
    let file = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let parent = path
        .parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if kind == "extensions" && parent != "extensions" {
        format!("{parent}/{file}")
    } else if kind == "skills" && file == "SKILL.md" {
        parent
    } else {
        file
    }
}

fn is_pattern(entry: &str) -> bool {
    entry.starts_with(['!', '+', '-']) || entry.contains(['*', '?'])
}

/// A settings file's string list `key` (missing or invalid: empty).
fn settings_list(path: &Path, key: &str) -> Vec<String> {
    crate::file_read::read_regular_to_string(path, crate::file_read::CONFIG_FILE_LIMIT)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|v| v.get(key).and_then(Value::as_array).cloned())
        .map(|items| {
            items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

impl PackageManager {
    /// Every resource `pi config` shows, grouped as pi groups them.
    pub fn config_groups(&self) -> Vec<ConfigGroup> {
        let mut items = Vec::new();
        let resolved = self.resolve(false, &|_| {});
        for (kind, list) in [
            ("extensions", &resolved.resources.extensions),
            ("skills", &resolved.resources.skills),
            ("prompts", &resolved.resources.prompts),
            ("themes", &resolved.resources.themes),
        ] {
            for r in list {
                items.push(ConfigItem {
                    kind,
                    name: display_name(kind, &r.path),
                    path: r.path.clone(),
                    enabled: r.enabled,
                    source: r.source.clone(),
                    scope: r.scope,
                    package: true,
                    base_dir: r.base_dir.clone(),
                });
            }
        }
        for kind in KINDS {
            self.top_level(kind, &mut items);
        }
        group(items)
    }

    /// The top-level resources of `kind`: settings paths, then the
    /// auto-discovered folders (project first).
    fn top_level(&self, kind: &'static str, out: &mut Vec<ConfigItem>) {
        let mut add = |path: PathBuf, enabled: bool, source: &str, scope: Scope| {
            if out.iter().any(|i| i.kind == kind && i.path == path) {
                return;
            }
            out.push(ConfigItem {
                kind,
                name: display_name(kind, &path),
                path,
                enabled,
                source: source.to_owned(),
                scope,
                package: false,
                base_dir: self.base_dir(scope),
            });
        };
        let packages = super::PackageResources::default();
        let roots = Roots {
            cwd: &self.cwd,
            agent_dir: &self.agent_dir,
            home: &self.home,
            packages: &packages,
        };
        let found = match kind {
            "skills" => Some(discovery::discover(&roots, Kind::Skills)),
            "prompts" => Some(discovery::discover(&roots, Kind::Prompts)),
            _ => None,
        };
        if let Some(found) = found {
            for f in found.entries {
                let scope = if f.metadata.scope == "project" {
                    Scope::Project
                } else {
                    Scope::User
                };
                add(f.path, f.enabled, &f.metadata.source, scope);
            }
            return;
        }
        for scope in [Scope::Project, Scope::User] {
            let base = self.base_dir(scope);
            let entries = settings_list(&self.settings_path(scope), kind);
            let patterns: Vec<String> = entries.iter().filter(|e| is_pattern(e)).cloned().collect();
            for entry in entries.iter().filter(|e| !is_pattern(e)) {
                let path = super::source::resolve_local(entry, &base, &self.home);
                let files = if path.is_file() {
                    vec![path]
                } else {
                    resource_files(&path, kind)
                };
                for file in files {
                    let enabled = enabled_by_patterns(&file, &patterns, &base);
                    add(file, enabled, "local", scope);
                }
            }
        }
        for scope in [Scope::Project, Scope::User] {
            let base = self.base_dir(scope);
            let entries = settings_list(&self.settings_path(scope), kind);
            let dir = base.join(kind);
            let files = if kind == "themes" {
                discovery::read_dir_sorted(&dir)
                    .into_iter()
                    .filter(|e| e.is_file && e.name.ends_with(".json") && !e.name.starts_with('.'))
                    .map(|e| e.path)
                    .collect()
            } else {
                resource_files(&dir, kind)
            };
            for file in files {
                let enabled = enabled_by_overrides(&file, &entries, &base);
                add(file, enabled, "auto", scope);
            }
        }
    }

    /// Turns `item` on or off in its settings file, as pi writes it.
    pub fn toggle(&self, item: &ConfigItem, enabled: bool) -> Result<(), PackageError> {
        let path = self.settings_path(item.scope);
        let pattern = relative(&item.path, &item.base_dir);
        let flip = |list: Option<&Value>| -> Value {
            let mut updated: Vec<Value> = list
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|v| {
                    let text = v.as_str().unwrap_or_default();
                    let stripped = text.strip_prefix(['!', '+', '-']).unwrap_or(text);
                    stripped != pattern
                })
                .cloned()
                .collect();
            let sign = if enabled { '+' } else { '-' };
            updated.push(Value::String(format!("{sign}{pattern}")));
            Value::Array(updated)
        };
        // Read, changed and written under the settings file's lock (a file
        // that cannot be read or parsed is an error, not an empty one).
        SettingsWriter::new(path, true).update(|current| {
            if !item.package {
                let list = flip(current.get(item.kind));
                current.insert(item.kind.to_owned(), list);
                return;
            }
            let Some(packages) = current.get_mut("packages").and_then(Value::as_array_mut) else {
                return;
            };
            let Some(entry) = packages.iter_mut().find(|p| {
                p.as_str()
                    .or_else(|| p.get("source").and_then(Value::as_str))
                    == Some(item.source.as_str())
            }) else {
                return;
            };
            if !entry.is_object() {
                let mut map = Map::new();
                map.insert("source".to_owned(), entry.clone());
                *entry = Value::Object(map);
            }
            if let Some(object) = entry.as_object_mut() {
                let list = flip(object.get(item.kind));
                object.insert(item.kind.to_owned(), list);
            }
        })?;
        Ok(())
    }
}

/// Groups items: packages first, then top-level; user before project;
/// then by source; kinds in pi's order, items by name.
fn group(items: Vec<ConfigItem>) -> Vec<ConfigGroup> {
    let mut keys: Vec<(bool, Scope, String)> = Vec::new();
    for item in &items {
        let key = (item.package, item.scope, item.source.clone());
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then_with(|| (a.1 != Scope::User).cmp(&(b.1 != Scope::User)))
            .then_with(|| a.2.to_lowercase().cmp(&b.2.to_lowercase()))
    });
    keys.into_iter()
        .map(|(package, scope, source)| {
            let label = if package {
                format!("{source} ({})", scope.as_str())
            } else if source == "auto" {
                if scope == Scope::User {
                    "User (~/.pi/agent/)".to_owned()
                } else {
                    "Project (.pi/)".to_owned()
                }
            } else if scope == Scope::User {
                "User settings".to_owned()
            } else {
                "Project settings".to_owned()
            };
            let kinds = KINDS
                .iter()
                .filter_map(|kind| {
                    let mut list: Vec<ConfigItem> = items
                        .iter()
                        .filter(|i| {
                            i.kind == *kind
                                && i.package == package
                                && i.scope == scope
                                && i.source == source
                        })
                        .cloned()
                        .collect();
                    list.sort_by_key(|a| a.name.to_lowercase());
                    (!list.is_empty()).then_some((*kind, list))
                })
                .collect();
            ConfigGroup { label, kinds }
        })
        .collect()
}

#[cfg(test)]
#[path = "config_items_tests.rs"]
mod tests;
