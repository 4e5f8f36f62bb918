//! The shape every wire format takes, and the one generic call that runs it.
//!
//! A provider crate implements [`Wire`] (URL, headers, body, decoder, retry
//! policy) for a small type and exposes it as a [`WireProvider`]; the common
//! steps live here once: the initial message, the API key lookup (options,
//! then the provider's environment variable), the wire's checks
//! ([`Wire::resolve`]), the `on_payload` hook (awaited right before the
//! request is sent), the wire's asynchronous [`Wire::prepare`] (a token, a
//! signature), the header merge, the encode-error wording, and the driver
//! that sends the request (calling `on_response` on each answer) and turns
//! every failure into the stream's `error` event.

use std::error::Error;
use std::future::Future;
use std::sync::Arc;

use pi_ai::{
    Api, AssistantMessage, AssistantMessageEventStream, ContextRef, ErrorClass, ErrorReason,
    EventSink, Model, PayloadHook, SimpleStreamOptions, StreamFunction, StreamOptions,
    get_env_api_key, now_ms, register_api_provider,
};
use serde::Serialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::{BodyFraming, Headers, HttpRequest, RetryPolicy, SseCall, SseDecoder, drive_framed};

/// A wire's call options: pi's provider-level [`StreamOptions`] plus what
/// the wire adds (reasoning effort, tool choice, ...).
pub trait WireOptions: Default + Send + Sync + 'static {
    /// The provider-level options.
    fn base(&self) -> &StreamOptions;

    /// The provider-level options, to fill in resolved values.
    fn base_mut(&mut self) -> &mut StreamOptions;

    /// Options for a plain [`StreamFunction::stream`] call: `options` and
    /// the wire's defaults.
    fn from_stream(model: &Model, options: StreamOptions) -> Self {
        let _ = model;
        let mut wire_options = Self::default();
        *wire_options.base_mut() = options;
        wire_options
    }

    /// Options for [`StreamFunction::stream_simple`]: pi's unified
    /// reasoning level mapped to what the wire sends.
    fn from_simple(model: &Model, options: SimpleStreamOptions) -> Self;
}

/// A wire's own headers, in three layers around the headers of the model
/// (`model.headers`) and of the call (`options.headers`), merged by
/// [`wire_headers`] in this order: `base`, the model's, `after_model`, the
/// call's, `fixed` (a later value replaces an earlier one of the same name).
#[derive(Debug, Clone, Default)]
pub struct WireHeaders {
    /// Sent first; the model's and the call's headers override them.
    pub base: Headers,
    /// Set after the model's headers (overriding them), before the call's.
    pub after_model: Headers,
    /// Set last: the call's headers cannot override them.
    pub fixed: Headers,
}

