//! pi's `images.blockImages`: right before a model call, every image in a
//! user or tool-result message becomes the text `Image reading is
//! disabled.` (consecutive ones collapse into one); the transcript keeps them.

use pi_ai::{Message, TransformedMessage, UserBlock, UserContent};

/// The text that stands in for a blocked image.
pub const IMAGE_BLOCKED_TEXT: &str = "Image reading is disabled.";

/// `messages` with their images replaced by [`IMAGE_BLOCKED_TEXT`].
pub fn block_images(messages: Vec<Message>) -> Vec<Message> {
    messages.into_iter().map(block_message).collect()
}

/// One converted message with its images replaced, copied only when it has
/// some.
pub(crate) fn block_message_images(message: TransformedMessage<'_>) -> TransformedMessage<'_> {
    if image_blocks(&message).is_some_and(|blocks| blocks.iter().any(is_image)) {
        TransformedMessage::owned(block_message(message.into_owned()))
    } else {
        message
    }
}

/// The blocks of a user or tool-result message that may hold images.
fn image_blocks(message: &Message) -> Option<&[UserBlock]> {
    match message {
        Message::User(user) => match &user.content {
            UserContent::Blocks(blocks) => Some(blocks),
            UserContent::Text(_) => None,
        },
        Message::ToolResult(result) => Some(&result.content),
        Message::Assistant(_) => None,
    }
}

fn is_image(block: &UserBlock) -> bool {
    matches!(block, UserBlock::Image(_))
}

/// `message` with its images replaced.
fn block_message(mut message: Message) -> Message {
    let blocks = match &mut message {
        Message::User(user) => match &mut user.content {
            UserContent::Blocks(blocks) => blocks,
            UserContent::Text(_) => return message,
        },
        Message::ToolResult(result) => &mut result.content,
        Message::Assistant(_) => return message,
    };
    if blocks.iter().any(is_image) {
        *blocks = replace_images(std::mem::take(blocks));
    }
    message
}

fn is_blocked_text(block: &UserBlock) -> bool {
    matches!(block, UserBlock::Text(t) if t.text == IMAGE_BLOCKED_TEXT)
}

fn replace_images(blocks: Vec<UserBlock>) -> Vec<UserBlock> {
    let mut out: Vec<UserBlock> = Vec::with_capacity(blocks.len());
    for block in blocks {
        let block = match block {
            UserBlock::Image(_) => UserBlock::text(IMAGE_BLOCKED_TEXT),
            other => other,
        };
        if is_blocked_text(&block) && out.last().is_some_and(is_blocked_text) {
            continue;
        }
        out.push(block);
    }
    out
}

#[cfg(test)]
mod tests {
    use pi_ai::{ToolResultMessage, UserMessage};

    use super::*;

    fn texts(blocks: &[UserBlock]) -> Vec<String> {
        blocks
            .iter()
            .map(|b| match b {
                UserBlock::Text(t) => t.text.clone(),
                UserBlock::Image(i) => format!("image {}", i.mime_type),
            })
            .collect()
    }

    #[test]
    fn images_become_pis_placeholder_once_per_run() {
        let user: UserMessage = serde_json::from_value(serde_json::json!({
            "role": "user", "timestamp": 1, "content": [
                {"type": "text", "text": "look"},
                {"type": "image", "data": "AA==", "mimeType": "image/png"},
                {"type": "image", "data": "AA==", "mimeType": "image/png"},
                {"type": "text", "text": "and"},
                {"type": "image", "data": "AA==", "mimeType": "image/jpeg"}
            ]
        }))
        .unwrap();
        let tool: ToolResultMessage = serde_json::from_value(serde_json::json!({
            "role": "toolResult", "toolCallId": "c", "toolName": "read", "isError": false,
            "timestamp": 2, "content": [
                {"type": "text", "text": "Read image file [image/png]"},
                {"type": "image", "data": "AA==", "mimeType": "image/png"}
            ]
        }))
        .unwrap();
        let out = block_images(vec![Message::User(user), Message::ToolResult(tool)]);
        let Message::User(user) = &out[0] else {
            panic!("user")
        };
        let UserContent::Blocks(blocks) = &user.content else {
            panic!("blocks")
        };
        assert_eq!(
            texts(blocks),
            ["look", IMAGE_BLOCKED_TEXT, "and", IMAGE_BLOCKED_TEXT]
        );
        let Message::ToolResult(tool) = &out[1] else {
            panic!("tool")
        };
        assert_eq!(
            texts(&tool.content),
            ["Read image file [image/png]", "Image reading is disabled."]
        );
    }
}
