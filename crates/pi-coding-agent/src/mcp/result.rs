//! An MCP tool result as a pi tool result: text blocks (and embedded text
//! resources) become one text, kept within pi's tool output limits (50 KB
//! or 2,000 lines, the head kept, the whole saved to a private temp file
//! named in the notice pi's extension docs give); images stay images;
//! audio, binary resources and resource links are named in the text;
//! structured content is the text when there is no other (the spec asks
//! servers to send both) and is kept in `details` when small. An
//! `isError` result is the call's failure.

use pi_agent_core::{AgentToolResult, ToolError};
use pi_ai::UserBlock;
use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use serde_json::{Value, json};

use crate::tools::truncate::{
    DEFAULT_MAX_BYTES, TruncationOptions, TruncationResult, format_size, truncate_head,
};

/// The text and images of a result, before truncation.
#[derive(Debug, Default)]
pub(crate) struct Collected {
    pub(crate) text: String,
    pub(crate) images: Vec<UserBlock>,
}

impl Collected {
    fn line(&mut self, text: &str) {
        if !self.text.is_empty() {
            self.text.push('\n');
        }
        self.text.push_str(text);
    }
}

fn resource_line(resource: &ResourceContents, out: &mut Collected) {
    match resource {
        ResourceContents::TextResourceContents { text, .. } => out.line(text),
        ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            ..
        } => out.line(&format!(
            "[resource {uri} ({}, {} base64 bytes) not shown]",
            mime_type.as_deref().unwrap_or("binary"),
            blob.len()
        )),
        _ => out.line("[resource contents not shown]"),
    }
}

/// The parts of `content` pi can pass on.
pub(crate) fn collect(content: Vec<ContentBlock>) -> Collected {
    let mut out = Collected::default();
    for block in content {
        match block {
            ContentBlock::Text(text) => out.line(&text.text),
            ContentBlock::Image(image) => {
                out.images
                    .push(UserBlock::image(image.data, image.mime_type));
            }
            ContentBlock::Audio(audio) => out.line(&format!(
                "[audio ({}, {} base64 bytes) not shown]",
                audio.mime_type,
                audio.data.len()
            )),
            ContentBlock::Resource(embedded) => resource_line(&embedded.resource, &mut out),
            ContentBlock::ResourceLink(link) => {
                out.line(&format!("[resource link: {} ({})]", link.uri, link.name));
            }
            _ => out.line("[content not shown]"),
        }
    }
    out
}

/// `text` within the limits, and what was cut (with the notice added and
/// the whole text saved when something was).
pub(crate) fn truncate(text: &str, prefix: &str) -> (String, Option<(TruncationResult, String)>) {
    let mut truncation = truncate_head(text, TruncationOptions::default());
    if !truncation.truncated {
        return (truncation.content, None);
    }
    if truncation.first_line_exceeds_limit {
        // One line over the limit: keep its start (at a character boundary).
        let mut end = DEFAULT_MAX_BYTES.min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        truncation.content = text[..end].to_owned();
        truncation.output_bytes = end;
        truncation.output_lines = 1;
    }
    let path = save_full(text, prefix);
    let mut shown = truncation.content.clone();
    shown.push_str(&format!(
        "\n\n[Output truncated: {} of {} lines ({} of {}).",
        truncation.output_lines,
        truncation.total_lines,
        format_size(truncation.output_bytes),
        format_size(truncation.total_bytes)
    ));
    match &path {
        Some(path) => shown.push_str(&format!(" Full output saved to: {path}]")),
        None => shown.push(']'),
    }
    (shown, Some((truncation, path.unwrap_or_default())))
}

/// Writes `text` to a private temp file; its path.
fn save_full(text: &str, prefix: &str) -> Option<String> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let id = uuid::Uuid::new_v4().simple().to_string();
    let path = std::env::temp_dir().join(format!("{prefix}-{}.txt", &id[..16]));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)
        .and_then(|mut f| f.write_all(text.as_bytes()));
    match written {
        Ok(()) => Some(path.display().to_string()),
        Err(e) => {
            tracing::warn!("cannot save a truncated MCP result: {e}");
            None
        }
    }
}

/// Structured content kept in `details` only up to this size.
const MAX_DETAILS_BYTES: usize = 16 * 1024;

/// `result` of `tool` on `server` as the agent's result.
pub fn to_agent_result(
    server: &str,
    tool: &str,
    result: CallToolResult,
) -> Result<AgentToolResult, ToolError> {
    let structured = result.structured_content;
    let mut collected = collect(result.content);
    let structured_text = structured
        .as_ref()
        .and_then(|v| serde_json::to_string_pretty(v).ok());
    if collected.text.is_empty()
        && collected.images.is_empty()
        && let Some(text) = &structured_text
    {
        collected.text = text.clone();
    }
    if result.is_error == Some(true) {
        let (text, _) = truncate(&collected.text, "pi-mcp");
        let text = if text.is_empty() {
            format!("MCP tool {tool} on {server} failed")
        } else {
            text
        };
        return Err(ToolError::new(text));
    }
    let (text, truncation) = truncate(&collected.text, "pi-mcp");
    let mut details = json!({"server": server, "tool": tool});
    if let Some(value) = structured
        && structured_text.is_some_and(|t| t.len() <= MAX_DETAILS_BYTES)
    {
        details["structuredContent"] = value;
    }
    if let Some((truncation, path)) = truncation {
        // The kept text is the result's text already.
        let mut truncation = serde_json::to_value(&truncation).unwrap_or(Value::Null);
        if let Some(fields) = truncation.as_object_mut() {
            fields.remove("content");
        }
        details["truncation"] = truncation;
        if !path.is_empty() {
            details["fullOutputPath"] = json!(path);
        }
    }
    let mut content = Vec::with_capacity(1 + collected.images.len());
    if !text.is_empty() || collected.images.is_empty() {
        content.push(UserBlock::text(text));
    }
    content.extend(collected.images);
    Ok(AgentToolResult {
        content,
        details,
        terminate: None,
    })
}

#[cfg(test)]
#[path = "result_tests.rs"]
mod tests;
