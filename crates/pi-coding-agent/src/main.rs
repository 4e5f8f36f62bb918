//! The `pi` command-line coding agent.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::{IsTerminal, Read};
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use pi_coding_agent::app::files::process_file_args;
use pi_coding_agent::app::{SessionChoice, StartOptions, build_app};
use pi_coding_agent::cli::{Args, Mode};
use pi_coding_agent::config::{AuthStorage, ModelRegistry};
use pi_coding_agent::modes::{self, prompt_inputs, shared_writer};

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

fn list_models(search: &str) -> ExitCode {
    let agent_dir = pi_coding_agent::session::agent_dir();
    let loaded =
        ModelRegistry::load(&agent_dir).and_then(|r| AuthStorage::load(&agent_dir).map(|a| (r, a)));
    match loaded {
        Ok((registry, auth)) => {
            print!(
                "{}",
                pi_coding_agent::cli::list_models(&registry, &auth, Some(search))
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
    } else if let Some(session) = &args.session {
        SessionChoice::Open(session.clone())
    } else if let Some(resume) = &args.resume {
        if resume.is_empty() {
            SessionChoice::Continue
        } else {
            SessionChoice::Open(resume.clone())
        }
    } else if args.continue_session {
        SessionChoice::Continue
    } else {
        SessionChoice::New
    }
}

async fn run(args: Args) -> ExitCode {
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(e) => {
            eprintln!("Cannot read the current directory: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mode = args.effective_mode();
    let stdin = std::io::stdin();
    let piped = !stdin.is_terminal();
    // Piped stdin is the start of the first prompt (pi: trimmed, `undefined` when empty).
    let mut stdin_text = None;
    if piped && mode != Mode::Rpc {
        let mut text = String::new();
        if stdin.lock().read_to_string(&mut text).is_ok() && !text.trim().is_empty() {
            stdin_text = Some(text.trim().to_owned());
        }
    }
    let interactive = mode == Mode::Text && !args.print && !piped;
    let (files, messages) = match process_file_args(&cwd, &args.messages) {
        Ok(split) => split,
        Err(e) => {
            eprintln!("{e}");
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
        prompt_templates: args.prompt_templates.clone(),
        no_prompt_templates: args.no_prompt_templates,
        no_context_files: args.no_context_files,
        tools,
        session: session_choice(&args),
        session_dir: args.session_dir.clone(),
        agent_dir: None,
        http_timeout: args.http_timeout,
    };
    let app = match build_app(options) {
        Ok(app) => Arc::new(app),
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let prompts = prompt_inputs(stdin_text, files, messages);
    let code = match mode {
        Mode::Text if interactive => {
            for prompt in prompts {
                if let Err(e) = app.prompt(prompt).await {
                    eprintln!("{e}");
                }
            }
            let input = tokio::io::BufReader::new(tokio::io::stdin());
            modes::interactive::run(Arc::clone(&app), input, shared_writer(std::io::stdout())).await
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
    // The process ends here: the OS takes the transcript back at once, where
    // dropping a resumed session message by message costs tens of
    // milliseconds. Session lines are written unbuffered, so nothing is lost.
    std::mem::forget(app);
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

fn main() -> ExitCode {
    let args = Args::parse_from(pi_coding_agent::cli::expand_short_flags(std::env::args_os()));
    if args.version {
        println!("{}", pi_coding_agent::VERSION);
        return ExitCode::SUCCESS;
    }
    init_logging();
    if let Some(search) = &args.list_models {
        return list_models(search);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("Cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(run(args))
}
