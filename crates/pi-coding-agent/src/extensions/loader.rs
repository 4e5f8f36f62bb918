//! Which extension files a start-up names: `-e PATH` (repeatable, loaded
//! even with `--no-extensions`), the `extensions` setting, and pi's
//! discovery folders (`<agent dir>/extensions/` and `.pi/extensions/`:
//! `*.ts` / `*.js` files, `*/index.ts` / `*/index.js`, and folders whose
//! `package.json` lists `pi.extensions`). These are pi's TypeScript and
//! JavaScript extensions, which the out-of-process host runs
//! ([`super::host`]); a file it did not load yields one warning line,
//! never silence.

use std::path::{Path, PathBuf};

/// Where to look.
#[derive(Debug, Clone, Default)]
pub struct DiscoveryOptions {
    /// The working directory.
    pub cwd: PathBuf,
    /// The agent directory.
    pub agent_dir: PathBuf,
    /// `-e` paths, as given.
    pub explicit: Vec<String>,
    /// The `extensions` setting's paths.
    pub configured: Vec<String>,
    /// `--no-extensions`: only `-e` paths.
    pub no_extensions: bool,
}

/// The extension files found, and what could not be used.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Discovery {
    /// Files to load, in pi's order (`-e` first, then settings, then the
    /// global folder, then the project folder), each once.
    pub files: Vec<PathBuf>,
    /// One line per path that names nothing.
    pub missing: Vec<String>,
    /// The files `-e` named: `(file, the path as named, resolved)` (a
    /// folder's entry file, and the folder).
    pub from_command_line: Vec<(PathBuf, PathBuf)>,
}

/// Finds the extension files of a start-up.
pub fn discover(options: &DiscoveryOptions) -> Discovery {
    let mut found = Discovery::default();
    let resolve = |path: &str| {
        let expanded = crate::config::expand_tilde(path, &dirs::home_dir().unwrap_or_default());
        if expanded.is_absolute() {
            expanded
        } else {
            options.cwd.join(expanded)
        }
    };
    let mut named: Vec<(&String, bool)> = options.explicit.iter().map(|p| (p, true)).collect();
    if !options.no_extensions {
        named.extend(options.configured.iter().map(|p| (p, false)));
    }
    for (path, explicit) in named {
        let resolved = resolve(path);
        let before = found.files.len();
        entries_of(&resolved, &mut found.files);
        if found.files.len() == before {
            found
                .missing
                .push(format!("Extension not found: {}", resolved.display()));
        }
        if explicit {
            for file in &found.files[before..] {
                found
                    .from_command_line
                    .push((file.clone(), resolved.clone()));
            }
        }
    }
    if !options.no_extensions {
        // pi's `-path` / `+path` / `!glob` entries of each scope's
        // `extensions` list (what `pi config` writes) turn auto-discovered
        // files off and on again.
        for base in [options.agent_dir.clone(), options.cwd.join(".pi")] {
            let overrides = scope_overrides(&base.join("settings.json"));
            let mut files = Vec::new();
            scan_folder(&base.join("extensions"), &mut files);
            found.files.extend(files.into_iter().filter(|f| {
                crate::resources::patterns::enabled_by_overrides(f, &overrides, &base)
            }));
        }
    }
    let mut seen = std::collections::HashSet::new();
    found.files.retain(|f| seen.insert(f.clone()));
    found
}

fn is_script(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e, "ts" | "js" | "mts" | "mjs" | "cts" | "cjs" | "py"))
}

/// The entry files of one named path: a script itself, or a folder's
/// `package.json` `pi.extensions` entries, else its `index.ts` / `index.js`.
fn entries_of(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_file() {
        out.push(path.to_path_buf());
        return;
    }
    if !path.is_dir() {
        return;
    }
    if let Some(entries) = manifest_entries(path) {
        out.extend(entries);
        return;
    }
    for index in ["index.ts", "index.js"] {
        let file = path.join(index);
        if file.is_file() {
            out.push(file);
            return;
        }
    }
}

