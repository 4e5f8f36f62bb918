//! Permission gate (pi's `examples/extensions/permission-gate.ts`): before
//! `bash` runs a dangerous command (`rm -rf`, `sudo`, `chmod`/`chown` 777),
//! the user is asked whether to allow it; anything but "Yes" blocks the
//! call, and without a UI (print and json modes) it is blocked outright.

use std::sync::Arc;

use pi_coding_agent::extensions::{
    DialogOptions, Extension, ExtensionApi, ExtensionContext, ToolCallEvent, ToolCallResult,
};
use regex::RegexSet;

/// What counts as dangerous (pi's patterns, case-insensitive).
const DANGEROUS: [&str; 3] = [
    r"(?i)\brm\s+(-rf?|--recursive)",
    r"(?i)\bsudo\b",
    r"(?i)\b(chmod|chown)\b.*777",
];

/// The extension: a `tool_call` handler for `bash`.
pub struct PermissionGate {
    /// The compiled patterns; should they fail to compile, every command
    /// counts as dangerous (the gate fails closed).
    patterns: Arc<Result<RegexSet, regex::Error>>,
}

impl Default for PermissionGate {
    fn default() -> Self {
        Self {
            patterns: Arc::new(RegexSet::new(DANGEROUS)),
        }
    }
}

/// Blocks the call with `reason` as its error result.
fn block(reason: &str) -> ToolCallResult {
    ToolCallResult {
        block: true,
        reason: Some(reason.to_owned()),
        input: None,
    }
}

impl Extension for PermissionGate {
    fn path(&self) -> String {
        "<permission-gate>".to_owned()
    }

    fn register(&self, api: &mut ExtensionApi<'_>) {
        let patterns = Arc::clone(&self.patterns);
        api.on(move |event: ToolCallEvent, ctx: ExtensionContext| {
            let patterns = Arc::clone(&patterns);
            async move {
                if event.tool_name != "bash" {
                    return Ok(None);
                }
                let command = event.input["command"].as_str().unwrap_or_default();
                let dangerous = match patterns.as_ref() {
                    Ok(set) => set.is_match(command),
                    Err(_) => true,
                };
                if !dangerous {
                    return Ok(None);
                }
                if !ctx.has_ui() {
                    return Ok(Some(block(
                        "Dangerous command blocked (no UI for confirmation)",
                    )));
                }
                let title = format!("⚠️ Dangerous command:\n\n  {command}\n\nAllow?");
                let options = ["Yes".to_owned(), "No".to_owned()];
                let choice = ctx
                    .ui()
                    .select(&title, &options, DialogOptions::default())
                    .await;
                if choice.as_deref() == Some("Yes") {
                    Ok(None)
                } else {
                    Ok(Some(block("Blocked by user")))
                }
            }
        });
    }
}
