//! The transcript: the ordered blocks of the chat, built from the app's
//! rich messages and events (never the model's flattened view). A block is
//! written to the terminal's scrollback once it is finished and every block
//! before it is; the rest is part of the live region, redrawn each frame.
//! A status line stays live while it is the last block, so the next status
//! can replace it (pi: consecutive status lines replace one another).
//!
//! The first live block can also be **partly** in the scrollback: when the
//! live region is taller than the screen, the lines of a streaming answer
//! that scroll off the top and can no longer change go to the scrollback at
//! once ([`Transcript::commit_scrolled`]), as in pi, where they are there as
//! soon as they leave the screen.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use pi_agent_core::AgentMessage;
use pi_ai::{
    AssistantContent, AssistantMessage, AssistantMessageEvent, Message, StopReason,
    UserBlock as ContentBlock, UserContent,
};

use crate::messages::{CodingMessage, CustomMessage};

use super::blocks::bash::BashRecord;
use super::blocks::cards::SummaryKind;
use super::blocks::ext_render::ExtRenderers;
use super::blocks::images::Images;
use super::blocks::{
    AssistantBlock, BashBlock, Block, BlockKind, CustomCard, Notice, RenderCtx, SummaryCard,
    ToolCard, UserBlock,
};

/// The chat's blocks and what is already in the scrollback.
#[derive(Default)]
pub struct Transcript {
    blocks: Vec<Block>,
    committed: usize,
    /// Leading lines of the first live block already in the scrollback.
    partial: usize,
    /// Tool cards still waiting for their result, by call id.
    tools: HashMap<String, usize>,
    /// The assistant message being streamed.
    streaming: Option<usize>,
    /// The label of hidden thinking an extension set (`None`: pi's).
    hidden_label: Option<String>,
    /// Extension tools' render hooks and message renderers.
    renderers: Arc<ExtRenderers>,
}

/// The text of a user message's content.
pub fn user_text(content: &UserContent) -> String {
    match content {
        UserContent::Text(text) => text.clone(),
        UserContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(ContentBlock::as_text)
            .collect::<Vec<_>>()
            .join(""),
    }
}

/// The images attached to a user message.
fn user_images(content: &UserContent) -> Images {
    match content {
        UserContent::Text(_) => Images::default(),
        UserContent::Blocks(blocks) => Images::new(blocks.iter().filter_map(|b| match b {
            ContentBlock::Image(image) => Some(image),
            _ => None,
        })),
    }
}

impl Transcript {
    /// An empty transcript.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty transcript that draws with the extensions' renderers.
    pub fn with_renderers(renderers: Arc<ExtRenderers>) -> Self {
        Self {
            renderers,
            ..Self::default()
        }
    }

    /// The extensions' renderers it draws with.
    pub fn renderers(&self) -> Arc<ExtRenderers> {
        Arc::clone(&self.renderers)
    }

    /// A tool card, with the tool's render hooks when it has some.
    fn new_card(&self, id: &str, name: &str, args: serde_json::Value) -> ToolCard {
        let card = ToolCard::new(id, name, args);
        match self.renderers.tool(name) {
            Some(hooks) => card.with_hooks(hooks),
            None => card,
        }
    }

    /// The number of blocks.
    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    /// True without blocks.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// The blocks.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// Shows hidden thinking as `label` (`None`: pi's `Thinking...`) in
    /// the blocks not yet in the scrollback and the ones to come.
    pub fn set_hidden_thinking_label(&mut self, label: Option<String>) {
        self.hidden_label.clone_from(&label);
        for block in self.blocks.iter_mut().skip(self.committed) {
            if let BlockKind::Assistant(assistant) = &mut block.kind {
                assistant.set_hidden_label(label.clone());
                block.invalidate();
            }
        }
    }

    /// The label of hidden thinking an extension set.
    pub fn hidden_thinking_label(&self) -> Option<String> {
        self.hidden_label.clone()
    }

    /// Adds a block; returns its index.
    pub fn push(&mut self, kind: BlockKind) -> usize {
        self.blocks.push(Block::new(kind));
        self.blocks.len() - 1
    }

    /// Shows a status line, replacing the previous one when it is the last block.
    pub fn status(&mut self, text: &str) {
        if self.blocks.len() > self.committed
            && let Some(last) = self.blocks.last_mut()
            && let BlockKind::Notice(n) = &mut last.kind
            && n.is_status()
        {
            *n = Notice::Status(text.to_owned());
            last.invalidate();
            return;
        }
        self.push(BlockKind::Notice(Notice::Status(text.to_owned())));
    }

    /// Adds a notice.
    pub fn notice(&mut self, notice: Notice) {
        self.push(BlockKind::Notice(notice));
    }

    fn block_mut(&mut self, index: usize) -> Option<&mut Block> {
        let block = self.blocks.get_mut(index)?;
        block.invalidate();
        Some(block)
    }

