//! Packages at start-up: the `packages` setting resolved (a missing npm or
//! git package installed first, as pi does, saying so on stderr), and `-e`
//! arguments naming npm or git sources installed under the temp dir for
//! this run and replaced by the extension files they provide.

use std::ffi::OsString;
use std::path::Path;

use super::{PackageManager, PackageResources, Source, process};

/// What start-up loads from packages.
#[derive(Debug, Clone, Default)]
pub struct Startup {
    /// The resources (extensions go to the extension host, skills and
    /// prompts to the resource loader, themes to the terminal UI).
    pub resources: PackageResources,
    /// One line per package that could not be loaded.
    pub warnings: Vec<String>,
}

/// Whether `value` is an `-e` / `--extension` flag.
fn is_extension_flag(value: &str) -> bool {
    value == "-e" || value == "--extension"
}

/// Resolves the packages of a start-up and rewrites `-e npm:...` /
/// `-e git:...` in `args` into `-e <file>` per extension they provide.
/// `progress` shows the install lines.
pub fn prepare(
    args: &mut Vec<OsString>,
    cwd: &Path,
    agent_dir: &Path,
    progress: super::Progress<'_>,
) -> Startup {
    let mut manager = PackageManager::new(cwd, agent_dir);
    // Start-up output may share stdout with a protocol: npm and git write to stderr.
    manager.output = process::Output::ToStderr;
    let mut startup = Startup::default();
    let resolved = manager.resolve(true, progress);
    startup.resources = resolved.resources;
    startup.warnings = resolved.warnings;

    let mut rewritten = Vec::with_capacity(args.len());
    let mut iter = std::mem::take(args).into_iter();
    while let Some(arg) = iter.next() {
        let text = arg.to_string_lossy().into_owned();
        let value = if is_extension_flag(&text) {
            iter.next().map(|v| v.to_string_lossy().into_owned())
        } else {
            text.strip_prefix("--extension=").map(str::to_owned)
        };
        let Some(value) = value else {
            rewritten.push(arg);
            continue;
        };
        if matches!(Source::parse(&value), Source::Local(_)) {
            rewritten.push(OsString::from("-e"));
            rewritten.push(OsString::from(value));
            continue;
        }
        let temporary = manager.resolve_temporary(std::slice::from_ref(&value), progress);
        startup.warnings.extend(temporary.warnings);
        for file in PackageResources::enabled(&temporary.resources.extensions) {
            rewritten.push(OsString::from("-e"));
            rewritten.push(file.into_os_string());
        }
        let resources = temporary.resources;
        startup.resources.extensions.extend(resources.extensions);
        startup.resources.skills.extend(resources.skills);
        startup.resources.prompts.extend(resources.prompts);
        startup.resources.themes.extend(resources.themes);
    }
    *args = rewritten;
    startup
}
