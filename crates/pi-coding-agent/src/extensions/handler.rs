//! Event handlers with their types erased, so one runner holds the typed
//! handlers of Rust extensions and the JSON handlers of out-of-process
//! hosts side by side, and calls both the same way.

use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use futures::FutureExt;
use serde_json::Value;

use super::context::ExtensionContext;
use super::events::Event;

/// An extension's failure: reported as `extension_error` (and, from a
/// `tool_call` handler, the reason the call is blocked).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ExtensionError {
    message: String,
}

impl ExtensionError {
    /// A failure with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl From<String> for ExtensionError {
    fn from(message: String) -> Self {
        Self::new(message)
    }
}

impl From<&str> for ExtensionError {
    fn from(message: &str) -> Self {
        Self::new(message)
    }
}

impl From<std::io::Error> for ExtensionError {
    fn from(error: std::io::Error) -> Self {
        Self::new(error.to_string())
    }
}

impl From<serde_json::Error> for ExtensionError {
    fn from(error: serde_json::Error) -> Self {
        Self::new(error.to_string())
    }
}

/// What a handler returns: `Ok(None)` (pi's `undefined`), a result, or a failure.
pub type HandlerResult<T> = Result<Option<T>, ExtensionError>;

/// A boxed handler future.
pub type HandlerFuture<T> = Pin<Box<dyn Future<Output = HandlerResult<T>> + Send>>;

type AnyBox = Box<dyn Any + Send>;
type TypedFn = dyn Fn(AnyBox, ExtensionContext) -> HandlerFuture<AnyBox> + Send + Sync;
type JsonFn = dyn Fn(Value, ExtensionContext) -> HandlerFuture<Value> + Send + Sync;

/// One registered handler.
#[derive(Clone)]
pub(crate) enum Handler {
    /// A Rust handler of one event type.
    Typed(Arc<TypedFn>),
    /// A handler that takes and returns pi's JSON (out-of-process hosts).
    Json(Arc<JsonFn>),
}

impl Handler {
    /// Erases a typed handler of `E`.
    pub(crate) fn typed<E, F, Fut>(handler: F) -> Self
    where
        E: Event,
        F: Fn(E, ExtensionContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HandlerResult<E::Output>> + Send + 'static,
    {
        Self::Typed(Arc::new(move |event: AnyBox, ctx| {
            let event = match event.downcast::<E>() {
                Ok(event) => *event,
                Err(_) => {
                    return Box::pin(async {
                        Err(ExtensionError::new(format!("not a {} event", E::NAME)))
                    });
                }
            };
            let future = handler(event, ctx);
            Box::pin(async move {
                future
                    .await
                    .map(|output| output.map(|o| Box::new(o) as AnyBox))
            })
        }))
    }

    /// A JSON handler.
    pub(crate) fn json<F, Fut>(handler: F) -> Self
    where
        F: Fn(Value, ExtensionContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HandlerResult<Value>> + Send + 'static,
    {
        Self::Json(Arc::new(move |event, ctx| Box::pin(handler(event, ctx))))
    }

    /// Calls the handler with `event`. A panic is an error, and so is a
    /// JSON answer that is not `E`'s result; `null` is no answer.
    pub(crate) async fn call<E: Event>(
        &self,
        event: E,
        ctx: ExtensionContext,
    ) -> HandlerResult<E::Output> {
        let future = match self {
            Self::Typed(handler) => {
                let future = handler(Box::new(event), ctx);
                async move {
                    let output = future.await?;
                    Ok(output.and_then(|o| o.downcast::<E::Output>().ok().map(|o| *o)))
                }
                .boxed()
            }
            Self::Json(handler) => {
                let value = serde_json::to_value(&event)
                    .map_err(|e| ExtensionError::new(format!("{}: {e}", E::NAME)))?;
                let future = handler(with_type(value, E::NAME), ctx);
                async move {
                    match future.await? {
                        None | Some(Value::Null) => Ok(None),
                        Some(value) => serde_json::from_value(value).map(Some).map_err(|e| {
                            ExtensionError::new(format!("invalid {} result: {e}", E::NAME))
                        }),
                    }
                }
                .boxed()
            }
        };
        super::panic_guard::catch(future).await?
    }
}

/// The event's JSON with pi's `"type"` first.
fn with_type(value: Value, name: &str) -> Value {
    let mut object = serde_json::Map::new();
    object.insert("type".to_owned(), Value::String(name.to_owned()));
    if let Value::Object(fields) = value {
        object.extend(fields);
    }
    Value::Object(object)
}
