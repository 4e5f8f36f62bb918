//! The HTTP client: one POST with retries, cancellation and error bodies read.

use std::sync::OnceLock;
use std::time::Duration;

use bytes::Bytes;
use pi_ai::{ProviderResponse, ResponseHook};
use tokio_util::sync::CancellationToken;

use crate::redirect;
use crate::retry::retry_after;
use crate::sse::describe;
use crate::{HttpError, RetryPolicy, error_text_from_body};

/// A request to send: URL, headers and a body. Providers build it; the
/// transport never looks inside the body.
#[derive(Debug, Clone, Default)]
pub struct HttpRequest {
    /// Absolute URL.
    pub url: String,
    /// Header name/value pairs, in order.
    pub headers: Vec<(String, String)>,
    /// Request body (JSON bytes for every current provider).
    pub body: Bytes,
}

/// The most bytes of an error answer's body read (the rest is not read).
pub const MAX_ERROR_BODY_BYTES: usize = 1024 * 1024;

/// The start of an error answer's body, at most [`MAX_ERROR_BODY_BYTES`]
/// (a 200 MB error page is not read whole), decoded lossily.
pub(crate) async fn read_error_body(response: reqwest::Response) -> String {
    use futures::StreamExt;
    let mut body = std::pin::pin!(response.bytes_stream());
    let mut bytes = Vec::new();
    while let Some(Ok(chunk)) = body.next().await {
        let room = MAX_ERROR_BODY_BYTES - bytes.len();
        bytes.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if bytes.len() >= MAX_ERROR_BODY_BYTES {
            break;
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The status and headers of `response` as `on_response` sees them.
fn provider_response(response: &reqwest::Response) -> ProviderResponse {
    let pairs = response
        .headers()
        .iter()
        .map(|(name, value)| (name.as_str(), String::from_utf8_lossy(value.as_bytes())));
    ProviderResponse::from_pairs(response.status().as_u16(), pairs)
}

/// A shared HTTP client (connection pool, rustls).
#[derive(Debug, Clone)]
pub struct HttpClient {
    inner: reqwest::Client,
}

impl HttpClient {
    /// A new client with a 30 s connect timeout. Redirects are followed by
    /// [`Self::post`] itself, which drops every header that may carry a key
    /// before a request goes to another origin.
    pub fn new() -> Result<Self, HttpError> {
        reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(30))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map(|inner| Self { inner })
            .map_err(|e| HttpError::InvalidRequest(describe(&e)))
    }

    /// The process-wide client, built on first use.
    pub fn shared() -> Result<&'static Self, HttpError> {
        static SHARED: OnceLock<Result<HttpClient, HttpError>> = OnceLock::new();
        SHARED.get_or_init(Self::new).as_ref().map_err(Clone::clone)
    }

    /// POSTs `request`, retrying transient failures (429, 408, 409, 5xx,
    /// connection errors, no headers within `first_byte_timeout`) per
    /// `policy`, and returns the first successful response with its body
    /// unread. Cancellation aborts at once, also during a backoff.
    pub async fn post(
        &self,
        request: &HttpRequest,
        policy: &RetryPolicy,
        first_byte_timeout: Duration,
        cancel: &CancellationToken,
    ) -> Result<reqwest::Response, HttpError> {
        self.post_with(request, policy, first_byte_timeout, cancel, None)
            .await
    }

    /// [`Self::post`], calling `on_response` with the status and headers of
    /// each answer (after redirects; each retried attempt and error statuses
    /// too) before its body is read, and awaiting it. Cancellation aborts
    /// the wait for the hook too.
    pub async fn post_with(
        &self,
        request: &HttpRequest,
        policy: &RetryPolicy,
        first_byte_timeout: Duration,
        cancel: &CancellationToken,
        on_response: Option<&ResponseHook>,
    ) -> Result<reqwest::Response, HttpError> {
        let mut retry = 0;
        loop {
            let attempt = self.attempt(request, first_byte_timeout, cancel, on_response);
            let error = match attempt.await {
                Ok(response) => return Ok(response),
                Err(error) => error,
            };
            if !error.is_retryable() || retry >= policy.max_retries {
                return Err(error);
            }
            let requested = match &error {
                HttpError::Status { retry_after, .. } => *retry_after,
                _ => None,
            };
            if let (
                Some(requested),
                Some(limit),
                HttpError::Status {
                    status, message, ..
                },
            ) = (requested, policy.delay_cap(), &error)
                && requested > limit
            {
                return Err(HttpError::RetryDelayTooLong {
                    status: *status,
                    message: message.clone(),
                    requested,
                    limit,
                });
            }
            let delay = requested.unwrap_or_else(|| policy.backoff(retry));
            retry += 1;
            tracing::warn!(%error, retry, delay_ms = delay.as_millis() as u64, url = %request.url, "retrying request");
            tokio::select! {
                () = cancel.cancelled() => return Err(HttpError::Aborted),
                () = tokio::time::sleep(delay) => {}
            }
        }
    }

    async fn attempt(
        &self,
        request: &HttpRequest,
        first_byte_timeout: Duration,
        cancel: &CancellationToken,
        on_response: Option<&ResponseHook>,
    ) -> Result<reqwest::Response, HttpError> {
        let invalid = |why: String| {
            HttpError::InvalidRequest(format!(
                "the request URL {:?} is not a valid URL ({why}); check the provider's baseUrl",
                request.url
            ))
        };
        let mut url = reqwest::Url::parse(&request.url).map_err(|e| invalid(e.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(invalid("it must start with http:// or https://".to_owned()));
        }
        let mut method = reqwest::Method::POST;
        // Copied only when a redirect drops some of them.
        let mut headers = std::borrow::Cow::Borrowed(request.headers.as_slice());
        let mut body = Some(request.body.clone());
        let mut redirects = 0;
        let response = loop {
            let mut builder = self.inner.request(method.clone(), url.clone());
            if let Some(body) = &body {
                builder = builder.body(body.clone());
            }
            for (name, value) in headers.iter() {
                builder = builder.header(name.as_str(), value.as_str());
            }
            let response = tokio::select! {
                () = cancel.cancelled() => return Err(HttpError::Aborted),
                result = tokio::time::timeout(first_byte_timeout, builder.send()) => match result {
                    Err(_) => return Err(HttpError::Timeout(first_byte_timeout)),
                    Ok(result) => result.map_err(|e| {
                        if e.is_builder() { HttpError::InvalidRequest(describe(&e)) } else { HttpError::Connection(describe(&e)) }
                    })?,
                },
            };
            let hop = match redirect::next_hop(&url, &method, response.status(), response.headers())
            {
                None => break response,
                Some(Err(why)) => return Err(HttpError::Connection(why.to_string())),
                Some(Ok(hop)) => hop,
            };
            redirects += 1;
            if redirects > redirect::MAX_REDIRECTS {
                return Err(HttpError::Connection(format!(
                    "more than {} redirects, the last to {}",
                    redirect::MAX_REDIRECTS,
                    hop.url
                )));
            }
            if hop.cross_origin {
                headers
                    .to_mut()
                    .retain(|(name, _)| !redirect::is_sensitive(name));
            }
            if hop.method != method {
                body = None;
                headers
                    .to_mut()
                    .retain(|(name, _)| !redirect::describes_body(name));
            }
            tracing::debug!(from = %url, to = %hop.url, cross_origin = hop.cross_origin, "following a redirect");
            (url, method) = (hop.url, hop.method);
        };
        if let Some(hook) = on_response {
            let observed = provider_response(&response);
            tokio::select! {
                () = cancel.cancelled() => return Err(HttpError::Aborted),
                () = hook.call(observed) => {}
            }
        }
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let retry_after = retry_after(response.headers());
        let headers = response
            .headers()
            .iter()
            .filter_map(|(name, value)| {
                Some((name.as_str().to_owned(), value.to_str().ok()?.to_owned()))
            })
            .collect();
        let body = tokio::select! {
            () = cancel.cancelled() => return Err(HttpError::Aborted),
            body = tokio::time::timeout(first_byte_timeout, read_error_body(response)) => {
                body.unwrap_or_default()
            }
        };
        Err(HttpError::Status {
            status: status.as_u16(),
            message: error_text_from_body(&body),
            body,
            retry_after,
            headers,
        })
    }
}
