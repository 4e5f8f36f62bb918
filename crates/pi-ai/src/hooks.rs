//! The two request hooks of [`crate::StreamOptions`]: `on_payload` (inspect
//! or replace the request body just before it is sent) and `on_response`
//! (the HTTP status and headers once an answer arrives). Both are
//! asynchronous, as pi's `onPayload` / `onResponse`, and awaited by the
//! transport before it goes on.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures::future::{BoxFuture, FutureExt};
use serde_json::Value;

use crate::Model;

type PayloadFn = dyn Fn(Value, &Model) -> BoxFuture<'static, Option<Value>> + Send + Sync;
type ResponseFn = dyn Fn(ProviderResponse) -> BoxFuture<'static, ()> + Send + Sync;

/// Inspects, and optionally replaces, a call's request body (pi's
/// `onPayload`): called once per call, with the body the wire built and the
/// model, and awaited before the request is sent. `None` keeps the body;
/// `Some(value)` is sent instead (retries of the call resend that value).
///
/// ```
/// use pi_ai::PayloadHook;
/// use serde_json::json;
///
/// // An asynchronous hook: the future must own what it uses.
/// let add_user = PayloadHook::new(|mut body, model| {
///     let id = model.id.clone();
///     async move {
///         body["metadata"] = json!({ "model": id });
///         Some(body)
///     }
/// });
/// // A synchronous hook that only looks.
/// let observe = PayloadHook::sync(|body, _model| {
///     assert!(body.is_object());
///     None
/// });
/// # let _ = (add_user, observe);
/// ```
#[derive(Clone)]
pub struct PayloadHook(Arc<PayloadFn>);

impl PayloadHook {
    /// A hook from an asynchronous function of the body and the model.
    pub fn new<F, Fut>(hook: F) -> Self
    where
        F: Fn(Value, &Model) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Option<Value>> + Send + 'static,
    {
        Self(Arc::new(move |body, model| hook(body, model).boxed()))
    }

    /// A hook from a synchronous function that borrows the body.
    pub fn sync<F>(hook: F) -> Self
    where
        F: Fn(&Value, &Model) -> Option<Value> + Send + Sync + 'static,
    {
        Self(Arc::new(move |body, model| {
            futures::future::ready(hook(&body, model)).boxed()
        }))
    }

    /// Runs the hook: its future's answer, `None` to keep `body`.
    pub fn call(&self, body: Value, model: &Model) -> BoxFuture<'static, Option<Value>> {
        (self.0)(body, model)
    }

    /// Runs the hook over `body` and returns the body to send: the hook's
    /// replacement, or `body` unchanged when it returns `None`.
    pub async fn apply(&self, body: Value, model: &Model) -> Value {
        // The hook takes the body by value: keep a copy only to fall back on.
        let kept = body.clone();
        self.call(body, model).await.unwrap_or(kept)
    }
}

impl fmt::Debug for PayloadHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PayloadHook")
    }
}

/// One HTTP answer of a provider, as pi's `onResponse` sees it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProviderResponse {
    /// The HTTP status (101 for a WebSocket upgrade).
    pub status: u16,
    /// The response headers: lower-case names; a header sent more than once
    /// holds its values joined by `", "`, as fetch's `Headers` joins them
    /// (`set-cookie` keeps its last value, as pi's record of them does).
    pub headers: BTreeMap<String, String>,
}

impl ProviderResponse {
    /// A response from its status and its header pairs in the order
    /// received, normalized as [`ProviderResponse::headers`] says.
    pub fn from_pairs<'a>(
        status: u16,
        pairs: impl IntoIterator<Item = (&'a str, std::borrow::Cow<'a, str>)>,
    ) -> Self {
        let mut headers: BTreeMap<String, String> = BTreeMap::new();
        for (name, value) in pairs {
            let name = name.to_ascii_lowercase();
            match headers.get_mut(&name) {
                Some(joined) if name != "set-cookie" => {
                    joined.push_str(", ");
                    joined.push_str(&value);
                }
                _ => {
                    headers.insert(name, value.into_owned());
                }
            }
        }
        Self { status, headers }
    }
}

/// Observes each HTTP answer of a call (pi's `onResponse`): called with the
/// status and headers once they arrive and before the body is read (for
/// error statuses and for each retried attempt too), and awaited before the
/// transport goes on.
///
/// ```
/// use pi_ai::ResponseHook;
///
/// let log = ResponseHook::new(|response| async move {
///     if response.status == 429 {
///         eprintln!("rate limited; retry-after {:?}", response.headers.get("retry-after"));
///     }
/// });
/// let count = ResponseHook::sync(|response| assert!(response.status >= 100));
/// # let _ = (log, count);
/// ```
#[derive(Clone)]
pub struct ResponseHook(Arc<ResponseFn>);

impl ResponseHook {
    /// A hook from an asynchronous function of the response.
    pub fn new<F, Fut>(hook: F) -> Self
    where
        F: Fn(ProviderResponse) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        Self(Arc::new(move |response| hook(response).boxed()))
    }

    /// A hook from a synchronous function of the response.
    pub fn sync<F>(hook: F) -> Self
    where
        F: Fn(&ProviderResponse) + Send + Sync + 'static,
    {
        Self(Arc::new(move |response| {
            hook(&response);
            futures::future::ready(()).boxed()
        }))
    }

    /// Runs the hook.
    pub fn call(&self, response: ProviderResponse) -> BoxFuture<'static, ()> {
        (self.0)(response)
    }
}

impl fmt::Debug for ResponseHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ResponseHook")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn model() -> Model {
        crate::get_model("anthropic", "claude-sonnet-4-5")
            .expect("a catalog model")
            .clone()
    }

    #[tokio::test]
    async fn a_payload_hook_replaces_the_body_or_keeps_it() {
        let model = model();
        let replace = PayloadHook::new(|_, model| {
            let id = model.id.clone();
            async move { Some(json!({ "model": id })) }
        });
        let keep = PayloadHook::sync(|_, _| None);
        let body = json!({ "a": 1 });
        assert_eq!(
            replace.apply(body.clone(), &model).await,
            json!({ "model": model.id })
        );
        assert_eq!(keep.apply(body.clone(), &model).await, body);
    }

    #[test]
    fn response_headers_are_lower_cased_and_joined_as_fetch_joins_them() {
        let pairs = [
            ("X-Mock", "a"),
            ("x-mock", "b"),
            ("Set-Cookie", "one=1"),
            ("set-cookie", "two=2"),
            ("Retry-After", "3"),
        ];
        let response =
            ProviderResponse::from_pairs(429, pairs.map(|(n, v)| (n, std::borrow::Cow::from(v))));
        assert_eq!(response.status, 429);
        let expected: BTreeMap<String, String> = [
            ("retry-after", "3"),
            ("set-cookie", "two=2"),
            ("x-mock", "a, b"),
        ]
        .map(|(n, v)| (n.to_owned(), v.to_owned()))
        .into_iter()
        .collect();
        assert_eq!(response.headers, expected);
    }
}
