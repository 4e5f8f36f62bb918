//! The boundary order of every model call: `transform_context`, then
//! `convert_to_llm`, then `get_api_key`, then the stream function; each
//! awaited, each once per call.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pi_agent_core::{
    AgentContext, AgentLoopConfig, AgentMessage, AgentToolResult, HookError, PerMessageConvert,
    default_convert_to_llm, run_agent_loop,
};
use pi_ai::scripted::{ScriptedProvider, scripted_model, text_reply, tool_call_reply};
use pi_ai::{
    AssistantMessageEventStream, CancellationToken, ContextRef, Model, Provider, StreamFunction,
    StreamOptions,
};
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::{FnTool, Recorder, agent_with, any_object, provider, seen};

type Log = Arc<Mutex<Vec<String>>>;

/// Logs each call (with the key it got), then lets the scripted provider answer.
struct Logged {
    inner: Arc<ScriptedProvider>,
    log: Log,
}

impl StreamFunction for Logged {
    fn stream(
        &self,
        model: &Model,
        context: ContextRef<'_>,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        self.log.lock().unwrap().push(format!(
            "stream messages={} api_key={:?}",
            context.messages.len(),
            options.api_key
        ));
        self.inner.stream(model, context, options)
    }
}

#[tokio::test(start_paused = true)]
async fn transform_then_convert_then_stream_once_per_model_call() {
    let log: Log = Arc::default();
    let scripted = provider([
        tool_call_reply(&[("call_1", "echo", json!({"x": 1}))]),
        text_reply("done"),
    ]);
    let mut config = AgentLoopConfig::<pi_agent_core::NoCustom>::new(scripted_model());
    config.stream_fn = Arc::new(Logged {
        inner: Arc::clone(&scripted),
        log: Arc::clone(&log),
    });
    let transform_log = Arc::clone(&log);
    config.transform_context = Some(Arc::new(
        move |mut messages: Vec<AgentMessage>, _cancel: CancellationToken| {
            let log = Arc::clone(&transform_log);
            async move {
                // Suspends, so a loop that did not await the hook would race ahead.
                tokio::time::sleep(Duration::from_millis(5)).await;
                log.lock()
                    .unwrap()
                    .push(format!("transform messages={}", messages.len()));
                messages.insert(0, AgentMessage::user_text("retrieved context"));
                Ok::<_, HookError>(messages)
            }
        },
    ));
    let convert_log = Arc::clone(&log);
    config.convert_to_llm = Arc::new(move |messages: &[AgentMessage]| {
        convert_log
            .lock()
            .unwrap()
            .push(format!("convert messages={}", messages.len()));
        Ok(default_convert_to_llm(messages))
    });
    let key_log = Arc::clone(&log);
    config.get_api_key = Some(Arc::new(move |provider: &Provider| {
        let mut log = key_log.lock().unwrap();
        log.push(format!("get_api_key {provider}"));
        Some(format!("key-{}", log.len()))
    }));
    let echo = FnTool::arc("echo", any_object(), |args, _, _| {
        Box::pin(async move { Ok(AgentToolResult::text(args.to_string())) })
    });
    let context = AgentContext {
        tools: vec![echo],
        ..AgentContext::default()
    };
    let recorder = Recorder::default();
    let new_messages = run_agent_loop(
        vec![AgentMessage::user_text("hello")],
        context,
        &config,
        &mut recorder.sink(),
        CancellationToken::new(),
    )
    .await
    .unwrap();

    assert_eq!(
        *log.lock().unwrap(),
        [
            "transform messages=1",
            "convert messages=2",
            "get_api_key scripted",
            "stream messages=2 api_key=Some(\"key-3\")",
            "transform messages=3",
            "convert messages=4",
            "get_api_key scripted",
            "stream messages=4 api_key=Some(\"key-7\")",
        ]
    );
    // The injected message reached the provider but not the transcript.
    let calls = scripted.calls();
    assert_eq!(
        seen(&calls[1]),
        [
            "user \"retrieved context\"",
            "user \"hello\"",
            "assistant stop=tooluse calls=[call_1:echo]",
            "toolResult call_1 echo error=false \"{\\\"x\\\":1}\"",
        ]
    );
    let roles: Vec<&str> = new_messages.iter().map(AgentMessage::role).collect();
    assert_eq!(roles, ["user", "assistant", "toolResult", "assistant"]);
    insta::assert_snapshot!(recorder.lines());
}

