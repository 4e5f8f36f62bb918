//! Where the app asks its extensions, in pi's order: binding to a mode
//! (`session_start`, `resources_discover`), a prompt (extension commands,
//! `input`, expansion, `before_agent_start`), messages extensions send,
//! session replacement (`session_before_*`, `session_shutdown`,
//! `session_start`), and the tools they add.

use std::path::Path;
use std::sync::Arc;

use pi_agent_core::{AgentError, AgentEvent, AgentMessage, PromptInput};
use pi_ai::ImageContent;
use serde_json::json;

use super::{App, AppError, lock};
use crate::extensions::{
    BeforeAgentStartEvent, Delivery, ExtensionUi, InputEvent, InputResult, NewCustomMessage,
    ResourcesDiscoverEvent, SessionBeforeForkEvent, SessionBeforeSwitchEvent, SessionShutdownEvent,
    SessionStartEvent,
};
use crate::messages::CodingMessage;
use crate::session::NewSessionOptions;

/// Where prompts come from, as pi's `input` event names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InputSource {
    /// Typed in the terminal.
    #[default]
    Interactive,
    /// An rpc client.
    Rpc,
    /// An extension (`send_user_message`).
    Extension,
}

impl InputSource {
    fn as_str(self) -> &'static str {
        match self {
            Self::Interactive => "interactive",
            Self::Rpc => "rpc",
            Self::Extension => "extension",
        }
    }
}

/// pi's `sourceInfo` of the resources an extension found (`extension`: the
/// extension's own): source `extension:<name>` (its file or folder name,
/// without `.ts` / `.js`), its folder as the base dir.
fn extension_resource_info(
    extension: &crate::resources::discovery::SourceInfo,
) -> crate::resources::discovery::SourceInfo {
    let path = &extension.path;
    let (name, base_dir) = match path.strip_prefix('<').and_then(|p| p.strip_suffix('>')) {
        Some(inner) => (inner.to_owned(), None),
        None => {
            let file = Path::new(path);
            let name = file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let name = name
                .strip_suffix(".ts")
                .or_else(|| name.strip_suffix(".js"))
                .unwrap_or(&name)
                .to_owned();
            (name, file.parent().map(|d| d.display().to_string()))
        }
    };
    crate::resources::discovery::SourceInfo {
        path: String::new(),
        source: format!("extension:{name}"),
        scope: "temporary".to_owned(),
        origin: "top-level".to_owned(),
        base_dir,
    }
}

impl App {
    /// Binds the extensions to the mode that runs the app: its UI and the
    /// source of its prompts; then `session_start` (`startup`) and
    /// `resources_discover` (`startup`), as pi does when a mode starts.
    pub async fn bind_extensions(&self, ui: Arc<dyn ExtensionUi>, source: InputSource) {
        self.extensions.set_ui(ui);
        *lock(&self.input_source) = source;
        self.extensions
            .emit(SessionStartEvent {
                reason: "startup".to_owned(),
                previous_session_file: None,
            })
            .await;
        self.discover_resources("startup").await;
    }

