//! Builds the [`App`] from the command line: configuration, providers, the
//! session (new, continued, resumed or in memory), the model and thinking
//! level, tools and the system prompt.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use pi_agent_core::{Agent, AgentOptions, QueueMode};
use pi_ai::{Model, ThinkingLevel};

use super::App;
use super::persist::{EventHub, app_listener};
use super::start_model::{default_model, default_thinking_level, scoped_models, scoped_start};
use crate::config::{
    AuthStorage, ConfigError, ModelRegistry, Settings, default_model_id, resolve_cli_model,
};
use crate::messages::{CodingMessage, llm_converter};
use crate::resources::{ResourceOptions, Resources};
use crate::session::{
    SessionError, SessionManager, agent_dir, default_session_dir, list_all_sessions, list_sessions,
    sessions_dir,
};
use crate::system_prompt::{SystemPromptOptions, build_system_prompt};
use crate::tools::{self, DEFAULT_TOOLS};

/// Why the app could not start.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// Configuration files.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The session file.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The opened session's working directory is gone (pi's wording).
    #[error("{0}")]
    MissingSessionCwd(String),
    /// No session id starts with the text given.
    #[error("No session found matching '{0}'")]
    NoSessionMatch(String),
    /// Several session ids start with the text given.
    #[error("Session id \"{target}\" is ambiguous: {}", ids.join(", "))]
    AmbiguousSession {
        /// The text given.
        target: String,
        /// The ids it starts.
        ids: Vec<String>,
    },
    /// `--provider` without `--model` names a provider with no models.
    #[error("No models found for provider \"{0}\"")]
    NoModelsForProvider(String),
    /// `--model` (with `--provider`) names no model (pi's wording).
    #[error("{0}")]
    CliModel(String),
    /// `--api-key` without a model from the command line (pi's wording).
    #[error(
        "--api-key requires a model to be specified via --model, --provider/--model, or --models"
    )]
    ApiKeyWithoutModel,
    /// `--thinking` (or a model's `:level`) names no thinking level.
    #[error(transparent)]
    ThinkingLevel(#[from] pi_ai::ParseThinkingLevelError),
    /// `--tools` names an unknown tool.
    #[error(transparent)]
    Tools(#[from] tools::ToolSetError),
}

/// pi's refusal of a stored session whose working directory no longer
/// exists, naming the session file and `current_cwd`; `None` when the
/// session is not a file or its directory exists.
pub(crate) fn missing_session_cwd(session: &SessionManager, current_cwd: &Path) -> Option<String> {
    let file = session.session_file()?;
    let cwd = session.cwd();
    if cwd.is_empty() || Path::new(cwd).exists() {
        return None;
    }
    let file = std::path::absolute(current_cwd.join(file)).unwrap_or_else(|_| file.to_path_buf());
    Some(format!(
        "Stored session working directory does not exist: {cwd}\nSession file: {}\nCurrent working directory: {}",
        file.display(),
        current_cwd.display()
    ))
}

/// Which session to use.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum SessionChoice {
    /// A new session file.
    #[default]
    New,
    /// The most recent session of the cwd (`-c`, `-r` without id).
    Continue,
    /// A session file path, or an id or id prefix (`--session`, `-r ID`).
    Open(String),
    /// No file (`--no-session`).
    InMemory,
    /// A copy of a session (a path, or an id or id prefix) in a new file (`--fork`).
    Fork(String),
}