/// One wire format: how a call is addressed, encoded and decoded.
/// [`stream_wire`] runs the call in this order: [`Wire::api_key`],
/// [`Wire::resolve`] (the wire of this call), then, with the call's
/// context, [`Wire::url`], [`Wire::headers`], [`Wire::body`] and
/// [`Wire::decoder`] (pure); inside the stream the `on_payload` hook and
/// [`Wire::prepare`] (asynchronous), then the request is sent. An error of
/// any step ends the stream with one `error` event, never a Rust error.
pub trait Wire: Clone + Send + Sync + 'static {
    /// The call options.
    type Options: WireOptions;
    /// The typed request body; it may borrow from the call's context.
    type Body<'a>: Serialize
    where
        Self: 'a;
    /// The SSE decoder of the response.
    type Decoder: SseDecoder;

    /// The API key of a call: `options.api_key` when non-empty, else the
    /// provider's environment variable ([`resolve_api_key`]), else
    /// [`WireError::MissingApiKey`]. A wire with another way to authorize
    /// (Vertex's Application Default Credentials) may return an empty key
    /// and authorize in [`Wire::prepare`].
    fn api_key(&self, model: &Model, options: &StreamOptions) -> Result<String, WireError> {
        resolve_api_key(model, options)
            .ok_or_else(|| WireError::MissingApiKey(model.provider.to_string()))
    }

    /// Checks a call and resolves what its URL, headers and body depend on
    /// once the API key is known (it is in `options.base().api_key`): option
    /// values taken from the environment (cache retention, a deployment
    /// name, ...) are written into `options`, and the wire returned is the
    /// one this call uses (an endpoint resolved from the options). Runs
    /// before the body is encoded, so it cannot wait; an error (an endpoint
    /// that cannot be resolved, a key of the wrong form) ends the stream at
    /// once. The default changes nothing.
    fn resolve(&self, model: &Model, options: &mut Self::Options) -> Result<Self, WireError> {
        let _ = (model, options);
        Ok(self.clone())
    }

    /// Prepares the built request for sending once its URL, headers and
    /// body are final (after the `on_payload` hook): asynchronous work the
    /// call needs (Vertex fetches an OAuth access token) and request
    /// signing (AWS SigV4, which covers URL, headers and body; it may also
    /// move the URL). Awaited inside the stream, where the caller's
    /// cancellation applies; an error ends the stream with an `error` event
    /// carrying [`WireError::class`] before anything is sent. The default
    /// changes nothing.
    fn prepare(
        &self,
        model: &Model,
        options: &Self::Options,
        request: &mut HttpRequest,
    ) -> impl Future<Output = Result<(), WireError>> + Send {
        let _ = (model, options, request);
        std::future::ready(Ok(()))
    }

    /// The endpoint URL.
    fn url(&self, model: &Model) -> String;

    /// The wire's own headers (auth, version, content type, ...).
    fn headers(
        &self,
        model: &Model,
        context: ContextRef<'_>,
        options: &Self::Options,
        api_key: &str,
    ) -> WireHeaders;

    /// The request body.
    fn body<'a>(
        &self,
        model: &'a Model,
        context: ContextRef<'a>,
        options: &'a Self::Options,
    ) -> Self::Body<'a>;

    /// A decoder for one response.
    fn decoder(
        &self,
        model: &Model,
        context: ContextRef<'_>,
        options: &Self::Options,
        api_key: &str,
    ) -> Self::Decoder;

    /// Retries before the stream starts. The default is
    /// [`RetryPolicy::for_options`].
    fn retry_policy(&self, options: &Self::Options) -> RetryPolicy {
        RetryPolicy::for_options(options.base())
    }

    /// How a success body is cut into frames for the decoder: `None` (the
    /// default) is SSE; a wire with a binary framing returns its own.
    fn framing(&self) -> Option<Box<dyn BodyFraming>> {
        None
    }
}

/// Why a request could not be built.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    /// Neither the options nor the environment hold a key.
    #[error("No API key for provider: {0}")]
    MissingApiKey(String),
    /// The body (after the `on_payload` hook) is not serializable.
    #[error("Could not encode the request: {0}")]
    Encode(#[from] serde_json::Error),
    /// [`Wire::prepare`] could not sign the request; the text says what is
    /// missing.
    #[error("{0}")]
    Sign(String),
    /// A Cloudflare base URL names an environment variable that is not set.
    #[error(transparent)]
    BaseUrl(#[from] crate::cloudflare::BaseUrlError),
    /// The wire's own check ([`Wire::resolve`]) or preparation
    /// ([`Wire::prepare`]) failed: its error's text, and the class the
    /// failed message carries (`None`: no class, as for the other variants).
    #[error("{source}")]
    Call {
        /// What failed.
        source: Box<dyn Error + Send + Sync>,
        /// The failure's class ([`ErrorClass::Aborted`] ends the stream
        /// as cancelled).
        class: Option<ErrorClass>,
    },
}

impl WireError {
    /// A wire's own failure, with no class.
    pub fn call(source: impl Error + Send + Sync + 'static) -> Self {
        Self::Call {
            source: Box::new(source),
            class: None,
        }
    }

    /// A wire's own failure of a known class.
    pub fn classed(source: impl Error + Send + Sync + 'static, class: ErrorClass) -> Self {
        Self::Call {
            source: Box::new(source),
            class: Some(class),
        }
    }

    /// The class the failed message carries, when known.
    pub fn class(&self) -> Option<ErrorClass> {
        match self {
            Self::Call { class, .. } => *class,
            Self::MissingApiKey(_) | Self::Encode(_) | Self::Sign(_) | Self::BaseUrl(_) => None,
        }
    }

    /// A stream that ends with this error at once (nothing was sent, so
    /// the caller's cancellation does not change the outcome).
    pub fn into_stream(self, initial: AssistantMessage) -> AssistantMessageEventStream {
        AssistantMessageEventStream::new(
            initial,
            CancellationToken::new(),
            move |sink| async move { self.fail(sink) },
        )
    }

    /// Ends the stream of `sink` with this error: `aborted` for
    /// [`ErrorClass::Aborted`], else an `error` event with the class.
    pub fn fail(self, sink: EventSink) {
        match self.class() {
            Some(ErrorClass::Aborted) => sink.error(ErrorReason::Aborted, self.to_string()),
            Some(class) => sink.error_with_class(class, self.to_string()),
            None => sink.error(ErrorReason::Error, self.to_string()),
        }
    }
}

/// The API key of a call: `options.api_key` when non-empty, else the
/// provider's environment variable.
pub fn resolve_api_key(model: &Model, options: &StreamOptions) -> Option<String> {
    options
        .api_key
        .clone()
        .filter(|key| !key.is_empty())
        .or_else(|| get_env_api_key(model.provider.as_str()))
}

/// All headers of a call: the wire's layers around the model's and the
/// call's headers (see [`WireHeaders`]).
pub fn wire_headers<'c, W: Wire>(
    wire: &W,
    model: &Model,
    context: impl Into<ContextRef<'c>>,
    options: &W::Options,
    api_key: &str,
) -> Headers {
    let context = context.into();
    let mut layers = wire.headers(model, context, options, api_key);
    crate::cloudflare::apply_gateway_auth(&mut layers, model, api_key);
    let WireHeaders {
        base: mut headers,
        after_model,
        fixed,
    } = layers;
    headers.merge(model.headers.iter().flatten());
    headers.merge(after_model.into_pairs().iter().map(|(n, v)| (n, v)));
    headers.merge(&options.base().headers);
    headers.merge(fixed.into_pairs().iter().map(|(n, v)| (n, v)));
    headers
}

