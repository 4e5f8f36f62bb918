//! The `images.blockImages` setting: images in user and tool result
//! messages are replaced by a note before the context goes to the model
//! (pi's defense in depth; the transcript keeps them).

use pi_ai::{Message, UserBlock, UserContent};

/// What an image becomes (pi's wording).
const IMAGE_BLOCKED: &str = "Image reading is disabled.";

/// `messages` with every image replaced by [`IMAGE_BLOCKED`], consecutive
/// notes merged into one.
pub(crate) fn block_images(messages: Vec<Message>) -> Vec<Message> {
    messages
        .into_iter()
        .map(|message| match message {
            Message::User(mut user) => {
                if let UserContent::Blocks(blocks) = &mut user.content {
                    replace_images(blocks);
                }
                Message::User(user)
            }
            Message::ToolResult(mut result) => {
                replace_images(&mut result.content);
                Message::ToolResult(result)
            }
            other => other,
        })
        .collect()
}

fn replace_images(blocks: &mut Vec<UserBlock>) {
    if !blocks.iter().any(|b| matches!(b, UserBlock::Image(_))) {
        return;
    }
    let mut out: Vec<UserBlock> = Vec::with_capacity(blocks.len());
    for block in blocks.drain(..) {
        let block = match block {
            UserBlock::Image(_) => UserBlock::text(IMAGE_BLOCKED),
            text => text,
        };
        let repeated = block.as_text() == Some(IMAGE_BLOCKED)
            && out.last().and_then(UserBlock::as_text) == Some(IMAGE_BLOCKED);
        if !repeated {
            out.push(block);
        }
    }
    *blocks = out;
}

#[cfg(test)]
mod tests {
    use pi_ai::UserMessage;

    use super::*;

    #[test]
    fn images_become_one_note_per_run_and_text_stays() {
        let user = Message::User(UserMessage {
            content: UserContent::Blocks(vec![
                UserBlock::text("look"),
                UserBlock::image("AAAA", "image/png"),
                UserBlock::image("BBBB", "image/png"),
                UserBlock::text("and"),
                UserBlock::image("CCCC", "image/jpeg"),
            ]),
            timestamp: 0,
            extra: Default::default(),
        });
        let out = block_images(vec![user]);
        let [Message::User(out)] = out.as_slice() else {
            panic!("{out:?}")
        };
        let UserContent::Blocks(blocks) = &out.content else {
            panic!()
        };
        let texts: Vec<_> = blocks.iter().map(|b| b.as_text().unwrap()).collect();
        assert_eq!(texts, ["look", IMAGE_BLOCKED, "and", IMAGE_BLOCKED]);
    }
}
