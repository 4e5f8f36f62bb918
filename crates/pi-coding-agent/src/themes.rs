//! Theme discovery and selection, as pi: the built-in `dark` and `light`, custom theme
//! files in `<agent dir>/themes/*.json` (named by file name), and files named by their
//! `name` field from `<cwd>/.pi/themes/`, the settings' `themes` paths and `--theme`
//! paths (`--no-themes` keeps only the last). The `theme` setting picks one; without it
//! `COLORFGBG` decides between dark and light. A theme that cannot be loaded gives a
//! warning and the default theme, never an error.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pi_tui::theme::{ColorMode, Theme};
use pi_tui::theme_file::{ThemeError, parse_theme};

/// Why a theme cannot be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ThemeLoadError {
    /// No built-in or discovered theme has this name.
    #[error("Theme not found: {0}")]
    NotFound(String),
    /// The theme file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A theme file without a `name`.
    #[error("Theme {} has no name", .0.display())]
    NoName(PathBuf),
    /// The file is not a valid pi theme.
    #[error(transparent)]
    Theme(#[from] ThemeError),
}

/// Where themes are found.
#[derive(Debug, Clone, Default)]
pub struct ThemeSources {
    /// The agent dir (its `themes/` folder).
    pub agent_dir: PathBuf,
    /// The working directory (its `.pi/themes/` folder).
    pub cwd: PathBuf,
    /// The settings' `themes` paths (files or folders).
    pub setting_paths: Vec<PathBuf>,
    /// `--theme` paths.
    pub cli_paths: Vec<PathBuf>,
    /// `--no-themes`: no discovery, only `--theme` paths.
    pub no_themes: bool,
}

/// The known themes by name (`None`: built in).
#[derive(Debug, Clone, Default)]
pub struct ThemeCatalog {
    themes: BTreeMap<String, Option<PathBuf>>,
    /// Problems found while looking for themes.
    pub warnings: Vec<String>,
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = read
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json") && p.is_file())
        .collect();
    files.sort();
    files
}

/// The override entries of the `themes` list in `<base>/settings.json`.
fn overrides(base: &Path) -> Vec<String> {
    crate::file_read::read_regular_to_string(
        base.join("settings.json"),
        crate::file_read::CONFIG_FILE_LIMIT,
    )
    .ok()
    .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
    .and_then(|v| v.get("themes").and_then(|t| t.as_array()).cloned())
    .unwrap_or_default()
    .iter()
    .filter_map(|v| v.as_str())
    .filter(|e| e.starts_with(['!', '+', '-']))
    .map(str::to_owned)
    .collect()
}

impl ThemeCatalog {
    /// Finds the themes of `sources`.
    pub fn discover(sources: &ThemeSources) -> Self {
        let mut catalog = Self::default();
        catalog.themes.insert("dark".to_owned(), None);
        catalog.themes.insert("light".to_owned(), None);
        if !sources.no_themes {
            // The `-path` / `+path` / `!glob` entries of a scope's `themes`
            // list (what `pi config` writes) turn its folder's files off.
            let user = overrides(&sources.agent_dir);
            for file in json_files(&sources.agent_dir.join("themes")) {
                if !crate::resources::patterns::enabled_by_overrides(
                    &file,
                    &user,
                    &sources.agent_dir,
                ) {
                    continue;
                }
                if let Some(stem) = file.file_stem().map(|s| s.to_string_lossy().into_owned()) {
                    catalog.themes.entry(stem).or_insert(Some(file));
                }
            }
            let project_base = sources.cwd.join(".pi");
            let project = overrides(&project_base);
            let project_files: Vec<PathBuf> = json_files(&project_base.join("themes"))
                .into_iter()
                .filter(|f| {
                    crate::resources::patterns::enabled_by_overrides(f, &project, &project_base)
                })
                .collect();
            catalog.add_named(&project_files, false);
            catalog.add_named(&sources.setting_paths, true);
        }
        catalog.add_named(&sources.cli_paths, true);
        catalog
    }

