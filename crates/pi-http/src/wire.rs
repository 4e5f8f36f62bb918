//! The shape every wire format takes, and the one generic call that runs it.
//!
//! A provider crate implements [`Wire`] (URL, headers, body, decoder, retry
//! policy) for a unit type and exposes it as a [`WireProvider`]; the common
//! steps live here once: the initial message, the API key lookup (options,
//! then the provider's environment variable), the `on_payload` hook (awaited
//! right before the request is sent), the header merge, the encode-error
//! wording, and the driver that sends the request (calling `on_response` on
//! each answer) and turns every failure into the stream's `error` event.

use std::sync::Arc;

use pi_ai::{
    Api, AssistantMessage, AssistantMessageEventStream, ContextRef, ErrorReason, Model,
    PayloadHook, SimpleStreamOptions, StreamFunction, StreamOptions, get_env_api_key, now_ms,
    register_api_provider,
};
use serde::Serialize;
use serde_json::Value;

use crate::{
    BodyFraming, Headers, HttpRequest, RetryPolicy, SseCall, SseDecoder, drive_framed,
    stream_framed,
};

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

/// One wire format: how a call is addressed, encoded and decoded. Every
/// method is pure; [`stream_wire`] runs the call.
pub trait Wire: Clone + Send + Sync + 'static {
    /// The call options.
    type Options: WireOptions;
    /// The typed request body; it may borrow from the call's context.
    type Body<'a>: Serialize
    where
        Self: 'a;
    /// The SSE decoder of the response.
    type Decoder: SseDecoder;

    /// Resolves option values that depend on the environment (cache
    /// retention, ...) once the API key is known (it is in
    /// `options.base().api_key`). The default changes nothing.
    fn prepare(&self, model: &Model, options: &mut Self::Options) {
        let _ = (model, options);
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

    /// Finishes the built request once its URL, headers and body are final
    /// (request signing, e.g. AWS SigV4, which covers all three). An error
    /// (missing credentials) ends the call before anything is sent. The
    /// default changes nothing.
    fn sign(
        &self,
        model: &Model,
        options: &Self::Options,
        request: &mut HttpRequest,
    ) -> Result<(), WireError> {
        let _ = (model, options, request);
        Ok(())
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
    /// [`Wire::sign`] could not sign the request; the text says what is missing.
    #[error("{0}")]
    Sign(String),
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
    let WireHeaders {
        base: mut headers,
        after_model,
        fixed,
    } = wire.headers(model, context, options, api_key);
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
/// [`Wire::sign`] wait for [`PreparedRequest::finish`].
#[derive(Debug)]
pub struct PreparedRequest {
    /// Absolute URL.
    pub url: String,
    /// The merged headers, in order.
    pub headers: Vec<(String, String)>,
    /// The body, maybe waiting for the hook.
    pub body: EncodedBody,
    /// The API key the call uses.
    pub api_key: String,
}

impl PreparedRequest {
    /// Whether the body still waits for an `on_payload` hook.
    pub fn is_hooked(&self) -> bool {
        matches!(self.body, EncodedBody::Hooked { .. })
    }

    /// The request to send: the body after the hook (awaited), signed by
    /// [`Wire::sign`].
    pub async fn finish<W: Wire>(
        self,
        wire: &W,
        model: &Model,
        options: &W::Options,
    ) -> Result<HttpRequest, WireError> {
        let body = self.body.finish(model).await?;
        signed(wire, model, options, self.url, self.headers, body)
    }
}

/// A request from its final parts, signed by [`Wire::sign`].
fn signed<W: Wire>(
    wire: &W,
    model: &Model,
    options: &W::Options,
    url: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
) -> Result<HttpRequest, WireError> {
    let mut request = HttpRequest {
        url,
        headers,
        body: body.into(),
    };
    wire.sign(model, options, &mut request)?;
    Ok(request)
}

/// Everything of a call's HTTP request that needs its context, after
/// [`Wire::prepare`]: the API key, URL, merged headers and encoded body.
/// [`PreparedRequest::finish`] runs the `on_payload` hook and signs it.
pub fn prepare_request<'c, W: Wire>(
    wire: &W,
    model: &Model,
    context: impl Into<ContextRef<'c>>,
    options: &mut W::Options,
) -> Result<PreparedRequest, WireError> {
    let context = context.into();
    let api_key = resolve_api_key(model, options.base())
        .ok_or_else(|| WireError::MissingApiKey(model.provider.to_string()))?;
    options.base_mut().api_key = Some(api_key.clone());
    wire.prepare(model, options);
    let body = encode_body(wire, model, context, options)?;
    Ok(PreparedRequest {
        url: wire.url(model),
        headers: wire_headers(wire, model, context, options, &api_key).into_pairs(),
        body,
        api_key,
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
    let prepared = match prepare_request(wire, model, context, &mut options) {
        Ok(prepared) => prepared,
        Err(error) => return AssistantMessageEventStream::failed(initial, error.to_string()),
    };
    let decoder = wire.decoder(model, context, &options, &prepared.api_key);
    let policy = policy.unwrap_or_else(|| wire.retry_policy(&options));
    let cancel = options.base().cancel.clone();
    if let EncodedBody::Ready(body) = prepared.body {
        let PreparedRequest { url, headers, .. } = prepared;
        return match signed(wire, model, &options, url, headers, body) {
            Ok(request) => {
                let mut call = SseCall::new(request, options.base());
                call.policy = policy;
                stream_framed(initial, call, wire.framing(), cancel, decoder)
            }
            Err(error) => AssistantMessageEventStream::failed(initial, error.to_string()),
        };
    }
    // The `on_payload` hook is awaited inside the stream, right before the
    // request is sent.
    let (wire, model) = (wire.clone(), model.clone());
    AssistantMessageEventStream::new(initial, cancel.clone(), move |sink| async move {
        let request = match prepared.finish(&wire, &model, &options).await {
            Ok(request) => request,
            Err(error) => return sink.error(ErrorReason::Error, error.to_string()),
        };
        let mut call = SseCall::new(request, options.base());
        call.policy = policy;
        drive_framed(sink, call, wire.framing(), cancel, decoder).await;
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
