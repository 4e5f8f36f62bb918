//! `Agent<C>`: the stateful wrapper around the low-level loop. It owns the
//! transcript, runs prompts, queues steering and follow-up messages, and
//! delivers events to its listeners.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::watch;

use pi_ai::{CancellationToken, Model, SharedMessage, ThinkingLevel};

use crate::agent_types::{
    AgentError, AgentListener, AgentOptions, AgentSettings, AgentState, ListenerId, PromptInput,
};
use crate::message::{AgentMessage, CustomMessage, NoCustom};
use crate::queue::{PendingQueue, QueueMode};
use crate::tool::AgentTool;

/// Locks a mutex, recovering from poisoning: every critical section here
/// leaves the data consistent, so a panic elsewhere does not corrupt it.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

pub(crate) type Listeners<C> = Arc<Vec<(ListenerId, Arc<dyn AgentListener<C>>)>>;

/// A stateful agent: share it with `Arc` to steer or abort a run from other
/// tasks while `prompt` runs.
///
/// Errors inside a run never escape `prompt`: a failing hook becomes an
/// assistant message with stop reason `error` (or `aborted`), followed by
/// `message_start`, `message_end`, `turn_end` and `agent_end`, and
/// [`AgentState::error`] is set.
///
/// A run with a scripted provider standing in for a model (the
/// `examples/custom_tool.rs` example adds a tool):
///
/// ```
/// use std::sync::Arc;
///
/// use pi_agent_core::{Agent, AgentEvent, AgentOptions};
/// use pi_ai::scripted::{ScriptedProvider, scripted_model, text_reply};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut options: AgentOptions = AgentOptions::new(scripted_model());
/// options.system_prompt = "Be brief.".to_owned();
/// options.settings.stream_fn = Arc::new(ScriptedProvider::new([text_reply("Hi!")]));
/// let agent = Agent::new(options);
/// agent.subscribe(|event: &AgentEvent| {
///     if let AgentEvent::AgentEnd { messages } = event {
///         assert_eq!(messages.len(), 2, "the prompt and the answer");
///     }
/// });
///
/// agent.prompt("Hello").await.unwrap();
/// let messages = agent.messages();
/// assert_eq!(messages[1].as_assistant().map(|m| m.text()).as_deref(), Some("Hi!"));
/// # });
/// ```
pub struct Agent<C = NoCustom> {
    pub(crate) state: Mutex<AgentState<C>>,
    pub(crate) settings: Mutex<AgentSettings<C>>,
    pub(crate) steering: Arc<Mutex<PendingQueue<C>>>,
    pub(crate) follow_up: Arc<Mutex<PendingQueue<C>>>,
    pub(crate) listeners: Mutex<Listeners<C>>,
    next_listener: AtomicU64,
    /// The token of the active run; `Some` exactly while a run is active.
    pub(crate) active: Mutex<Option<CancellationToken>>,
    pub(crate) running: watch::Sender<bool>,
}

impl<C: CustomMessage> Agent<C> {
    /// An idle agent.
    pub fn new(options: AgentOptions<C>) -> Self {
        let AgentOptions {
            system_prompt,
            model,
            thinking_level,
            tools,
            messages,
            steering_mode,
            follow_up_mode,
            settings,
        } = options;
        Self {
            state: Mutex::new(AgentState {
                system_prompt,
                model,
                thinking_level,
                tools,
                messages,
                is_streaming: false,
                streaming_message: None,
                pending_tool_calls: BTreeSet::new(),
                error: None,
            }),
            settings: Mutex::new(settings),
            steering: Arc::new(Mutex::new(PendingQueue::new(steering_mode))),
            follow_up: Arc::new(Mutex::new(PendingQueue::new(follow_up_mode))),
            listeners: Mutex::new(Arc::new(Vec::new())),
            next_listener: AtomicU64::new(1),
            active: Mutex::new(None),
            running: watch::Sender::new(false),
        }
    }

    /// An idle agent for `model` with pi's defaults.
    pub fn with_model(model: Model) -> Self {
        Self::new(AgentOptions::new(model))
    }