    pub(super) async fn discover_resources(&self, reason: &str) {
        if !self.extensions.has_handlers("resources_discover") {
            return;
        }
        let found = self
            .extensions
            .discover_resources_by_extension(ResourcesDiscoverEvent {
                cwd: self.cwd.display().to_string(),
                reason: reason.to_owned(),
            })
            .await;
        let themes: Vec<&String> = found.iter().flat_map(|(_, f)| &f.theme_paths).collect();
        if !themes.is_empty() {
            tracing::info!("extension theme paths: {themes:?}");
        }
        if found
            .iter()
            .all(|(_, f)| f.skill_paths.is_empty() && f.prompt_paths.is_empty())
        {
            return;
        }
        // As pi: the paths join the command line's, the skills and
        // templates load again, and the system prompt lists the skills.
        let mut options = self.resource_options.clone();
        let mut labels = Vec::new();
        for (extension, paths) in found {
            let label = extension_resource_info(&extension);
            for path in paths.skill_paths.iter().chain(&paths.prompt_paths) {
                labels.push((self.cwd.join(path), label.clone()));
            }
            options.skill_paths.extend(paths.skill_paths);
            options.prompt_template_paths.extend(paths.prompt_paths);
        }
        let mut resources = crate::resources::Resources::load(&options);
        // pi labels them after their extension (`extension:<name>`).
        let label_of = |file: &Path| {
            labels
                .iter()
                .find(|(path, _)| file.starts_with(path))
                .map(|(_, label)| label)
        };
        for skill in &mut resources.skills.skills {
            if let Some(label) = label_of(&skill.file_path) {
                skill.source_info = label.for_path(&skill.source_info.path);
            }
        }
        for template in &mut resources.templates.templates {
            if let Some(label) = label_of(&template.file_path) {
                template.source_info = label.for_path(&template.source_info.path);
            }
        }
        let resources = Arc::new(resources);
        resources.log_diagnostics();
        lock(&self.prompt_options).skills = resources.skills.skills.clone();
        *self
            .resources
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = resources;
        self.rebuild_system_prompt();
    }

    /// Builds the system prompt again from its options (active tools,
    /// skills) and makes it the base prompt.
    pub(super) fn rebuild_system_prompt(&self) {
        let prompt = crate::system_prompt::build_system_prompt(&lock(&self.prompt_options));
        *lock(&self.base_system_prompt) = prompt.clone();
        self.agent.set_system_prompt(prompt);
    }

    /// pi's prompt preflight for text: an extension command runs instead
    /// (`None`), `input` may transform or handle the text (`None`), then
    /// skills and templates are expanded and `before_agent_start` adds its
    /// messages and sets the run's system prompt. Returns the messages to
    /// run.
    pub(super) async fn prompt_messages(
        &self,
        text: String,
        images: Vec<ImageContent>,
        source: Option<InputSource>,
    ) -> Option<Vec<AgentMessage<CodingMessage>>> {
        let source = source.unwrap_or_else(|| *lock(&self.input_source));
        let (text, images) = self.accept_input(text, images, source).await?;
        Some(self.messages_for(text, images, source).await)
    }

    /// A prompt's text through pi's preflight up to its acceptance (the
    /// point where pi's rpc mode has answered the prompt): an extension
    /// command runs instead, `input` handlers transform or handle it
    /// (`None` when nothing is left to run).
    async fn accept_input(
        &self,
        text: String,
        images: Vec<ImageContent>,
        source: InputSource,
    ) -> Option<(String, Vec<ImageContent>)> {
        if source != InputSource::Extension
            && text.starts_with('/')
            && self.extensions.run_command(&text).await
        {
            return None;
        }
        self.input(text, images, source).await
    }

    /// Runs prompt `text`, calling `accepted` once it is accepted (after
    /// the `input` handlers, before `before_agent_start` and the run; also
    /// when a handler handled it or a command ran instead, then with
    /// `false`: no run follows): pi's rpc mode answers a prompt at that
    /// point.
    pub async fn prompt_accepted(
        &self,
        text: String,
        images: Vec<ImageContent>,
        accepted: impl FnOnce(bool),
    ) -> Result<(), AgentError> {
        let source = *lock(&self.input_source);
        let Some((text, images)) = self.accept_input(text, images, source).await else {
            accepted(false);
            return Ok(());
        };
        // As pi: a prompt to a model without a key is refused, not answered.
        if !self.agent.is_streaming() {
            self.check_model_auth()?;
        }
        accepted(true);
        let messages = self.messages_for(text, images, source).await;
        self.run_prompt(PromptInput::Messages(messages)).await
    }

