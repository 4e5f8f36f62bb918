//! App roles live in the transcript; only the converter decides what the
//! model sees.

use std::sync::Arc;

use pi_agent_core::{Agent, AgentMessage, CustomMessage, HookError};
use pi_ai::scripted::text_reply;
use pi_ai::{Message, UserMessage};
use pretty_assertions::assert_eq;
use serde::{Deserialize, Serialize};

use crate::common::{Recorder, agent_with, describe_message, provider, seen};

/// An app with one extra role: notes for the UI.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "camelCase")]
enum AppMessage {
    Note { text: String, timestamp: i64 },
}

impl CustomMessage for AppMessage {
    const ROLES: &'static [&'static str] = &["note"];

    fn role(&self) -> &'static str {
        "note"
    }

    fn timestamp(&self) -> i64 {
        match self {
            Self::Note { timestamp, .. } => *timestamp,
        }
    }
}

fn note(text: &str) -> AgentMessage<AppMessage> {
    AgentMessage::Custom(AppMessage::Note {
        text: text.to_owned(),
        timestamp: 1,
    })
}

fn transcript(agent: &Agent<AppMessage>) -> Vec<String> {
    agent.messages().iter().map(describe_message).collect()
}

#[tokio::test]
async fn the_default_converter_keeps_app_roles_from_the_provider_but_in_the_state() {
    let scripted = provider([text_reply("hi there")]);
    let agent: Agent<AppMessage> = agent_with(&scripted);
    agent.append_message(note("shown in the UI only"));
    let recorder = Recorder::default();
    agent.subscribe(recorder.listener());
    agent.prompt("hello").await.unwrap();

    let calls = scripted.calls();
    assert_eq!(calls.len(), 1);
    assert_eq!(seen(&calls[0]), ["user \"hello\""]);
    assert_eq!(
        transcript(&agent),
        [
            "custom role=note",
            "user \"hello\"",
            "assistant stop=stop text=\"hi there\"",
        ]
    );
    insta::assert_snapshot!(recorder.lines());
}

#[tokio::test]
async fn an_app_converter_turns_app_roles_into_user_messages() {
    let scripted = provider([text_reply("noted")]);
    let agent: Agent<AppMessage> = agent_with(&scripted);
    agent.update_settings(|settings| {
        settings.convert_to_llm = Arc::new(|messages: &[AgentMessage<AppMessage>]| {
            Ok::<_, HookError>(
                messages
                    .iter()
                    .map(|m| match m {
                        AgentMessage::Standard(message) => message.clone(),
                        AgentMessage::Custom(AppMessage::Note { text, timestamp }) => {
                            Message::User(UserMessage {
                                content: format!("[note] {text}").into(),
                                timestamp: *timestamp,
                                ..UserMessage::default()
                            })
                        }
                    })
                    .collect(),
            )
        });
    });
    agent.append_message(note("the build is green"));
    agent.prompt("status?").await.unwrap();

    assert_eq!(
        seen(&scripted.calls()[0]),
        ["user \"[note] the build is green\"", "user \"status?\""]
    );
    // The stored message is still the note, not its projection.
    assert_eq!(transcript(&agent)[0], "custom role=note");
    let json = serde_json::to_value(agent.messages()).unwrap();
    assert_eq!(json[0]["role"], "note");
    assert_eq!(json[0]["text"], "the build is green");
}

#[test]
fn pop_message_if_removes_only_a_matching_last_message() {
    let scripted = provider([]);
    let agent: Agent<AppMessage> = agent_with(&scripted);
    agent.append_message(note("first"));
    agent.append_message(note("second"));
    let is_standard = |m: &AgentMessage<AppMessage>| matches!(m, AgentMessage::Standard(_));
    assert!(agent.pop_message_if(is_standard).is_none());
    assert_eq!(agent.messages().len(), 2);
    let popped = agent.pop_message_if(|m| matches!(m, AgentMessage::Custom(_)));
    assert_eq!(popped, Some(note("second")));
    assert_eq!(agent.messages(), vec![note("first")]);
}
