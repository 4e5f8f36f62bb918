//! The extension runner (pi's `ExtensionRunner`): calls the handlers of an
//! event in extension load order, then each extension's registration
//! order, with pi's result semantics per event. A handler's failure is
//! reported (`extension_error`) and the rest still run, except for
//! `tool_call`, which fails closed: the error blocks the call.

use std::sync::{Arc, Mutex, PoisonError};

use serde::Serialize;
use serde_json::Value;

use super::CommandGuard;
use super::api::Registry;
use super::context::{ExtensionContext, Shared};
use super::events::{
    Cancels, CompactResult, Event, ForkResult, InputEvent, InputResult, ResourcesDiscoverEvent,
    ResourcesDiscoverResult, TreeResult, UserBashEvent, UserBashResult,
};
use super::handler::{ExtensionError, Handler};
use super::run_events::{
    BeforeAgentStartEvent, BeforeAgentStartResult, BeforeProviderRequestEvent, ContextEvent,
    Message, MessageEndEvent, NewCustomMessage, ToolCallEvent, ToolCallResult, ToolResultEvent,
    ToolResultPatch,
};

/// An extension's failure, as pi's rpc `extension_error` event carries it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtensionErrorReport {
    /// The extension.
    pub extension_path: String,
    /// The event (or `command:<name>`, `shortcut:<key>`) it failed in.
    pub event: String,
    /// The error's message.
    pub error: String,
}

/// Hears every [`ExtensionErrorReport`].
pub type ErrorListener = Arc<dyn Fn(&ExtensionErrorReport) + Send + Sync>;

/// What `before_agent_start` handlers together answered.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BeforeAgentStartOutcome {
    /// Messages to add after the prompt, in handler order.
    pub messages: Vec<NewCustomMessage>,
    /// The chained system prompt, when a handler changed it.
    pub system_prompt: Option<String>,
}

/// The loaded extensions and their handlers.
pub struct ExtensionRunner {
    pub(crate) registry: Registry,
    pub(crate) shared: Arc<Shared>,
    errors: Mutex<Vec<ErrorListener>>,
    pub(crate) notifier: super::notify::Notifier,
    /// Extension files `-e` named: `(file, the path as named)`.
    command_line: std::sync::RwLock<Vec<(String, String)>>,
    /// Extension files of pi packages, with their `sourceInfo`.
    packaged: std::sync::RwLock<Vec<crate::resources::discovery::SourceInfo>>,
    /// Commands being answered.
    commands: Arc<super::gate::CommandGate>,
    /// The run's `agent_end` handlers are running.
    ending: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for ExtensionRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExtensionRunner")
            .field("extensions", &self.registry.extensions)
            .finish_non_exhaustive()
    }
}