    /// Starts a run with a prompt (text, text with images, or messages) and
    /// returns when it and its listeners are done.
    pub async fn prompt(&self, input: impl Into<PromptInput<C>>) -> Result<(), AgentError> {
        let prompts = input.into().into_messages();
        let cancel = self.begin_run(AgentError::AlreadyProcessingPrompt, |_| Ok(()))?;
        self.execute_run(cancel, Some(prompts), false).await;
        Ok(())
    }

    /// Continues from the transcript (retries, resumed sessions). After an
    /// assistant message it runs the queued steering messages, else the
    /// queued follow-ups, else fails.
    pub async fn continue_(&self) -> Result<(), AgentError> {
        let mut plan = None;
        let cancel = self.begin_run(AgentError::AlreadyProcessingContinue, |state| match state
            .messages
            .last()
        {
            None => Err(AgentError::NoMessagesToContinue),
            Some(last) if last.as_assistant().is_some() => {
                let steering = lock(&self.steering).drain();
                if !steering.is_empty() {
                    plan = Some((steering, true));
                    return Ok(());
                }
                let follow_up = lock(&self.follow_up).drain();
                if follow_up.is_empty() {
                    return Err(AgentError::ContinueFromAssistant);
                }
                plan = Some((follow_up, false));
                Ok(())
            }
            Some(_) => Ok(()),
        })?;
        match plan {
            Some((prompts, skip_initial_steering)) => {
                self.execute_run(cancel, Some(prompts), skip_initial_steering)
                    .await;
            }
            None => self.execute_run(cancel, None, false).await,
        }
        Ok(())
    }

    /// Aborts the active run, if any: the stream ends with stop reason
    /// `aborted` and running tools are cancelled.
    pub fn abort(&self) {
        if let Some(cancel) = lock(&self.active).as_ref() {
            cancel.cancel();
        }
    }

    /// The active run's cancellation token (pi's `signal`).
    pub fn cancel_token(&self) -> Option<CancellationToken> {
        lock(&self.active).clone()
    }

    /// Resolves when no run is active and the last run's listeners settled.
    pub async fn wait_for_idle(&self) {
        let mut running = self.running.subscribe();
        // The sender lives as long as `self`, so waiting cannot fail.
        let _ = running.wait_for(|active| !*active).await;
    }

    /// Queues a message to inject after the current turn; it skips the
    /// remaining tool calls in sequential mode.
    pub fn steer(&self, message: impl Into<AgentMessage<C>>) {
        lock(&self.steering).enqueue(message.into());
    }

    /// Queues a message to run when the agent would otherwise stop.
    pub fn follow_up(&self, message: impl Into<AgentMessage<C>>) {
        lock(&self.follow_up).enqueue(message.into());
    }

    /// Drops the queued steering messages.
    pub fn clear_steering_queue(&self) {
        lock(&self.steering).clear();
    }

    /// Drops the queued follow-up messages.
    pub fn clear_follow_up_queue(&self) {
        lock(&self.follow_up).clear();
    }

    /// Drops both queues.
    pub fn clear_all_queues(&self) {
        self.clear_steering_queue();
        self.clear_follow_up_queue();
    }

    /// True when either queue holds messages.
    pub fn has_queued_messages(&self) -> bool {
        lock(&self.steering).has_items() || lock(&self.follow_up).has_items()
    }

    /// How steering messages are handed out.
    pub fn steering_mode(&self) -> QueueMode {
        lock(&self.steering).mode
    }

    /// Sets how steering messages are handed out.
    pub fn set_steering_mode(&self, mode: QueueMode) {
        lock(&self.steering).mode = mode;
    }

    /// How follow-up messages are handed out.
    pub fn follow_up_mode(&self) -> QueueMode {
        lock(&self.follow_up).mode
    }

    /// Sets how follow-up messages are handed out.
    pub fn set_follow_up_mode(&self, mode: QueueMode) {
        lock(&self.follow_up).mode = mode;
    }

    /// Adds a listener; it receives the events of every later run.
    pub fn subscribe(&self, listener: impl AgentListener<C> + 'static) -> ListenerId {
        let id = ListenerId(self.next_listener.fetch_add(1, Ordering::Relaxed));
        let mut listeners = lock(&self.listeners);
        let mut next = Vec::clone(&listeners);
        next.push((id, Arc::new(listener)));
        *listeners = Arc::new(next);
        id
    }

