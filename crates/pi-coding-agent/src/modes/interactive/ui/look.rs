//! The look of the [`Ui`]: key bindings (`keybindings.json`), themes, the
//! settings the screen uses (editor padding, autocomplete rows, hidden
//! thinking), a theme switch, and `/reload`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use pi_tui::keybindings::Keybindings;
use pi_tui::theme::Theme;

use super::Ui;
use crate::config::Settings;
use crate::modes::interactive::blocks::{BlockKind, Notice};
use crate::modes::interactive::theme_watch::WatchedTheme;
use crate::themes::{ThemeCatalog, ThemeSources};

/// Command-line options of the look (`--theme`, `--no-themes`).
#[derive(Debug, Clone, Default)]
pub struct LookOptions {
    /// `--theme` paths.
    pub theme_paths: Vec<PathBuf>,
    /// `--no-themes`.
    pub no_themes: bool,
    /// `--verbose`: the startup header and listing even with `quietStartup`.
    pub verbose: bool,
}

/// Key bindings, themes and the settings changed in this run.
pub(crate) struct Look {
    /// The effective key bindings.
    pub keys: Arc<Keybindings>,
    /// The known themes.
    pub themes: ThemeCatalog,
    /// Settings changed in `/settings` during this run (row id to value).
    pub values: BTreeMap<&'static str, String>,
    /// `enableSkillCommands`: skills are offered in the `/` menu.
    pub skill_commands: Arc<AtomicBool>,
    /// The custom theme file in use, watched for changes.
    pub theme_file: WatchedTheme,
    options: LookOptions,
}

impl Default for Look {
    fn default() -> Self {
        Self {
            keys: Arc::new(crate::keybindings::defaults()),
            themes: ThemeCatalog::default(),
            values: BTreeMap::new(),
            skill_commands: Arc::new(AtomicBool::new(true)),
            theme_file: WatchedTheme::default(),
            options: LookOptions::default(),
        }
    }
}

impl Ui {
    /// Loads key bindings and themes and applies the settings the screen uses; problems
    /// are shown as warnings.
    pub fn install_look(&mut self, options: LookOptions) {
        if options.verbose && self.header.quiet {
            // Nothing is drawn yet: the chat is built again with the header.
            self.header.quiet = false;
            self.reload_chat();
        }
        self.look.options = options;
        self.view.hide_thinking = self.app.settings.hide_thinking_block();
        let settings = self.app.settings.clone();
        self.apply_screen_settings(&settings);
        let warnings = self.load_look(&settings);
        // Nothing is on the screen yet: no need to clear it for the theme.
        self.view.reprint = false;
        for warning in warnings {
            self.transcript.notice(Notice::Warning(warning));
        }
    }

    fn apply_screen_settings(&mut self, settings: &Settings) {
        use pi_tui::image::{CellSize, protocol_from_env};
        self.view.images = pi_tui::image::Display {
            protocol: settings.show_images().then(protocol_from_env).flatten(),
            cell: CellSize::query(),
            max_width_cells: settings.image_width_cells(),
            max_rows: usize::MAX,
        };
        self.editor
            .set_padding_x(usize::try_from(settings.editor_padding_x()).unwrap_or(0));
        self.editor.set_autocomplete_max_visible(
            usize::try_from(settings.autocomplete_max_visible()).unwrap_or(5),
        );
        settings
            .code_block_indent()
            .clone_into(&mut self.view.code_indent);
        self.look
            .skill_commands
            .store(settings.enable_skill_commands(), Ordering::Relaxed);
    }

    /// Reads keybindings.json and the themes; returns the warnings.
    fn load_look(&mut self, settings: &Settings) -> Vec<String> {
        let loaded = crate::keybindings::load(&self.app.agent_dir);
        self.look.keys = Arc::clone(&loaded.bindings);
        // The start-up header names the bound keys (pi's `keyHint`).
        self.header.keys = Arc::clone(&loaded.bindings);
        if let Some(block) = self.transcript.get_mut(0)
            && matches!(block.kind, BlockKind::Notice(Notice::Header { .. }))
        {
            block.kind = BlockKind::Notice(self.header.block());
            block.invalidate();
        }
        self.editor.set_keybindings(loaded.bindings);
        let home = dirs::home_dir().unwrap_or_default();
        let sources = ThemeSources {
            agent_dir: self.app.agent_dir.clone(),
            cwd: self.app.cwd.clone(),
            setting_paths: settings
                .string_list("themes")
                .iter()
                // Its `!` / `+` / `-` entries are patterns, not paths.
                .filter(|p| !p.starts_with(['!', '+', '-']) && !p.contains(['*', '?']))
                .map(|p| crate::config::expand_tilde(p, &home))
                .map(|p| self.app.cwd.join(p))
                .collect(),
            cli_paths: self
                .look
                .options
                .theme_paths
                .iter()
                .map(|p| self.app.cwd.join(p))
                .collect(),
            no_themes: self.look.options.no_themes,
        };
        self.look.themes = ThemeCatalog::discover(&sources);
        let mut warnings = loaded.warnings;
        warnings.extend(self.look.themes.warnings.iter().cloned());
        let wanted = self
            .look
            .values
            .get("theme")
            .cloned()
            .or_else(|| settings.theme().map(str::to_owned));
        let colorfgbg = std::env::var("COLORFGBG").ok();
        let mode = self.theme.mode();
        let (theme, warning) =
            self.look
                .themes
                .initial(wanted.as_deref(), colorfgbg.as_deref(), mode);
        warnings.extend(warning);
        if theme != *self.theme {
            self.set_theme(theme);
        }
        warnings
    }