/// A call's request body, encoded: the bytes to send, or the body as JSON
/// waiting for the caller's `on_payload` hook (see [`EncodedBody::finish`]).
#[derive(Debug)]
pub enum EncodedBody {
    /// The bytes to send: the call has no `on_payload` hook, and the body was
    /// written straight from the wire's typed body.
    Ready(Vec<u8>),
    /// The body as JSON, for `hook` to inspect or replace before it is sent.
    Hooked {
        /// The body the wire built.
        payload: Value,
        /// The call's `on_payload` hook.
        hook: PayloadHook,
    },
}

impl EncodedBody {
    /// The bytes to send: awaits the hook when there is one (its
    /// replacement, or the wire's body when it returns `None`).
    pub async fn finish(self, model: &Model) -> Result<Vec<u8>, WireError> {
        match self {
            Self::Ready(bytes) => Ok(bytes),
            Self::Hooked { payload, hook } => {
                Ok(serde_json::to_vec(&hook.apply(payload, model).await)?)
            }
        }
    }
}

/// The body of a call: the wire's body, written as bytes at once when there is
/// no `on_payload` hook, else as JSON for the hook ([`EncodedBody::finish`]).
pub fn encode_body<'c, W: Wire>(
    wire: &W,
    model: &Model,
    context: impl Into<ContextRef<'c>>,
    options: &W::Options,
) -> Result<EncodedBody, WireError> {
    let context = context.into();
    let body = wire.body(model, context, options);
    Ok(match &options.base().on_payload {
        None => {
            let mut bytes = Vec::with_capacity(crate::body_capacity::body_capacity(context));
            serde_json::to_writer(&mut bytes, &body)?;
            EncodedBody::Ready(bytes)
        }
        Some(hook) => EncodedBody::Hooked {
            payload: serde_json::to_value(&body)?,
            hook: hook.clone(),
        },
    })
}

/// A call's request before its body is final: what needs the context
/// (merged headers, the encoded body) is done; the `on_payload` hook and
/// [`Wire::prepare`] wait for [`PreparedRequest::finish`].
#[derive(Debug)]
pub struct PreparedRequest<W> {
    /// The wire of this call (what [`Wire::resolve`] returned).
    pub wire: W,
    /// Absolute URL.
    pub url: String,
    /// The merged headers, in order.
    pub headers: Vec<(String, String)>,
    /// The body, maybe waiting for the hook.
    pub body: EncodedBody,
    /// The API key the call uses.
    pub api_key: String,
}

impl<W: Wire> PreparedRequest<W> {
    /// Whether the body still waits for an `on_payload` hook.
    pub fn is_hooked(&self) -> bool {
        matches!(self.body, EncodedBody::Hooked { .. })
    }

    /// The request to send: the body after the hook (awaited), then
    /// [`Wire::prepare`] (awaited).
    pub async fn finish(
        self,
        model: &Model,
        options: &W::Options,
    ) -> Result<HttpRequest, WireError> {
        let mut request = HttpRequest {
            url: self.url,
            headers: self.headers,
            body: self.body.finish(model).await?.into(),
        };
        self.wire.prepare(model, options, &mut request).await?;
        Ok(request)
    }
}

