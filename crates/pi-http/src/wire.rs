//! The shape every wire format takes, and the one generic call that runs it.
//!
//! A provider crate implements [`Wire`] (URL, headers, body, decoder, retry
//! policy) for a unit type and exposes it as a [`WireProvider`]; the common
//! steps live here once: the initial message, the API key lookup (options,
//! then the provider's environment variable), the `on_payload` hook, the
//! header merge, the encode-error wording, and the driver that sends the
//! request and turns every failure into the stream's `error` event.

use std::sync::Arc;

use pi_ai::{
    Api, AssistantMessage, AssistantMessageEventStream, ContextRef, Model, SimpleStreamOptions,
    StreamFunction, StreamOptions, get_env_api_key, now_ms, register_api_provider,
};
use serde::Serialize;

use crate::{BodyFraming, Headers, HttpRequest, RetryPolicy, SseCall, SseDecoder, stream_framed};

/// A wire's call options: pi's provider-level [`StreamOptions`] plus what
/// the wire adds (reasoning effort, tool choice, ...).
pub trait WireOptions: Default + Send + 'static {
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
pub trait Wire: Send + Sync + 'static {
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

/// The body bytes of a call: the wire's body, passed through the caller's
/// `on_payload` hook when there is one.
pub fn encode_body<'c, W: Wire>(
    wire: &W,
    model: &Model,
    context: impl Into<ContextRef<'c>>,
    options: &W::Options,
) -> Result<Vec<u8>, WireError> {
    let context = context.into();
    let body = wire.body(model, context, options);
    let base = options.base();
    let bytes = match &base.on_payload {
        None => {
            let mut bytes = Vec::with_capacity(crate::body_capacity::body_capacity(context));
            serde_json::to_writer(&mut bytes, &body)?;
            bytes
        }
        Some(_) => serde_json::to_vec(&base.apply_on_payload(serde_json::to_value(&body)?, model))?,
    };
    Ok(bytes)
}

/// The whole HTTP request of a call, after [`Wire::prepare`]: URL, merged
/// headers and encoded body, signed by [`Wire::sign`], with the API key it used.
pub fn build_request<'c, W: Wire>(
    wire: &W,
    model: &Model,
    context: impl Into<ContextRef<'c>>,
    options: &mut W::Options,
) -> Result<(HttpRequest, String), WireError> {
    let context = context.into();
    let api_key = resolve_api_key(model, options.base())
        .ok_or_else(|| WireError::MissingApiKey(model.provider.to_string()))?;
    options.base_mut().api_key = Some(api_key.clone());
    wire.prepare(model, options);
    let body = encode_body(wire, model, context, options)?;
    let mut request = HttpRequest {
        url: wire.url(model),
        headers: wire_headers(wire, model, context, options, &api_key).into_pairs(),
        body: body.into(),
    };
    wire.sign(model, options, &mut request)?;
    Ok((request, api_key))
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
    let (request, api_key) = match build_request(wire, model, context, &mut options) {
        Ok(built) => built,
        Err(error) => return AssistantMessageEventStream::failed(initial, error.to_string()),
    };
    let decoder = wire.decoder(model, context, &options, &api_key);
    let mut call = SseCall::new(request, options.base());
    call.policy = policy.unwrap_or_else(|| wire.retry_policy(&options));
    let cancel = options.base().cancel.clone();
    stream_framed(initial, call, wire.framing(), cancel, decoder)
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