#[tokio::test]
async fn the_configured_api_key_is_the_fallback() {
    let log: Log = Arc::default();
    let scripted = provider([text_reply("a")]);
    let mut config = AgentLoopConfig::<pi_agent_core::NoCustom>::new(scripted_model());
    config.stream_fn = Arc::new(Logged {
        inner: scripted,
        log: Arc::clone(&log),
    });
    config.stream_options.api_key = Some("configured".to_owned());
    config.get_api_key = Some(Arc::new(|_: &Provider| None));
    run_agent_loop(
        vec![AgentMessage::user_text("hi")],
        AgentContext::default(),
        &config,
        &mut Recorder::default().sink(),
        CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(
        *log.lock().unwrap(),
        ["stream messages=1 api_key=Some(\"configured\")"]
    );
}

/// Records the messages of every call, then lets the scripted provider answer.
struct Seen {
    inner: Arc<ScriptedProvider>,
    calls: Arc<Mutex<Vec<Vec<pi_ai::Message>>>>,
}

impl StreamFunction for Seen {
    fn stream(
        &self,
        model: &Model,
        context: ContextRef<'_>,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        self.calls
            .lock()
            .unwrap()
            .push(context.messages.iter().cloned().collect());
        self.inner.stream(model, context, options)
    }
}

#[tokio::test(start_paused = true)]
async fn a_per_message_converter_converts_only_what_each_turn_added() {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let mut config = AgentLoopConfig::new(scripted_model());
    config.stream_fn = Arc::new(Seen {
        inner: provider([
            tool_call_reply(&[("call_1", "echo", json!({"x": 1}))]),
            tool_call_reply(&[("call_2", "echo", json!({"x": 2}))]),
            text_reply("done"),
        ]),
        calls: Arc::clone(&calls),
    });
    let converted: Log = Arc::default();
    let convert_log = Arc::clone(&converted);
    config.convert_to_llm = Arc::new(PerMessageConvert(move |messages: &[AgentMessage]| {
        convert_log
            .lock()
            .unwrap()
            .push(format!("convert messages={}", messages.len()));
        Ok::<_, HookError>(default_convert_to_llm(messages))
    }));
    let echo = FnTool::arc("echo", any_object(), |args, _, _| {
        Box::pin(async move { Ok(AgentToolResult::text(args.to_string())) })
    });
    let earlier = vec![
        AgentMessage::user_text("earlier"),
        AgentMessage::Standard(pi_ai::Message::Assistant(text_reply("ok"))),
    ];
    let context = AgentContext {
        tools: vec![echo],
        messages: earlier.clone(),
        ..AgentContext::default()
    };
    let new_messages = run_agent_loop(
        vec![AgentMessage::user_text("hello")],
        context,
        &config,
        &mut Recorder::default().sink(),
        CancellationToken::new(),
    )
    .await
    .unwrap();

    // The earlier messages and the prompt once, then each turn's assistant
    // message and tool result.
    assert_eq!(
        *converted.lock().unwrap(),
        [
            "convert messages=3",
            "convert messages=2",
            "convert messages=2"
        ]
    );
    // Each call saw the whole transcript before it, as a full conversion gives it.
    let transcript: Vec<AgentMessage> = earlier.into_iter().chain(new_messages).collect();
    let calls = calls.lock().unwrap();
    assert_eq!(calls.len(), 3);
    for (call, seen) in calls.iter().enumerate() {
        let before = 3 + 2 * call;
        assert_eq!(
            *seen,
            default_convert_to_llm(&transcript[..before]),
            "call {call}"
        );
    }
}

/// The default conversion, logging what it converts: owned (`convert`) or
/// in place (`borrowed`).
struct InPlace(Log);

#[async_trait::async_trait]
impl pi_agent_core::ConvertToLlm<pi_agent_core::NoCustom> for InPlace {
    async fn convert(&self, messages: &[AgentMessage]) -> Result<Vec<pi_ai::Message>, HookError> {
        self.0
            .lock()
            .unwrap()
            .push(format!("convert messages={}", messages.len()));
        Ok(default_convert_to_llm(messages))
    }

    fn per_message(&self) -> bool {
        true
    }

    fn convert_borrowed<'a>(
        &self,
        messages: &'a [AgentMessage],
    ) -> Option<Result<Vec<pi_ai::TransformedMessage<'a>>, HookError>> {
        self.0
            .lock()
            .unwrap()
            .push(format!("borrowed messages={}", messages.len()));
        pi_agent_core::DefaultConvertToLlm.convert_borrowed(messages)
    }
}

