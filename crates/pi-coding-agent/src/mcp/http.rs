//! The SDK's streamable HTTP client transport on the workspace's reqwest
//! (rmcp's own client brings a second reqwest and TLS stack): one POST
//! per message, answered with JSON, an event stream or `202 Accepted`; a
//! GET for the server's own event stream; a DELETE that ends the session.
//! Header values (which may hold secrets) are sent, never logged.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use futures::StreamExt;
use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, JsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, SseError, StreamableHttpClient, StreamableHttpError,
    StreamableHttpPostResponse,
};
use sse_stream::{Sse, SseStream};

const SESSION_HEADER: &str = "mcp-session-id";
const LAST_EVENT_HEADER: &str = "last-event-id";
const EVENT_STREAM: &str = "text/event-stream";
const JSON: &str = "application/json";
/// Bytes of an unexpected answer kept in the error.
const PREVIEW: usize = 300;

/// reqwest as the SDK's HTTP client.
#[derive(Clone, Debug, Default)]
pub struct ReqwestClient(pub reqwest::Client);

/// A request that could not be sent or read.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct HttpError(#[from] reqwest::Error);

type Failure = StreamableHttpError<HttpError>;

fn failed(error: reqwest::Error) -> Failure {
    StreamableHttpError::Client(HttpError(error))
}

fn with_headers(
    mut request: reqwest::RequestBuilder,
    session_id: Option<&str>,
    auth: Option<String>,
    custom: HashMap<HeaderName, HeaderValue>,
) -> reqwest::RequestBuilder {
    if let Some(token) = auth {
        request = request.bearer_auth(token);
    }
    for (name, value) in custom {
        request = request.header(name, value);
    }
    if let Some(session) = session_id {
        request = request.header(SESSION_HEADER, session);
    }
    request
}

fn content_type(response: &reqwest::Response) -> Option<String> {
    response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_ascii_lowercase)
}

fn events(response: reqwest::Response) -> BoxStream<'static, Result<Sse, SseError>> {
    SseStream::from_bytes_stream(response.bytes_stream()).boxed()
}

/// The error for a status that is not a success (an auth challenge, or the
/// status with the start of the body).
async fn status_error(response: reqwest::Response) -> Failure {
    let status = response.status();
    if status == reqwest::StatusCode::UNAUTHORIZED
        && let Some(challenge) = response
            .headers()
            .get(reqwest::header::WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
    {
        return StreamableHttpError::AuthRequired(AuthRequiredError::new(challenge.to_owned()));
    }
    let body = response.text().await.unwrap_or_default();
    let preview: String = body.chars().take(PREVIEW).collect();
    StreamableHttpError::UnexpectedServerResponse(Cow::Owned(format!(
        "HTTP {status}: {}",
        preview.trim()
    )))
}

impl StreamableHttpClient for ReqwestClient {
    type Error = HttpError;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, Failure> {
        let body = serde_json::to_vec(&message)?;
        let request = self
            .0
            .post(uri.as_ref())
            .header(reqwest::header::ACCEPT, format!("{EVENT_STREAM}, {JSON}"))
            .header(reqwest::header::CONTENT_TYPE, JSON)
            .body(body);
        let request = with_headers(request, session_id.as_deref(), auth_header, custom_headers);
        let response = request.send().await.map_err(failed)?;
        let status = response.status();
        if matches!(
            status,
            reqwest::StatusCode::ACCEPTED | reqwest::StatusCode::NO_CONTENT
        ) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if status == reqwest::StatusCode::NOT_FOUND && session_id.is_some() {
            return Err(StreamableHttpError::SessionExpired);
        }
        let session = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let kind = content_type(&response);
        if !status.is_success() {
            // A JSON-RPC error in the body is the server's answer.
            if kind.as_deref().is_some_and(|k| k.starts_with(JSON)) {
                let text = response.text().await.map_err(failed)?;
                if let Ok(error @ JsonRpcMessage::Error(_)) =
                    serde_json::from_str::<ServerJsonRpcMessage>(&text)
                {
                    return Ok(StreamableHttpPostResponse::Json(error, session));
                }
                let preview: String = text.chars().take(PREVIEW).collect();
                return Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
                    format!("HTTP {status}: {}", preview.trim()),
                )));
            }
            return Err(status_error(response).await);
        }
        match kind.as_deref() {
            Some(k) if k.starts_with(EVENT_STREAM) => {
                Ok(StreamableHttpPostResponse::Sse(events(response), session))
            }
            Some(k) if k.starts_with(JSON) => {
                let bytes = response.bytes().await.map_err(failed)?;
                if bytes.iter().all(u8::is_ascii_whitespace)
                    && !matches!(message, ClientJsonRpcMessage::Request(_))
                {
                    return Ok(StreamableHttpPostResponse::Accepted);
                }
                let answer = serde_json::from_slice(&bytes)?;
                Ok(StreamableHttpPostResponse::Json(answer, session))
            }
            _ if !matches!(message, ClientJsonRpcMessage::Request(_)) => {
                Ok(StreamableHttpPostResponse::Accepted)
            }
            other => Err(StreamableHttpError::UnexpectedContentType(
                other.map(str::to_owned),
            )),
        }
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), Failure> {
        let request = with_headers(
            self.0.delete(uri.as_ref()),
            Some(&session_id),
            auth_header,
            custom_headers,
        );
        let response = request.send().await.map_err(failed)?;
        if response.status() == reqwest::StatusCode::METHOD_NOT_ALLOWED
            || response.status().is_success()
        {
            return Ok(());
        }
        Err(status_error(response).await)
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Failure> {
        let mut request = self
            .0
            .get(uri.as_ref())
            .header(reqwest::header::ACCEPT, format!("{EVENT_STREAM}, {JSON}"));
        if let Some(id) = last_event_id {
            request = request.header(LAST_EVENT_HEADER, id);
        }
        let request = with_headers(request, session_id.as_deref(), auth_header, custom_headers);
        let response = request.send().await.map_err(failed)?;
        if response.status() == reqwest::StatusCode::METHOD_NOT_ALLOWED {
            return Err(StreamableHttpError::ServerDoesNotSupportSse);
        }
        if !response.status().is_success() {
            return Err(status_error(response).await);
        }
        match content_type(&response) {
            Some(k) if k.starts_with(EVENT_STREAM) => Ok(events(response)),
            other => Err(StreamableHttpError::UnexpectedContentType(other)),
        }
    }
}