    /// Adds theme files (or every `.json` of folders) under the name in their JSON.
    fn add_named(&mut self, paths: &[PathBuf], must_exist: bool) {
        for path in paths {
            let files = if path.is_dir() {
                json_files(path)
            } else if path.is_file() {
                vec![path.clone()]
            } else {
                if must_exist {
                    self.warnings
                        .push(format!("Theme path does not exist: {}", path.display()));
                }
                continue;
            };
            for file in files {
                match theme_name(&file) {
                    Ok(name) => {
                        self.themes.entry(name).or_insert(Some(file));
                    }
                    Err(e) => self.warnings.push(e.to_string()),
                }
            }
        }
    }

    /// The file the theme `name` is read from (`None` for a built-in or
    /// unknown theme).
    pub fn path_of(&self, name: &str) -> Option<&Path> {
        self.themes.get(name).and_then(Option::as_deref)
    }

    /// Every theme name, sorted.
    pub fn names(&self) -> Vec<String> {
        self.themes.keys().cloned().collect()
    }

    /// Loads the theme `name`.
    pub fn load(&self, name: &str, mode: ColorMode) -> Result<Theme, ThemeLoadError> {
        let not_found = || ThemeLoadError::NotFound(name.to_owned());
        match self.themes.get(name) {
            None => Err(not_found()),
            Some(None) => Theme::builtin(name, mode).ok_or_else(not_found),
            Some(Some(path)) => {
                let text = crate::file_read::read_regular_to_string(
                    path,
                    crate::file_read::CONFIG_FILE_LIMIT,
                )
                .map_err(|source| ThemeLoadError::Io {
                    path: path.clone(),
                    source,
                })?;
                let label = path.display().to_string();
                let theme = parse_theme(&label, &text, mode)?;
                Ok(theme.with_name(name))
            }
        }
    }

    /// The theme to start with: the `theme` setting, else dark or light from
    /// `COLORFGBG`; a setting that cannot be loaded gives a warning and the default.
    pub fn initial(
        &self,
        setting: Option<&str>,
        colorfgbg: Option<&str>,
        mode: ColorMode,
    ) -> (Theme, Option<String>) {
        let default = Theme::default_name(colorfgbg);
        let fallback = || Theme::builtin(default, mode).unwrap_or_else(|| Theme::dark(mode));
        match setting.filter(|s| !s.is_empty()) {
            None => (fallback(), None),
            Some(name) => match self.load(name, mode) {
                Ok(theme) => (theme, None),
                Err(e) => (
                    fallback(),
                    Some(format!(
                        "Failed to load theme \"{name}\": {e}\nUsing the {default} theme."
                    )),
                ),
            },
        }
    }
}

