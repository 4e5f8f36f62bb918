//! The loopback redirect listener of the browser logins (Anthropic on port
//! 53692 `/callback`, ChatGPT on 1455 `/auth/callback`): it answers the
//! browser's redirect with a small page and hands the first valid
//! `code`/`state` to the login. It serves only GET request lines, so a few
//! lines of tokio suffice.

use std::net::SocketAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::OAuthError;

/// The environment variable naming the host the listener binds (pi's; default 127.0.0.1).
pub const CALLBACK_HOST_ENV: &str = "PI_OAUTH_CALLBACK_HOST";

/// A redirect that carried a code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallbackCode {
    /// The authorization code.
    pub code: String,
    /// The state it came with.
    pub state: String,
}

/// A listening callback server; it stops when dropped.
pub struct CallbackServer {
    addr: SocketAddr,
    codes: mpsc::Receiver<CallbackCode>,
    task: JoinHandle<()>,
}

/// What the server checks a redirect against.
#[derive(Debug, Clone)]
struct Expect {
    path: &'static str,
    state: String,
    /// The product named on the success page.
    product: &'static str,
}

impl CallbackServer {
    /// Listens on `host:port` (`port` 0 picks a free one, for tests) for
    /// redirects to `path` carrying `state`.
    pub async fn start(
        host: &str,
        port: u16,
        path: &'static str,
        state: &str,
        product: &'static str,
    ) -> Result<Self, OAuthError> {
        let listener =
            TcpListener::bind((host, port))
                .await
                .map_err(|source| OAuthError::CallbackServer {
                    addr: format!("{host}:{port}"),
                    source,
                })?;
        let addr = listener
            .local_addr()
            .map_err(|source| OAuthError::CallbackServer {
                addr: format!("{host}:{port}"),
                source,
            })?;
        let (tx, codes) = mpsc::channel(1);
        let expect = Expect {
            path,
            state: state.to_owned(),
            product,
        };
        let task = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let tx = tx.clone();
                let expect = expect.clone();
                tokio::spawn(async move {
                    if let Err(error) = serve(socket, &expect, &tx).await {
                        tracing::debug!("oauth callback connection ended: {error}");
                    }
                });
            }
        });
        Ok(Self { addr, codes, task })
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Waits for the first redirect with a valid code (forever if none comes;
    /// the caller races it against manual input or drops it).
    pub async fn wait_for_code(&mut self) -> Option<CallbackCode> {
        self.codes.recv().await
    }
}

impl Drop for CallbackServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The host the listeners bind: `PI_OAUTH_CALLBACK_HOST` or 127.0.0.1.
pub fn callback_host() -> String {
    std::env::var(CALLBACK_HOST_ENV)
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "127.0.0.1".to_owned())
}

async fn serve(
    mut socket: TcpStream,
    expect: &Expect,
    tx: &mpsc::Sender<CallbackCode>,
) -> std::io::Result<()> {
    let mut head = Vec::new();
    let mut chunk = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 64 * 1024 {
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&chunk[..n]);
    }
    let head = String::from_utf8_lossy(&head);
    let target = head
        .lines()
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .unwrap_or("/");
    let (status, page, code) = answer(target, expect);
    let response = format!(
        "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
        page.len()
    );
    socket.write_all(response.as_bytes()).await?;
    socket.shutdown().await?;
    if let Some(code) = code {
        // A second valid redirect while the first waits is dropped.
        let _ = tx.try_send(code);
    }
    Ok(())
}

/// The status line, page and (for a valid redirect) code for a request target.
fn answer(target: &str, expect: &Expect) -> (&'static str, String, Option<CallbackCode>) {
    let bad = |message: &str| ("400 Bad Request", page("Login failed", message), None);
    let Ok(url) = reqwest::Url::parse(&format!("http://localhost{target}")) else {
        return bad("Invalid request.");
    };
    if url.path() != expect.path {
        return (
            "404 Not Found",
            page("Login failed", "Callback route not found."),
            None,
        );
    }
    let param = |name: &str| {
        url.query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    };
    if let Some(error) = param("error") {
        return bad(&format!(
            "{} authentication did not complete. Error: {error}",
            expect.product
        ));
    }
    let (code, state) = (param("code"), param("state"));
    if state.as_deref() != Some(expect.state.as_str()) {
        return bad(if state.is_none() {
            "Missing state parameter."
        } else {
            "State mismatch."
        });
    }
    let Some(code) = code.filter(|c| !c.is_empty()) else {
        return bad("Missing authorization code.");
    };
    (
        "200 OK",
        page(
            "Login complete",
            &format!(
                "{} authentication completed. You can close this window.",
                expect.product
            ),
        ),
        Some(CallbackCode {
            code,
            state: expect.state.clone(),
        }),
    )
}

fn page(title: &str, message: &str) -> String {
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    };
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>pi: {}</title></head>\n<body style=\"font-family: sans-serif; margin: 4em\"><h1>{}</h1><p>{}</p></body></html>\n",
        escape(title),
        escape(title),
        escape(message)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expect() -> Expect {
        Expect {
            path: "/callback",
            state: "st".to_owned(),
            product: "Anthropic",
        }
    }

    #[test]
    fn only_the_right_path_and_state_with_a_code_is_accepted() {
        let e = expect();
        assert_eq!(answer("/other?code=c&state=st", &e).0, "404 Not Found");
        assert_eq!(answer("/callback?code=c&state=no", &e).0, "400 Bad Request");
        assert_eq!(answer("/callback?code=c", &e).0, "400 Bad Request");
        assert_eq!(answer("/callback?state=st", &e).0, "400 Bad Request");
        let (status, page, code) = answer("/callback?error=access_denied&state=st", &e);
        assert_eq!(status, "400 Bad Request");
        assert!(page.contains("access_denied"), "{page}");
        assert_eq!(code, None);
        let (status, page, code) = answer("/callback?code=c%2B1&state=st", &e);
        assert_eq!(status, "200 OK");
        assert!(page.contains("You can close this window"));
        assert_eq!(
            code,
            Some(CallbackCode {
                code: "c+1".to_owned(),
                state: "st".to_owned()
            })
        );
    }
}
