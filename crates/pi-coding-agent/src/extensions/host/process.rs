//! The host's process: Node checked, the host installed if needed, a Unix
//! socket in a private temporary folder, `node main.mjs` started with the
//! socket's path in `PI_EXTENSION_SOCKET`, and its stdout / stderr passed
//! on (to the terminal in the interactive mode, else to stderr).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::UnixListener;
use tokio::process::{Child, Command};

use super::HostOptions;
use super::connection::{Connection, HostError, Incoming};

/// The environment variable with the socket's path.
pub const SOCKET_ENV: &str = "PI_EXTENSION_SOCKET";

/// The oldest Node the host runs on.
const NODE_MAJOR: u32 = 20;

/// How long the host may take to connect.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// A started host process.
pub(super) struct HostProcess {
    child: Child,
    _socket_dir: tempfile::TempDir,
}

impl HostProcess {
    /// Ends it at once.
    pub(super) async fn kill(&mut self) {
        let _ = self.child.kill().await;
    }

    /// Waits briefly for it to exit, then ends it.
    pub(super) async fn finish(&mut self) {
        if tokio::time::timeout(Duration::from_secs(2), self.child.wait())
            .await
            .is_err()
        {
            self.kill().await;
        }
    }
}

/// Node's major version, or why it cannot run the host.
async fn node_major() -> Result<u32, HostError> {
    let output = Command::new("node")
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .await
        .map_err(|_| {
            HostError::Start(format!(
                "Node.js {NODE_MAJOR} or newer is needed to run TypeScript extensions (`node` was not found on PATH)"
            ))
        })?;
    let text = String::from_utf8_lossy(&output.stdout);
    let major = text
        .trim()
        .trim_start_matches('v')
        .split('.')
        .next()
        .and_then(|m| m.parse::<u32>().ok())
        .unwrap_or(0);
    if major < NODE_MAJOR {
        return Err(HostError::Start(format!(
            "Node.js {NODE_MAJOR} or newer is needed to run TypeScript extensions (found {})",
            text.trim()
        )));
    }
    Ok(major)
}

/// Which program hosts the extensions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum HostKind {
    /// The Node host (TypeScript and JavaScript extensions).
    Node,
    /// A Python extension: the script is its own host (`python3 FILE`).
    Python(PathBuf),
}

impl HostKind {
    /// The host for `file`.
    pub(super) fn of(file: &Path) -> Self {
        if file.extension().is_some_and(|e| e == "py") {
            Self::Python(file.to_path_buf())
        } else {
            Self::Node
        }
    }
}

/// The command that starts the host.
async fn command(kind: &HostKind) -> Result<Command, HostError> {
    match kind {
        HostKind::Node => {
            node_major().await?;
            let dir = tokio::task::spawn_blocking(|| {
                super::install::host_dir(&|line| {
                    #[allow(clippy::print_stderr)]
                    {
                        eprintln!("{line}");
                    }
                })
            })
            .await
            .map_err(|e| HostError::Start(e.to_string()))??;
            let mut command = Command::new("node");
            command.arg(dir.join("main.mjs"));
            Ok(command)
        }
        HostKind::Python(script) => {
            let mut command = Command::new("python3");
            command.arg(script);
            Ok(command)
        }
    }
}

/// Starts the host and connects to it.
pub(super) async fn spawn(
    kind: &HostKind,
    options: &HostOptions,
    incoming: Arc<dyn Incoming>,
) -> Result<(HostProcess, Arc<Connection>), HostError> {
    let mut command = command(kind).await?;
    let socket_dir = tempfile::Builder::new()
        .prefix("pi-ext-")
        .tempdir()
        .map_err(|e| HostError::Start(format!("cannot make the host's socket: {e}")))?;
    let socket = socket_dir.path().join("host.sock");
    let listener = UnixListener::bind(&socket)
        .map_err(|e| HostError::Start(format!("cannot make the host's socket: {e}")))?;
    // The host, and any pi an extension starts, run with pi-rs's agent dir.
    if !options.agent_dir.as_os_str().is_empty() {
        command.env("PI_CODING_AGENT_DIR", &options.agent_dir);
    }
    let mut child = command
        .env(SOCKET_ENV, &socket)
        .current_dir(&options.cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| HostError::Start(format!("cannot start the extension host: {e}")))?;
    if let Some(out) = child.stdout.take() {
        tokio::spawn(pass_on(out, options.output_to_terminal));
    }
    if let Some(err) = child.stderr.take() {
        tokio::spawn(pass_on(err, false));
    }
    let accepted = tokio::select! {
        accepted = tokio::time::timeout(CONNECT_TIMEOUT, listener.accept()) => accepted,
        status = child.wait() => {
            return Err(HostError::Start(format!(
                "the extension host exited before connecting ({})",
                status.map_or_else(|e| e.to_string(), |s| s.to_string())
            )));
        }
    };
    let (stream, _) = accepted
        .map_err(|_| HostError::Start("the extension host did not connect".into()))?
        .map_err(|e| HostError::Start(format!("the extension host did not connect: {e}")))?;
    let (read, write) = stream.into_split();
    let connection = Connection::start(read, write, incoming);
    Ok((
        HostProcess {
            child,
            _socket_dir: socket_dir,
        },
        connection,
    ))
}

/// Copies what the host writes to the routed sink ([`super::route_output`])
/// or else to pi-rs's stdout or stderr.
async fn pass_on(mut from: impl AsyncRead + Unpin, to_stdout: bool) {
    use tokio::io::AsyncReadExt;
    let mut buffer = vec![0u8; 8192];
    loop {
        let n = match from.read(&mut buffer).await {
            Ok(0) => return,
            Ok(n) => n,
            Err(e) => {
                tracing::debug!("extension host output: {e}");
                return;
            }
        };
        let chunk = &buffer[..n];
        if super::output::routed(chunk) {
            continue;
        }
        let written = if to_stdout {
            write_all(tokio::io::stdout(), chunk).await
        } else {
            write_all(tokio::io::stderr(), chunk).await
        };
        if let Err(e) = written {
            tracing::debug!("extension host output: {e}");
            return;
        }
    }
}

async fn write_all(mut to: impl AsyncWrite + Unpin, chunk: &[u8]) -> std::io::Result<()> {
    use tokio::io::AsyncWriteExt;
    to.write_all(chunk).await?;
    to.flush().await
}
