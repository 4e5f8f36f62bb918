//! The HTML export of a session: one self-contained page (styles and script inline, no
//! network) with the transcript rendered as in the terminal — markdown, thinking,
//! tool calls with collapsible output — plus the session's id, name and directory.

mod markdown;
mod render;

use std::fmt::Write as _;

use pi_agent_core::AgentMessage;

use crate::messages::CodingMessage;
pub use markdown::{escape, to_html as markdown_to_html};

const STYLE: &str = include_str!("style.css");
const SCRIPT: &str = include_str!("script.js");

/// What the page says about the session.
#[derive(Debug, Clone, Default)]
pub struct PageInfo {
    /// The session id.
    pub session_id: String,
    /// The session's display name.
    pub name: Option<String>,
    /// The session's working directory.
    pub cwd: String,
    /// When the session started (the header's timestamp).
    pub started: String,
}

/// The page for `messages`.
pub fn render_page(info: &PageInfo, messages: &[AgentMessage<CodingMessage>]) -> String {
    let title = info.name.as_deref().unwrap_or(&info.session_id);
    let mut html = String::with_capacity(STYLE.len() + SCRIPT.len() + 4096);
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>pi session {}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n<main>\n",
        escape(title)
    );
    let _ = write!(
        html,
        "<header><h1>{}</h1><dl><dt>Session</dt><dd>{}</dd>",
        escape(title),
        escape(&info.session_id)
    );
    if !info.cwd.is_empty() {
        let _ = write!(html, "<dt>Directory</dt><dd>{}</dd>", escape(&info.cwd));
    }
    if !info.started.is_empty() {
        let _ = write!(html, "<dt>Started</dt><dd>{}</dd>", escape(&info.started));
    }
    let _ = writeln!(
        html,
        "<dt>Messages</dt><dd>{}</dd></dl></header>",
        messages.len()
    );
    html.push_str(
        "<div class=\"toolbar\"><button id=\"expand-all\" type=\"button\">Expand all</button> \
         <button id=\"collapse-all\" type=\"button\">Collapse all</button></div>\n",
    );
    render::render_messages(&mut html, messages);
    let _ = write!(
        html,
        "</main>\n<script>\n{SCRIPT}</script>\n</body>\n</html>\n"
    );
    html
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_ai::{AssistantContent, AssistantMessage, Message, ToolCall, ToolResultMessage};

    fn messages() -> Vec<AgentMessage<CodingMessage>> {
        let mut assistant = AssistantMessage::empty(
            pi_ai::Api::OPENAI_COMPLETIONS,
            pi_ai::Provider::from("mock"),
            "mock-gpt",
            0,
        );
        assistant.content = vec![
            AssistantContent::Thinking(pi_ai::ThinkingContent {
                thinking: "let me think".to_owned(),
                ..Default::default()
            }),
            AssistantContent::Text(pi_ai::TextContent {
                text: "Here is **the plan** <img src=x onerror=alert(1)>".to_owned(),
                ..Default::default()
            }),
            AssistantContent::ToolCall(ToolCall {
                id: "call-1".to_owned(),
                name: "bash".to_owned(),
                arguments: serde_json::json!({"command": "ls </tmp>"}),
                ..Default::default()
            }),
        ];
        let result = ToolResultMessage {
            tool_call_id: "call-1".to_owned(),
            tool_name: "bash".to_owned(),
            content: vec![pi_ai::UserBlock::Text(pi_ai::TextContent {
                text: "a.txt\n<b>b.txt</b>".to_owned(),
                ..Default::default()
            })],
            is_error: true,
            ..Default::default()
        };
        vec![
            AgentMessage::user_text("hello *world*"),
            AgentMessage::Standard(Message::Assistant(assistant)),
            AgentMessage::Standard(Message::ToolResult(result)),
        ]
    }

    #[test]
    fn the_page_holds_the_transcript_escaped_and_self_contained() {
        let info = PageInfo {
            session_id: "s-1".to_owned(),
            name: Some("My <session>".to_owned()),
            cwd: "/work".to_owned(),
            started: "2026-01-01T00:00:00Z".to_owned(),
        };
        let html = render_page(&info, &messages());
        assert!(html.contains("<title>pi session My &lt;session&gt;</title>"));
        assert!(html.contains("hello <em>world</em>"));
        assert!(html.contains("<details class=\"thinking\">"));
        assert!(html.contains("let me think"));
        assert!(html.contains("<strong>the plan</strong>"));
        assert!(!html.contains("<img src=x"));
        assert!(html.contains("<div class=\"tool error\"><div class=\"name\">bash</div>"));
        assert!(html.contains("ls &lt;/tmp&gt;"));
        assert!(html.contains("a.txt\n&lt;b&gt;b.txt&lt;/b&gt;"));
        assert!(html.contains("<details class=\"output\" open>"));
        // Self-contained: no external resources.
        for needle in [
            "src=\"http",
            "href=\"http",
            "<link",
            "@import",
            "<script src",
        ] {
            assert!(!html.contains(needle), "{needle}");
        }
        // The result is shown with its call, not a second time on its own.
        assert_eq!(html.matches("class=\"name\">bash<").count(), 1);
    }
}
