//! The `bedrock-converse-stream` wire over `pi-http`: URL, headers, body,
//! SigV4 or bearer authorization and the event-stream framing of one call
//! ([`BedrockWire`]), run by [`pi_http::stream_wire`].
//!
//! The API key of the call plays no part, as in pi (whose SDK ignores it):
//! the provider's key is `"<authenticated>"` when AWS credentials are in
//! the environment, and a custom provider's `apiKey` in models.json is a
//! placeholder pi requires. Authorization comes from
//! [`crate::credentials::resolve_auth`] when the request is signed.

use std::future::Future;
use std::time::SystemTime;

use pi_ai::{ContextRef, Model};
use pi_http::{
    BodyFraming, Headers, HttpRequest, RetryPolicy, Wire, WireError, WireHeaders, WireProvider,
};

use crate::credentials::{Auth, resolve_auth};
use crate::decode::BedrockDecoder;
use crate::endpoint::{configured_region, converse_stream_url, resolve_target};
use crate::env::AwsEnvironment;
use crate::eventstream::EventStreamFraming;
use crate::options::{BedrockOptions, Resolved};
use crate::request::build_request_body;
use crate::sigv4::{SigningScope, sign_request};
use crate::wire::ConverseStreamRequest;

/// The `bedrock-converse-stream` wire (pi's `streamBedrock`), reading AWS
/// settings from its [`AwsEnvironment`] (the process environment by default).
#[derive(Debug, Clone, Default)]
pub struct BedrockWire {
    env: AwsEnvironment,
}

impl BedrockWire {
    /// The wire reading AWS settings from `env`.
    pub fn with_env(env: AwsEnvironment) -> Self {
        Self { env }
    }

    /// Its environment.
    pub fn env(&self) -> &AwsEnvironment {
        &self.env
    }
}

/// The `bedrock-converse-stream` stream function: [`BedrockWire`] over `pi-http`.
pub type BedrockProvider = WireProvider<BedrockWire>;

impl Wire for BedrockWire {
    type Options = BedrockOptions;
    type Body<'a> = ConverseStreamRequest<'a>;
    type Decoder = BedrockDecoder;

    /// The cache retention (`PI_CACHE_RETENTION`), `AWS_BEDROCK_FORCE_CACHE`
    /// and the configured region, which the body depends on.
    fn resolve(&self, _model: &Model, options: &mut BedrockOptions) -> Result<Self, WireError> {
        let cache_retention = match options.base.cache_retention {
            Some(retention) => retention,
            None if self.env.var("PI_CACHE_RETENTION").as_deref() == Some("long") => {
                pi_ai::CacheRetention::Long
            }
            None => pi_ai::CacheRetention::Short,
        };
        options.resolved = Resolved {
            cache_retention,
            force_cache: self.env.var("AWS_BEDROCK_FORCE_CACHE").as_deref() == Some("1"),
            region: configured_region(options, &self.env),
        };
        Ok(self.clone())
    }

    /// The default retries: pi's AWS SDK keeps its own and takes no
    /// `maxRetries` (only the server delay limit applies).
    fn retry_policy(&self, options: &BedrockOptions) -> RetryPolicy {
        RetryPolicy {
            max_retries: RetryPolicy::default().max_retries,
            ..RetryPolicy::for_options(&options.base)
        }
    }

    /// `{baseUrl}/model/{modelId}/converse-stream`; [`Wire::prepare`] moves
    /// it to the configured region's endpoint where pi's SDK would.
    fn url(&self, model: &Model) -> String {
        converse_stream_url(&model.base_url, &model.id)
    }

    /// `content-type: application/json` (authorization is added when signing).
    fn headers(
        &self,
        _model: &Model,
        _context: ContextRef<'_>,
        _options: &BedrockOptions,
        _api_key: &str,
    ) -> WireHeaders {
        let mut base = Headers::new();
        base.set("content-type", "application/json");
        WireHeaders {
            base,
            ..WireHeaders::default()
        }
    }

    fn body<'a>(
        &self,
        model: &'a Model,
        context: ContextRef<'a>,
        options: &'a BedrockOptions,
    ) -> ConverseStreamRequest<'a> {
        build_request_body(model, context, options)
    }

    fn decoder(
        &self,
        model: &Model,
        _context: ContextRef<'_>,
        _options: &BedrockOptions,
        _api_key: &str,
    ) -> BedrockDecoder {
        BedrockDecoder::new(model)
    }

    fn framing(&self) -> Option<Box<dyn BodyFraming>> {
        Some(Box::new(EventStreamFraming::new()))
    }

    /// Resolves the endpoint, region and credentials, then authorizes the
    /// request: `Authorization: Bearer` with a Bedrock API key, else SigV4
    /// for service `bedrock` in the region.
    fn prepare(
        &self,
        model: &Model,
        options: &BedrockOptions,
        request: &mut HttpRequest,
    ) -> impl Future<Output = Result<(), WireError>> + Send {
        std::future::ready(self.authorize(model, options, request))
    }
}

impl BedrockWire {
    /// [`Wire::prepare`]'s work, which needs no waiting.
    fn authorize(
        &self,
        model: &Model,
        options: &BedrockOptions,
        request: &mut HttpRequest,
    ) -> Result<(), WireError> {
        let fail = |text: String| WireError::Sign(format!("{}: {text}", model.provider));
        let target = resolve_target(model, options, &self.env).map_err(|e| fail(e.to_string()))?;
        request.url = converse_stream_url(&target.endpoint, &model.id);
        match resolve_auth(options, &self.env).map_err(|e| fail(e.to_string()))? {
            Auth::Bearer(token) => {
                request
                    .headers
                    .retain(|(name, _)| !name.eq_ignore_ascii_case("authorization"));
                request
                    .headers
                    .push(("authorization".to_owned(), format!("Bearer {token}")));
                Ok(())
            }
            Auth::SigV4(credentials) => sign_request(
                request,
                &credentials,
                SigningScope::bedrock(&target.region),
                SystemTime::now(),
            )
            .map_err(|e| fail(e.to_string())),
        }
    }
}