    /// The messages to run for accepted prompt `text`: skills and
    /// templates expanded, `before_agent_start`'s messages added and the
    /// run's system prompt set.
    async fn messages_for(
        &self,
        text: String,
        images: Vec<ImageContent>,
        source: InputSource,
    ) -> Vec<AgentMessage<CodingMessage>> {
        let text = if source == InputSource::Extension {
            text
        } else {
            self.expand_input(&text)
        };
        let mut messages = vec![super::controls::user_message(&text, images.clone())];
        messages.append(&mut lock(&self.next_turn));
        let base = lock(&self.base_system_prompt).clone();
        let event = BeforeAgentStartEvent {
            prompt: text,
            images: (!images.is_empty()).then_some(images),
            system_prompt: base.clone(),
            system_prompt_options: json!({ "cwd": self.cwd.display().to_string() }),
        };
        let outcome = self.extensions.emit_before_agent_start(event).await;
        let mut system_prompt = base;
        if let Some(outcome) = outcome {
            messages.extend(
                outcome
                    .messages
                    .into_iter()
                    .map(NewCustomMessage::into_message),
            );
            if let Some(prompt) = outcome.system_prompt.filter(|p| !p.is_empty()) {
                system_prompt = prompt;
            }
        }
        if self.extensions.has_handlers("before_agent_start") {
            self.agent.set_system_prompt(system_prompt);
        }
        messages
    }

    /// A prompt sent while a run is active, queued as steering
    /// (`follow_up` false) or as a follow-up, after `input` handlers saw
    /// it (pi's `prompt` with a `streamingBehavior`).
    pub async fn queue_prompt(&self, text: String, images: Vec<ImageContent>, follow_up: bool) {
        let source = *lock(&self.input_source);
        let Some((text, images)) = self.input(text, images, source).await else {
            return;
        };
        if follow_up {
            self.follow_up(&text, images);
        } else {
            self.steer(&text, images);
        }
    }

    /// The `input` handlers' verdict on a prompt: its text and images as
    /// they transformed them, or `None` when one handled it.
    async fn input(
        &self,
        text: String,
        images: Vec<ImageContent>,
        source: InputSource,
    ) -> Option<(String, Vec<ImageContent>)> {
        if !self.extensions.has_handlers("input") {
            return Some((text, images));
        }
        let event = InputEvent {
            text: text.clone(),
            images: (!images.is_empty()).then(|| images.clone()),
            source: source.as_str().to_owned(),
        };
        match self.extensions.emit_input(event).await {
            InputResult::Handled => None,
            InputResult::Transform {
                text,
                images: new_images,
            } => Some((text, new_images.unwrap_or(images))),
            InputResult::Continue => Some((text, images)),
        }
    }

    /// pi's `sendCustomMessage`.
    pub(crate) async fn send_custom_message(
        &self,
        message: AgentMessage<CodingMessage>,
        delivery: Option<Delivery>,
        trigger_turn: bool,
    ) -> Result<(), AppError> {
        if delivery == Some(Delivery::NextTurn) {
            lock(&self.next_turn).push(message);
        } else if trigger_turn && self.agent.is_streaming() && self.extensions.run_ending() {
            self.after_this_run(PromptInput::Messages(vec![message]));
        } else if self.agent.is_streaming() {
            match delivery {
                Some(Delivery::FollowUp) => self.agent.follow_up(message),
                _ => self.agent.steer(message),
            }
        } else if trigger_turn {
            self.prompt(PromptInput::Messages(vec![message]))
                .await
                .map_err(|e| AppError::Prompt(e.to_string()))?;
        } else {
            if let AgentMessage::Custom(CodingMessage::Custom(custom)) = &message {
                self.session().append_custom_message_entry(
                    &custom.custom_type,
                    custom.content.clone(),
                    custom.display,
                    custom.details.clone(),
                )?;
            }
            self.agent.append_message(message.clone());
            // pi emits the message's start and end to the session's
            // listeners (the terminal shows it, rpc and json print them).
            let start = AgentEvent::MessageStart {
                message: message.clone(),
            };
            self.hub.emit(super::AppEvent::Agent(&start));
            self.hub
                .emit(super::AppEvent::Agent(&AgentEvent::MessageEnd { message }));
        }
        Ok(())
    }