impl ExtensionRunner {
    pub(crate) fn new(mut registry: Registry, shared: Arc<Shared>) -> Self {
        shared.live.seed(
            std::mem::take(&mut registry.tools),
            std::mem::take(&mut registry.commands),
        );
        Self {
            registry,
            shared,
            errors: Mutex::new(Vec::new()),
            notifier: super::notify::Notifier::default(),
            command_line: std::sync::RwLock::new(Vec::new()),
            packaged: std::sync::RwLock::new(Vec::new()),
            commands: Arc::default(),
            ending: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Whether the run's `agent_end` handlers are running: pi's run is over
    /// by then (its handlers hear `agent_end` after the loop ended), so a
    /// message that asks for a turn starts a new run once this one ended.
    pub(crate) fn run_ending(&self) -> bool {
        self.ending.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Marks the `agent_end` handlers running (or done).
    pub(crate) fn set_run_ending(&self, ending: bool) {
        self.ending
            .store(ending, std::sync::atomic::Ordering::SeqCst);
    }

    /// Marks an extension command in progress until the guard drops: a
    /// mode holds it until the command's answer is out. Runs that
    /// out-of-process extensions start from the command wait for it.
    pub fn command_in_progress(&self) -> CommandGuard {
        self.commands.enter()
    }

    /// Waits until no command is in progress ([`Self::command_in_progress`]).
    pub(crate) async fn commands_answered(&self) {
        self.commands.answered().await;
    }

    /// Waits until the handlers of every notification queued so far (a
    /// model or thinking level change) ran.
    pub async fn settle_notifications(&self) {
        self.notifier.flush().await;
    }

    /// Tells which extension files `-e` named: `(file, the path as named)`
    /// (their `sourceInfo` is pi's `cli` one).
    pub fn set_command_line_paths(&self, paths: Vec<(String, String)>) {
        *self
            .command_line
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = paths;
    }

    /// Tells which extension files come from pi packages (their
    /// `sourceInfo` names the package, origin `package`).
    pub fn set_package_sources(&self, infos: Vec<crate::resources::discovery::SourceInfo>) {
        *self
            .packaged
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = infos;
    }

    /// pi's `sourceInfo` of the extension at `path`: a package's names the
    /// package; `-e` ones have source `cli` and the path as named (a folder
    /// for a folder's entry).
    pub(crate) fn source_info_of(&self, path: &str) -> crate::resources::discovery::SourceInfo {
        if let Some(info) = self
            .packaged
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .find(|info| info.path == path)
        {
            return info.clone();
        }
        let command_line = self
            .command_line
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match command_line.iter().find(|(file, _)| file == path) {
            Some((_, named)) => crate::resources::discovery::SourceInfo {
                path: named.clone(),
                source: "cli".to_owned(),
                scope: "temporary".to_owned(),
                origin: "top-level".to_owned(),
                base_dir: None,
            },
            None => super::source_info(path),
        }
    }

    /// The loaded extensions' paths, in load order.
    pub fn extension_paths(&self) -> &[String] {
        &self.registry.extensions
    }

    /// Whether any handler listens to event `name`.
    pub fn has_handlers(&self, name: &str) -> bool {
        self.registry
            .handlers
            .get(name)
            .is_some_and(|h| !h.is_empty())
    }

    /// A context for handlers (no system prompt override).
    pub fn context(&self) -> ExtensionContext {
        ExtensionContext::new(Arc::clone(&self.shared))
    }

    /// Adds a listener of the warnings extensions give
    /// ([`super::ExtensionHandle::warn`]); while there is none, they go to
    /// the mode's UI as warning notifications.
    pub fn on_warning(&self, listener: super::WarningListener) {
        self.shared.live.on_warning(listener);
    }

    /// The command-protocol commands extensions added
    /// ([`super::ExtensionApi::register_rpc_command`]).
    pub fn rpc_command(&self, name: &str) -> Option<super::RegisteredRpcCommand> {
        self.registry
            .rpc_commands
            .iter()
            .find(|c| c.name == name)
            .cloned()
    }

    /// Runs the rpc command `name` with the command's JSON line; `None`
    /// when no extension added it. A failure (an error or a panic) is
    /// reported as an extension error and returned.
    pub async fn run_rpc_command(
        &self,
        name: &str,
        line: serde_json::Value,
    ) -> Option<Result<Option<serde_json::Value>, ExtensionError>> {
        let command = self.rpc_command(name)?;
        let run = (command.handler)(line, self.context());
        let result = super::panic_guard::catch(run).await.and_then(|r| r);
        if let Err(error) = &result {
            self.report_error(&command.extension_path, &format!("rpc:{name}"), error);
        }
        Some(result)
    }

    /// Adds a listener of extension failures.
    pub fn on_error(&self, listener: ErrorListener) {
        self.errors
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(listener);
    }

    /// Reports a failure to the error listeners (and the log).
    pub fn report_error(&self, extension_path: &str, event: &str, error: &ExtensionError) {
        tracing::warn!("extension {extension_path} failed in {event}: {error}");
        let report = ExtensionErrorReport {
            extension_path: extension_path.to_owned(),
            event: event.to_owned(),
            error: error.message().to_owned(),
        };
        let listeners = self
            .errors
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        for listener in listeners {
            listener(&report);
        }
    }

    fn handlers(&self, name: &str) -> &[(usize, Handler)] {
        self.registry.handlers.get(name).map_or(&[], Vec::as_slice)
    }

    fn path(&self, index: usize) -> &str {
        self.registry
            .extensions
            .get(index)
            .map_or("<unknown>", String::as_str)
    }

    /// Runs every handler of `E` with `event`, reporting failures; each
    /// answer goes to `fold`, which returns false to stop.
    async fn each<E: Event>(
        &self,
        ctx: &ExtensionContext,
        mut event: impl FnMut() -> E,
        mut fold: impl FnMut(E::Output) -> bool,
    ) {
        for (index, handler) in self.handlers(E::NAME) {
            match handler.call(event(), ctx.clone()).await {
                Ok(Some(output)) => {
                    if !fold(output) {
                        return;
                    }
                }
                Ok(None) => {}
                Err(error) => self.report_error(self.path(*index), E::NAME, &error),
            }
        }
    }

    /// A notification: every handler hears `event` (after the queued
    /// notifications); answers are ignored.
    pub async fn emit<E: Event<Output = ()>>(&self, event: E) {
        if !self.has_handlers(E::NAME) {
            return;
        }
        self.notifier.flush().await;
        self.deliver(event).await;
    }

    /// Delivers a notification now.
    pub(crate) async fn deliver<E: Event<Output = ()>>(&self, event: E) {
        let ctx = self.context();
        self.each(&ctx, || event.clone(), |()| true).await;
    }

    /// A `session_before_*` event (pi's `emit` for them): the last answer,
    /// or the first one that cancels (later handlers do not run).
    pub async fn emit_session_before<E>(&self, event: E) -> Option<E::Output>
    where
        E: Event,
        E::Output: Cancels,
    {
        self.notifier.flush().await;
        let mut result = None;
        let ctx = self.context();
        self.each(
            &ctx,
            || event.clone(),
            |answer: E::Output| {
                let cancel = answer.cancels();
                result = Some(answer);
                !cancel
            },
        )
        .await;
        result
    }

    /// `session_before_switch`: whether a handler cancelled.
    pub async fn emit_before_switch(&self, event: super::SessionBeforeSwitchEvent) -> bool {
        self.emit_session_before(event)
            .await
            .is_some_and(|r| r.cancel)
    }

    /// `session_before_fork`: the answer that counts (default: go on).
    pub async fn emit_before_fork(&self, event: super::SessionBeforeForkEvent) -> ForkResult {
        self.emit_session_before(event).await.unwrap_or_default()
    }

    /// `session_before_compact`: the answer that counts.
    pub async fn emit_before_compact(
        &self,
        event: super::SessionBeforeCompactEvent,
    ) -> Option<CompactResult> {
        self.emit_session_before(event).await
    }

    /// `session_before_tree`: the answer that counts.
    pub async fn emit_before_tree(
        &self,
        event: super::SessionBeforeTreeEvent,
    ) -> Option<TreeResult> {
        self.emit_session_before(event).await
    }

    /// `message_end`: each handler sees the message as the previous one
    /// replaced it; a replacement with another role is refused (reported).
    /// `None` when no handler replaced it.
    pub async fn emit_message_end(&self, message: &Message) -> Option<Message> {
        self.notifier.flush().await;
        if !self.has_handlers(MessageEndEvent::NAME) {
            return None;
        }
        let ctx = self.context();
        let mut current = Arc::new(message.clone());
        let mut modified = false;
        for (index, handler) in self.handlers(MessageEndEvent::NAME) {
            let event = MessageEndEvent {
                message: Arc::clone(&current),
            };
            match handler.call(event, ctx.clone()).await {
                Ok(Some(result)) => {
                    let Some(replacement) = result.message else {
                        continue;
                    };
                    if replacement.role() != current.role() {
                        let error = ExtensionError::new(
                            "message_end handlers must return a message with the same role",
                        );
                        self.report_error(self.path(*index), MessageEndEvent::NAME, &error);
                        continue;
                    }
                    current = Arc::new(replacement);
                    modified = true;
                }
                Ok(None) => {}
                Err(error) => self.report_error(self.path(*index), MessageEndEvent::NAME, &error),
            }
        }
        modified.then(|| Arc::unwrap_or_clone(current))
    }

    /// `tool_call`: handlers in order, each seeing the input as earlier
    /// ones changed it; the first that blocks wins. A handler's error
    /// blocks the call with its message (fail closed) and is reported.
    /// Returns the final answer and the input to run with.
    pub async fn emit_tool_call(&self, mut event: ToolCallEvent) -> (ToolCallResult, Value) {
        self.notifier.flush().await;
        let ctx = self.context();
        let mut result = ToolCallResult::default();
        for (index, handler) in self.handlers(ToolCallEvent::NAME) {
            match handler.call(event.clone(), ctx.clone()).await {
                Ok(Some(mut answer)) => {
                    if let Some(input) = answer.input.take() {
                        event.input = input;
                    }
                    let block = answer.block;
                    result = answer;
                    if block {
                        break;
                    }
                }
                Ok(None) => {}
                Err(error) => {
                    self.report_error(self.path(*index), ToolCallEvent::NAME, &error);
                    result = ToolCallResult {
                        block: true,
                        reason: Some(error.message().to_owned()),
                        input: None,
                    };
                    break;
                }
            }
        }
        (result, event.input)
    }

    /// `tool_result`: handlers chain like middleware over content, details
    /// and the error flag; `None` when none changed anything.
    pub async fn emit_tool_result(&self, mut event: ToolResultEvent) -> Option<ToolResultPatch> {
        self.notifier.flush().await;
        let ctx = self.context();
        let mut modified = false;
        for (index, handler) in self.handlers(ToolResultEvent::NAME) {
            match handler.call(event.clone(), ctx.clone()).await {
                Ok(Some(patch)) => {
                    if let Some(content) = patch.content {
                        event.content = content;
                        modified = true;
                    }
                    if let Some(details) = patch.details {
                        event.details = details;
                        modified = true;
                    }
                    if let Some(is_error) = patch.is_error {
                        event.is_error = is_error;
                        modified = true;
                    }
                }
                Ok(None) => {}
                Err(error) => self.report_error(self.path(*index), ToolResultEvent::NAME, &error),
            }
        }
        modified.then(|| ToolResultPatch {
            content: Some(event.content),
            details: Some(event.details),
            is_error: Some(event.is_error),
        })
    }

    /// `user_bash`: the first handler that answers takes the command over.
    pub async fn emit_user_bash(&self, event: UserBashEvent) -> Option<UserBashResult> {
        self.notifier.flush().await;
        let mut taken = None;
        let ctx = self.context();
        self.each(
            &ctx,
            || event.clone(),
            |r: UserBashResult| {
                taken = Some(r);
                false
            },
        )
        .await;
        taken
    }

    /// `context`: the pipeline over the transcript, shared with every
    /// handler (copy-on-write). Each handler is awaited in order and gets
    /// what the previous one returned; a failing handler is reported and
    /// its changes (made on its own copy) are dropped. `None` when no
    /// handler changed anything: the caller keeps its messages. The session
    /// never sees a handler's messages.
    pub async fn emit_context(&self, messages: Arc<Vec<Message>>) -> Option<Vec<Message>> {
        self.notifier.flush().await;
        let ctx = self.context();
        let mut current = Arc::clone(&messages);
        for (index, handler) in self.handlers(ContextEvent::NAME) {
            let event = ContextEvent {
                messages: Arc::clone(&current),
            };
            match handler.call(event, ctx.clone()).await {
                Ok(Some(result)) => {
                    if let Some(changed) = result.messages {
                        current = Arc::new(changed);
                    }
                }
                Ok(None) => {}
                Err(error) => self.report_error(self.path(*index), ContextEvent::NAME, &error),
            }
        }
        if Arc::ptr_eq(&current, &messages) {
            return None;
        }
        drop(messages);
        Some(Arc::unwrap_or_clone(current))
    }

    /// `before_provider_request`: each handler may replace the payload.
    pub async fn emit_before_provider_request(&self, payload: Value) -> Value {
        self.notifier.flush().await;
        let ctx = self.context();
        let mut current = payload;
        for (index, handler) in self.handlers(BeforeProviderRequestEvent::NAME) {
            let event = BeforeProviderRequestEvent {
                payload: current.clone(),
            };
            match handler.call(event, ctx.clone()).await {
                Ok(Some(replacement)) => current = replacement,
                Ok(None) => {}
                Err(error) => {
                    self.report_error(self.path(*index), BeforeProviderRequestEvent::NAME, &error);
                }
            }
        }
        current
    }

    /// `before_agent_start`: messages collected, the system prompt chained
    /// (a handler's `ctx.system_prompt()` is the prompt so far).
    pub async fn emit_before_agent_start(
        &self,
        mut event: BeforeAgentStartEvent,
    ) -> Option<BeforeAgentStartOutcome> {
        self.notifier.flush().await;
        if !self.has_handlers(BeforeAgentStartEvent::NAME) {
            return None;
        }
        let mut outcome = BeforeAgentStartOutcome::default();
        for (index, handler) in self.handlers(BeforeAgentStartEvent::NAME) {
            let ctx = self
                .context()
                .with_system_prompt(event.system_prompt.clone());
            match handler.call(event.clone(), ctx).await {
                Ok(Some(BeforeAgentStartResult {
                    message,
                    system_prompt,
                })) => {
                    outcome.messages.extend(message);
                    if let Some(prompt) = system_prompt {
                        event.system_prompt.clone_from(&prompt);
                        outcome.system_prompt = Some(prompt);
                    }
                }
                Ok(None) => {}
                Err(error) => {
                    self.report_error(self.path(*index), BeforeAgentStartEvent::NAME, &error);
                }
            }
        }
        (!outcome.messages.is_empty() || outcome.system_prompt.is_some()).then_some(outcome)
    }

    /// `resources_discover`: every handler's paths, in order.
    pub async fn emit_resources_discover(
        &self,
        event: ResourcesDiscoverEvent,
    ) -> ResourcesDiscoverResult {
        let mut all = ResourcesDiscoverResult::default();
        for (_, found) in self.discover_resources_by_extension(event).await {
            all.skill_paths.extend(found.skill_paths);
            all.prompt_paths.extend(found.prompt_paths);
            all.theme_paths.extend(found.theme_paths);
        }
        all
    }

    /// `resources_discover`, each handler's paths with the `sourceInfo` of
    /// its extension (pi labels the resources after it).
    pub(crate) async fn discover_resources_by_extension(
        &self,
        event: ResourcesDiscoverEvent,
    ) -> Vec<(
        crate::resources::discovery::SourceInfo,
        ResourcesDiscoverResult,
    )> {
        self.notifier.flush().await;
        let ctx = self.context();
        let mut found = Vec::new();
        for (index, handler) in self.handlers(ResourcesDiscoverEvent::NAME) {
            match handler.call(event.clone(), ctx.clone()).await {
                Ok(Some(paths)) => found.push((self.source_info_of(self.path(*index)), paths)),
                Ok(None) => {}
                Err(error) => {
                    self.report_error(self.path(*index), ResourcesDiscoverEvent::NAME, &error)
                }
            }
        }
        found
    }

    /// `input`: transforms chain; the first `handled` wins.
    pub async fn emit_input(&self, mut event: InputEvent) -> InputResult {
        self.notifier.flush().await;
        let original = (event.text.clone(), event.images.clone());
        let ctx = self.context();
        for (index, handler) in self.handlers(InputEvent::NAME) {
            match handler.call(event.clone(), ctx.clone()).await {
                Ok(Some(InputResult::Handled)) => return InputResult::Handled,
                Ok(Some(InputResult::Transform { text, images })) => {
                    event.text = text;
                    if images.is_some() {
                        event.images = images;
                    }
                }
                Ok(Some(InputResult::Continue) | None) => {}
                Err(error) => self.report_error(self.path(*index), InputEvent::NAME, &error),
            }
        }
        if (event.text.clone(), event.images.clone()) == original {
            InputResult::Continue
        } else {
            InputResult::Transform {
                text: event.text,
                images: event.images,
            }
        }
    }
}

#[cfg(test)]
#[path = "runner_tests.rs"]
mod tests;