/// What the command line asks for.
#[derive(Debug, Clone, Default)]
pub struct StartOptions {
    /// Working directory.
    pub cwd: PathBuf,
    /// `--provider`.
    pub provider: Option<String>,
    /// `--model`.
    pub model: Option<String>,
    /// `--api-key`.
    pub api_key: Option<String>,
    /// `--thinking`.
    pub thinking: Option<String>,
    /// `--system-prompt` (text or file).
    pub system_prompt: Option<String>,
    /// `--append-system-prompt` (texts or files; empty: `APPEND_SYSTEM.md`).
    pub append_system_prompt: Vec<String>,
    /// `--skill` paths.
    pub skills: Vec<String>,
    /// `--no-skills`.
    pub no_skills: bool,
    /// `--prompt-template` paths.
    pub prompt_templates: Vec<String>,
    /// `--no-prompt-templates`.
    pub no_prompt_templates: bool,
    /// `--no-context-files`.
    pub no_context_files: bool,
    /// Tool names; `None` for the default set.
    pub tools: Option<Vec<String>>,
    /// The session to use.
    pub session: SessionChoice,
    /// `--session-dir`.
    pub session_dir: Option<PathBuf>,
    /// The agent directory; `None` for `$PI_CODING_AGENT_DIR` or `~/.pi/agent`.
    pub agent_dir: Option<PathBuf>,
    /// `--models` patterns scoping the models (and Ctrl+P cycling); `None`
    /// for the settings' `enabledModels`.
    pub models: Option<Vec<String>>,
    /// `--no-builtin-tools`: no built-in tool unless named by `--tools`.
    pub no_builtin_tools: bool,
    /// `--http-timeout`: first-byte and idle timeout of provider calls.
    pub http_timeout: Option<std::time::Duration>,
    /// Rust extensions, loaded in this order (before any found on disk).
    pub extensions: crate::extensions::ExtensionSet,
    /// `-e` / `--extension` paths.
    pub extension_paths: Vec<String>,
    /// `--no-extensions`: only `-e` paths and Rust extensions load.
    pub no_extensions: bool,
    /// Values of the command-line flags extensions registered.
    pub extension_flags: Vec<(String, serde_json::Value)>,
    /// Script extensions the extension host was given (loaded, or
    /// reported in [`StartOptions::host_warnings`]).
    pub hosted_scripts: Vec<PathBuf>,
    /// What the extension host could not load, one line each.
    pub host_warnings: Vec<String>,
    /// The skills and prompt templates of pi packages.
    pub packages: crate::packages::PackageResources,
}

/// The environment variable naming the session directory (below `--session-dir`).
pub const SESSION_DIR_ENV: &str = "PI_CODING_AGENT_SESSION_DIR";

/// The session directory: `--session-dir`, else `$PI_CODING_AGENT_SESSION_DIR`,
/// else the `sessionDir` setting (each with `~` expanded), else `None`
/// (the default one per working directory).
pub fn resolve_session_dir(
    flag: Option<&Path>,
    env_value: Option<&str>,
    settings: &Settings,
    home: &Path,
) -> Option<PathBuf> {
    flag.map(Path::to_path_buf)
        .or_else(|| {
            env_value
                .filter(|v| !v.is_empty())
                .map(|v| crate::config::expand_tilde(v, home))
        })
        .or_else(|| settings.session_dir(home))
}

/// Registers every built-in wire in the global api registry.
pub fn register_providers() {
    pi_providers_anthropic::register();
    pi_providers_openai_completions::register();
    pi_providers_openai_responses::register();
    pi_providers_google::register();
    pi_providers_mistral::register();
    pi_providers_google_vertex::register();
    pi_providers_azure_openai_responses::register();
    pi_providers_openai_codex_responses::register();
    pi_providers_amazon_bedrock::register();
}

fn open_session(
    options: &StartOptions,
    cwd: &str,
    agent_dir: &Path,
) -> Result<SessionManager, SetupError> {
    let default_dir = options
        .session_dir
        .clone()
        .unwrap_or_else(|| default_session_dir(agent_dir, cwd));
    let dir = Some(default_dir.as_path());
    let mut session: SessionManager = match &options.session {
        SessionChoice::InMemory => SessionManager::in_memory(cwd),
        SessionChoice::New => SessionManager::create(cwd, dir)?,
        SessionChoice::Continue => SessionManager::continue_recent(cwd, dir)?,
        SessionChoice::Open(target) => {
            SessionManager::open_locked(&resolve_session_target(target, cwd, dir, agent_dir)?, dir)?
        }
        SessionChoice::Fork(target) => SessionManager::fork_from(
            &resolve_session_target(target, cwd, dir, agent_dir)?,
            cwd,
            dir,
        )?,
    };
    // One writer per session file: a second pi on it is refused here.
    session.lock()?;
    Ok(session)
}