    /// Switches to `theme`: every block, the editor and what takes input
    /// are drawn again with it.
    pub(super) fn set_theme(&mut self, theme: Theme) {
        *self
            .look
            .theme_file
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = self
            .look
            .themes
            .path_of(theme.name())
            .map(Path::to_path_buf);
        let theme = Arc::new(theme);
        self.theme = Arc::clone(&theme);
        self.slot.set_theme(&theme);
        self.overlays.set_theme(&theme);
        self.editor.set_theme(theme);
        for i in 0..self.transcript.len() {
            if let Some(block) = self.transcript.get_mut(i) {
                block.invalidate();
            }
        }
        self.queue.invalidate();
        self.view.reprint = true;
    }

    /// The theme file in use changed: the theme is read again (a file that
    /// cannot be read or parsed now is ignored, as pi ignores it while the
    /// file is being edited).
    pub(super) fn theme_file_changed(&mut self, path: &Path) {
        let name = self.theme.name().to_owned();
        if self.look.themes.path_of(&name) != Some(path) {
            return;
        }
        match self.look.themes.load(&name, self.theme.mode()) {
            Ok(theme) => self.set_theme(theme),
            Err(e) => tracing::debug!("theme {name} not reloaded: {e}"),
        }
    }

    /// Shows the theme `name` (settings preview, or a change before it is saved).
    pub(super) fn preview_theme(&mut self, name: &str) {
        if name == self.theme.name() {
            return;
        }
        match self.look.themes.load(name, self.theme.mode()) {
            Ok(theme) => self.set_theme(theme),
            Err(e) => self.error(format!("Failed to load theme \"{name}\": {e}")),
        }
    }

    /// `/reload`, as pi's: refused while a response or a compaction runs;
    /// else the app reloads (extensions told, skills, prompt templates,
    /// context files and the system prompt read again) in the background and
    /// [`Ui::reloaded`] reads the settings, key bindings and themes again.
    pub(super) fn reload(&mut self) {
        // pi asks about streaming first; a compaction does not stream.
        let warning = if self.app.agent.is_streaming() {
            Some("Wait for the current response to finish before reloading.")
        } else if self.app.is_compacting() {
            Some("Wait for compaction to finish before reloading.")
        } else if self.work.running {
            // A run between its turns (retry wait, tree move, a reload).
            Some("Wait for the current response to finish before reloading.")
        } else {
            None
        };
        if let Some(warning) = warning {
            self.transcript.notice(Notice::Warning(warning.to_owned()));
            return;
        }
        self.work.running = true;
        let app = Arc::clone(&self.app);
        let tx = self.tx.clone();
        tokio::spawn(async move {
            app.reload().await;
            let _ = tx.send(crate::modes::interactive::events::UiEvent::Reloaded);
        });
    }

    /// The app has reloaded: settings, key bindings and themes are read
    /// again, the chat is shown again with the loaded resources, and pi's
    /// status line follows.
    pub(super) fn reloaded(&mut self) {
        self.work.running = false;
        let settings = Settings::load(&self.app.agent_dir, &self.app.cwd).settings;
        self.view.hide_thinking = settings.hide_thinking_block();
        self.apply_screen_settings(&settings);
        let warnings = self.load_look(&settings);
        self.reload_chat();
        for warning in warnings {
            self.transcript.notice(Notice::Warning(warning));
        }
        self.status_line("Reloaded keybindings, extensions, skills, prompts, themes");
        // A prompt sent while reloading runs now, with what was reloaded.
        if let Some(text) = self.queue.next_deferred() {
            self.start_prompt(text);
        }
    }
}