    fn card(&mut self, id: &str) -> Option<&mut ToolCard> {
        let index = *self.tools.get(id)?;
        match &mut self.block_mut(index)?.kind {
            BlockKind::Tool(card) => Some(card),
            _ => None,
        }
    }

    fn streaming_block(&mut self) -> Option<&mut AssistantBlock> {
        let index = self.streaming?;
        match &mut self.block_mut(index)?.kind {
            BlockKind::Assistant(block) => Some(block),
            _ => None,
        }
    }

    /// Adds a message as pi's chat shows it (tool results go to their cards).
    pub fn add_message(&mut self, message: &AgentMessage<CodingMessage>, now: Instant) {
        match message {
            AgentMessage::Standard(Message::User(user)) => {
                let text = user_text(&user.content);
                let images = user_images(&user.content);
                if !text.is_empty() || !images.is_empty() {
                    self.push(BlockKind::User(
                        UserBlock::new(&text, true).with_images(images),
                    ));
                }
            }
            AgentMessage::Standard(Message::Assistant(assistant)) => {
                self.add_settled_assistant(assistant, now);
            }
            AgentMessage::Standard(Message::ToolResult(result)) => {
                let tool_result = pi_agent_core::AgentToolResult {
                    content: result.content.clone(),
                    details: result.details.clone().unwrap_or(serde_json::Value::Null),
                    terminate: None,
                };
                if let Some(card) = self.card(&result.tool_call_id) {
                    card.set_result(&tool_result, result.is_error, false, now);
                }
                self.tools.remove(&result.tool_call_id);
            }
            AgentMessage::Custom(CodingMessage::BashExecution(bash)) => {
                self.push(BlockKind::Bash(BashBlock::done(BashRecord::from_message(
                    bash,
                ))));
            }
            AgentMessage::Custom(CodingMessage::Custom(custom)) => self.add_custom(custom),
            AgentMessage::Custom(CodingMessage::CompactionSummary(c)) => {
                let card = SummaryCard::new(SummaryKind::Compaction(c.tokens_before), &c.summary);
                self.push(BlockKind::Summary(card));
            }
            AgentMessage::Custom(CodingMessage::BranchSummary(b)) => {
                let card = SummaryCard::new(SummaryKind::Branch, &b.summary);
                self.push(BlockKind::Summary(card));
            }
        }
    }

    fn add_custom(&mut self, custom: &CustomMessage) {
        if custom.display {
            let text = user_text(&custom.content);
            let mut card = CustomCard::new(&custom.custom_type, &text);
            if let Some(renderer) = self.renderers.message(&custom.custom_type) {
                card = card.with_renderer(Arc::clone(renderer), custom.clone());
            }
            self.push(BlockKind::Custom(card));
        }
    }

    /// A settled assistant message with a card per tool call (history).
    fn add_settled_assistant(&mut self, message: &AssistantMessage, now: Instant) {
        let mut block = AssistantBlock::settled(message);
        block.set_hidden_label(self.hidden_label.clone());
        self.push(BlockKind::Assistant(block));
        for block in &message.content {
            if let AssistantContent::ToolCall(call) = block {
                let mut card = self.new_card(&call.id, &call.name, call.arguments.clone());
                if message.stop_reason.is_failure() {
                    card.fail(&failure_text(message), now);
                }
                let index = self.push(BlockKind::Tool(card));
                if !message.stop_reason.is_failure() {
                    self.tools.insert(call.id.clone(), index);
                }
            }
        }
    }

