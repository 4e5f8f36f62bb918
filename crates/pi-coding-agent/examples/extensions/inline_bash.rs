//! Inline bash (pi's `examples/extensions/inline-bash.ts`): `!{command}` in
//! a prompt is replaced by the command's output before the prompt reaches
//! the agent, e.g. `What is in !{pwd}?`. A prompt starting with `!` (pi's
//! whole-line shell command) is left alone.

use std::time::Duration;

use pi_coding_agent::extensions::{
    Extension, ExtensionApi, ExtensionContext, InputEvent, InputResult, NotifyLevel,
};

/// How long one command may run.
const TIMEOUT: Duration = Duration::from_secs(30);

/// How much of an output the notification shows.
const PREVIEW_CHARS: usize = 50;

/// The extension: an `input` handler.
#[derive(Debug, Default)]
pub struct InlineBash;

/// One expanded command.
struct Expansion {
    command: String,
    /// Its trimmed output (stdout, or stderr when stdout is empty).
    output: String,
    /// A non-zero exit with stderr, or why it could not run.
    error: Option<String>,
    /// What replaces the pattern: the output, or `[error: ...]` when the
    /// command could not run.
    replacement: String,
}

/// The `!{...}` patterns of `text`, in order: `(whole pattern, command)`.
fn patterns(text: &str) -> Vec<(&str, &str)> {
    let mut found = Vec::new();
    let mut rest = text;
    let mut offset = 0;
    while let Some(start) = rest.find("!{") {
        let body = &rest[start + 2..];
        // `[^}]+`: at least one character before the closing brace.
        match body.find('}') {
            Some(end) if end > 0 => {
                let at = offset + start;
                let whole = &text[at..at + 2 + end + 1];
                found.push((whole, &body[..end]));
                let consumed = start + 2 + end + 1;
                rest = &rest[consumed..];
                offset += consumed;
            }
            Some(_) => {
                rest = &rest[start + 2..];
                offset += start + 2;
            }
            None => break,
        }
    }
    found
}

/// Runs `command` with `bash -c` in the working directory.
async fn expand(ctx: &ExtensionContext, command: &str) -> Expansion {
    let args = ["-c".to_owned(), command.to_owned()];
    match ctx.pi().exec("bash", &args, Some(TIMEOUT)).await {
        Ok(out) => {
            let output = if out.stdout.is_empty() {
                &out.stderr
            } else {
                &out.stdout
            };
            let error = (out.code != Some(0) && !out.stderr.is_empty()).then(|| {
                let code = out
                    .code
                    .map_or_else(|| "null".to_owned(), |c| c.to_string());
                format!("exit code {code}")
            });
            let output = output.trim().to_owned();
            Expansion {
                command: command.to_owned(),
                replacement: output.clone(),
                output,
                error,
            }
        }
        Err(e) => Expansion {
            command: command.to_owned(),
            output: String::new(),
            replacement: format!("[error: {}]", e.message()),
            error: Some(e.message().to_owned()),
        },
    }
}

/// The notification: one line per command with the start of its output.
fn summary(expansions: &[Expansion]) -> String {
    let lines: Vec<String> = expansions
        .iter()
        .map(|e| {
            let status = e
                .error
                .as_ref()
                .map(|error| format!(" ({error})"))
                .unwrap_or_default();
            let preview = if e.output.chars().count() > PREVIEW_CHARS {
                let head: String = e.output.chars().take(PREVIEW_CHARS).collect();
                format!("{head}...")
            } else {
                e.output.clone()
            };
            format!("!{{{}}}{status} -> \"{preview}\"", e.command)
        })
        .collect();
    format!(
        "Expanded {} inline command(s):\n{}",
        expansions.len(),
        lines.join("\n")
    )
}

impl Extension for InlineBash {
    fn path(&self) -> String {
        "<inline-bash>".to_owned()
    }

    fn register(&self, api: &mut ExtensionApi<'_>) {
        api.on(|event: InputEvent, ctx: ExtensionContext| async move {
            let trimmed = event.text.trim_start();
            if trimmed.starts_with('!') && !trimmed.starts_with("!{") {
                return Ok(Some(InputResult::Continue));
            }
            let found = patterns(&event.text);
            if found.is_empty() {
                return Ok(Some(InputResult::Continue));
            }
            let mut text = event.text.clone();
            let mut expansions = Vec::with_capacity(found.len());
            for (whole, command) in found {
                let expansion = expand(&ctx, command).await;
                text = text.replacen(whole, &expansion.replacement, 1);
                expansions.push(expansion);
            }
            if ctx.has_ui() && !expansions.is_empty() {
                ctx.ui()
                    .notify(&summary(&expansions), Some(NotifyLevel::Info));
            }
            Ok(Some(InputResult::Transform {
                text,
                images: event.images,
            }))
        });
    }
}
