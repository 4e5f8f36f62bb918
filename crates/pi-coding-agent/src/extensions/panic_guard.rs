//! Extension code runs guarded: a panic in a handler, a command, a
//! shortcut or a render hook is caught and reported as the extension's
//! error, and it neither prints over the screen nor takes the terminal out
//! of its modes (the terminal UI's panic hook leaves caught panics alone).

use std::cell::Cell;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Once;
use std::task::{Context, Poll};

use futures::FutureExt;

use super::handler::ExtensionError;

thread_local! {
    /// How many guarded calls this thread is inside.
    static GUARDED: Cell<u32> = const { Cell::new(0) };
}

static QUIET_HOOK: Once = Once::new();

/// Wraps the process's panic hook (once) so a guarded panic prints nothing.
fn install_quiet_hook() {
    QUIET_HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if GUARDED.with(Cell::get) == 0 {
                previous(info);
            }
        }));
    });
}

/// Runs `f` guarded.
pub(crate) fn guarded<R>(f: impl FnOnce() -> R) -> R {
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            GUARDED.with(|g| g.set(g.get().saturating_sub(1)));
        }
    }
    install_quiet_hook();
    GUARDED.with(|g| g.set(g.get() + 1));
    let _leave = Leave;
    #[cfg(feature = "cli")]
    {
        pi_tui::terminal::catching_panics(f)
    }
    #[cfg(not(feature = "cli"))]
    {
        f()
    }
}

/// A future polled guarded.
struct Guarded<F>(Pin<Box<F>>);

impl<F: Future> Future for Guarded<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let inner = self.0.as_mut();
        guarded(|| inner.poll(cx))
    }
}

/// Runs extension code to its end; a panic becomes an [`ExtensionError`]
/// with the panic's message.
pub(crate) async fn catch<T>(future: impl Future<Output = T>) -> Result<T, ExtensionError> {
    AssertUnwindSafe(Guarded(Box::pin(future)))
        .catch_unwind()
        .await
        .map_err(|payload| ExtensionError::new(panic_text(payload.as_ref())))
}

/// A panic's message.
pub(crate) fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "handler panicked".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panic_in_extension_code_is_an_error_with_its_message() {
        let result = catch(async {
            tokio::task::yield_now().await;
            panic!("boom");
        })
        .await;
        assert_eq!(result, Err(ExtensionError::new("boom")));
        // The guard is left once the code is done.
        assert_eq!(GUARDED.with(Cell::get), 0);
        assert_eq!(catch(async { 7 }).await, Ok(7));
    }
}