/// The `name` of a theme file.
fn theme_name(file: &Path) -> Result<String, ThemeLoadError> {
    let text = crate::file_read::read_regular_to_string(file, crate::file_read::CONFIG_FILE_LIMIT)
        .map_err(|source| ThemeLoadError::Io {
            path: file.to_path_buf(),
            source,
        })?;
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| ThemeError::Json {
        label: file.display().to_string(),
        message: e.to_string(),
    })?;
    json["name"]
        .as_str()
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| ThemeLoadError::NoName(file.to_path_buf()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_tui::theme::{Color, Token};

    fn theme_json(name: &str, accent: &str) -> String {
        let mut colors = serde_json::Map::new();
        for token in Token::ALL {
            colors.insert(token.name().to_owned(), "#202020".into());
        }
        colors.insert("accent".to_owned(), accent.into());
        serde_json::json!({"name": name, "vars": {"hot": "#ff0000"}, "colors": colors}).to_string()
    }

    #[test]
    fn finds_agent_project_and_cli_themes() {
        let dir = tempfile::tempdir().unwrap();
        let agent = dir.path().join("agent");
        let cwd = dir.path().join("proj");
        std::fs::create_dir_all(agent.join("themes")).unwrap();
        std::fs::create_dir_all(cwd.join(".pi/themes")).unwrap();
        std::fs::write(agent.join("themes/ocean.json"), theme_json("x", "hot")).unwrap();
        std::fs::write(
            cwd.join(".pi/themes/a.json"),
            theme_json("forest", "#00ff00"),
        )
        .unwrap();
        let cli = dir.path().join("cli.json");
        std::fs::write(&cli, theme_json("cli-theme", "#0000ff")).unwrap();
        let sources = ThemeSources {
            agent_dir: agent,
            cwd,
            setting_paths: vec![dir.path().join("missing")],
            cli_paths: vec![cli],
            no_themes: false,
        };
        let catalog = ThemeCatalog::discover(&sources);
        assert_eq!(
            catalog.names(),
            vec!["cli-theme", "dark", "forest", "light", "ocean"]
        );
        assert_eq!(catalog.warnings.len(), 1, "{:?}", catalog.warnings);
        let ocean = catalog.load("ocean", ColorMode::TrueColor).unwrap();
        assert_eq!(ocean.name(), "ocean");
        assert_eq!(ocean.color(Token::Accent), Color::Rgb(255, 0, 0));
        let no_discovery = ThemeCatalog::discover(&ThemeSources {
            no_themes: true,
            ..sources
        });
        assert_eq!(no_discovery.names(), vec!["cli-theme", "dark", "light"]);
        // `pi config`'s entries turn folder themes off.
        std::fs::write(
            dir.path().join("agent/settings.json"),
            r#"{"themes": ["-themes/ocean.json"]}"#,
        )
        .unwrap();
        std::fs::write(
            dir.path().join("proj/.pi/settings.json"),
            r#"{"themes": ["!*.json"]}"#,
        )
        .unwrap();
        let filtered = ThemeCatalog::discover(&ThemeSources {
            agent_dir: dir.path().join("agent"),
            cwd: dir.path().join("proj"),
            ..ThemeSources::default()
        });
        assert_eq!(filtered.names(), vec!["dark", "light"]);
    }

    #[test]
    fn a_bad_theme_warns_and_falls_back() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("themes")).unwrap();
        std::fs::write(
            dir.path().join("themes/broken.json"),
            "{\"name\": \"broken\"",
        )
        .unwrap();
        let catalog = ThemeCatalog::discover(&ThemeSources {
            agent_dir: dir.path().to_path_buf(),
            cwd: dir.path().to_path_buf(),
            ..ThemeSources::default()
        });
        let (theme, warning) = catalog.initial(Some("broken"), Some("0;15"), ColorMode::TrueColor);
        assert_eq!(theme.name(), "light");
        assert!(
            warning
                .unwrap()
                .starts_with("Failed to load theme \"broken\"")
        );
        let (theme, warning) = catalog.initial(Some("nope"), None, ColorMode::TrueColor);
        assert_eq!(theme.name(), "dark");
        assert!(warning.is_some());
        let (theme, warning) = catalog.initial(None, Some("15;0"), ColorMode::TrueColor);
        assert_eq!((theme.name(), warning), ("dark", None));
    }
}

#[cfg(test)]
mod render_tests {
    use super::*;
    use pi_tui::theme::Token;

    #[test]
    fn a_custom_theme_renders_in_truecolor_and_256_colours() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("themes")).unwrap();
        let mut colors = serde_json::Map::new();
        for token in Token::ALL {
            colors.insert(token.name().to_owned(), "".into());
        }
        colors.insert("accent".to_owned(), "brand".into());
        colors.insert("muted".to_owned(), 244.into());
        colors.insert("userMessageBg".to_owned(), "#202040".into());
        let json =
            serde_json::json!({"name": "brand", "vars": {"brand": "#d75f00"}, "colors": colors});
        std::fs::write(dir.path().join("themes/brand.json"), json.to_string()).unwrap();
        let catalog = ThemeCatalog::discover(&ThemeSources {
            agent_dir: dir.path().to_path_buf(),
            cwd: dir.path().to_path_buf(),
            ..ThemeSources::default()
        });
        let line = |mode| {
            let theme = catalog.load("brand", mode).unwrap();
            format!(
                "{}{}{}",
                theme.fg(Token::Accent, "→ pi"),
                theme.fg(Token::Muted, " muted "),
                theme.bg(Token::UserMessageBg, "user")
            )
        };
        insta::assert_snapshot!(
            format!("{:?}\n{:?}", line(ColorMode::TrueColor), line(ColorMode::Ansi256)),
            @r#"
        "\u{1b}[38;2;215;95;0m→ pi\u{1b}[39m\u{1b}[38;5;244m muted \u{1b}[39m\u{1b}[48;2;32;32;64muser\u{1b}[49m"
        "\u{1b}[38;5;166m→ pi\u{1b}[39m\u{1b}[38;5;244m muted \u{1b}[39m\u{1b}[48;5;17muser\u{1b}[49m"
        "#
        );
    }
}
