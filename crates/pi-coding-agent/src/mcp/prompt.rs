//! MCP prompts as `/` commands: `/mcp__<server>__<prompt> args` gets the
//! prompt with its arguments (`name=value`, or values in the prompt's
//! argument order, the last one taking the rest of the line) and sends its
//! messages' text (and images) as the user's prompt.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use rmcp::model::{ContentBlock, GetPromptResult, Prompt};
use serde_json::{Map, Value};

use super::naming::namespaced;
use super::server::Server;
use crate::extensions::{ExtensionError, ExtensionHandle};

/// Why a prompt's arguments do not fit it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("missing argument {missing} (usage: {usage})")]
pub struct ArgumentError {
    /// The required argument not given.
    pub missing: String,
    /// How the command is used.
    pub usage: String,
}

/// `text` as the arguments of `prompt` run as `/command`.
pub fn parse_arguments(
    prompt: &Prompt,
    command: &str,
    text: &str,
) -> Result<Map<String, Value>, ArgumentError> {
    let declared = prompt.arguments.clone().unwrap_or_default();
    let mut values = Map::new();
    let mut positional = Vec::new();
    for token in text.split_whitespace() {
        match token.split_once('=') {
            Some((key, value)) if declared.iter().any(|a| a.name == key) => {
                values.insert(key.to_owned(), Value::String(value.to_owned()));
            }
            _ => positional.push(token),
        }
    }
    let open: Vec<&str> = declared
        .iter()
        .map(|a| a.name.as_str())
        .filter(|name| !values.contains_key(*name))
        .collect();
    for (index, name) in open.iter().enumerate() {
        if index >= positional.len() {
            break;
        }
        let value = if index + 1 == open.len() {
            positional[index..].join(" ")
        } else {
            positional[index].to_owned()
        };
        values.insert((*name).to_owned(), Value::String(value));
    }
    if let Some(missing) = declared
        .iter()
        .find(|a| a.required == Some(true) && !values.contains_key(&a.name))
    {
        let usage = std::iter::once(format!("/{command}"))
            .chain(declared.iter().map(|a| format!("{}=...", a.name)))
            .collect::<Vec<_>>()
            .join(" ");
        return Err(ArgumentError {
            missing: missing.name.clone(),
            usage,
        });
    }
    Ok(values)
}

/// The text and images of a prompt's messages.
pub fn prompt_input(result: GetPromptResult) -> (String, Vec<pi_ai::ImageContent>) {
    let mut text = Vec::new();
    let mut images = Vec::new();
    for message in result.messages {
        match message.content {
            ContentBlock::Image(image) => images.push(pi_ai::ImageContent {
                data: image.data,
                mime_type: image.mime_type,
                ..Default::default()
            }),
            other => {
                let collected = super::result::collect(vec![other]);
                if !collected.text.is_empty() {
                    text.push(collected.text);
                }
            }
        }
    }
    (text.join("\n\n"), images)
}

/// Registers `prompts` of `server` as commands (reusing the names in
/// `previous` where they still apply) and removes the commands of prompts
/// it no longer has; the names now in use.
pub fn register_prompts(
    handle: &ExtensionHandle,
    server: &Arc<Server>,
    prompts: &[Prompt],
    previous: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    let mut taken: HashSet<String> = handle.commands().into_iter().map(|(n, _)| n).collect();
    for name in previous.values() {
        taken.remove(name);
    }
    let mut next = BTreeMap::new();
    for prompt in prompts {
        let name = previous
            .get(&prompt.name)
            .filter(|n| !taken.contains(*n))
            .cloned()
            .unwrap_or_else(|| namespaced(server.name(), &prompt.name, &|n| taken.contains(n)));
        taken.insert(name.clone());
        let description = format!(
            "{} (MCP prompt of {})",
            prompt
                .description
                .as_deref()
                .or(prompt.title.as_deref())
                .unwrap_or(&prompt.name),
            server.name()
        );
        let (server, prompt_def, command) = (Arc::clone(server), prompt.clone(), name.clone());
        handle.register_command(&name, Some(&description), move |args, ctx| {
            let (server, prompt, command) =
                (Arc::clone(&server), prompt_def.clone(), command.clone());
            async move {
                let arguments = parse_arguments(&prompt, &command, &args)
                    .map_err(|e| ExtensionError::new(e.to_string()))?;
                let connection = server
                    .connected()
                    .await
                    .map_err(|e| ExtensionError::new(e.message()))?;
                let result = connection
                    .get_prompt(&prompt.name, arguments)
                    .await
                    .map_err(|e| {
                        ExtensionError::new(format!("MCP server {}: {e}", server.name()))
                    })?;
                let (text, images) = prompt_input(result);
                ctx.pi().send_user_message(&text, images, None).await
            }
        });
        next.insert(prompt.name.clone(), name);
    }
    for (mcp, name) in previous {
        if !next.contains_key(mcp) {
            handle.unregister_command(name);
        }
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use rmcp::model::PromptArgument;
    use serde_json::json;

    fn prompt() -> Prompt {
        let mut first = PromptArgument::new("city");
        first.required = Some(true);
        Prompt::new(
            "weather",
            Some("Weather"),
            Some(vec![first, PromptArgument::new("style")]),
        )
    }

    #[test]
    fn named_and_positional_arguments_fill_the_prompt() {
        let args = |text| Value::Object(parse_arguments(&prompt(), "w", text).unwrap());
        assert_eq!(args("Paris"), json!({"city": "Paris"}));
        assert_eq!(
            args("Paris in short words"),
            json!({"city": "Paris", "style": "in short words"})
        );
        assert_eq!(
            args("style=terse New York"),
            json!({"style": "terse", "city": "New York"})
        );
    }

    #[test]
    fn a_missing_required_argument_says_how_to_use_the_command() {
        let error = parse_arguments(&prompt(), "mcp__s__weather", "style=x").unwrap_err();
        assert_eq!(
            error.to_string(),
            "missing argument city (usage: /mcp__s__weather city=... style=...)"
        );
    }
}