    /// Rebuilds the chat of a resumed session from its messages.
    pub fn load_history<'a>(
        &mut self,
        messages: impl IntoIterator<Item = &'a AgentMessage<CodingMessage>>,
        now: Instant,
    ) {
        for message in messages {
            self.add_message(message, now);
        }
        // Calls whose results never came stay as they are, but do not hold
        // back what follows from the scrollback.
        for (_, index) in self.tools.drain() {
            if let Some(Block {
                kind: BlockKind::Tool(card),
                ..
            }) = self.blocks.get_mut(index)
            {
                card.fail("No result", now);
            }
        }
    }

    /// A message started (user prompt, custom message, assistant stream).
    pub fn message_start(&mut self, message: &AgentMessage<CodingMessage>, now: Instant) {
        match message {
            AgentMessage::Standard(Message::Assistant(_)) => {
                let mut block = AssistantBlock::streaming();
                block.set_hidden_label(self.hidden_label.clone());
                let index = self.push(BlockKind::Assistant(block));
                self.streaming = Some(index);
            }
            AgentMessage::Standard(Message::User(_))
            | AgentMessage::Custom(CodingMessage::Custom(_)) => {
                self.add_message(message, now);
            }
            _ => {}
        }
    }

    /// The streaming message changed.
    pub fn message_update(&mut self, event: &AssistantMessageEvent) {
        match event {
            AssistantMessageEvent::TextDelta {
                content_index,
                delta,
                ..
            } => {
                if let Some(block) = self.streaming_block() {
                    block.push(*content_index, false, delta);
                }
            }
            AssistantMessageEvent::ThinkingDelta {
                content_index,
                delta,
                ..
            } => {
                if let Some(block) = self.streaming_block() {
                    block.push(*content_index, true, delta);
                }
            }
            AssistantMessageEvent::ToolCallStart {
                content_index,
                partial,
            }
            | AssistantMessageEvent::ToolCallDelta {
                content_index,
                partial,
                ..
            } => {
                let call = match partial.lock().content.get(*content_index) {
                    Some(AssistantContent::ToolCall(call)) => (call.id.clone(), call.name.clone()),
                    _ => return,
                };
                if let Some(card) = self.card(&call.0) {
                    card.follow(partial.clone(), *content_index);
                    return;
                }
                if let Some(block) = self.streaming_block() {
                    block.set_has_tool_calls();
                }
                let mut card = self.new_card(&call.0, &call.1, serde_json::Value::Null);
                card.follow(partial.clone(), *content_index);
                let index = self.push(BlockKind::Tool(card));
                self.tools.insert(call.0, index);
            }
            AssistantMessageEvent::ToolCallEnd { tool_call, .. } => {
                if let Some(card) = self.card(&tool_call.id) {
                    card.set_args(tool_call.arguments.clone());
                }
            }
            _ => {}
        }
    }

    /// A message ended; for the assistant: settle it, and fail its calls
    /// when it was aborted or failed.
    pub fn message_end(&mut self, message: &AgentMessage<CodingMessage>, now: Instant) {
        let Some(assistant) = message.as_assistant() else {
            return;
        };
        let aborted = (assistant.stop_reason == StopReason::Aborted).then_some("Operation aborted");
        match self.streaming_block() {
            Some(block) => block.finish(assistant, aborted),
            None => {
                self.add_settled_assistant(assistant, now);
                return;
            }
        }
        self.streaming = None;
        if assistant.stop_reason.is_failure() {
            let text = aborted.map_or_else(|| failure_text(assistant), str::to_owned);
            let ids: Vec<String> = self.tools.keys().cloned().collect();
            for id in ids {
                if let Some(card) = self.card(&id) {
                    card.fail(&text, now);
                }
            }
            self.tools.clear();
        }
    }

    /// The diff an edit will make, shown on its card until the result comes.
    pub fn set_edit_preview(&mut self, id: &str, diff: String) {
        if let Some(card) = self.card(id) {
            card.set_preview(diff);
        }
    }

    /// A tool started running.
    pub fn tool_start(&mut self, id: &str, name: &str, args: &serde_json::Value, now: Instant) {
        if self.card(id).is_none() {
            let card = self.new_card(id, name, args.clone());
            let index = self.push(BlockKind::Tool(card));
            self.tools.insert(id.to_owned(), index);
        }
        if let Some(card) = self.card(id) {
            card.start(args.clone(), now);
        }
    }

    /// A tool's partial or final result.
    pub fn tool_result(
        &mut self,
        id: &str,
        result: &pi_agent_core::AgentToolResult,
        is_error: bool,
        partial: bool,
        now: Instant,
    ) {
        if let Some(card) = self.card(id) {
            card.set_result(result, is_error, partial, now);
        }
        if !partial {
            self.tools.remove(id);
        }
    }

    /// A run ended: nothing it started stays open.
    pub fn agent_end(&mut self, now: Instant) {
        if let Some(index) = self.streaming.take()
            && let Some(Block {
                kind: BlockKind::Assistant(block),
                ..
            }) = self.blocks.get_mut(index)
            && !block.is_finished()
        {
            if index == self.committed && self.partial > 0 {
                // Its start is in the scrollback already: it stays as streamed.
                block.settle_as_is();
                self.fail_open_tools(now);
                return;
            }
            self.blocks.remove(index);
            self.tools.retain(|_, i| *i != index);
            for i in self.tools.values_mut() {
                if *i > index {
                    *i -= 1;
                }
            }
        }
        self.fail_open_tools(now);
    }

    /// Fails the tool cards still waiting for a result.
    fn fail_open_tools(&mut self, now: Instant) {
        let ids: Vec<String> = self.tools.keys().cloned().collect();
        for id in ids {
            if let Some(card) = self.card(&id) {
                card.fail("Operation aborted", now);
            }
        }
        self.tools.clear();
    }

    /// True while a block of the live region animates (bash timers, spinners).
    pub fn is_animating(&self) -> bool {
        self.blocks[self.committed..]
            .iter()
            .any(Block::is_animating)
    }

    /// A block at `index` of the live region (for a running `!cmd`).
    pub fn get_mut(&mut self, index: usize) -> Option<&mut Block> {
        self.block_mut(index)
    }

    /// The lines of the blocks that can go to the scrollback now (finished,
    /// after committed ones; a trailing status stays live); marks them committed.
    pub fn take_committable(&mut self, ctx: &RenderCtx<'_>, width: usize) -> Vec<String> {
        let mut lines = Vec::new();
        let len = self.blocks.len();
        while self.committed < len {
            let i = self.committed;
            let block = &mut self.blocks[i];
            let trailing_status =
                i + 1 == len && matches!(&block.kind, BlockKind::Notice(n) if n.is_status());
            if !block.is_finished() || trailing_status {
                break;
            }
            let rendered = block.render(ctx, width);
            lines.extend_from_slice(&rendered[self.partial.min(rendered.len())..]);
            block.release();
            self.committed += 1;
            self.partial = 0;
        }
        lines
    }

    /// The lines of the first live block that the screen no longer shows and
    /// that cannot change (a streaming answer taller than the screen), for
    /// the scrollback now; `budget` is the rows the live blocks get on screen.
    pub fn commit_scrolled(
        &mut self,
        ctx: &RenderCtx<'_>,
        width: usize,
        budget: usize,
    ) -> Vec<String> {
        let live = &mut self.blocks[self.committed..];
        // Only a streaming answer has lines that settle before it ends;
        // nothing else is rendered here (a running tool re-renders on every
        // call).
        if !live
            .first()
            .is_some_and(|b| matches!(b.kind, BlockKind::Assistant(_)))
        {
            return Vec::new();
        }
        let total: usize = live.iter_mut().map(|b| b.render(ctx, width).len()).sum();
        let Some(first) = live.first() else {
            return Vec::new();
        };
        let above = total.saturating_sub(self.partial).saturating_sub(budget);
        let upto = (self.partial + above).min(first.stable_lines());
        if upto <= self.partial {
            return Vec::new();
        }
        let lines = first.lines()[self.partial..upto].to_vec();
        self.partial = upto;
        lines
    }

    /// The last `budget` lines of the blocks not yet in the scrollback
    /// (what is above cannot be on screen: only those lines are copied).
    pub fn live_lines(
        &mut self,
        ctx: &RenderCtx<'_>,
        width: usize,
        budget: usize,
        out: &mut Vec<String>,
    ) {
        let partial = self.partial;
        let live = &mut self.blocks[self.committed..];
        let mut need = budget;
        let mut first = live.len();
        let mut skip = 0;
        for (i, block) in live.iter_mut().enumerate().rev() {
            let mut n = block.render(ctx, width).len();
            if i == 0 {
                // Its first lines are in the scrollback already.
                n = n.saturating_sub(partial);
            }
            first = i;
            if n >= need {
                skip = n - need;
                break;
            }
            need -= n;
        }
        if first == 0 {
            skip += partial;
        }
        for (i, block) in live.iter().enumerate().skip(first) {
            let lines = block.lines();
            out.extend_from_slice(if i == first { &lines[skip..] } else { lines });
        }
    }

    /// The lines of every block already in the scrollback, rendered again
    /// (a reprint after Ctrl+O / Ctrl+T or a resize). A block that was only
    /// partly there is live again as a whole.
    pub fn committed_lines(&mut self, ctx: &RenderCtx<'_>, width: usize) -> Vec<String> {
        self.partial = 0;
        let mut lines = Vec::new();
        for block in &mut self.blocks[..self.committed] {
            lines.extend_from_slice(block.render(ctx, width));
            block.release();
        }
        lines
    }

    /// The last `budget` lines of the blocks already in the scrollback,
    /// rendered again (only what a screen shows: the quick reprint while a
    /// resize goes on). A block that was only partly there is live again.
    pub fn committed_tail(
        &mut self,
        ctx: &RenderCtx<'_>,
        width: usize,
        budget: usize,
    ) -> Vec<String> {
        self.partial = 0;
        let mut tail: Vec<String> = Vec::new();
        for block in self.blocks[..self.committed].iter_mut().rev() {
            let lines = block.render(ctx, width);
            let need = budget - tail.len();
            tail.extend(lines.iter().rev().take(need).cloned());
            block.release();
            if tail.len() >= budget {
                break;
            }
        }
        tail.reverse();
        tail
    }

    /// Forgets every block (the whole chat is printed again by the caller).
    pub fn clear(&mut self) {
        *self = Self::default();
    }
}

/// The text a failed message puts into its pending tool cards.
fn failure_text(message: &AssistantMessage) -> String {
    match message.stop_reason {
        StopReason::Aborted => "Operation aborted".to_owned(),
        _ => message
            .error_message
            .clone()
            .unwrap_or_else(|| "Error".to_owned()),
    }
}
