//! The `pi` command line as a function, so a program can be `pi` with
//! Rust extensions of its own ([`run_main`]); the `pi` binary calls it with
//! none. Printing to the terminal is its job.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::{IsTerminal, Read};
use std::process::ExitCode;
use std::sync::Arc;

use crate::app::files::process_file_args_with;
use crate::app::{SessionChoice, StartOptions, build_app};
use crate::cli::{Args, Mode};
use crate::config::{AuthStorage, ModelRegistry};
use crate::extensions::ExtensionSet;
use crate::modes::{self, prompt_inputs, shared_writer};
use clap::Parser;

fn init_logging() {
    // Logs go to stderr, quiet unless PI_LOG (or RUST_LOG) asks for more.
    let filter = std::env::var("PI_LOG")
        .or_else(|_| std::env::var("RUST_LOG"))
        .unwrap_or_else(|_| "error".to_owned());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}

fn list_models(search: &str, extensions: &ExtensionSet) -> ExitCode {
    let agent_dir = crate::session::agent_dir();
    // Providers extensions register are listed too, as in pi.
    let runner = crate::extensions::load(extensions, std::path::PathBuf::new());
    let loaded = ModelRegistry::load(&agent_dir)
        .and_then(|mut r| {
            r.apply_extension_providers(runner.providers(), runner.unregistered_providers())?;
            Ok(r)
        })
        .and_then(|r| AuthStorage::load(&agent_dir).map(|a| (r, a)));
    match loaded {
        Ok((registry, auth)) => {
            print!(
                "{}",
                crate::cli::list_models(&registry, &auth, Some(search))
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

fn session_choice(args: &Args) -> SessionChoice {
    if args.no_session {
        SessionChoice::InMemory
    } else if let Some(fork) = &args.fork {
        SessionChoice::Fork(fork.clone())
    } else if let Some(session) = &args.session {
        SessionChoice::Open(session.clone())
    } else if args.resume || args.continue_session {
        SessionChoice::Continue
    } else {
        SessionChoice::New
    }
}

async fn run(
    args: Args,
    extensions: ExtensionSet,
    flag_values: Vec<(String, serde_json::Value)>,
    hosted: super::script_host::Hosted,
    packages: crate::packages::PackageResources,
) -> ExitCode {
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(e) => {
            eprintln!("Cannot read the current directory: {e}");
            return ExitCode::FAILURE;
        }
    };
    // As pi: an extension that failed to load is an error, in every mode.
    if !hosted.errors.is_empty() {
        for error in &hosted.errors {
            eprintln!("Error: {error}");
        }
        for host in &hosted.handles {
            host.stop().await;
        }
        return ExitCode::FAILURE;
    }
    let mode = args.effective_mode();
    let stdin = std::io::stdin();
    let piped = !stdin.is_terminal();
    // pi's `-r` opens a session picker; without a terminal nothing can be
    // picked, and pi ends without running anything.
    if args.resume && args.fork.is_none() && args.session.is_none() && !args.no_session && piped {
        eprintln!("No session selected");
        return ExitCode::SUCCESS;
    }
    // Piped stdin is the start of the first prompt (pi: trimmed, `undefined`
    // when empty; bytes that are not UTF-8 become U+FFFD, as Node reads them).
    let mut stdin_text = None;
    if piped && mode != Mode::Rpc {
        let mut bytes = Vec::new();
        match stdin.lock().read_to_end(&mut bytes) {
            Ok(_) => {
                let text = String::from_utf8_lossy(&bytes);
                if !text.trim().is_empty() {
                    stdin_text = Some(text.trim().to_owned());
                }
            }
            Err(e) => tracing::warn!("cannot read stdin: {e}"),
        }
    }
    let interactive = mode == Mode::Text && !args.print && !piped;
    // pi's `-r` in the terminal UI: a new (unwritten) session, then the picker.
    let pick_session = interactive
        && args.resume
        && args.fork.is_none()
        && args.session.is_none()
        && !args.no_session;
    // As pi: `@file` images are resized unless `images.autoResize` is false.
    let resize = crate::config::Settings::load(&crate::session::agent_dir(), &cwd)
        .settings
        .image_auto_resize();
    let (files, messages) = match process_file_args_with(&cwd, &args.messages, resize) {
        Ok(split) => split,
        Err(e) => {
            eprintln!("Error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let tools = if args.no_tools {
        Some(Vec::new())
    } else {
        args.tools.clone()
    };
    let options = StartOptions {
        cwd,
        provider: args.provider.clone(),
        model: args.model.clone(),
        api_key: args.api_key.clone(),
        thinking: args.thinking.clone(),
        system_prompt: args.system_prompt.clone(),
        append_system_prompt: args.append_system_prompt.clone(),
        skills: args.skills.clone(),
        no_skills: args.no_skills,
        extension_paths: args.extensions.clone(),
        no_extensions: args.no_extensions,
        prompt_templates: args.prompt_templates.clone(),
        no_prompt_templates: args.no_prompt_templates,
        no_context_files: args.no_context_files,
        tools,
        session: if pick_session {
            SessionChoice::New
        } else {
            session_choice(&args)
        },
        session_dir: args.session_dir.clone(),
        agent_dir: None,
        models: args.models.clone(),
        no_builtin_tools: args.no_builtin_tools,
        http_timeout: args.http_timeout,
        extensions,
        extension_flags: flag_values,
        hosted_scripts: hosted.files,
        host_warnings: hosted.warnings,
        packages: packages.clone(),
    };
    let app = match build_app(options) {
        Ok(app) => app,
        // pi reports a flag conflict as an error diagnostic.
        Err(
            e @ (crate::app::SetupError::ApiKeyWithoutModel | crate::app::SetupError::CliModel(_)),
        ) => {
            eprintln!("Error: {e}");
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    for warning in &app.settings_warnings {
        eprintln!("Warning: {warning}");
    }
    for warning in &app.model_warnings {
        eprintln!("Warning: {warning}");
    }
    // The terminal UI shows these itself.
    if !interactive {
        for warning in &app.extension_warnings {
            eprintln!("Warning: {warning}");
        }
    }
    // Print and json modes have no UI to show an extension's warning
    // (`ExtensionHandle::warn`): it goes to stderr, as the lines above.
    if !interactive && mode != Mode::Rpc {
        app.extensions
            .on_warning(Arc::new(|message| eprintln!("Warning: {message}")));
    }
    let prompts = prompt_inputs(stdin_text, files, messages);
    #[cfg(unix)]
    if !interactive {
        tokio::spawn(on_signals(Arc::clone(&app)));
    }
    let code = match mode {
        Mode::Text if interactive => {
            let mut theme_paths = args.themes.clone();
            if !args.no_themes {
                theme_paths.extend(crate::packages::PackageResources::enabled(&packages.themes));
            }
            let look = modes::interactive::LookOptions {
                theme_paths,
                no_themes: args.no_themes,
                verbose: args.verbose,
            };
            modes::interactive::run(Arc::clone(&app), prompts, look, pick_session).await
        }
        Mode::Text => {
            let mut out = std::io::stdout();
            let mut err = std::io::stderr();
            modes::print::run(&app, prompts, &mut out, &mut err).await
        }
        Mode::Json => modes::json::run(&app, prompts, shared_writer(std::io::stdout())).await,
        Mode::Rpc => {
            let input = tokio::io::BufReader::new(tokio::io::stdin());
            modes::rpc::run(Arc::clone(&app), input, shared_writer(std::io::stdout())).await
        }
    };
    app.shutdown().await;
    for host in &hosted.handles {
        host.stop().await;
    }
    // The process ends now: the system takes its memory back at once, so
    // the app (a resumed transcript: thousands of messages) is not freed
    // block by block first. Everything it wrote is already on disk.
    std::mem::forget(app);
    let code = match SIGNALLED.load(std::sync::atomic::Ordering::SeqCst) {
        0 => code,
        signalled => signalled,
    };
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// The exit code asked for by the first signal (0: none came).
static SIGNALLED: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// The next of SIGINT, SIGTERM, SIGHUP, as the exit code it asks for
/// (128 + its number).
#[cfg(unix)]
async fn next_signal(
    int: &mut tokio::signal::unix::Signal,
    term: &mut tokio::signal::unix::Signal,
    hup: &mut tokio::signal::unix::Signal,
) -> i32 {
    tokio::select! {
        _ = int.recv() => 130,
        _ = term.recv() => 143,
        _ = hup.recv() => 129,
    }
}

/// The first SIGINT / SIGTERM / SIGHUP aborts the run as Esc does (the
/// partial answer is saved with `stopReason: "aborted"`) and ends the
/// process once the agent is idle; a second one ends it at once.
#[cfg(unix)]
async fn on_signals(app: Arc<crate::app::App>) {
    use tokio::signal::unix::{SignalKind, signal};
    let streams = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    );
    let (Ok(mut int), Ok(mut term), Ok(mut hup)) = streams else {
        tracing::error!("cannot listen to SIGINT, SIGTERM and SIGHUP");
        return;
    };
    let code = next_signal(&mut int, &mut term, &mut hup).await;
    SIGNALLED.store(code, std::sync::atomic::Ordering::SeqCst);
    app.abort_retry();
    app.abort_user_bash();
    app.agent.abort();
    tokio::select! {
        () = app.agent.wait_for_idle() => {
            if let Some(error) = app.take_save_error() {
                eprintln!("Error: {error}");
            }
            std::process::exit(code);
        }
        second = next_signal(&mut int, &mut term, &mut hup) => std::process::exit(second),
    }
}

/// pi's refusal of `--fork` with another session choice.
fn fork_conflicts(args: &Args) -> Option<String> {
    args.fork.as_ref()?;
    let conflicting: Vec<&str> = [
        (args.session.is_some(), "--session"),
        (args.continue_session, "--continue"),
        (args.resume, "--resume"),
        (args.no_session, "--no-session"),
    ]
    .into_iter()
    .filter_map(|(set, flag)| set.then_some(flag))
    .collect();
    (!conflicting.is_empty()).then(|| {
        format!(
            "Error: --fork cannot be combined with {}",
            conflicting.join(", ")
        )
    })
}

/// The async runtime (`None`, said on stderr, when it cannot start).
fn runtime() -> Option<tokio::runtime::Runtime> {
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => Some(runtime),
        Err(e) => {
            eprintln!("Cannot start the async runtime: {e}");
            None
        }
    }
}

/// `pi login [provider]` / `pi logout [provider]` (pi-rs's terminal form of
/// pi's `/login` and `/logout`), when those are the first arguments.
fn auth_command(argv: &[String]) -> Option<ExitCode> {
    let command = argv.get(1)?.as_str();
    if command != "login" && command != "logout" {
        return None;
    }
    init_logging();
    let provider = argv.get(2).map(String::as_str);
    let Some(runtime) = runtime() else {
        return Some(ExitCode::FAILURE);
    };
    let store = crate::auth::OAuthStore::new(&crate::session::agent_dir());
    let ui = crate::auth::TerminalLogin::new(
        std::io::stderr(),
        tokio::io::BufReader::new(tokio::io::stdin()),
        std::io::stdin().is_terminal(),
    );
    let result = runtime.block_on(async {
        if command == "login" {
            crate::auth::login_command(provider, &store, &ui).await
        } else {
            crate::auth::logout_command(provider, &store, &ui).await
        }
    });
    // The stdin reader may still block in a thread; do not wait for it.
    runtime.shutdown_background();
    Some(match result {
        Ok(message) => {
            println!("{message}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("Error: {e}");
            ExitCode::FAILURE
        }
    })
}

/// `pi install` / `remove` / `uninstall` / `update` / `list` (pi's package
/// commands), when those are the first arguments: no session, no model.
fn package_command() -> Option<ExitCode> {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let parsed = crate::packages::commands::parse(&args)?;
    init_logging();
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(e) => {
            eprintln!("Cannot read the current directory: {e}");
            return Some(ExitCode::FAILURE);
        }
    };
    let manager = crate::packages::PackageManager::new(&cwd, &crate::session::agent_dir());
    let code = crate::packages::commands::run(
        &parsed,
        &manager,
        &mut std::io::stdout(),
        &mut std::io::stderr(),
    );
    Some(ExitCode::from(u8::try_from(code).unwrap_or(1)))
}

/// The packages of a start-up (installed first when missing); warnings on stderr.
fn prepare_packages(raw: &mut Vec<std::ffi::OsString>) -> crate::packages::PackageResources {
    let Ok(cwd) = std::env::current_dir() else {
        return crate::packages::PackageResources::default();
    };
    let progress = |line: &str| eprintln!("{line}");
    let startup =
        crate::packages::startup::prepare(raw, &cwd, &crate::session::agent_dir(), &progress);
    for warning in &startup.warnings {
        eprintln!("Warning: {warning}");
    }
    startup.resources
}

/// Runs `pi` with the process's arguments and `extensions` (loaded before
/// any found on disk); returns its exit code.
pub fn run_main(extensions: ExtensionSet) -> ExitCode {
    let argv: Vec<String> = std::env::args_os()
        .take(3)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if let Some(code) = auth_command(&argv) {
        return code;
    }
    if let Some(code) = package_command() {
        return code;
    }
    if let Some(code) = crate::cli::config_command(&argv) {
        return code;
    }
    let mut raw = crate::cli::expand_short_flags(std::env::args_os());
    // As pi, `--version` answers before any package is resolved or installed.
    let version_only = raw.iter().skip(1).any(|a| a == "--version" || a == "-v");
    let packages = if version_only {
        crate::packages::PackageResources::default()
    } else {
        prepare_packages(&mut raw)
    };
    let Some(runtime) = runtime() else {
        return ExitCode::FAILURE;
    };
    // Script extensions run in the extension host (started only when there
    // are some); what they register is known before the second parse.
    let packaged = crate::packages::PackageResources::enabled(&packages.extensions);
    let mut hosted = runtime.block_on(super::script_host::start(&raw, &packaged));
    let mut extensions = extensions;
    extensions.0.append(&mut hosted.extensions);
    let mut screened = crate::cli::screen(raw);
    // pi's second parse: flags the extensions registered are theirs.
    let extension_flags = crate::extensions::registered_flags(&extensions);
    let flag_values = screened.take_extension_flags(&extension_flags);
    let errors = screened.errors();
    if !errors.is_empty() {
        for error in errors {
            eprintln!("Error: {error}");
        }
        return ExitCode::FAILURE;
    }
    // pi sends what it prints to stderr once stdout belongs to a
    // non-interactive mode (stdin not a terminal, `-p`, `--mode`).
    let console_to_stderr = !std::io::stdin().is_terminal()
        || screened
            .args
            .iter()
            .any(|a| a == "-p" || a == "--print" || a == "--mode");
    let mut args = match Args::try_parse_from(screened.args) {
        Ok(args) => args,
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelp => {
            let help = e.render().to_string() + &crate::cli::extension_flags_help(&extension_flags);
            if console_to_stderr {
                eprint!("{help}");
            } else {
                print!("{help}");
            }
            return ExitCode::SUCCESS;
        }
        Err(e) => e.exit(),
    };
    if args.version {
        println!("{}", crate::VERSION);
        return ExitCode::SUCCESS;
    }
    init_logging();
    // As pi: an unknown thinking level is ignored with a warning.
    if let Some(warning) = args
        .thinking
        .as_deref()
        .and_then(crate::cli::invalid_thinking_warning)
    {
        eprintln!("Warning: {warning}");
        args.thinking = None;
    }
    if let Some(input) = &args.share {
        return match runtime.block_on(crate::app::share_file(input)) {
            Ok(shared) => {
                println!("{}", shared.message());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("Error: {e}");
                ExitCode::FAILURE
            }
        };
    }
    if let Some(input) = &args.export {
        let output = args.messages.first().map(std::path::Path::new);
        return match crate::app::export_from_file(input, output) {
            Ok(path) => {
                let line = format!("Exported to: {}", path.display());
                if console_to_stderr {
                    eprintln!("{line}");
                } else {
                    println!("{line}");
                }
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("Error: {e}");
                ExitCode::FAILURE
            }
        };
    }
    if let Some(error) = fork_conflicts(&args) {
        eprintln!("{error}");
        return ExitCode::FAILURE;
    }
    if let Some(search) = &args.list_models {
        return list_models(search, &extensions);
    }
    runtime.block_on(run(args, extensions, flag_values, hosted, packages))
}
