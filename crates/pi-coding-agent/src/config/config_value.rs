//! Values in models.json and auth.json that may be a literal, the name of
//! an environment variable, or `!command` (pi's `resolve-config-value.ts`).
//! A command runs through `sh -c` (10 s limit) and its trimmed stdout is the
//! value; its result, failure included, is cached for the process.

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use super::ConfigError;

/// pi's limit on a value command.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// `!command` results by the full `!command` text.
fn command_cache() -> &'static Mutex<HashMap<String, Option<String>>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Option<String>>>> = OnceLock::new();
    CACHE.get_or_init(Mutex::default)
}

/// Resolves `spec`: `!command` gives the command's trimmed stdout (`None`
/// when it fails or prints nothing), a set non-empty environment variable
/// of that name gives its value, anything else is the value itself.
pub fn resolve_config_value(spec: &str, env: impl Fn(&str) -> Option<String>) -> Option<String> {
    if spec.starts_with('!') {
        return run_cached(spec);
    }
    Some(
        env(spec)
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| spec.to_owned()),
    )
}

/// [`resolve_config_value`] that fails as pi does, naming `description`
/// (`API key for provider "x"`, `provider "x" header "h"`).
pub fn resolve_config_value_or_error(
    spec: &str,
    description: &str,
    env: impl Fn(&str) -> Option<String>,
) -> Result<String, ConfigError> {
    resolve_config_value(spec, env).ok_or_else(|| {
        ConfigError::ConfigValue(match spec.strip_prefix('!') {
            Some(command) => {
                format!("Failed to resolve {description} from shell command: {command}")
            }
            None => format!("Failed to resolve {description}"),
        })
    })
}

/// Resolves every header value; `None` for no headers.
pub fn resolve_headers(
    headers: Option<&BTreeMap<String, String>>,
    description: &str,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Option<BTreeMap<String, String>>, ConfigError> {
    let Some(headers) = headers.filter(|h| !h.is_empty()) else {
        return Ok(None);
    };
    let mut resolved = BTreeMap::new();
    for (name, spec) in headers {
        let value =
            resolve_config_value_or_error(spec, &format!("{description} header \"{name}\""), &env)?;
        resolved.insert(name.clone(), value);
    }
    Ok(Some(resolved))
}

fn run_cached(spec: &str) -> Option<String> {
    let cache = command_cache();
    if let Some(hit) = cache
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(spec)
    {
        return hit.clone();
    }
    let result = run_command(&spec[1..], COMMAND_TIMEOUT);
    cache
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(spec.to_owned(), result.clone());
    result
}

/// Runs `command` through `sh -c` with stdin and stderr closed; its
/// trimmed stdout, or `None` on failure, timeout or empty output. It runs
/// in a process group of its own, killed whole at the timeout: a process it
/// started (`sleep 100; echo key`) would otherwise keep stdout open, and
/// the read, past the timeout.
fn run_command(command: &str, timeout: Duration) -> Option<String> {
    use std::os::unix::process::CommandExt;
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| tracing::warn!("cannot run `{command}`: {e}"))
        .ok()?;
    let mut stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stdout.read_to_end(&mut text);
        text
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() < timeout => {
                std::thread::sleep(Duration::from_millis(5));
            }
            _ => {
                tracing::warn!("`{command}` took longer than {timeout:?}; stopped");
                if let Ok(pid) = i32::try_from(child.id()) {
                    let group = nix::unistd::Pid::from_raw(pid);
                    let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
                }
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let text = reader.join().ok()?;
    if !status?.success() {
        return None;
    }
    let value = String::from_utf8_lossy(&text).trim().to_owned();
    (!value.is_empty()).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_that_outlives_its_timeout_is_stopped_with_what_it_started() {
        let started = Instant::now();
        let result = run_command("sleep 30; echo key", Duration::from_millis(200));
        assert_eq!(result, None);
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(
            run_command("echo key", Duration::from_secs(5)).as_deref(),
            Some("key")
        );
    }

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn literals_env_names_and_commands_resolve() {
        let env = |name: &str| (name == "MY_KEY").then(|| "from-env".to_owned());
        assert_eq!(
            resolve_config_value("sk-literal", env).as_deref(),
            Some("sk-literal")
        );
        assert_eq!(
            resolve_config_value("MY_KEY", env).as_deref(),
            Some("from-env")
        );
        assert_eq!(
            resolve_config_value("!echo '  from-command  '", env).as_deref(),
            Some("from-command")
        );
        assert_eq!(resolve_config_value("!exit 3", no_env), None);
        assert_eq!(resolve_config_value("!true", no_env), None, "empty output");
    }

    #[test]
    fn command_results_are_cached_for_the_process() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("runs");
        let spec = format!("!echo run >> '{}'; echo value", log.display());
        for _ in 0..3 {
            assert_eq!(
                resolve_config_value(&spec, no_env).as_deref(),
                Some("value")
            );
        }
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "run\n");
    }

    #[test]
    fn failures_name_what_was_resolved() {
        let err = resolve_config_value_or_error("!exit 1", "API key for provider \"p\"", no_env)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Failed to resolve API key for provider \"p\" from shell command: exit 1"
        );
        let headers = BTreeMap::from([
            ("x-lit".to_owned(), "v".to_owned()),
            ("x-cmd".to_owned(), "!printf h".to_owned()),
        ]);
        let resolved = resolve_headers(Some(&headers), "provider \"p\"", no_env)
            .unwrap()
            .unwrap();
        assert_eq!(resolved["x-cmd"], "h");
        assert_eq!(resolved["x-lit"], "v");
        let bad = BTreeMap::from([("x-bad".to_owned(), "!false".to_owned())]);
        assert_eq!(
            resolve_headers(Some(&bad), "provider \"p\"", no_env)
                .unwrap_err()
                .to_string(),
            "Failed to resolve provider \"p\" header \"x-bad\" from shell command: false"
        );
        assert_eq!(resolve_headers(None, "x", no_env).unwrap(), None);
    }
}
