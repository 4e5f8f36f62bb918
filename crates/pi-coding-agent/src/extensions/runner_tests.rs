//! The runner's semantics per event, without an app: handler order,
//! pipelines, first-wins answers, fail-closed `tool_call`, and isolation
//! of failing handlers. (What reaches the session and the provider is
//! checked with a whole app in `tests/it/extension_runner.rs`.)

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::extensions::*;

type Log = Arc<Mutex<Vec<String>>>;
fn ext(
    path: &'static str,
    register: impl Fn(&mut ExtensionApi<'_>) + Send + Sync + 'static,
) -> FnExtension {
    FnExtension::new(path, register)
}

fn push(log: &Log, entry: impl Into<String>) {
    log.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(entry.into());
}

fn entries(log: &Log) -> Vec<String> {
    log.lock().unwrap_or_else(PoisonError::into_inner).clone()
}

/// A runner of `extensions` (in load order) and the failures it reports.
fn runner(
    extensions: Vec<FnExtension>,
) -> (ExtensionRunner, Arc<Mutex<Vec<ExtensionErrorReport>>>) {
    let set: ExtensionSet = extensions.into_iter().collect();
    let runner = load(&set, PathBuf::from("."));
    let errors: Arc<Mutex<Vec<ExtensionErrorReport>>> = Arc::default();
    let sink = Arc::clone(&errors);
    runner.on_error(Arc::new(move |report| {
        sink.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(report.clone());
    }));
    (runner, errors)
}

fn reports(errors: &Arc<Mutex<Vec<ExtensionErrorReport>>>) -> Vec<ExtensionErrorReport> {
    errors
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
}

fn report(path: &str, event: &str, error: &str) -> ExtensionErrorReport {
    ExtensionErrorReport {
        extension_path: path.to_owned(),
        event: event.to_owned(),
        error: error.to_owned(),
    }
}

/// Registers an `agent_start` handler that logs `name`.
fn logs_start(api: &mut ExtensionApi<'_>, log: &Log, name: &'static str) {
    let log = Arc::clone(log);
    api.on(move |_: AgentStartEvent, _| {
        push(&log, name);
        async { Ok(None) }
    });
}

#[tokio::test]
async fn handlers_run_in_load_order_then_registration_order() {
    let log: Log = Arc::default();
    let (a, b) = (Arc::clone(&log), Arc::clone(&log));
    let (runner, _) = runner(vec![
        ext("a", move |api| {
            logs_start(api, &a, "a1");
            logs_start(api, &a, "a2");
        }),
        ext("b", move |api| {
            logs_start(api, &b, "b1");
            logs_start(api, &b, "b2");
        }),
    ]);
    runner.emit(AgentStartEvent {}).await;
    assert_eq!(entries(&log), ["a1", "a2", "b1", "b2"]);
}

#[tokio::test]
async fn a_panicking_notification_handler_is_reported_and_the_others_run() {
    let log: Log = Arc::default();
    let (a, b) = (Arc::clone(&log), Arc::clone(&log));
    let (runner, errors) = runner(vec![
        ext("a", move |api| {
            logs_start(api, &a, "a1");
            api.on(|_: AgentStartEvent, _| async {
                if true {
                    panic!("boom");
                }
                Ok(None)
            });
        }),
        ext("b", move |api| logs_start(api, &b, "b1")),
    ]);
    runner.emit(AgentStartEvent {}).await;
    assert_eq!(entries(&log), ["a1", "b1"]);
    assert_eq!(reports(&errors), [report("a", "agent_start", "boom")]);
}

fn user(text: &str) -> Message {
    Message::user_text(text)
}

fn texts(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .map(|m| serde_json::to_value(m).unwrap_or_default()["content"].to_string())
        .collect()
}

#[tokio::test]
async fn context_handlers_chain_and_a_failing_one_changes_nothing() {
    let seen: Log = Arc::default();
    let (one, two) = (Arc::clone(&seen), Arc::clone(&seen));
    let (runner, errors) = runner(vec![
        ext("a", move |api| {
            let one = Arc::clone(&one);
            api.on(move |mut event: ContextEvent, _| {
                push(&one, format!("first saw {}", event.messages.len()));
                // Copy-on-write: the change makes this handler's own copy.
                Arc::make_mut(&mut event.messages).push(user("added by a"));
                async move {
                    Ok(Some(ContextResult {
                        messages: Some(Arc::unwrap_or_clone(event.messages)),
                    }))
                }
            });
            // Fails after changing its copy: the change must not leak.
            api.on(|mut event: ContextEvent, _| {
                Arc::make_mut(&mut event.messages).clear();
                async { Err(ExtensionError::new("context broke")) }
            });
        }),
        ext("b", move |api| {
            let two = Arc::clone(&two);
            api.on(move |event: ContextEvent, _| {
                push(&two, format!("last saw {}", event.messages.len()));
                let kept = event.messages[1..].to_vec();
                async move {
                    Ok(Some(ContextResult {
                        messages: Some(kept),
                    }))
                }
            });
        }),
    ]);
    let original = Arc::new(vec![user("one"), user("two")]);
    let out = runner.emit_context(Arc::clone(&original)).await.unwrap();
    assert_eq!(entries(&seen), ["first saw 2", "last saw 3"]);
    assert_eq!(texts(&out), texts(&[user("two"), user("added by a")]));
    assert_eq!(reports(&errors), [report("a", "context", "context broke")]);
    // The caller's messages were never changed.
    assert_eq!(texts(&original), texts(&[user("one"), user("two")]));
}

#[tokio::test]
async fn context_handlers_that_change_nothing_copy_nothing() {
    let (runner, _errors) = runner(vec![ext("reader", |api| {
        api.on(|event: ContextEvent, _| {
            std::hint::black_box(event.messages.len());
            async { Ok(None) }
        });
    })]);
    let original = Arc::new(vec![user("one"), user("two")]);
    assert_eq!(runner.emit_context(Arc::clone(&original)).await, None);
    // No handler kept a copy: the caller gets its messages back as they were.
    assert_eq!(Arc::strong_count(&original), 1);
}

fn call(input: Value) -> ToolCallEvent {
    ToolCallEvent {
        tool_call_id: "call_1".to_owned(),
        tool_name: "bash".to_owned(),
        input,
    }
}

#[tokio::test]
async fn tool_call_input_changes_chain_and_the_first_block_wins() {
    let seen: Log = Arc::default();
    let (a, b) = (Arc::clone(&seen), Arc::clone(&seen));
    let (runner, _) = runner(vec![
        ext("a", move |api| {
            let a = Arc::clone(&a);
            api.on(move |event: ToolCallEvent, _| {
                push(&a, format!("a {}", event.input));
                async {
                    Ok(Some(ToolCallResult {
                        input: Some(json!({"command": "echo changed"})),
                        ..Default::default()
                    }))
                }
            });
        }),
        ext("b", move |api| {
            let b1 = Arc::clone(&b);
            api.on(move |event: ToolCallEvent, _| {
                push(&b1, format!("b {}", event.input));
                async {
                    Ok(Some(ToolCallResult {
                        block: true,
                        reason: Some("no".to_owned()),
                        input: None,
                    }))
                }
            });
            let b2 = Arc::clone(&b);
            api.on(move |_: ToolCallEvent, _| {
                push(&b2, "never");
                async { Ok(None) }
            });
        }),
    ]);
    let (result, input) = runner
        .emit_tool_call(call(json!({"command": "echo hi"})))
        .await;
    assert_eq!(
        entries(&seen),
        [
            r#"a {"command":"echo hi"}"#,
            r#"b {"command":"echo changed"}"#
        ]
    );
    assert!(result.block);
    assert_eq!(result.reason.as_deref(), Some("no"));
    assert_eq!(input, json!({"command": "echo changed"}));
}

#[tokio::test]
async fn a_failing_tool_call_handler_blocks_the_call_and_is_reported() {
    let later: Log = Arc::default();
    let log = Arc::clone(&later);
    let (runner, errors) = runner(vec![
        ext("a", |api| {
            api.on(|_: ToolCallEvent, _| async { Err(ExtensionError::new("gate crashed")) });
        }),
        ext("b", move |api| {
            let log = Arc::clone(&log);
            api.on(move |_: ToolCallEvent, _| {
                push(&log, "b");
                async { Ok(None) }
            });
        }),
    ]);
    let (result, _) = runner.emit_tool_call(call(json!({}))).await;
    assert_eq!(
        result,
        ToolCallResult {
            block: true,
            reason: Some("gate crashed".to_owned()),
            input: None,
        }
    );
    assert!(entries(&later).is_empty(), "no handler after the failure");
    assert_eq!(reports(&errors), [report("a", "tool_call", "gate crashed")]);
}

#[tokio::test]
async fn tool_result_patches_chain() {
    let seen: Log = Arc::default();
    let log = Arc::clone(&seen);
    let (runner, _) = runner(vec![ext("a", move |api| {
        api.on(|_: ToolResultEvent, _| async {
            Ok(Some(ToolResultPatch {
                content: Some(vec![pi_ai::UserBlock::text("patched")]),
                ..Default::default()
            }))
        });
        let log = Arc::clone(&log);
        api.on(move |event: ToolResultEvent, _| {
            push(
                &log,
                serde_json::to_string(&event.content).unwrap_or_default(),
            );
            async {
                Ok(Some(ToolResultPatch {
                    is_error: Some(true),
                    ..Default::default()
                }))
            }
        });
    })]);
    let event = ToolResultEvent {
        tool_call_id: "call_1".to_owned(),
        tool_name: "bash".to_owned(),
        input: json!({}),
        content: vec![pi_ai::UserBlock::text("original")],
        details: json!({"kept": true}),
        is_error: false,
    };
    let patch = runner.emit_tool_result(event.clone()).await;
    assert_eq!(entries(&seen), [r#"[{"type":"text","text":"patched"}]"#]);
    assert_eq!(
        patch,
        Some(ToolResultPatch {
            content: Some(vec![pi_ai::UserBlock::text("patched")]),
            details: Some(json!({"kept": true})),
            is_error: Some(true),
        })
    );
    let (quiet, _) = self::runner(Vec::new());
    assert_eq!(quiet.emit_tool_result(event).await, None);
}

#[tokio::test]
async fn message_end_keeps_a_same_role_replacement_and_refuses_another_role() {
    let (runner, errors) = runner(vec![ext("a", |api| {
        api.on(|_: MessageEndEvent, _| async {
            Ok(Some(MessageEndResult {
                message: Some(user("replaced")),
            }))
        });
        api.on(|_: MessageEndEvent, _| async {
            let assistant = pi_ai::AssistantMessage::empty("x".into(), "x".into(), "m", 1);
            Ok(Some(MessageEndResult {
                message: Some(Message::from(pi_ai::Message::Assistant(assistant))),
            }))
        });
    })]);
    let out = runner.emit_message_end(&user("original")).await;
    assert_eq!(
        texts(&out.into_iter().collect::<Vec<_>>()),
        texts(&[user("replaced")])
    );
    assert_eq!(
        reports(&errors),
        [report(
            "a",
            "message_end",
            "message_end handlers must return a message with the same role"
        )]
    );
}

fn input(text: &str) -> InputEvent {
    InputEvent {
        text: text.to_owned(),
        images: None,
        source: "rpc".to_owned(),
    }
}

#[tokio::test]
async fn input_transforms_chain_and_handled_stops() {
    let seen: Log = Arc::default();
    let log = Arc::clone(&seen);
    let (runner, _) = runner(vec![ext("a", move |api| {
        api.on(|event: InputEvent, _| async move {
            Ok(Some(match event.text.as_str() {
                "stop" => InputResult::Handled,
                text => InputResult::Transform {
                    text: format!("{text}+a"),
                    images: None,
                },
            }))
        });
        let log = Arc::clone(&log);
        api.on(move |event: InputEvent, _| {
            push(&log, event.text.clone());
            async move {
                Ok(Some(InputResult::Transform {
                    text: format!("{}+b", event.text),
                    images: None,
                }))
            }
        });
    })]);
    assert_eq!(
        runner.emit_input(input("hi")).await,
        InputResult::Transform {
            text: "hi+a+b".to_owned(),
            images: None
        }
    );
    assert_eq!(runner.emit_input(input("stop")).await, InputResult::Handled);
    assert_eq!(entries(&seen), ["hi+a"], "nothing runs after handled");
}

#[tokio::test]
async fn before_agent_start_chains_the_system_prompt_and_collects_messages() {
    let seen: Log = Arc::default();
    let (a, b) = (Arc::clone(&seen), Arc::clone(&seen));
    let custom = |text: &str| NewCustomMessage {
        custom_type: "note".to_owned(),
        content: text.to_owned().into(),
        display: true,
        details: None,
    };
    let (runner, _) = runner(vec![
        ext("a", move |api| {
            let a = Arc::clone(&a);
            api.on(move |event: BeforeAgentStartEvent, ctx| {
                push(
                    &a,
                    format!("{} | {}", event.system_prompt, ctx.system_prompt()),
                );
                async move {
                    Ok(Some(BeforeAgentStartResult {
                        message: Some(custom("from a")),
                        system_prompt: Some(format!("{} +a", event.system_prompt)),
                    }))
                }
            });
        }),
        ext("b", move |api| {
            let b = Arc::clone(&b);
            api.on(move |event: BeforeAgentStartEvent, ctx| {
                push(
                    &b,
                    format!("{} | {}", event.system_prompt, ctx.system_prompt()),
                );
                async move {
                    Ok(Some(BeforeAgentStartResult {
                        message: Some(custom("from b")),
                        system_prompt: Some(format!("{} +b", event.system_prompt)),
                    }))
                }
            });
        }),
    ]);
    let outcome = runner
        .emit_before_agent_start(BeforeAgentStartEvent {
            prompt: "hi".to_owned(),
            images: None,
            system_prompt: "base".to_owned(),
            system_prompt_options: json!({}),
        })
        .await;
    assert_eq!(entries(&seen), ["base | base", "base +a | base +a"]);
    assert_eq!(
        outcome,
        Some(BeforeAgentStartOutcome {
            messages: vec![custom("from a"), custom("from b")],
            system_prompt: Some("base +a +b".to_owned()),
        })
    );
}

#[tokio::test]
async fn the_first_cancel_of_a_switch_or_fork_wins() {
    let seen: Log = Arc::default();
    let log = Arc::clone(&seen);
    let (runner, _) = runner(vec![ext("a", move |api| {
        api.on(|_: SessionBeforeSwitchEvent, _| async { Ok(Some(CancelResult { cancel: true })) });
        api.on(|_: SessionBeforeForkEvent, _| async {
            Ok(Some(ForkResult {
                cancel: true,
                skip_conversation_restore: false,
            }))
        });
        let (l1, l2) = (Arc::clone(&log), Arc::clone(&log));
        api.on(move |_: SessionBeforeSwitchEvent, _| {
            push(&l1, "switch");
            async { Ok(Some(CancelResult { cancel: false })) }
        });
        api.on(move |_: SessionBeforeForkEvent, _| {
            push(&l2, "fork");
            async { Ok(None) }
        });
    })]);
    let switch = SessionBeforeSwitchEvent {
        reason: "new".to_owned(),
        target_session_file: None,
    };
    assert!(runner.emit_before_switch(switch).await);
    let fork = SessionBeforeForkEvent {
        entry_id: "e1".to_owned(),
        position: "before".to_owned(),
    };
    assert!(runner.emit_before_fork(fork).await.cancel);
    assert!(entries(&seen).is_empty(), "no handler after a cancel");
}
