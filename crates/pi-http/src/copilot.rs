//! The per-request headers GitHub Copilot expects (pi's
//! `buildCopilotDynamicHeaders`), which the anthropic-messages,
//! openai-completions and openai-responses wires send for models of the
//! `github-copilot` provider, after the model's headers: `X-Initiator`
//! (`user` when the last message is the user's, else `agent`),
//! `Openai-Intent: conversation-edits`, and `Copilot-Vision-Request: true`
//! when the context carries an image.

use pi_ai::{ContextRef, Message, MessagesRef, Model, Provider, UserBlock, UserContent};

use crate::Headers;

/// Sets the dynamic Copilot headers for a request of `context` on `headers`
/// when `model` is a GitHub Copilot model; otherwise leaves them alone.
pub fn set_copilot_dynamic_headers(headers: &mut Headers, model: &Model, context: ContextRef<'_>) {
    if model.provider != Provider::GITHUB_COPILOT {
        return;
    }
    for (name, value) in copilot_dynamic_headers(context.messages) {
        headers.set(name, value);
    }
}

/// The dynamic Copilot headers for a request with `messages`, in pi's order.
pub fn copilot_dynamic_headers(messages: MessagesRef<'_>) -> Vec<(&'static str, &'static str)> {
    let mut headers = vec![
        ("X-Initiator", initiator(messages)),
        ("Openai-Intent", "conversation-edits"),
    ];
    if has_vision_input(messages) {
        headers.push(("Copilot-Vision-Request", "true"));
    }
    headers
}

/// `user` when the last message is the user's (or there is none), else `agent`.
pub fn initiator(messages: MessagesRef<'_>) -> &'static str {
    match messages.last() {
        Some(Message::User(_)) | None => "user",
        Some(_) => "agent",
    }
}

/// Whether a user or tool-result message carries an image.
pub fn has_vision_input(messages: MessagesRef<'_>) -> bool {
    let image = |blocks: &[UserBlock]| blocks.iter().any(|b| matches!(b, UserBlock::Image(_)));
    messages.iter().any(|m| match m {
        Message::User(user) => match &user.content {
            UserContent::Blocks(blocks) => image(blocks),
            UserContent::Text(_) => false,
        },
        Message::ToolResult(result) => image(&result.content),
        Message::Assistant(_) => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(json: &str) -> Vec<Message> {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn initiator_and_vision_follow_the_transcript() {
        let user = messages(r#"[{"role":"user","content":"hi","timestamp":1}]"#);
        assert_eq!(
            copilot_dynamic_headers(MessagesRef::Slice(&user)),
            [
                ("X-Initiator", "user"),
                ("Openai-Intent", "conversation-edits")
            ]
        );
        let tool = messages(
            r#"[{"role":"user","content":"hi","timestamp":1},
                {"role":"toolResult","toolCallId":"c","toolName":"read","content":[{"type":"image","data":"AA==","mimeType":"image/png"}],"isError":false,"timestamp":2}]"#,
        );
        let headers = copilot_dynamic_headers(MessagesRef::Slice(&tool));
        assert_eq!(headers[0].1, "agent");
        assert_eq!(headers[2], ("Copilot-Vision-Request", "true"));
        assert_eq!(initiator(MessagesRef::Slice(&[])), "user");
    }
}
