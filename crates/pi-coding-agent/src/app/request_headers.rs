//! The stream function the app's agent uses: pi-ai's registry, with the
//! request headers of models.json (resolved per request, `authHeader`)
//! added to each call as pi's `getApiKeyAndHeaders` does.

use std::collections::BTreeMap;
use std::sync::Arc;

use pi_agent_core::GlobalRegistryStream;
use pi_ai::{
    AssistantMessage, AssistantMessageEventStream, ContextRef, Model, SimpleStreamOptions,
    StreamFunction, StreamOptions,
};

use crate::config::{ConfigError, ModelRegistry};

/// Adds models.json request headers to every call, then streams through
/// the inner function (the global registry by default).
pub struct RegistryHeaders {
    registry: ModelRegistry,
    inner: Arc<dyn StreamFunction>,
}

impl std::fmt::Debug for RegistryHeaders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegistryHeaders").finish_non_exhaustive()
    }
}

impl RegistryHeaders {
    /// Headers from `registry`, streaming through pi-ai's registry.
    pub fn new(registry: ModelRegistry) -> Self {
        Self::with_inner(registry, Arc::new(GlobalRegistryStream))
    }

    /// Headers from `registry`, streaming through `inner`.
    pub fn with_inner(registry: ModelRegistry, inner: Arc<dyn StreamFunction>) -> Self {
        Self { registry, inner }
    }

    /// `options` with the registry's headers under the ones already set.
    fn headers_for(
        &self,
        model: &Model,
        options: &StreamOptions,
    ) -> Result<BTreeMap<String, String>, ConfigError> {
        let mut headers = self
            .registry
            .request_headers(model, options.api_key.as_deref())?
            .unwrap_or_default();
        headers.extend(options.headers.clone());
        Ok(headers)
    }
}

fn failed(model: &Model, error: &ConfigError) -> AssistantMessageEventStream {
    let message = AssistantMessage::empty(
        model.api.clone(),
        model.provider.clone(),
        model.id.clone(),
        chrono::Utc::now().timestamp_millis(),
    );
    AssistantMessageEventStream::failed(message, error.to_string())
}

impl StreamFunction for RegistryHeaders {
    fn stream(
        &self,
        model: &Model,
        context: ContextRef<'_>,
        mut options: StreamOptions,
    ) -> AssistantMessageEventStream {
        match self.headers_for(model, &options) {
            Ok(headers) => {
                options.headers = headers;
                self.inner.stream(model, context, options)
            }
            Err(e) => failed(model, &e),
        }
    }

    fn stream_simple(
        &self,
        model: &Model,
        context: ContextRef<'_>,
        mut options: SimpleStreamOptions,
    ) -> AssistantMessageEventStream {
        match self.headers_for(model, &options.base) {
            Ok(headers) => {
                options.base.headers = headers;
                self.inner.stream_simple(model, context, options)
            }
            Err(e) => failed(model, &e),
        }
    }
}
