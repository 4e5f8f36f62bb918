//! Protected paths (pi's `examples/extensions/protected-paths.ts`): `write`
//! and `edit` calls on a path containing `.env`, `.git/` or
//! `node_modules/` are blocked, with a warning to the user when there is a
//! UI.

use pi_coding_agent::extensions::{
    Extension, ExtensionApi, ExtensionContext, NotifyLevel, ToolCallEvent, ToolCallResult,
};

/// Substrings that make a path protected.
const PROTECTED: [&str; 3] = [".env", ".git/", "node_modules/"];

/// The extension: a `tool_call` handler for `write` and `edit`.
#[derive(Debug, Default)]
pub struct ProtectedPaths;

impl Extension for ProtectedPaths {
    fn path(&self) -> String {
        "<protected-paths>".to_owned()
    }

    fn register(&self, api: &mut ExtensionApi<'_>) {
        api.on(|event: ToolCallEvent, ctx: ExtensionContext| async move {
            if event.tool_name != "write" && event.tool_name != "edit" {
                return Ok(None);
            }
            let path = event.input["path"].as_str().unwrap_or_default();
            if !PROTECTED.iter().any(|p| path.contains(p)) {
                return Ok(None);
            }
            if ctx.has_ui() {
                ctx.ui().notify(
                    &format!("Blocked write to protected path: {path}"),
                    Some(NotifyLevel::Warning),
                );
            }
            Ok(Some(ToolCallResult {
                block: true,
                reason: Some(format!("Path \"{path}\" is protected")),
                input: None,
            }))
        });
    }
}
