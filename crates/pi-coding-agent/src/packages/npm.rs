//! npm sources: `npm install -g` for the user scope (or the `npmCommand`
//! setting's command), `npm install --prefix .pi/npm` for a project, and a
//! folder under the temp dir for `-e`.

use std::path::{Path, PathBuf};

use super::process::Cmd;
use super::{NpmSource, PackageError, PackageManager, Scope};

impl PackageManager {
    /// The npm command with `args` (`npmCommand` or `npm`).
    pub(crate) fn npm(&self, args: &[&str]) -> Result<Cmd, PackageError> {
        let (program, prefix) = match self.npm_command.as_deref() {
            Some([program, prefix @ ..]) => {
                if program.is_empty() {
                    return Err(PackageError::InvalidNpmCommand);
                }
                (program.as_str(), prefix.to_vec())
            }
            _ => ("npm", Vec::new()),
        };
        Ok(Cmd::new(
            program,
            prefix
                .into_iter()
                .chain(args.iter().map(|a| (*a).to_owned())),
        ))
    }

    /// `npm root -g` (asked once).
    fn global_npm_root(&self) -> Result<PathBuf, PackageError> {
        if let Some(root) = self.global_npm_root.get() {
            return Ok(root.clone());
        }
        let root = PathBuf::from(self.npm(&["root", "-g"])?.capture()?);
        Ok(self.global_npm_root.get_or_init(|| root).clone())
    }

    /// The folder npm installs into for a project or `-e`.
    fn npm_root(&self, scope: Scope) -> Result<PathBuf, PackageError> {
        Ok(match scope {
            Scope::Temporary => self.temporary_dir("npm", ""),
            Scope::Project => self.cwd.join(".pi").join("npm"),
            Scope::User => self
                .global_npm_root()?
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default(),
        })
    }

    /// Where the package's folder is.
    pub(crate) fn npm_install_path(
        &self,
        npm: &NpmSource,
        scope: Scope,
    ) -> Result<PathBuf, PackageError> {
        Ok(match scope {
            Scope::User => self.global_npm_root()?.join(&npm.name),
            Scope::Project | Scope::Temporary => {
                self.npm_root(scope)?.join("node_modules").join(&npm.name)
            }
        })
    }

    /// A project's or `-e`'s npm folder, with its `package.json`; true when
    /// it was created now (removed again if the install fails).
    fn ensure_npm_project(&self, root: &Path) -> Result<bool, PackageError> {
        let created = !root.exists();
        super::ensure_git_ignore(root)?;
        let manifest = root.join("package.json");
        if !manifest.exists() {
            std::fs::write(
                &manifest,
                "{\n  \"name\": \"pi-extensions\",\n  \"private\": true\n}",
            )
            .map_err(|source| PackageError::Io {
                path: manifest.clone(),
                source,
            })?;
        }
        Ok(created)
    }

    /// Installs `specs` for `scope`.
    pub(crate) fn npm_install(&self, specs: &[String], scope: Scope) -> Result<(), PackageError> {
        let specs: Vec<&str> = specs.iter().map(String::as_str).collect();
        if scope == Scope::User {
            let mut args = vec!["install", "-g"];
            args.extend(&specs);
            return self.npm(&args)?.run(self.output);
        }
        let root = self.npm_root(scope)?;
        let created = self.ensure_npm_project(&root)?;
        let root_text = root.to_string_lossy().into_owned();
        let mut args = vec!["install"];
        args.extend(&specs);
        args.extend(["--prefix", &root_text]);
        let result = self.npm(&args)?.run(self.output);
        if result.is_err() && created {
            // Nothing was installed: leave no folder behind.
            let _ = std::fs::remove_dir_all(&root);
        }
        result
    }

    /// `npm uninstall` of the package for `scope`.
    pub(crate) fn npm_uninstall(&self, npm: &NpmSource, scope: Scope) -> Result<(), PackageError> {
        if scope == Scope::User {
            return self.npm(&["uninstall", "-g", &npm.name])?.run(self.output);
        }
        let root = self.npm_root(scope)?;
        if !root.exists() {
            return Ok(());
        }
        let root_text = root.to_string_lossy().into_owned();
        self.npm(&["uninstall", &npm.name, "--prefix", &root_text])?
            .run(self.output)
    }

    /// The `version` of an installed package's `package.json`.
    pub(crate) fn installed_npm_version(path: &Path) -> Option<String> {
        let text = crate::file_read::read_regular_to_string(
            path.join("package.json"),
            crate::file_read::CONFIG_FILE_LIMIT,
        )
        .ok()?;
        let value: serde_json::Value = serde_json::from_str(&text).ok()?;
        value.get("version")?.as_str().map(str::to_owned)
    }

    /// The registry's latest version (`npm view <name> version --json`).
    pub(crate) fn latest_npm_version(&self, name: &str) -> Result<String, PackageError> {
        let out = self
            .npm(&["view", name, "version", "--json"])?
            .cwd(&self.cwd)
            .capture()?;
        serde_json::from_str::<String>(out.trim()).map_err(|_| PackageError::CommandOutput {
            command: format!("npm view {name} version --json"),
            output: out,
        })
    }

    /// Whether an unpinned npm source has something newer (or is missing).
    pub(crate) fn npm_needs_update(&self, npm: &NpmSource, scope: Scope) -> bool {
        let Ok(path) = self.npm_install_path(npm, scope) else {
            return true;
        };
        let Some(installed) = Self::installed_npm_version(&path) else {
            return true;
        };
        // As pi: a failed lookup still updates.
        self.latest_npm_version(&npm.name)
            .map_or(true, |latest| latest != installed)
    }

    /// Whether an installed pinned package has its pinned version.
    pub(crate) fn npm_matches_pin(npm: &NpmSource, path: &Path) -> bool {
        match (&npm.version, Self::installed_npm_version(path)) {
            (_, None) => false,
            (None, Some(_)) => true,
            (Some(pin), Some(installed)) => *pin == installed,
        }
    }
}
