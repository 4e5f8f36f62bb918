//! Time until an interactive `pi` is ready for typing: started in a tmux
//! window of its own (100x40, in the scratch workspace), from the spawn
//! until its screen shows the editor's rule and the footer's model, the
//! pane read every 5 ms. The same for pi-rs and for pi.

use crate::error::TaskError;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::whole::{Pi, Scratch};

/// The longest wait for the editor.
const TIMEOUT: Duration = Duration::from_secs(60);

/// A tmux server of its own (killed on drop) with one idle session.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn start() -> Result<Self, TaskError> {
        let tmux = Self {
            socket: format!("pi-ready-{}", std::process::id()),
        };
        tmux.run(&[
            "new-session",
            "-d",
            "-s",
            "idle",
            "-x",
            "100",
            "-y",
            "40",
            "sleep 600",
        ])?;
        Ok(tmux)
    }

    fn run(&self, args: &[&str]) -> Result<String, TaskError> {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .map_err(TaskError::spawn("tmux"))?;
        if !out.status.success() {
            return Err(TaskError::Failed(format!(
                "tmux {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The shell line that runs `pi ARGS` as [`Scratch::command`] sets it up.
fn shell_line(scratch: &Scratch, pi: &Pi, args: &[&str]) -> String {
    let command = scratch.command(&pi.program);
    let mut line = String::from("exec env");
    for (key, value) in command.get_envs() {
        let key = key.to_string_lossy();
        match value {
            Some(value) => line.push_str(&format!(" {key}={}", quote(&value.to_string_lossy()))),
            None => line.push_str(&format!(" -u {key}")),
        }
    }
    line.push_str(" TERM=xterm-256color");
    line.push(' ');
    line.push_str(&quote(&pi.program.to_string_lossy()));
    for arg in pi
        .prefix
        .iter()
        .map(String::as_str)
        .chain(args.iter().copied())
    {
        line.push(' ');
        line.push_str(&quote(arg));
    }
    if let Some(dir) = command.get_current_dir() {
        line = format!("cd {} && {line}", quote(&dir.to_string_lossy()));
    }
    line
}

/// The best of `reps` times (after one unmeasured warm-up) until `pi ARGS`
/// shows its editor and `model` in its footer, in seconds.
pub fn editor_ready(
    scratch: &Scratch,
    pi: &Pi,
    args: &[&str],
    model: &str,
    reps: usize,
) -> Result<f64, TaskError> {
    let tmux = Tmux::start()?;
    let line = shell_line(scratch, pi, args);
    let mut best = f64::INFINITY;
    for rep in 0..=reps {
        let start = Instant::now();
        tmux.run(&["new-window", "-d", "-t", "idle", "-n", "run", &line])?;
        let ready = loop {
            let screen = tmux.run(&["capture-pane", "-p", "-t", "idle:run"])?;
            if screen.lines().any(|l| l.starts_with('─')) && screen.contains(model) {
                break start.elapsed();
            }
            if start.elapsed() > TIMEOUT {
                return Err(TaskError::Failed(format!(
                    "no editor after {TIMEOUT:?}:\n{screen}"
                )));
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        tmux.run(&["kill-window", "-t", "idle:run"])?;
        if rep > 0 {
            best = best.min(ready.as_secs_f64());
        }
    }
    Ok(best)
}
