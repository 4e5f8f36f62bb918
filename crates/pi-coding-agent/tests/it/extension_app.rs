//! What extensions add to the app: providers, tools, flags, messages and
//! session state, and what happens to the script extensions pi-rs cannot
//! run yet.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;
use crate::extension_common;

use std::sync::Arc;

use async_trait::async_trait;
use e2e_common::Scenario;
use extension_common::{InProcessRpc, app_with, text_answer, tool_answer};
use pi_agent_core::{AgentToolResult, ToolError, ToolUpdateFn, TypedTool};
use pi_ai::CancellationToken;
use pi_coding_agent::app::{SessionChoice, StartOptions, build_app};
use pi_coding_agent::extensions::*;
use serde::Deserialize;
use serde_json::{Value, json};

/// A tool that answers with its argument, upper-cased: a typed tool (its
/// arguments arrive deserialized), registered like any `AgentTool`.
struct Shout(Value);

/// `shout`'s arguments.
#[derive(Deserialize)]
struct ShoutArgs {
    word: String,
}

#[async_trait]
impl TypedTool for Shout {
    type Args = ShoutArgs;

    fn name(&self) -> &str {
        "shout"
    }
    fn label(&self) -> &str {
        "Shout"
    }
    fn description(&self) -> &str {
        "Repeats a word loudly."
    }
    fn parameters(&self) -> &Value {
        &self.0
    }
    async fn run(
        &self,
        _call_id: &str,
        args: ShoutArgs,
        _cancel: CancellationToken,
        _on_update: ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError> {
        Ok(AgentToolResult::text(args.word.to_uppercase()))
    }
}

/// Registers a provider, a tool, a flag and a command that keeps state.
struct Kitchen {
    base_url: String,
}

impl Extension for Kitchen {
    fn path(&self) -> String {
        "<kitchen>".to_owned()
    }