/// The session file `target` names: a path as given, else the one session
/// (of the cwd first, then of every project) whose id starts with it.
fn resolve_session_target(
    target: &str,
    cwd: &str,
    dir: Option<&Path>,
    agent_dir: &Path,
) -> Result<PathBuf, SetupError> {
    let path = Path::new(target);
    if target.contains('/') || target.contains('\\') || target.ends_with(".jsonl") || path.is_file()
    {
        return Ok(path.to_path_buf());
    }
    let mut found = list_sessions(cwd, dir)?;
    if !found.iter().any(|s| s.id.starts_with(target)) {
        found = list_all_sessions(Some(&sessions_dir(agent_dir)))?;
    }
    let matches: Vec<_> = found.iter().filter(|s| s.id.starts_with(target)).collect();
    match matches.as_slice() {
        [one] => Ok(one.path.clone()),
        [] => Err(SetupError::NoSessionMatch(target.to_owned())),
        many => Err(SetupError::AmbiguousSession {
            target: target.to_owned(),
            ids: many.iter().map(|s| s.id.clone()).collect(),
        }),
    }
}

/// Builds the app for `options`.
pub fn build_app(options: StartOptions) -> Result<Arc<App>, SetupError> {
    register_providers();
    let agent_dir = options.agent_dir.clone().unwrap_or_else(agent_dir);
    let cwd_text = options.cwd.to_string_lossy().into_owned();
    let loaded = Settings::load(&agent_dir, &options.cwd);
    let settings = loaded.settings;
    let home = dirs::home_dir().unwrap_or_default();
    let mut options = options;
    options.session_dir = resolve_session_dir(
        options.session_dir.as_deref(),
        std::env::var(SESSION_DIR_ENV).ok().as_deref(),
        &settings,
        &home,
    );
    let mut registry = ModelRegistry::load(&agent_dir)?;
    let auth = AuthStorage::load(&agent_dir)?;
    registry.apply_oauth_logins(&auth);
    let extensions = Arc::new(crate::extensions::load(
        &options.extensions,
        options.cwd.clone(),
    ));
    registry
        .apply_extension_providers(extensions.providers(), extensions.unregistered_providers())?;

    let mut session = open_session(&options, &cwd_text, &agent_dir)?;
    // As pi: a session opened by path or id must still have its stored
    // working directory (`-c` is not checked: pi continues in the current one).
    if matches!(options.session, SessionChoice::Open(_))
        && let Some(message) = missing_session_cwd(&session, &options.cwd)
    {
        return Err(SetupError::MissingSessionCwd(message));
    }
    for diagnostic in session.diagnostics() {
        tracing::warn!("session file: {diagnostic:?}");
    }
    // pi restores the model and thinking level only for a session that has
    // messages; one without is set up like a new session.
    let has_thinking_entry = session.branch_has_thinking_level_change();
    // The branch's messages move into the agent, not copied; the session
    // reads entries again from its file if it needs them.
    let context = session.take_session_context();
    let resumed = !context.messages.is_empty();

    // The session's model, when it is known and has a key (else pi falls
    // back to the default model).
    let session_model = context
        .model
        .as_ref()
        .filter(|_| resumed)
        .and_then(|r| registry.find(Some(&r.provider), &r.model_id).ok())
        .filter(|m| {
            registry
                .api_key(m.provider.as_str(), options.api_key.as_deref(), &auth)
                .ok()
                .flatten()
                .is_some()
        });
    // `--model` as pi's `resolveCliModel`; `provider/id:level` carries a
    // thinking level.
    let mut model_warnings = Vec::new();
    let (model_arg, suffix_level) = match options.model.as_deref() {
        Some(pattern) => {
            let all: Vec<&Model> = registry.models().iter().collect();
            let resolved = resolve_cli_model(options.provider.as_deref(), pattern, &all);
            model_warnings.extend(resolved.warning.clone());
            if let Some(error) = resolved.error {
                return Err(SetupError::CliModel(error));
            }
            (resolved.model, resolved.thinking_level)
        }
        None => (None, None),
    };
    // What the command line chose, applied again on `/new` and `/resume`.
    let cli_thinking = match options.thinking.as_ref().or(suffix_level.as_ref()) {
        Some(text) => Some(ThinkingLevel::parse_setting(text)?),
        None => None,
    };
    let cli_choice = super::cli_choice::CliChoice {
        model: model_arg.clone(),
        thinking: cli_thinking,
    };
    let scoped = scoped_models(&options, &settings, &registry, &auth);
    // With a scope and no --model, a new session starts on a scoped model
    // and takes the thinking level its pattern named.
    let scoped_choice = if model_arg.is_none() && !resumed {
        scoped_start(&scoped, &settings)
    } else {
        None
    };
    // As pi: a key from the command line goes with a model from it.
    if options.api_key.is_some() && model_arg.is_none() && scoped_choice.is_none() {
        return Err(SetupError::ApiKeyWithoutModel);
    }
    let scoped_level = scoped_choice.and_then(|s| s.thinking_level.clone());
    let thinking_arg = options.thinking.clone().or(suffix_level).or(scoped_level);
    let model = match (&model_arg, &options.provider) {
        _ if let Some(choice) = scoped_choice => choice.model.clone(),
        (Some(model), _) => model.clone(),
        // pi's default model of the provider, else its first.
        (None, Some(provider)) => default_model_id(provider)
            .and_then(|id| {
                registry
                    .models()
                    .iter()
                    .find(|m| m.provider.as_str() == provider && m.id == id)
            })
            .or_else(|| registry.first_of(provider))
            .cloned()
            .ok_or_else(|| SetupError::NoModelsForProvider(provider.clone()))?,
        // Without any usable model pi starts on its placeholder; a prompt
        // is refused until a login or `set_model` chooses one.
        (None, None) => session_model
            .clone()
            .or_else(|| default_model(&registry, &settings, &auth))
            .unwrap_or_else(super::first_run::unknown_model),
    };
    // What the terminal UI warns about, in pi's words: a session model that
    // could not be restored, or no model at all.
    let model_fallback = if super::first_run::is_unknown_model(&model) {
        Some(super::first_run::no_models_available_message())
    } else {
        context
            .model
            .as_ref()
            .filter(|_| resumed && model_arg.is_none() && session_model.is_none())
            .map(|lost| {
                format!(
                    "Could not restore model {}/{}. Using {}/{}",
                    lost.provider, lost.model_id, model.provider, model.id
                )
            })
    };

    let requested_level = match &thinking_arg {
        Some(text) => ThinkingLevel::parse_setting(text)?,
        None if resumed && has_thinking_entry => {
            ThinkingLevel::parse_setting(&context.thinking_level).unwrap_or(None)
        }
        None => default_thinking_level(&settings),
    };
    let thinking_level = if model.reasoning {
        requested_level
    } else {
        None
    };

    // What pi records: a new session (or one without messages) gets the
    // model and the thinking level; a resumed one only the thinking level,
    // and only when it has none yet. A model or level from the command line
    // changes the run, not the file.
    if !resumed {
        if !super::first_run::is_unknown_model(&model) {
            session.append_model_change(model.provider.as_str(), &model.id)?;
        }
        session.append_thinking_level_change(ThinkingLevel::setting_name(thinking_level))?;
    } else if !has_thinking_entry {
        session.append_thinking_level_change(ThinkingLevel::setting_name(thinking_level))?;
    }

    let names: Vec<String> = match &options.tools {
        Some(names) => names.clone(),
        None if options.no_builtin_tools => Vec::new(),
        None => DEFAULT_TOOLS.iter().map(|s| (*s).to_owned()).collect(),
    };
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    // `read` asks the agent's current model whether it takes images; the
    // agent exists only once the tools do, so the probe finds it through a cell.
    let agent_cell: Arc<OnceLock<Weak<Agent<CodingMessage>>>> = Arc::new(OnceLock::new());
    let probe_cell = Arc::clone(&agent_cell);
    let tool_options = tools::ToolOptions {
        image_input: Some(tools::ImageInputProbe::new(move || {
            let agent = probe_cell.get()?.upgrade()?;
            Some(agent.model().supports_images())
        })),
        no_image_resize: !settings.image_auto_resize(),
        shell_path: settings.shell_path.clone(),
        command_prefix: settings.shell_command_prefix.clone(),
    };
    let mut tools = tools::create_tools_with_options(&options.cwd, &name_refs, &tool_options)?;
    let mut available =
        tools::create_tools_with_options(&options.cwd, &tools::ALL_TOOLS, &tool_options)?;
    for (name, value) in &options.extension_flags {
        extensions.set_flag(name, value.clone());
    }
    let discovered = discover_extensions(&options, &settings, &agent_dir);
    extensions.set_command_line_paths(
        discovered
            .from_command_line
            .iter()
            .map(|(file, named)| (file.display().to_string(), named.display().to_string()))
            .collect(),
    );
    extensions.set_package_sources(
        options
            .packages
            .extensions
            .iter()
            .map(crate::packages::resolve::PackageResource::source_info)
            .collect(),
    );
    let extension_warnings = extension_warnings(&options, &discovered);
    let mut summaries: Vec<(String, String)> = names
        .iter()
        .map(|n| {
            (
                n.clone(),
                tools::tool_summary(n).unwrap_or_default().to_owned(),
            )
        })
        .collect();
    for registered in extensions.tools() {
        let name = registered.tool.name().to_owned();
        let summary = registered
            .prompt_snippet
            .clone()
            .unwrap_or_else(|| registered.tool.description().to_owned());
        // A tool named like a built-in replaces it.
        available.retain(|t| t.name() != name);
        available.push(Arc::clone(&registered.tool));
        if let Some(at) = tools.iter().position(|t| t.name() == name) {
            tools[at] = Arc::clone(&registered.tool);
            if let Some(entry) = summaries.iter_mut().find(|(n, _)| *n == name) {
                entry.1 = summary;
            }
        } else if options.tools.is_none() || names.contains(&name) {
            tools.push(Arc::clone(&registered.tool));
            summaries.push((name, summary));
        }
    }
    let resource_options = ResourceOptions {
        cwd: options.cwd.clone(),
        agent_dir: agent_dir.clone(),
        home,
        skill_paths: options.skills.clone(),
        prompt_template_paths: options.prompt_templates.clone(),
        no_skills: options.no_skills,
        no_prompt_templates: options.no_prompt_templates,
        no_context_files: options.no_context_files,
        system_prompt: options.system_prompt.clone(),
        append_system_prompt: options.append_system_prompt.clone(),
        packages: options.packages.clone(),
    };
    let resources = Arc::new(Resources::load(&resource_options));
    resources.log_diagnostics();
    let prompt_options = SystemPromptOptions {
        custom_prompt: resources.system_prompt.clone(),
        append: resources.append_text(),
        tools: summaries,
        guidelines: extensions
            .tools()
            .iter()
            .flat_map(|t| t.prompt_guidelines.iter().cloned())
            .collect(),
        skills: resources.skills.skills.clone(),
        context_files: resources.context_files.clone(),
        date: chrono::Local::now().format("%Y-%m-%d").to_string(),
        cwd: options.cwd.clone(),
        // Only the built-in prompt points at the documentation.
        docs: match resources.system_prompt {
            Some(_) => None,
            None => crate::user_docs::ensure(&agent_dir)
                .inspect_err(|e| tracing::warn!("{e}"))
                .ok(),
        },
    };
    let system_prompt = build_system_prompt(&prompt_options);

    let session_id = session.session_id().to_owned();
    let session = Arc::new(Mutex::new(session));
    let mut agent_options = AgentOptions::<CodingMessage>::new(model);
    agent_options.system_prompt = system_prompt;
    agent_options.thinking_level = thinking_level;
    agent_options.tools = tools;
    agent_options.messages = context.messages;
    agent_options.steering_mode = queue_mode(settings.steering_mode.as_deref());
    agent_options.follow_up_mode = queue_mode(settings.follow_up_mode.as_deref());
    let block = settings.block_images();
    agent_options.settings.convert_to_llm = llm_converter(block);
    agent_options.settings.stream_options.session_id = Some(session_id);
    apply_transport_settings(
        &mut agent_options.settings.stream_options,
        &settings,
        options.http_timeout,
    );
    agent_options.settings.thinking_budgets = settings.thinking_budgets;
    agent_options.settings.stream_fn = Arc::new(super::RegistryHeaders::new(registry.clone()));
    // Keys are resolved before every call; OAuth logins refresh when expired.
    agent_options.settings.get_api_key = Some(Arc::new(crate::auth::OAuthKeyResolver::new(
        registry.clone(),
        auth.clone(),
        options.api_key.clone(),
    )));
    super::extension_hooks::install(&mut agent_options.settings, &extensions);
    let base_system_prompt = agent_options.system_prompt.clone();
    let agent = Arc::new(Agent::new(agent_options));
    let _ = agent_cell.set(Arc::downgrade(&agent));
    let hub = Arc::new(EventHub::default());
    // Extensions hear a run's events first, as in pi.
    let detached = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut listeners: Vec<Box<dyn pi_agent_core::AgentListener<CodingMessage>>> = Vec::new();
    if let Some(forward) = super::extension_hooks::RunEvents::new(&extensions) {
        listeners.push(Box::new(forward));
    }
    listeners.push(Box::new(app_listener(
        Arc::clone(&session),
        Arc::clone(&hub),
    )));
    agent.subscribe(super::persist::Gated {
        listeners,
        detached: Arc::clone(&detached),
    });

    let default_thinking = default_thinking_level(&settings);
    let retry_enabled = settings.retry().enabled;
    let compaction_enabled = settings.compaction().enabled;
    let app = Arc::new_cyclic(|me| {
        extensions.attach(me.clone());
        App {
            agent,
            session,
            registry: std::sync::RwLock::new(registry),
            auth,
            cli_api_key: options.api_key,
            settings,
            settings_writer: loaded.writer,
            settings_warnings: loaded.warnings,
            model_warnings,
            model_fallback,
            cwd: options.cwd,
            agent_dir,
            auto_retry: AtomicBool::new(retry_enabled),
            auto_compaction: AtomicBool::new(compaction_enabled),
            retry_cancel: Mutex::new(None),
            bash_cancel: Mutex::new(None),
            compaction_cancel: Mutex::new(None),
            pending_bash: Mutex::new(Vec::new()),
            compactions: std::sync::atomic::AtomicUsize::new(0),
            default_thinking: Mutex::new(default_thinking),
            hub,
            resources: std::sync::RwLock::new(resources),
            resource_options,
            prompt_options: Mutex::new(prompt_options),
            scoped_models: Mutex::new(scoped),
            extensions,
            extension_warnings,
            input_source: Mutex::new(super::InputSource::default()),
            next_turn: Mutex::new(Vec::new()),
            base_system_prompt: Mutex::new(base_system_prompt),
            available_tools: Mutex::new(available),
            allowed_tools: options.tools,
            cli_choice,
            detached,
        }
    });
    Ok(app)
}

