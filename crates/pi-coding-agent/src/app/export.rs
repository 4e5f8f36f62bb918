//! The HTML export of a transcript (`/export`, rpc `export_html` and
//! `pi --export <session file> [output]`): a self-contained page with each
//! message's text and its JSON.

use std::path::{Path, PathBuf};

use pi_agent_core::AgentMessage;
use pi_ai::{Message, UserBlock, UserContent};

use super::AppError;
use crate::messages::CodingMessage;
use crate::session::SessionManager;

fn user_text(content: &UserContent) -> String {
    match content {
        UserContent::Text(text) => text.clone(),
        UserContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(UserBlock::as_text)
            .collect::<Vec<_>>()
            .join(""),
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The page for `messages` of the session `title`.
pub(crate) fn render_html(
    title: &str,
    messages: &[AgentMessage<CodingMessage>],
) -> Result<String, serde_json::Error> {
    let mut html = format!(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>pi session {}</title>\n<style>body{{font-family:sans-serif;max-width:60em;margin:auto}}.m{{border-left:4px solid #ccc;margin:1em 0;padding:0 1em}}pre{{white-space:pre-wrap}}</style></head><body>\n<h1>pi session {}</h1>\n",
        escape(title),
        escape(title)
    );
    for message in messages {
        let role = message.role();
        let body = serde_json::to_string_pretty(message)?;
        let text = match message {
            AgentMessage::Standard(Message::User(user)) => user_text(&user.content),
            AgentMessage::Standard(Message::Assistant(a)) => a.text(),
            AgentMessage::Standard(Message::ToolResult(r)) => r
                .content
                .iter()
                .filter_map(UserBlock::as_text)
                .collect::<Vec<_>>()
                .join(""),
            AgentMessage::Custom(_) => String::new(),
        };
        html.push_str(&format!(
            "<div class=\"m {role}\"><h3>{role}</h3><pre>{}</pre><details><summary>JSON</summary><pre>{}</pre></details></div>\n",
            escape(&text),
            escape(&body)
        ));
    }
    html.push_str("</body></html>\n");
    Ok(html)
}

/// `pi --export`: writes the session file `input` as HTML to `output`, or
/// to `pi-session-<file name without .jsonl>.html` in the current
/// directory; returns the path written (as given). Errors carry pi's wording.
pub fn export_from_file(input: &Path, output: Option<&Path>) -> Result<PathBuf, AppError> {
    if !input.exists() {
        return Err(AppError::FileNotFound(input.to_path_buf()));
    }
    let mut session = SessionManager::open(input, None)?;
    let title = session.session_id().to_owned();
    let context = session.take_session_context();
    let html = render_html(&title, &context.messages)?;
    let path = output.map_or_else(
        || {
            let name = input
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let stem = name.strip_suffix(".jsonl").unwrap_or(&name);
            PathBuf::from(format!("pi-session-{stem}.html"))
        },
        Path::to_path_buf,
    );
    std::fs::write(&path, html).map_err(|source| AppError::WriteFile {
        path: path.clone(),
        source,
    })?;
    Ok(path)
}