    fn register(&self, api: &mut ExtensionApi<'_>) {
        api.register_provider(
            "kitchen",
            json!({"baseUrl": self.base_url, "api": "openai-completions", "apiKey": "k",
                   "models": [{"id": "chef", "contextWindow": 1000, "maxTokens": 100}]}),
        );
        let schema = json!({"type": "object", "properties": {"word": {"type": "string"}},
                            "required": ["word"]});
        api.register_tool(Arc::new(Shout(schema))).prompt_snippet =
            Some("Say a word loudly".to_owned());
        api.register_flag(
            "loud",
            FlagKind::Boolean,
            Some("Shout more"),
            Some(json!(false)),
        );
        let pi = api.handle();
        api.register_command("remember", Some("Keep a note"), move |args, _ctx| {
            let pi = pi.clone();
            async move {
                pi.append_entry("note", Some(json!({"text": args, "loud": pi.flag("loud")})))?;
                let message = NewCustomMessage {
                    custom_type: "note".to_owned(),
                    content: pi_ai::UserContent::Text(format!("Remember: {args}")),
                    display: true,
                    details: None,
                };
                pi.send_message(message, Some(Delivery::NextTurn), false)
                    .await
            }
        });
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn providers_tools_flags_commands_and_state_from_an_extension() {
    let scenario = Scenario::start(Vec::new()).await;
    let mut extensions = ExtensionSet::default();
    extensions.push(Kitchen {
        base_url: format!("{}/v1", scenario.server.url()),
    });
    let app = build_app(StartOptions {
        cwd: scenario.work.path().to_path_buf(),
        model: Some("kitchen/chef".to_owned()),
        session: SessionChoice::New,
        session_dir: Some(scenario.sessions_dir()),
        agent_dir: Some(scenario.agent_dir.path().to_path_buf()),
        extensions,
        extension_flags: vec![("loud".to_owned(), json!(true))],
        ..StartOptions::default()
    })
    .unwrap();
    assert_eq!(app.agent.model().provider.as_str(), "kitchen");
    let system_prompt = app.agent.with_state(|s| s.system_prompt.clone());
    assert!(
        system_prompt.contains("- shout: Say a word loudly"),
        "{system_prompt}"
    );

    let mut rpc = InProcessRpc::start(app);
    let commands = rpc.call(json!({"type": "get_commands"})).await;
    assert_eq!(commands["data"]["commands"][0]["name"], "remember");
    assert_eq!(commands["data"]["commands"][0]["source"], "extension");
    assert_eq!(
        commands["data"]["commands"][0]["sourceInfo"]["source"],
        "kitchen"
    );

    rpc.call(json!({"type": "prompt", "message": "/remember buy milk"}))
        .await;
    scenario
        .server
        .push(tool_answer("shout", &json!({"word": "hi"}), "call_1"));
    scenario.server.push(text_answer("Done."));
    rpc.prompt("Shout hi.", |_| None).await;
    let requests = scenario.server.requests();
    let first = requests[0].json();
    // The note sent for the next turn follows the prompt; the tool is offered.
    let messages = first["messages"].as_array().unwrap();
    let texts: Vec<String> = messages.iter().map(|m| m["content"].to_string()).collect();
    assert!(texts[texts.len() - 2].contains("Shout hi."), "{texts:?}");
    assert!(
        texts[texts.len() - 1].contains("Remember: buy milk"),
        "{texts:?}"
    );
    assert!(first["tools"].to_string().contains("\"shout\""));
    // The tool ran and its result reached the model.
    assert!(requests[1].json()["messages"].to_string().contains("HI"));
    let session = rpc.app.session().session_file().unwrap().to_path_buf();
    rpc.close().await;

    let entries = e2e_common::jsonl(&session);
    let note = entries.iter().find(|e| e["type"] == "custom").unwrap();
    assert_eq!(note["customType"], "note");
    assert_eq!(note["data"], json!({"text": "buy milk", "loud": true}));
    assert!(
        entries
            .iter()
            .any(|e| e["type"] == "custom_message" && e["customType"] == "note")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn script_extensions_are_reported_once_each_and_never_silently_ignored() {
    let scenario = Scenario::start(Vec::new()).await;
    let global = scenario.agent_dir.path().join("extensions");
    std::fs::create_dir_all(global.join("gate")).unwrap();
    std::fs::write(global.join("a.ts"), "export default () => {}").unwrap();
    std::fs::write(global.join("gate/index.ts"), "export default () => {}").unwrap();
    let explicit = scenario.work.path().join("mine.ts");
    std::fs::write(&explicit, "export default () => {}").unwrap();
    let options = |no_extensions| StartOptions {
        cwd: scenario.work.path().to_path_buf(),
        model: Some("mock-oai/mock-gpt".to_owned()),
        session: SessionChoice::InMemory,
        agent_dir: Some(scenario.agent_dir.path().to_path_buf()),
        extension_paths: vec!["mine.ts".to_owned(), "missing.ts".to_owned()],
        no_extensions,
        ..StartOptions::default()
    };
    let app = build_app(options(false)).unwrap();
    let warnings = &app.extension_warnings;
    assert_eq!(warnings.len(), 4, "{warnings:#?}");
    assert!(
        warnings[0].starts_with("Extension not found: ") && warnings[0].ends_with("missing.ts")
    );
    for (warning, file) in
        warnings[1..]
            .iter()
            .zip([explicit, global.join("a.ts"), global.join("gate/index.ts")])
    {
        assert!(warning.contains(&file.display().to_string()), "{warning}");
        assert!(warning.contains("not loaded"), "{warning}");
    }
    // `--no-extensions` keeps the `-e` paths.
    let app = build_app(options(true)).unwrap();
    assert_eq!(
        app.extension_warnings.len(),
        2,
        "{:#?}",
        app.extension_warnings
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_the_agent_runs_know_they_run_under_pi() {
    let scenario = Scenario::start(vec![
        tool_answer(
            "bash",
            &json!({"command": "echo agent=$PI_CODING_AGENT"}),
            "call_1",
        ),
        text_answer("Done."),
    ])
    .await;
    let app = app_with(
        &scenario,
        ExtensionSet::default(),
        None,
        "mock-oai/mock-gpt",
    );
    app.prompt("Run it.").await.unwrap();
    let requests = scenario.server.requests();
    assert!(
        requests[1].json()["messages"]
            .to_string()
            .contains("agent=true")
    );
}