    /// Runs `input` once the run in progress ended: what an `agent_end`
    /// handler asks to run starts a new run, as in pi, whose handlers hear
    /// `agent_end` after its run is over (text goes through pi's
    /// `sendUserMessage` preflight).
    fn after_this_run(&self, input: PromptInput<CodingMessage>) {
        let Ok(app) = self.extensions.shared.app() else {
            return;
        };
        tokio::spawn(async move {
            app.agent.wait_for_idle().await;
            let result = match input {
                PromptInput::Text { text, images } => app
                    .send_extension_user_message(&text, images, None)
                    .await
                    .map_err(|e| e.to_string()),
                other => app.prompt(other).await.map_err(|e| e.to_string()),
            };
            if let Err(error) = result {
                tracing::warn!("a run an extension started after agent_end failed: {error}");
            }
        });
    }

    /// pi's `sendUserMessage`: no command or template handling, `input`
    /// with source `extension`; queued while a run is active.
    pub(crate) async fn send_extension_user_message(
        &self,
        text: &str,
        images: Vec<ImageContent>,
        delivery: Option<Delivery>,
    ) -> Result<(), AppError> {
        if self.agent.is_streaming() && self.extensions.run_ending() {
            self.after_this_run(PromptInput::Text {
                text: text.to_owned(),
                images,
            });
            return Ok(());
        }
        if self.agent.is_streaming() {
            match delivery {
                Some(Delivery::FollowUp) => self.follow_up(text, images),
                _ => self.steer(text, images),
            }
            return Ok(());
        }
        let Some(messages) = self
            .prompt_messages(text.to_owned(), images, Some(InputSource::Extension))
            .await
        else {
            return Ok(());
        };
        self.run_prompt(PromptInput::Messages(messages))
            .await
            .map_err(|e: AgentError| AppError::Prompt(e.to_string()))
    }

    fn planned_file(&self, plan: &NewSessionOptions) -> Option<String> {
        self.session()
            .planned_file(plan)
            .map(|p| p.display().to_string())
    }

    fn session_file_text(&self) -> Option<String> {
        self.session()
            .session_file()
            .map(|p| p.display().to_string())
    }

    /// Tells the extensions the session is being replaced (`reason`), and
    /// after `replace` ran, that the new one started.
    async fn replace_session<T>(
        &self,
        reason: &str,
        target: Option<String>,
        replace: impl FnOnce() -> Result<T, AppError>,
    ) -> Result<T, AppError> {
        let previous = self.session_file_text();
        self.extensions
            .emit(SessionShutdownEvent {
                reason: reason.to_owned(),
                target_session_file: target,
            })
            .await;
        let value = replace()?;
        self.extensions
            .emit(SessionStartEvent {
                reason: reason.to_owned(),
                previous_session_file: previous,
            })
            .await;
        self.discover_resources("startup").await;
        Ok(value)
    }

    /// `/new` with the extensions asked first; false when one cancelled.
    pub async fn new_session_with_extensions(
        &self,
        parent_session: Option<String>,
    ) -> Result<bool, AppError> {
        let event = SessionBeforeSwitchEvent {
            reason: "new".to_owned(),
            target_session_file: None,
        };
        if self.extensions.emit_before_switch(event).await {
            return Ok(false);
        }
        let plan = NewSessionOptions {
            parent_session,
            ..NewSessionOptions::planned()
        };
        let target = self.planned_file(&plan);
        self.replace_session("new", target, || self.new_session_as(plan))
            .await?;
        Ok(true)
    }

    /// `/resume` of `path` with the extensions asked first; false when one
    /// cancelled.
    pub async fn switch_session_with_extensions(&self, path: &Path) -> Result<bool, AppError> {
        let target = Some(path.display().to_string());
        let event = SessionBeforeSwitchEvent {
            reason: "resume".to_owned(),
            target_session_file: target.clone(),
        };
        if self.extensions.emit_before_switch(event).await {
            return Ok(false);
        }
        self.replace_session("resume", target, || self.switch_session(path))
            .await?;
        Ok(true)
    }

