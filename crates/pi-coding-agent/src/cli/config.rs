//! `pi config`: the terminal list that turns the resources of packages and
//! of the top-level folders on and off (pi's `selectConfig`); each toggle
//! is written to its settings file at once.
#![allow(clippy::print_stderr)]

use std::io::IsTerminal;
use std::process::ExitCode;

use pi_tui::crossterm::event::{self, Event, KeyEventKind};
use pi_tui::renderer::InlineRenderer;
use pi_tui::terminal::{SessionOptions, TerminalSession};

use crate::modes::interactive::selectors::resource_config::{ConfigOutcome, ResourceConfig};
use crate::packages::PackageManager;

/// Runs `pi config` when it is the command line's first argument.
pub(crate) fn config_command(argv: &[String]) -> Option<ExitCode> {
    if argv.get(1).map(String::as_str) != Some("config") {
        return None;
    }
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(e) => {
            eprintln!("Cannot read the current directory: {e}");
            return Some(ExitCode::FAILURE);
        }
    };
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        eprintln!("Error: pi config needs a terminal");
        return Some(ExitCode::FAILURE);
    }
    let manager = PackageManager::new(&cwd, &crate::session::agent_dir());
    let list = ResourceConfig::new(
        crate::modes::interactive::run::detect_theme(),
        manager.config_groups(),
    )
    .with_keys(crate::keybindings::load(&crate::session::agent_dir()).bindings);
    Some(match run(list, &manager) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("Error: {e}");
            ExitCode::FAILURE
        }
    })
}

fn run(mut list: ResourceConfig, manager: &PackageManager) -> std::io::Result<()> {
    let options = SessionOptions {
        keyboard_enhancement: false,
        modify_other_keys: false,
    };
    let mut session = TerminalSession::enter(options).map_err(std::io::Error::other)?;
    let (cols, rows) = TerminalSession::size().map_err(std::io::Error::other)?;
    let mut renderer = InlineRenderer::new(std::io::stdout(), cols, rows);
    let mut error: Option<String> = None;
    loop {
        let mut lines = list.render(renderer.cols());
        if let Some(message) = &error {
            lines.push(format!("  Error: {message}"));
        }
        renderer.draw(&lines)?;
        match event::read()? {
            Event::Key(key) if key.kind != KeyEventKind::Release => match list.handle_key(&key) {
                ConfigOutcome::Stay => {}
                ConfigOutcome::Toggle(index, enabled) => {
                    let Some(item) = list.item(index).cloned() else {
                        continue;
                    };
                    match manager.toggle(&item, enabled) {
                        Ok(()) => {
                            error = None;
                            list.set_enabled(index, enabled);
                        }
                        Err(e) => error = Some(e.to_string()),
                    }
                }
                ConfigOutcome::Close | ConfigOutcome::Exit => {
                    let lines = list.render(renderer.cols());
                    renderer.finish(&lines)?;
                    session.restore();
                    return Ok(());
                }
            },
            Event::Resize(cols, rows) => renderer.resize(cols, rows),
            _ => {}
        }
    }
}