/// `package.json`'s `pi.extensions` entries (that exist), if it has them.
fn manifest_entries(dir: &Path) -> Option<Vec<PathBuf>> {
    let text = std::fs::read_to_string(dir.join("package.json")).ok()?;
    let manifest: serde_json::Value = serde_json::from_str(&text).ok()?;
    let entries = manifest.get("pi")?.get("extensions")?.as_array()?;
    Some(
        entries
            .iter()
            .filter_map(serde_json::Value::as_str)
            .map(|e| dir.join(e))
            .filter(|p| p.is_file())
            .collect(),
    )
}

/// A discovery folder: its script files, and its sub-folders' entries.
fn scan_folder(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = read.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_file() && is_script(&path) {
            out.push(path);
        } else if path.is_dir() {
            entries_of(&path, out);
        }
    }
}

/// The warning for a script extension pi-rs cannot run yet.
pub fn script_warning(path: &Path) -> String {
    format!(
        "Extension {} not loaded: the extension host was not started for it",
        path.display()
    )
}

/// The `!` / `+` / `-` entries of a settings file's `extensions` list.
fn scope_overrides(file: &Path) -> Vec<String> {
    crate::file_read::read_regular_to_string(file, crate::file_read::CONFIG_FILE_LIMIT)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v.get("extensions").and_then(|e| e.as_array()).cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|v| v.as_str())
        .filter(|e| is_pattern(e))
        .map(str::to_owned)
        .collect()
}

/// Whether a settings entry is a pattern rather than a path (pi's rule).
fn is_pattern(entry: &str) -> bool {
    entry.starts_with(['!', '+', '-']) || entry.contains(['*', '?'])
}

/// The `extensions` setting's paths (its patterns are not paths).
pub fn configured_paths(settings: &crate::config::Settings) -> Vec<String> {
    settings
        .extra
        .get("extensions")
        .and_then(serde_json::Value::as_array)
        .map(|paths| {
            paths
                .iter()
                .filter_map(|p| p.as_str())
                .filter(|p| !is_pattern(p))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_files_index_folders_and_manifests_in_pi_order() {
        let root = tempfile::tempdir().unwrap();
        let agent = root.path().join("agent");
        let cwd = root.path().join("work");
        std::fs::create_dir_all(agent.join("extensions/folder")).unwrap();
        std::fs::create_dir_all(cwd.join(".pi/extensions/pkg/src")).unwrap();
        std::fs::write(agent.join("extensions/a.ts"), "").unwrap();
        std::fs::write(agent.join("extensions/notes.md"), "").unwrap();
        std::fs::write(agent.join("extensions/folder/index.ts"), "").unwrap();
        std::fs::write(
            cwd.join(".pi/extensions/pkg/package.json"),
            r#"{"pi":{"extensions":["./src/main.ts"]}}"#,
        )
        .unwrap();
        std::fs::write(cwd.join(".pi/extensions/pkg/src/main.ts"), "").unwrap();
        std::fs::write(cwd.join("explicit.ts"), "").unwrap();
        let options = DiscoveryOptions {
            cwd: cwd.clone(),
            agent_dir: agent.clone(),
            explicit: vec!["explicit.ts".into(), "gone.ts".into()],
            configured: vec![],
            no_extensions: false,
        };
        let found = discover(&options);
        assert_eq!(
            found.files,
            vec![
                cwd.join("explicit.ts"),
                agent.join("extensions/a.ts"),
                agent.join("extensions/folder/index.ts"),
                cwd.join(".pi/extensions/pkg/./src/main.ts"),
            ]
        );
        assert_eq!(found.missing.len(), 1);
        assert!(found.missing[0].ends_with("gone.ts"), "{:?}", found.missing);

        // `pi config`'s entries turn an auto-discovered file off.
        std::fs::write(
            agent.join("settings.json"),
            r#"{"extensions": ["-extensions/a.ts"]}"#,
        )
        .unwrap();
        let filtered = discover(&options);
        assert!(!filtered.files.contains(&agent.join("extensions/a.ts")));
        assert!(
            filtered
                .files
                .contains(&agent.join("extensions/folder/index.ts"))
        );

        let only_explicit = discover(&DiscoveryOptions {
            no_extensions: true,
            ..options
        });
        assert_eq!(only_explicit.files, vec![cwd.join("explicit.ts")]);
    }
}