    /// `/fork` at `entry_id` with the extensions asked first: the forked
    /// message's text, or `None` when an extension cancelled.
    pub async fn fork_with_extensions(&self, entry_id: &str) -> Result<Option<String>, AppError> {
        let event = SessionBeforeForkEvent {
            entry_id: entry_id.to_owned(),
            position: "before".to_owned(),
        };
        if self.extensions.emit_before_fork(event).await.cancel {
            return Ok(None);
        }
        let plan = NewSessionOptions::planned();
        let target = self.planned_file(&plan);
        self.replace_session("fork", target, || self.fork_as(entry_id, plan))
            .await
            .map(Some)
    }

    /// `/clone` with the extensions asked first; false when one cancelled.
    pub async fn clone_with_extensions(&self) -> Result<bool, AppError> {
        let leaf = self
            .session()
            .leaf_id()
            .map(str::to_owned)
            .unwrap_or_default();
        let event = SessionBeforeForkEvent {
            entry_id: leaf,
            position: "at".to_owned(),
        };
        if self.extensions.emit_before_fork(event).await.cancel {
            return Ok(false);
        }
        let plan = NewSessionOptions::planned();
        let target = self.planned_file(&plan);
        self.replace_session("fork", target, || self.clone_session_as(plan))
            .await?;
        Ok(true)
    }

    /// Every tool that can be active: `(name, description)`.
    pub fn all_tool_infos(&self) -> Vec<(String, String)> {
        lock(&self.available_tools)
            .iter()
            .map(|t| (t.name().to_owned(), t.description().to_owned()))
            .collect()
    }

    /// Takes in the tool `name` an extension registered or removed while
    /// the app runs (pi's `refreshTools`): a new tool is available and,
    /// unless `--tools` left its name out, active; a replaced one is
    /// swapped in place; a removed one is neither. The system prompt lists
    /// the active tools again.
    pub(crate) fn refresh_extension_tool(&self, name: &str) {
        let registered = self.extensions.tool(name);
        if let Some(registered) = &registered {
            // Its guidelines join the system prompt's (repeated ones are
            // dropped when it is built).
            lock(&self.prompt_options)
                .guidelines
                .extend(registered.prompt_guidelines.iter().cloned());
        }
        {
            let mut available = lock(&self.available_tools);
            available.retain(|t| t.name() != name);
            if let Some(registered) = &registered {
                available.push(Arc::clone(&registered.tool));
            }
        }
        let mut active: Vec<String> = self
            .agent
            .with_state(|s| s.tools.iter().map(|t| t.name().to_owned()).collect());
        let allowed = self
            .allowed_tools
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == name));
        match registered {
            Some(_) if allowed && !active.iter().any(|n| n == name) => active.push(name.to_owned()),
            Some(_) => {}
            None => active.retain(|n| n != name),
        }
        self.set_active_tools(&active);
    }

    /// Activates exactly the tools named among those available, and lists
    /// them in the system prompt, as pi does.
    pub fn set_active_tools(&self, names: &[String]) {
        let available = lock(&self.available_tools).clone();
        let tools: Vec<_> = names
            .iter()
            .filter_map(|n| available.iter().find(|t| t.name() == n).cloned())
            .collect();
        let summaries = tools
            .iter()
            .map(|tool| {
                let name = tool.name().to_owned();
                let registered = self.extensions.tool(&name);
                let summary = match registered {
                    Some(r) => r
                        .prompt_snippet
                        .clone()
                        .unwrap_or_else(|| r.tool.description().to_owned()),
                    None => crate::tools::tool_summary(&name)
                        .unwrap_or_default()
                        .to_owned(),
                };
                (name, summary)
            })
            .collect();
        self.agent.set_tools(tools);
        lock(&self.prompt_options).tools = summaries;
        self.rebuild_system_prompt();
    }
}
