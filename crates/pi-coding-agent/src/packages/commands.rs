//! `pi install`, `pi remove` (`uninstall`), `pi update` and `pi list`: pi
//! 0.73.1's syntax, messages and exit codes. These never start a session
//! nor reach a model. pi-rs never replaces its own binary: where pi would
//! update itself it says how this binary is updated.

use std::io::Write;

use super::{PackageError, PackageManager, Scope, Source};

/// The four package commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// `install <source> [-l]`.
    Install,
    /// `remove <source> [-l]` / `uninstall`.
    Remove,
    /// `update [source|self|pi] [...]`.
    Update,
    /// `list`.
    List,
}

impl Command {
    fn name(self) -> &'static str {
        match self {
            Self::Install => "install",
            Self::Remove => "remove",
            Self::Update => "update",
            Self::List => "list",
        }
    }

    fn usage(self) -> &'static str {
        match self {
            Self::Install => "pi install <source> [-l]",
            Self::Remove => "pi remove <source> [-l]",
            Self::Update => {
                "pi update [source|self|pi] [--self] [--extensions] [--extension <source>] [--force]"
            }
            Self::List => "pi list",
        }
    }
}

/// What `update` covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpdateTarget {
    /// pi and every package.
    All,
    /// pi only.
    SelfOnly,
    /// Packages: all, or the one named.
    Packages(Option<String>),
}

/// A parsed package command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// The command.
    pub command: Command,
    /// The positional source.
    pub source: Option<String>,
    /// `-l` / `--local`.
    pub local: bool,
    /// `-h` / `--help`.
    pub help: bool,
    /// `update`'s target.
    pub target: UpdateTarget,
    /// The first problem, as pi words it (two lines).
    pub error: Option<(String, String)>,
}

/// Parses `args` (the command first); `None` when it is not a package
/// command.
pub fn parse(args: &[String]) -> Option<Parsed> {
    let (first, rest) = args.split_first()?;
    let command = match first.as_str() {
        "install" => Command::Install,
        "remove" | "uninstall" => Command::Remove,
        "update" => Command::Update,
        "list" => Command::List,
        _ => return None,
    };
    let update = command == Command::Update;
    let usage = format!("Usage: {}", command.usage());
    let (mut invalid_option, mut invalid_argument, mut missing_value, mut conflict) =
        (None::<String>, None::<String>, None::<String>, None::<&str>);
    let (mut local, mut help, mut self_flag, mut extensions_flag) = (false, false, false, false);
    let mut source: Option<String> = None;
    let mut extension: Option<String> = None;
    let mut i = 0;
    while i < rest.len() {
        let arg = rest[i].as_str();
        i += 1;
        match arg {
            "-h" | "--help" => help = true,
            "-l" | "--local" if matches!(command, Command::Install | Command::Remove) => {
                local = true;
            }
            "--self" | "--force" if update => self_flag |= arg == "--self",
            "--extensions" if update => extensions_flag = true,
            "--extension" if update => match rest.get(i) {
                Some(value) if !value.starts_with('-') => {
                    i += 1;
                    if extension.is_some() {
                        conflict = conflict.or(Some("--extension can only be provided once"));
                    } else {
                        extension = Some(value.clone());
                    }
                }
                _ => missing_value = missing_value.or(Some(arg.to_owned())),
            },
            _ if arg.starts_with('-') => invalid_option = invalid_option.or(Some(arg.to_owned())),
            _ if source.is_none() => source = Some(arg.to_owned()),
            _ => invalid_argument = invalid_argument.or(Some(arg.to_owned())),
        }
    }
    let mut target = UpdateTarget::All;
    if update {
        target = if let Some(one) = extension {
            if self_flag || extensions_flag {
                conflict = conflict.or(Some(
                    "--extension cannot be combined with --self or --extensions",
                ));
            }
            if source.is_some() {
                conflict = conflict.or(Some(
                    "--extension cannot be combined with a positional source",
                ));
            }
            UpdateTarget::Packages(Some(one))
        } else if let Some(one) = &source {
            if one == "self" || one == "pi" {
                if extensions_flag {
                    UpdateTarget::All
                } else {
                    UpdateTarget::SelfOnly
                }
            } else {
                if extensions_flag || self_flag {
                    conflict = conflict.or(Some(
                        "positional update targets cannot be combined with --self or --extensions",
                    ));
                }
                UpdateTarget::Packages(Some(one.clone()))
            }
        } else {
            match (self_flag, extensions_flag) {
                (true, false) => UpdateTarget::SelfOnly,
                (false, true) => UpdateTarget::Packages(None),
                _ => UpdateTarget::All,
            }
        };
    }
    let error = if let Some(option) = invalid_option {
        Some((
            format!("Unknown option {option} for \"{}\".", command.name()),
            format!("Use \"pi --help\" or \"{}\".", command.usage()),
        ))
    } else if let Some(option) = missing_value {
        Some((format!("Missing value for {option}."), usage))
    } else if let Some(argument) = invalid_argument {
        Some((format!("Unexpected argument {argument}."), usage))
    } else if let Some(conflict) = conflict {
        Some((conflict.to_owned(), usage))
    } else if matches!(command, Command::Install | Command::Remove) && source.is_none() && !help {
        Some((format!("Missing {} source.", command.name()), usage))
    } else {
        None
    };
    Some(Parsed {
        command,
        source,
        local,
        help,
        target,
        error,
    })
}