/// Everything of a call's HTTP request that needs its context: the API key
/// ([`Wire::api_key`], written into the options), [`Wire::resolve`], the
/// URL, the merged headers and the encoded body.
/// [`PreparedRequest::finish`] runs the `on_payload` hook and
/// [`Wire::prepare`].
pub fn prepare_request<'c, W: Wire>(
    wire: &W,
    model: &Model,
    context: impl Into<ContextRef<'c>>,
    options: &mut W::Options,
) -> Result<PreparedRequest<W>, WireError> {
    let context = context.into();
    // Cloudflare's base URLs name the account (and gateway) to use.
    let resolved = crate::cloudflare::resolve_model(model, |name| std::env::var(name).ok())?;
    let model = resolved.as_ref();
    let api_key = wire.api_key(model, options.base())?;
    options.base_mut().api_key = Some(api_key.clone());
    let wire = wire.resolve(model, options)?;
    let body = encode_body(&wire, model, context, options)?;
    Ok(PreparedRequest {
        url: wire.url(model),
        headers: wire_headers(&wire, model, context, options, &api_key).into_pairs(),
        body,
        api_key,
        wire,
    })
}

/// Streams one call of `wire` with its own retry policy. Never fails outside
/// the stream: a missing key or an unencodable body ends it with an `error`
/// event at once, transport failures and HTTP errors with an `error` event
/// carrying their [`pi_ai::ErrorClass`], cancellation with `aborted`.
pub fn stream_wire<'c, W: Wire>(
    wire: &W,
    model: &Model,
    context: impl Into<ContextRef<'c>>,
    options: W::Options,
) -> AssistantMessageEventStream {
    run(wire, None, model, context.into(), options)
}

fn run<W: Wire>(
    wire: &W,
    policy: Option<RetryPolicy>,
    model: &Model,
    context: ContextRef<'_>,
    mut options: W::Options,
) -> AssistantMessageEventStream {
    let initial = AssistantMessage::empty(
        model.api.clone(),
        model.provider.clone(),
        model.id.clone(),
        now_ms(),
    );
    let cancel = options.base().cancel.clone();
    let prepared = match prepare_request(wire, model, context, &mut options) {
        Ok(prepared) => prepared,
        Err(error) => return error.into_stream(initial),
    };
    let decoder = prepared
        .wire
        .decoder(model, context, &options, &prepared.api_key);
    let policy = policy.unwrap_or_else(|| prepared.wire.retry_policy(&options));
    let framing = prepared.wire.framing();
    // The `on_payload` hook and `Wire::prepare` are awaited inside the
    // stream, right before the request is sent.
    let model = model.clone();
    AssistantMessageEventStream::new(initial, cancel.clone(), move |sink| async move {
        let request = match prepared.finish(&model, &options).await {
            Ok(request) => request,
            Err(error) => return error.fail(sink),
        };
        let mut call = SseCall::new(request, options.base());
        call.policy = policy;
        drive_framed(sink, call, framing, cancel, decoder).await;
    })
}

/// A wire as a [`StreamFunction`] for pi's api registry, with an optional
/// retry policy replacing the wire's own (tests use short delays).
#[derive(Debug, Clone, Copy, Default)]
pub struct WireProvider<W> {
    wire: W,
    retry_policy: Option<RetryPolicy>,
}

impl<W: Wire> WireProvider<W> {
    /// The provider of `wire`.
    pub const fn of(wire: W) -> Self {
        Self {
            wire,
            retry_policy: None,
        }
    }

    /// The provider of the wire's default value.
    pub fn new() -> Self
    where
        W: Default,
    {
        Self::of(W::default())
    }

    /// Uses `policy` for retries before the stream starts.
    #[must_use]
    pub fn with_retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.retry_policy = Some(policy);
        self
    }

    /// The wire.
    pub fn wire(&self) -> &W {
        &self.wire
    }

    /// Streams with the wire's full options.
    pub fn stream_with<'c>(
        &self,
        model: &Model,
        context: impl Into<ContextRef<'c>>,
        options: W::Options,
    ) -> AssistantMessageEventStream {
        run(
            &self.wire,
            self.retry_policy,
            model,
            context.into(),
            options,
        )
    }

    /// Registers this provider for `api` in pi's global api registry.
    pub fn register(self, api: Api, source_id: &str) {
        register_api_provider(api, Arc::new(self), source_id);
    }
}

impl<W: Wire> StreamFunction for WireProvider<W> {
    fn stream(
        &self,
        model: &Model,
        context: ContextRef<'_>,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        self.stream_with(model, context, W::Options::from_stream(model, options))
    }

    fn stream_simple(
        &self,
        model: &Model,
        context: ContextRef<'_>,
        options: SimpleStreamOptions,
    ) -> AssistantMessageEventStream {
        self.stream_with(model, context, W::Options::from_simple(model, options))
    }
}
