//! Applying `finalize_message` before a `message_end`: the hook's
//! replacement is taken only when it has the role of the message it
//! replaces.

use std::sync::Arc;

use pi_ai::{CancellationToken, Message};

use crate::hooks::FinalizeMessage;
use crate::message::{AgentMessage, CustomMessage};

/// The replacement `hook` gives for `message`, if it gives one of the same
/// role; `None` without a hook (no work at all), when the hook keeps the
/// message, and when its replacement has another role (ignored with a
/// warning).
pub(crate) async fn replacement<C: CustomMessage>(
    hook: Option<&Arc<dyn FinalizeMessage<C>>>,
    message: &AgentMessage<C>,
    cancel: &CancellationToken,
) -> Option<AgentMessage<C>> {
    let replacement = hook?.finalize(message, cancel).await?;
    if same_role(message, &replacement) {
        Some(replacement)
    } else {
        tracing::warn!(
            role = message.role(),
            replacement = replacement.role(),
            "finalize_message returned a message of another role; keeping the original"
        );
        None
    }
}

/// Whether `a` and `b` are the same kind of message: both standard with
/// the same role, or both the app's with the same role.
fn same_role<C: CustomMessage>(a: &AgentMessage<C>, b: &AgentMessage<C>) -> bool {
    match (a, b) {
        (AgentMessage::Standard(a), AgentMessage::Standard(b)) => {
            matches!(
                (a, b),
                (Message::User(_), Message::User(_))
                    | (Message::Assistant(_), Message::Assistant(_))
                    | (Message::ToolResult(_), Message::ToolResult(_))
            )
        }
        (AgentMessage::Custom(a), AgentMessage::Custom(b)) => a.role() == b.role(),
        (AgentMessage::Standard(_), AgentMessage::Custom(_))
        | (AgentMessage::Custom(_), AgentMessage::Standard(_)) => false,
    }
}

#[cfg(test)]
mod tests {
    use pi_ai::ToolResultMessage;
    use pretty_assertions::assert_eq;
    use serde::{Deserialize, Serialize};

    use super::*;

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(tag = "role", rename_all = "camelCase")]
    enum App {
        Note { text: String },
        Mark { text: String },
    }

    impl CustomMessage for App {
        const ROLES: &'static [&'static str] = &["note", "mark"];

        fn role(&self) -> &'static str {
            match self {
                Self::Note { .. } => "note",
                Self::Mark { .. } => "mark",
            }
        }

        fn timestamp(&self) -> i64 {
            0
        }
    }

    fn note(text: &str) -> AgentMessage<App> {
        AgentMessage::Custom(App::Note { text: text.into() })
    }

    fn hook(
        answer: impl Fn(&AgentMessage<App>) -> Option<AgentMessage<App>> + Send + Sync + 'static,
    ) -> Arc<dyn FinalizeMessage<App>> {
        Arc::new(answer)
    }

    #[test]
    fn roles_compare_by_variant_and_role() {
        let user = AgentMessage::<App>::user_text("a");
        let assistant = AgentMessage::<App>::from(pi_ai::scripted::text_reply("a"));
        let result = AgentMessage::<App>::from(ToolResultMessage::default());
        let mark = AgentMessage::Custom(App::Mark { text: "m".into() });
        assert!(same_role(&user, &AgentMessage::user_text("b")));
        assert!(same_role(&note("a"), &note("b")));
        assert!(!same_role(&user, &assistant));
        assert!(!same_role(&assistant, &result));
        assert!(!same_role(&note("a"), &mark));
        assert!(!same_role(&user, &note("a")));
    }

    #[tokio::test]
    async fn a_replacement_of_the_same_role_is_taken() {
        let hook = hook(|m| match m {
            AgentMessage::Custom(App::Note { text }) => Some(note(&text.to_uppercase())),
            _ => None,
        });
        let cancel = CancellationToken::new();
        let replaced = replacement(Some(&hook), &note("hi"), &cancel).await;
        assert_eq!(replaced, Some(note("HI")));
        let kept = replacement(Some(&hook), &AgentMessage::user_text("x"), &cancel).await;
        assert_eq!(kept, None);
    }

    #[tokio::test]
    async fn a_replacement_of_another_role_is_ignored() {
        let hook = hook(|_| Some(AgentMessage::user_text("not a note")));
        let cancel = CancellationToken::new();
        assert_eq!(replacement(Some(&hook), &note("hi"), &cancel).await, None);
        assert_eq!(replacement(None, &note("hi"), &cancel).await, None);
    }
}