/// An agent with `earlier` as its transcript, the echo tool and a logging
/// converter that converts in place; its model calls go to `calls`.
fn agent_converting(
    earlier: &[AgentMessage],
    calls: &Arc<Mutex<Vec<Vec<pi_ai::Message>>>>,
    converted: &Log,
) -> pi_agent_core::Agent {
    let mut options = pi_agent_core::AgentOptions::new(scripted_model());
    options.messages = earlier.to_vec();
    options.tools = vec![FnTool::arc("echo", any_object(), |args, _, _| {
        Box::pin(async move { Ok(AgentToolResult::text(args.to_string())) })
    })];
    options.settings.stream_fn = Arc::new(Seen {
        inner: provider([
            tool_call_reply(&[("call_1", "echo", json!({"x": 1}))]),
            text_reply("done"),
        ]),
        calls: Arc::clone(calls),
    });
    options.settings.convert_to_llm = Arc::new(InPlace(Arc::clone(converted)));
    pi_agent_core::Agent::new(options)
}

#[tokio::test(start_paused = true)]
async fn an_agent_converts_its_transcript_where_it_is_and_the_calls_see_all_of_it() {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let converted: Log = Arc::default();
    let earlier = vec![
        AgentMessage::user_text("earlier"),
        AgentMessage::Standard(pi_ai::Message::Assistant(text_reply("ok"))),
        AgentMessage::user_text("and then"),
        AgentMessage::Standard(pi_ai::Message::Assistant(text_reply("fine"))),
    ];
    let agent = agent_converting(&earlier, &calls, &converted);
    agent.prompt("hello").await.unwrap();

    // Never an owned copy: the run asks whether the converter converts in
    // place (of no messages), then each call converts the transcript in
    // place (under the state's lock) with the run's own messages: the
    // prompt, then also the assistant message and the tool result of the
    // first turn.
    assert_eq!(
        *converted.lock().unwrap(),
        [
            "borrowed messages=0",
            "borrowed messages=4",
            "borrowed messages=1",
            "borrowed messages=4",
            "borrowed messages=3"
        ]
    );
    let transcript = agent.messages();
    assert_eq!(transcript.len(), 4 + 4);
    assert_eq!(transcript[..4], earlier[..]);
    let calls = calls.lock().unwrap();
    assert_eq!(calls.len(), 2);
    for (call, seen) in calls.iter().enumerate() {
        let before = 5 + 2 * call;
        assert_eq!(
            *seen,
            default_convert_to_llm(&transcript[..before]),
            "call {call}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn an_agent_continues_from_its_transcript_where_it_is() {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let converted: Log = Arc::default();
    let earlier = vec![
        AgentMessage::user_text("earlier"),
        AgentMessage::Standard(pi_ai::Message::Assistant(text_reply("ok"))),
        AgentMessage::user_text("go on"),
    ];
    let agent = agent_converting(&earlier, &calls, &converted);
    agent.continue_().await.unwrap();

    // Asked once at the start, then converted in place at each call.
    assert_eq!(
        *converted.lock().unwrap(),
        [
            "borrowed messages=0",
            "borrowed messages=3",
            "borrowed messages=0",
            "borrowed messages=3",
            "borrowed messages=2"
        ]
    );
    let transcript = agent.messages();
    assert_eq!(transcript[..3], earlier[..]);
    let seen_calls = calls.lock().unwrap().clone();
    assert_eq!(seen_calls.len(), 2);
    for (call, seen) in seen_calls.iter().enumerate() {
        let before = 3 + 2 * call;
        assert_eq!(
            *seen,
            default_convert_to_llm(&transcript[..before]),
            "call {call}"
        );
    }

    // Continuing from an assistant message is refused, as before.
    let agent = agent_converting(&earlier[..2], &calls_log(), &Log::default());
    assert!(agent.continue_().await.is_err());
}

fn calls_log() -> Arc<Mutex<Vec<Vec<pi_ai::Message>>>> {
    Arc::default()
}

struct CountMessages(Log);

#[async_trait::async_trait]
impl pi_agent_core::AfterToolCall<pi_agent_core::NoCustom> for CountMessages {
    async fn after_tool_call(
        &self,
        context: pi_agent_core::ToolCallContext<'_, pi_agent_core::NoCustom>,
        _result: &AgentToolResult,
        _is_error: bool,
        _cancel: &CancellationToken,
    ) -> Option<pi_agent_core::AfterToolCallResult> {
        self.0
            .lock()
            .unwrap()
            .push(format!("messages={}", context.messages.len()));
        None
    }
}

#[tokio::test(start_paused = true)]
async fn a_tool_call_hook_still_sees_the_whole_transcript_of_an_agent() {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let converted: Log = Arc::default();
    let earlier = vec![
        AgentMessage::user_text("earlier"),
        AgentMessage::Standard(pi_ai::Message::Assistant(text_reply("ok"))),
    ];
    let agent = agent_converting(&earlier, &calls, &converted);
    let seen: Log = Arc::default();
    agent.update_settings(|s| s.after_tool_call = Some(Arc::new(CountMessages(Arc::clone(&seen)))));
    agent.prompt("hello").await.unwrap();

    // The earlier two, the prompt and the assistant message with the call.
    assert_eq!(*seen.lock().unwrap(), ["messages=4"]);
    // The hook needs the run's own copy: the loop converts it all at once.
    assert_eq!(
        *converted.lock().unwrap(),
        ["convert messages=3", "convert messages=2"]
    );
    assert_eq!(calls.lock().unwrap().len(), 2);
}

/// A `transform_context` that only looks: its shared form answers `None`.
struct Looker(Arc<AtomicUsize>);

#[async_trait::async_trait]
impl pi_agent_core::TransformContext<pi_agent_core::NoCustom> for Looker {
    async fn transform(
        &self,
        messages: Vec<AgentMessage>,
        _cancel: &CancellationToken,
    ) -> Result<Vec<AgentMessage>, pi_agent_core::HookError> {
        Ok(messages)
    }

    async fn transform_shared(
        &self,
        messages: Arc<Vec<AgentMessage>>,
        _cancel: &CancellationToken,
    ) -> Result<Option<Vec<AgentMessage>>, pi_agent_core::HookError> {
        self.0.fetch_add(messages.len(), Ordering::SeqCst);
        Ok(None)
    }
}

#[tokio::test]
async fn a_transform_that_changes_nothing_keeps_the_conversion_incremental() {
    let scripted = provider([
        pi_ai::scripted::tool_call_reply(&[("call_1", "noop", serde_json::json!({}))]),
        pi_ai::scripted::text_reply("done"),
    ]);
    let agent = agent_with::<pi_agent_core::NoCustom>(&scripted);
    agent.set_tools(vec![crate::common::sleep_tool("noop", 0)]);
    let seen_by_hook = Arc::new(AtomicUsize::new(0));
    let converted = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&converted);
    agent.update_settings(|s| {
        s.transform_context = Some(Arc::new(Looker(Arc::clone(&seen_by_hook))));
        s.convert_to_llm = Arc::new(pi_agent_core::PerMessageConvert(
            move |messages: &[AgentMessage]| {
                counter.fetch_add(messages.len(), Ordering::SeqCst);
                Ok(pi_agent_core::default_convert_to_llm(messages))
            },
        ));
    });
    agent.prompt("go").await.unwrap();
    // The hook saw the whole transcript each call (1, then 3 messages) ...
    assert_eq!(seen_by_hook.load(Ordering::SeqCst), 1 + 3);
    // ... and only the messages new since the last call were converted.
    assert_eq!(converted.load(Ordering::SeqCst), 1 + 2);
    assert_eq!(scripted.calls().len(), 2);
}
