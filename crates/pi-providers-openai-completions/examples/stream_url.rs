//! pi-ai plus this one provider crate, nothing else: streams one answer
//! from an OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio,
//! OpenAI, ...) whose base URL is given on the command line, printing the
//! text as it arrives, then the settled message as pi's JSON.
//!
//! ```sh
//! cargo run -p pi-providers-openai-completions --example stream_url -- \
//!     http://localhost:11434/v1 llama3.2 "Say hello in one sentence."
//! ```
//!
//! The key comes from `OPENAI_API_KEY` (local servers accept any text).
//! The crate registers its wire in pi-ai's global registry; [`pi_ai::stream`]
//! then picks it by the model's `api`, as every layer above does.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::Write;

use futures::StreamExt;
use pi_ai::{AssistantMessageEvent, Context, Message, Model, StreamOptions, UserMessage};
use serde_json::json;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(base_url), Some(model_id)) = (args.next(), args.next()) else {
        eprintln!("usage: stream_url BASE_URL MODEL_ID [PROMPT]");
        std::process::exit(2);
    };
    let prompt = args
        .next()
        .unwrap_or_else(|| "Say hello in one sentence.".to_owned());

    pi_providers_openai_completions::register();
    // A model as models.json describes one.
    let model: Model = serde_json::from_value(json!({
        "id": model_id,
        "name": model_id,
        "api": "openai-completions",
        "provider": "custom",
        "baseUrl": base_url,
        "contextWindow": 128_000,
        "maxTokens": 4096,
    }))?;
    let context = Context {
        system_prompt: Some("You are a helpful assistant.".to_owned()),
        messages: vec![Message::User(UserMessage {
            content: prompt.into(),
            timestamp: pi_ai::now_ms(),
            ..UserMessage::default()
        })],
        ..Context::default()
    };
    let options = StreamOptions {
        api_key: Some(std::env::var("OPENAI_API_KEY").unwrap_or_else(|_| "none".to_owned())),
        ..StreamOptions::default()
    };

    let mut events = pi_ai::stream(&model, &context, options);
    let mut out = std::io::stdout();
    while let Some(event) = events.next().await {
        match event {
            AssistantMessageEvent::TextDelta { delta, .. } => {
                write!(out, "{delta}")?;
                out.flush()?;
            }
            AssistantMessageEvent::Done { message, .. } => {
                println!("\n\n{}", serde_json::to_string_pretty(&message)?);
            }
            AssistantMessageEvent::Error { error, .. } => {
                eprintln!(
                    "\nerror: {}",
                    error.error_message.as_deref().unwrap_or("unknown")
                );
                std::process::exit(1);
            }
            _ => {}
        }
    }
    Ok(())
}
