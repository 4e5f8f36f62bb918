//! The api registry: which [`StreamFunction`] serves which wire [`Api`], and
//! the dispatching entry points [`stream`], [`complete`], [`stream_simple`]
//! and [`complete_simple`].

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use crate::{
    Api, AssistantMessage, AssistantMessageEventStream, ContextRef, Model, SimpleStreamOptions,
    StreamOptions, now_ms,
};

/// A wire implementation: turns a context into a stream of events.
///
/// The context is borrowed ([`ContextRef`]: a [`Context`](crate::Context)'s `view()`, or
/// an agent's transcript converted in place), so a caller's transcript is
/// never copied for a call; an implementation encodes the request from it
/// before returning the stream.
///
/// Once called, implementations report every failure inside the stream
/// (see [`AssistantMessageEventStream`]); they never panic or return errors.
pub trait StreamFunction: Send + Sync {
    /// Streams one assistant message with provider-level options.
    fn stream(
        &self,
        model: &Model,
        context: ContextRef<'_>,
        options: StreamOptions,
    ) -> AssistantMessageEventStream;

    /// Streams with a unified reasoning level. The default ignores the level.
    fn stream_simple(
        &self,
        model: &Model,
        context: ContextRef<'_>,
        options: SimpleStreamOptions,
    ) -> AssistantMessageEventStream {
        let mut base = options.base.clone();
        base.max_tokens = Some(options.max_tokens_for(model));
        self.stream(model, context, base)
    }
}

struct Registered {
    provider: Arc<dyn StreamFunction>,
    source_id: String,
}

/// A map from wire api to its stream function. Most code uses the global
/// one through [`register_api_provider`] and [`stream`].
#[derive(Default)]
pub struct ApiRegistry {
    providers: RwLock<BTreeMap<Api, Registered>>,
}

impl ApiRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `provider` for `api`, replacing any earlier one. `source_id`
    /// groups registrations for [`ApiRegistry::unregister_source`].
    pub fn register(
        &self,
        api: Api,
        provider: Arc<dyn StreamFunction>,
        source_id: impl Into<String>,
    ) {
        let entry = Registered {
            provider,
            source_id: source_id.into(),
        };
        self.providers
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(api, entry);
    }

    /// Removes every provider registered with `source_id`.
    pub fn unregister_source(&self, source_id: &str) {
        self.providers
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|_, r| r.source_id != source_id);
    }

    /// The provider for `api`, if any.
    pub fn get(&self, api: &Api) -> Option<Arc<dyn StreamFunction>> {
        self.providers
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(api)
            .map(|r| Arc::clone(&r.provider))
    }

    /// The registered apis, sorted.
    pub fn apis(&self) -> Vec<Api> {
        self.providers
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .keys()
            .cloned()
            .collect()
    }

    /// The provider for `model.api`, or a stream that fails naming the api
    /// and the registered ones.
    fn resolve(
        &self,
        model: &Model,
    ) -> Result<Arc<dyn StreamFunction>, Box<AssistantMessageEventStream>> {
        self.get(&model.api).ok_or_else(|| {
            let registered: Vec<String> = self.apis().iter().map(ToString::to_string).collect();
            let registered = if registered.is_empty() {
                "none".to_owned()
            } else {
                registered.join(", ")
            };
            let message = AssistantMessage::empty(
                model.api.clone(),
                model.provider.clone(),
                model.id.clone(),
                now_ms(),
            );
            Box::new(AssistantMessageEventStream::failed(
                message,
                format!(
                    "No API provider registered for api: {} (registered: {registered})",
                    model.api
                ),
            ))
        })
    }

    /// Dispatches [`StreamFunction::stream`] by `model.api`.
    pub fn stream<'c>(
        &self,
        model: &Model,
        context: impl Into<ContextRef<'c>>,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        match self.resolve(model) {
            Ok(provider) => provider.stream(model, context.into(), options),
            Err(failed) => *failed,
        }
    }

    /// Dispatches [`StreamFunction::stream_simple`] by `model.api`.
    pub fn stream_simple<'c>(
        &self,
        model: &Model,
        context: impl Into<ContextRef<'c>>,
        options: SimpleStreamOptions,
    ) -> AssistantMessageEventStream {
        match self.resolve(model) {
            Ok(provider) => provider.stream_simple(model, context.into(), options),
            Err(failed) => *failed,
        }
    }
}

