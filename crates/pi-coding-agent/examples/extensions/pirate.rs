//! Pirate mode (pi's `examples/extensions/pirate.ts`): `/pirate` toggles
//! it; while it is on, `before_agent_start` appends instructions to speak
//! like a pirate to the system prompt of every run.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use pi_coding_agent::extensions::{
    BeforeAgentStartEvent, BeforeAgentStartResult, CommandContext, Extension, ExtensionApi,
    ExtensionContext, NotifyLevel,
};

/// What pirate mode appends to the system prompt (pi's text).
pub const PIRATE_PROMPT: &str = "

IMPORTANT: You are now in PIRATE MODE. You must:
- Speak like a stereotypical pirate in all responses
- Use phrases like \"Arrr!\", \"Ahoy!\", \"Shiver me timbers!\", \"Avast!\", \"Ye scurvy dog!\"
- Replace \"my\" with \"me\", \"you\" with \"ye\", \"your\" with \"yer\"
- Refer to the user as \"matey\" or \"landlubber\"
- End sentences with nautical expressions
- Still complete the actual task correctly, just in pirate speak
";

/// The extension: the `/pirate` command and a `before_agent_start` handler
/// sharing one switch (off at start).
#[derive(Debug, Default)]
pub struct Pirate {
    on: Arc<AtomicBool>,
}

impl Extension for Pirate {
    fn path(&self) -> String {
        "<pirate>".to_owned()
    }

    fn register(&self, api: &mut ExtensionApi<'_>) {
        let on = Arc::clone(&self.on);
        api.register_command(
            "pirate",
            Some("Toggle pirate mode (agent speaks like a pirate)"),
            move |_args: String, ctx: CommandContext| {
                // fetch_xor returns the old value: the new one is its negation.
                let now_on = !on.fetch_xor(true, Ordering::SeqCst);
                async move {
                    let message = if now_on {
                        "Arrr! Pirate mode enabled!"
                    } else {
                        "Pirate mode disabled"
                    };
                    ctx.ui().notify(message, Some(NotifyLevel::Info));
                    Ok(())
                }
            },
        );
        let on = Arc::clone(&self.on);
        api.on(
            move |event: BeforeAgentStartEvent, _ctx: ExtensionContext| {
                let result = on.load(Ordering::SeqCst).then(|| BeforeAgentStartResult {
                    system_prompt: Some(format!("{}{PIRATE_PROMPT}", event.system_prompt)),
                    message: None,
                });
                async move { Ok(result) }
            },
        );
    }
}