    /// Removes a listener; false if it was not subscribed.
    pub fn unsubscribe(&self, id: ListenerId) -> bool {
        let mut listeners = lock(&self.listeners);
        let before = listeners.len();
        let next: Vec<_> = listeners
            .iter()
            .filter(|(other, _)| *other != id)
            .cloned()
            .collect();
        let removed = next.len() != before;
        *listeners = Arc::new(next);
        removed
    }

    /// Reads the state under its lock (keep `read` short; do not block in it).
    pub fn with_state<R>(&self, read: impl FnOnce(&AgentState<C>) -> R) -> R {
        read(&lock(&self.state))
    }

    /// A copy of the transcript.
    pub fn messages(&self) -> Vec<AgentMessage<C>> {
        self.with_state(|state| state.messages.clone())
    }

    /// True while a run is active (until its listeners settled).
    pub fn is_streaming(&self) -> bool {
        self.with_state(|state| state.is_streaming)
    }

    /// The assistant message being streamed, if any.
    pub fn streaming_message(&self) -> Option<SharedMessage> {
        self.with_state(|state| state.streaming_message.clone())
    }

    /// Ids of the tool calls currently executing.
    pub fn pending_tool_calls(&self) -> BTreeSet<String> {
        self.with_state(|state| state.pending_tool_calls.clone())
    }

    /// The error of the last failed turn.
    pub fn error(&self) -> Option<String> {
        self.with_state(|state| state.error.clone())
    }

    /// The model.
    pub fn model(&self) -> Model {
        self.with_state(|state| state.model.clone())
    }

    /// Sets the system prompt (used from the next run on).
    pub fn set_system_prompt(&self, prompt: impl Into<String>) {
        lock(&self.state).system_prompt = prompt.into();
    }

    /// Sets the model (used from the next run on).
    pub fn set_model(&self, model: Model) {
        lock(&self.state).model = model;
    }

    /// Sets the reasoning level; `None` is off.
    pub fn set_thinking_level(&self, level: Option<ThinkingLevel>) {
        lock(&self.state).thinking_level = level;
    }

    /// Sets the tools (used from the next run on).
    pub fn set_tools(&self, tools: Vec<Arc<dyn AgentTool>>) {
        lock(&self.state).tools = tools;
    }

    /// Replaces the transcript.
    pub fn replace_messages(&self, messages: Vec<AgentMessage<C>>) {
        lock(&self.state).messages = messages;
    }

    /// Removes the last message of the transcript when `matches` accepts it
    /// (no copy of the transcript); returns it.
    pub fn pop_message_if(
        &self,
        matches: impl FnOnce(&AgentMessage<C>) -> bool,
    ) -> Option<AgentMessage<C>> {
        let mut state = lock(&self.state);
        if state.messages.last().is_some_and(matches) {
            state.messages.pop()
        } else {
            None
        }
    }

    /// Appends one message to the transcript.
    pub fn append_message(&self, message: impl Into<AgentMessage<C>>) {
        lock(&self.state).messages.push(message.into());
    }

    /// Empties the transcript.
    pub fn clear_messages(&self) {
        lock(&self.state).messages.clear();
    }

    /// Changes the stream function, hooks or call options (used from the next run on).
    pub fn update_settings<R>(&self, update: impl FnOnce(&mut AgentSettings<C>) -> R) -> R {
        update(&mut lock(&self.settings))
    }

    /// Clears the transcript, the run state and both queues. Fails while a run is active.
    pub fn reset(&self) -> Result<(), AgentError> {
        let active = lock(&self.active);
        if active.is_some() {
            return Err(AgentError::AlreadyProcessingReset);
        }
        {
            let mut state = lock(&self.state);
            state.messages.clear();
            state.is_streaming = false;
            state.streaming_message = None;
            state.pending_tool_calls.clear();
            state.error = None;
        }
        drop(active);
        self.clear_all_queues();
        Ok(())
    }
}

impl<C> std::fmt::Debug for Agent<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("running", &*self.running.borrow())
            .finish_non_exhaustive()
    }
}