/// The extension files of the start-up (`-e`, settings, folders).
fn discover_extensions(
    options: &StartOptions,
    settings: &Settings,
    agent_dir: &Path,
) -> crate::extensions::loader::Discovery {
    let configured = crate::extensions::loader::configured_paths(settings);
    crate::extensions::loader::discover(&crate::extensions::loader::DiscoveryOptions {
        cwd: options.cwd.clone(),
        agent_dir: agent_dir.to_path_buf(),
        explicit: options.extension_paths.clone(),
        configured,
        no_extensions: options.no_extensions,
    })
}

/// One line per extension file that cannot be loaded: script extensions
/// (until the out-of-process host runs them) and paths that name nothing.
fn extension_warnings(
    options: &StartOptions,
    found: &crate::extensions::loader::Discovery,
) -> Vec<String> {
    let mut warnings = found.missing.clone();
    warnings.extend(options.host_warnings.iter().cloned());
    warnings.extend(
        found
            .files
            .iter()
            .filter(|f| !options.hosted_scripts.contains(f))
            .map(|f| crate::extensions::loader::script_warning(f)),
    );
    warnings
}

fn queue_mode(text: Option<&str>) -> QueueMode {
    match text {
        Some("all") => QueueMode::All,
        _ => QueueMode::OneAtATime,
    }
}