/// The help text of one command.
pub fn help(command: Command) -> String {
    let body = match command {
        Command::Install => {
            "Install a package and add it to settings.\n\nOptions:\n  -l, --local    Install project-locally (.pi/settings.json)\n\nExamples:\n  pi install npm:@foo/bar\n  pi install git:github.com/user/repo\n  pi install git:git@github.com:user/repo\n  pi install https://github.com/user/repo\n  pi install ssh://git@github.com/user/repo\n  pi install ./local/path\n"
        }
        Command::Remove => {
            "Remove a package and its source from settings.\nAlias: pi uninstall <source> [-l]\n\nOptions:\n  -l, --local    Remove from project settings (.pi/settings.json)\n\nExamples:\n  pi remove npm:@foo/bar\n  pi uninstall npm:@foo/bar\n"
        }
        Command::Update => {
            "Update pi and installed packages.\n\nOptions:\n  --self                  Update pi only\n  --extensions            Update installed packages only\n  --extension <source>    Update one package only\n  --force                 Reinstall pi even if the current version is latest\n\nShort forms:\n  pi update                Update pi and all extensions\n  pi update <source>       Update one package\n  pi update pi             Update pi only (self works as alias to pi)\n"
        }
        Command::List => "List installed packages from user and project settings.\n",
    };
    format!("Usage:\n  {}\n\n{body}\n", command.usage())
}

/// The lines that say how pi-rs is updated (it never replaces itself).
pub fn self_update_note() -> String {
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    format!(
        "error: pi cannot self-update this installation.\n\
         pi-rs is updated by installing a newer build: `cargo install --path crates/pi-coding-agent` \
         in an updated checkout of pi-rs, or the package manager that installed it.\n\n\
         Location of pi executable: {exe}\n"
    )
}

/// Runs a parsed command; returns the exit code.
pub fn run(
    parsed: &Parsed,
    manager: &PackageManager,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    if parsed.help {
        let _ = write!(out, "{}", help(parsed.command));
        return 0;
    }
    if let Some((first, second)) = &parsed.error {
        let _ = writeln!(err, "{first}\n{second}");
        return 1;
    }
    let progress = |line: &str| {
        let mut stdout = std::io::stdout();
        let _ = writeln!(stdout, "{line}");
        let _ = stdout.flush();
    };
    let result = match parsed.command {
        Command::Install => install(parsed, manager, &progress, out),
        Command::Remove => remove(parsed, manager, &progress, out, err),
        Command::List => list(manager, out),
        Command::Update => update(parsed, manager, &progress, out, err),
    };
    let _ = out.flush();
    match result {
        Ok(code) => code,
        Err(e) => {
            let _ = writeln!(err, "Error: {e}");
            1
        }
    }
}

fn scope(parsed: &Parsed) -> Scope {
    if parsed.local {
        Scope::Project
    } else {
        Scope::User
    }
}

fn install(
    parsed: &Parsed,
    manager: &PackageManager,
    progress: &dyn Fn(&str),
    out: &mut dyn Write,
) -> Result<i32, PackageError> {
    let source = parsed.source.clone().unwrap_or_default();
    progress(&format!("Installing {source}..."));
    manager.install_source(&Source::parse(&source), scope(parsed))?;
    manager.add_to_settings(&source, scope(parsed))?;
    let _ = writeln!(out, "Installed {source}");
    Ok(0)
}

fn remove(
    parsed: &Parsed,
    manager: &PackageManager,
    progress: &dyn Fn(&str),
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<i32, PackageError> {
    let source = parsed.source.clone().unwrap_or_default();
    progress(&format!("Removing {source}..."));
    match Source::parse(&source) {
        Source::Npm(npm) => manager.npm_uninstall(&npm, scope(parsed))?,
        Source::Git(git) => manager.git_remove(&git, scope(parsed))?,
        Source::Local(_) => {}
    }
    if !manager.remove_from_settings(&source, scope(parsed))? {
        let _ = writeln!(err, "No matching package found for {source}");
        return Ok(1);
    }
    let _ = writeln!(out, "Removed {source}");
    Ok(0)
}

fn list(manager: &PackageManager, out: &mut dyn Write) -> Result<i32, PackageError> {
    let user = manager.packages(Scope::User);
    let project = manager.packages(Scope::Project);
    if user.is_empty() && project.is_empty() {
        let _ = writeln!(out, "No packages installed.");
        return Ok(0);
    }
    for (title, entries, scope) in [
        ("User packages:", &user, Scope::User),
        ("Project packages:", &project, Scope::Project),
    ] {
        if entries.is_empty() {
            continue;
        }
        if scope == Scope::Project && !user.is_empty() {
            let _ = writeln!(out);
        }
        let _ = writeln!(out, "{title}");
        for entry in entries {
            let filtered = if entry.filter.is_some() {
                " (filtered)"
            } else {
                ""
            };
            let _ = writeln!(out, "  {}{filtered}", entry.source);
            if let Some(path) = manager.installed_path(&Source::parse(&entry.source), scope) {
                let _ = writeln!(out, "    {}", path.display());
            }
        }
    }
    Ok(0)
}

fn update(
    parsed: &Parsed,
    manager: &PackageManager,
    progress: &dyn Fn(&str),
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<i32, PackageError> {
    let packages = match &parsed.target {
        UpdateTarget::All => Some(None),
        UpdateTarget::Packages(one) => Some(one.clone()),
        UpdateTarget::SelfOnly => None,
    };
    if let Some(one) = packages {
        manager.update(one.as_deref(), progress)?;
        let line = one.map_or_else(|| "Updated packages".to_owned(), |s| format!("Updated {s}"));
        let _ = writeln!(out, "{line}");
    }
    match parsed.target {
        UpdateTarget::Packages(_) => Ok(0),
        UpdateTarget::All => {
            let _ = write!(err, "{}", self_update_note());
            Ok(0)
        }
        UpdateTarget::SelfOnly => {
            let _ = write!(err, "{}", self_update_note());
            Ok(1)
        }
    }
}