/// The process-wide registry.
pub fn global_registry() -> &'static ApiRegistry {
    static GLOBAL: OnceLock<ApiRegistry> = OnceLock::new();
    GLOBAL.get_or_init(ApiRegistry::new)
}

/// Registers `provider` for `api` in the global registry.
pub fn register_api_provider(
    api: Api,
    provider: Arc<dyn StreamFunction>,
    source_id: impl Into<String>,
) {
    global_registry().register(api, provider, source_id);
}

/// Removes every global registration made with `source_id`.
pub fn unregister_api_providers(source_id: &str) {
    global_registry().unregister_source(source_id);
}

/// The globally registered provider for `api`.
pub fn get_api_provider(api: &Api) -> Option<Arc<dyn StreamFunction>> {
    global_registry().get(api)
}

/// Streams through the global registry, by `model.api`.
///
/// A provider crate's `register()` puts its wire there; here the scripted
/// provider of the `testing` feature stands in for one:
///
/// ```
/// use std::sync::Arc;
///
/// use futures::StreamExt;
/// use pi_ai::scripted::{ScriptedProvider, scripted_model, text_reply};
/// use pi_ai::{AssistantMessageEvent, Context, Message, StreamOptions, UserMessage};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let model = scripted_model();
/// let provider = ScriptedProvider::new([text_reply("Hello there")]);
/// pi_ai::register_api_provider(model.api.clone(), Arc::new(provider), "doc-stream");
///
/// let context = Context {
///     messages: vec![Message::User(UserMessage {
///         content: "Hi".into(),
///         ..UserMessage::default()
///     })],
///     ..Context::default()
/// };
/// let mut events = pi_ai::stream(&model, &context, StreamOptions::default());
/// let mut text = String::new();
/// while let Some(event) = events.next().await {
///     match event {
///         AssistantMessageEvent::TextDelta { delta, .. } => text.push_str(&delta),
///         AssistantMessageEvent::Done { message, .. } => assert_eq!(message.text(), text),
///         _ => {}
///     }
/// }
/// assert_eq!(text, "Hello there");
/// # });
/// ```
pub fn stream<'c>(
    model: &Model,
    context: impl Into<ContextRef<'c>>,
    options: StreamOptions,
) -> AssistantMessageEventStream {
    global_registry().stream(model, context, options)
}

/// Like [`stream`], returning only the settled message (failures are in
/// its `stop_reason` and `error_message`, never a panic or an `Err`).
///
/// ```
/// use std::sync::Arc;
///
/// use pi_ai::scripted::{ScriptedProvider, scripted_model, text_reply};
/// use pi_ai::{Context, Message, StopReason, StreamOptions, UserMessage};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let model = scripted_model();
/// let provider = ScriptedProvider::new([text_reply("4")]);
/// pi_ai::register_api_provider(model.api.clone(), Arc::new(provider), "doc-complete");
///
/// let context = Context {
///     system_prompt: Some("Answer with a number.".to_owned()),
///     messages: vec![Message::User(UserMessage {
///         content: "2 + 2?".into(),
///         ..UserMessage::default()
///     })],
///     ..Context::default()
/// };
/// let answer = pi_ai::complete(&model, &context, StreamOptions::default()).await;
/// assert_eq!(answer.stop_reason, StopReason::Stop);
/// assert_eq!(answer.text(), "4");
/// # });
/// ```
pub async fn complete<'c>(
    model: &Model,
    context: impl Into<ContextRef<'c>>,
    options: StreamOptions,
) -> AssistantMessage {
    stream(model, context, options).result().await
}

/// Streams with a unified reasoning level through the global registry.
pub fn stream_simple<'c>(
    model: &Model,
    context: impl Into<ContextRef<'c>>,
    options: SimpleStreamOptions,
) -> AssistantMessageEventStream {
    global_registry().stream_simple(model, context, options)
}

/// Like [`stream_simple`], returning only the settled message.
pub async fn complete_simple<'c>(
    model: &Model,
    context: impl Into<ContextRef<'c>>,
    options: SimpleStreamOptions,
) -> AssistantMessage {
    stream_simple(model, context, options).result().await
}