/// `retry.provider` timeouts and retry-delay cap, then `--http-timeout`
/// (which sets both timeouts), and the `transport` setting, into the
/// options of every provider call.
fn apply_transport_settings(
    stream: &mut pi_ai::StreamOptions,
    settings: &Settings,
    flag: Option<std::time::Duration>,
) {
    let ms = |value: Option<u64>| {
        value
            .filter(|ms| *ms > 0)
            .map(std::time::Duration::from_millis)
    };
    let retry = settings.retry();
    stream.timeout = flag.or(ms(retry.timeout_ms));
    stream.idle_timeout = flag.or(ms(retry.idle_timeout_ms));
    stream.max_retry_delay = Some(std::time::Duration::from_millis(retry.max_delay_ms));
    stream.max_retries = retry.provider_max_retries;
    stream.transport = Some(transport_setting(settings.transport()));
}

/// The `transport` setting as pi hands it to the provider: a name it does
/// not know still picks the socket (pi only tests for `sse`), without the
/// continuation of `auto`; an empty one is `auto`.
pub(crate) fn transport_setting(name: &str) -> pi_ai::Transport {
    match pi_ai::Transport::parse(name) {
        Some(transport) => transport,
        None if name.is_empty() => pi_ai::Transport::Auto,
        None => pi_ai::Transport::Websocket,
    }
}
