//! What `/session` shows: the session's name, file and id, its message
//! counts, token sums and cost, as pi's `Session Info`.

use pi_agent_core::AgentMessage;
use pi_ai::{AssistantContent, Message};
use pi_tui::theme::Theme;

use super::format::{fixed, format_thousands};
use crate::app::App;

/// The `/session` text of `app`'s session, styled with `theme`.
pub fn session_info(app: &App, theme: &Theme) -> String {
    let (user, assistant, calls, results, total, tokens, cost) = app.agent.with_state(|s| {
        let mut counts = (0, 0, 0, 0);
        let mut tokens = [0u64; 4];
        let mut cost = 0.0;
        for m in &s.messages {
            match m {
                AgentMessage::Standard(Message::User(_)) => counts.0 += 1,
                AgentMessage::Standard(Message::Assistant(a)) => {
                    counts.1 += 1;
                    counts.2 += a
                        .content
                        .iter()
                        .filter(|c| matches!(c, AssistantContent::ToolCall(_)))
                        .count();
                    tokens[0] += a.usage.input;
                    tokens[1] += a.usage.output;
                    tokens[2] += a.usage.cache_read;
                    tokens[3] += a.usage.cache_write;
                    cost += a.usage.cost.total;
                }
                AgentMessage::Standard(Message::ToolResult(_)) => counts.3 += 1,
                AgentMessage::Custom(_) => {}
            }
        }
        (
            counts.0,
            counts.1,
            counts.2,
            counts.3,
            s.messages.len(),
            tokens,
            cost,
        )
    });
    let (file, id, name) = {
        let session = app.session();
        (
            session
                .session_file()
                .map_or_else(|| "In-memory".to_owned(), |p| p.display().to_string()),
            session.session_id().to_owned(),
            session.session_name().map(str::to_owned),
        )
    };
    let t = theme;
    let dim = |s: &str| t.fg(pi_tui::theme::Token::Dim, s);
    let mut info = format!("{}\n\n", t.bold("Session Info"));
    if let Some(name) = name {
        info.push_str(&format!("{} {name}\n", dim("Name:")));
    }
    info.push_str(&format!("{} {file}\n{} {id}\n\n", dim("File:"), dim("ID:")));
    info.push_str(&format!("{}\n", t.bold("Messages")));
    for (label, n) in [
        ("User:", user),
        ("Assistant:", assistant),
        ("Tool Calls:", calls),
        ("Tool Results:", results),
        ("Total:", total),
    ] {
        info.push_str(&format!("{} {n}\n", dim(label)));
    }
    info.push_str(&format!("\n{}\n", t.bold("Tokens")));
    info.push_str(&format!(
        "{} {}\n",
        dim("Input:"),
        format_thousands(tokens[0])
    ));
    info.push_str(&format!(
        "{} {}\n",
        dim("Output:"),
        format_thousands(tokens[1])
    ));
    if tokens[2] > 0 {
        info.push_str(&format!(
            "{} {}\n",
            dim("Cache Read:"),
            format_thousands(tokens[2])
        ));
    }
    if tokens[3] > 0 {
        info.push_str(&format!(
            "{} {}\n",
            dim("Cache Write:"),
            format_thousands(tokens[3])
        ));
    }
    let sum: u64 = tokens.iter().sum();
    info.push_str(&format!("{} {}", dim("Total:"), format_thousands(sum)));
    if cost > 0.0 {
        info.push_str(&format!(
            "\n\n{}\n{} {}",
            t.bold("Cost"),
            dim("Total:"),
            fixed(cost, 4)
        ));
    }
    info
}
