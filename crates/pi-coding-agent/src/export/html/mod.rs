//! The HTML export of a session: one self-contained page (its own styles and script
//! inline, no network) streamed from the session file one entry at a time.
//!
//! The transcript is rendered here, in Rust — markdown, highlighted code, tool calls
//! drawn as in the terminal, thinking, images, in the theme's colours — so it reads in
//! order without JavaScript (every entry of every branch, in file order). The page's
//! script adds the session tree in a sidebar (branches, labels, a click shows that
//! entry's branch and jumps to it), pi's filters (Default / No-tools / User / Labeled /
//! All), full-text search and expand/collapse of tool output and thinking; by default
//! it shows the branch of the session's leaf. Everything from the session is escaped.

mod entries;
mod escape;
mod highlight;
mod markdown;
mod stats;
mod theme_css;
mod tools;

use std::io::{self, Write};
use std::path::Path;

use pi_tui::theme::{ColorMode, Theme};

pub use entries::Node;
pub use escape::{escape, script_json};
pub use markdown::to_html as markdown_to_html;
pub use stats::Stats;

use crate::session::{SessionError, read_session_header, visit_session_file};

/// Entries in the page as live HTML before the rest goes into chunks.
pub const LIVE_ENTRIES: usize = 1000;
/// Entries per chunk.
pub const CHUNK_ENTRIES: usize = 500;

const STYLE: &str = include_str!("style.css");
const SCRIPT: &str = include_str!("script.js");

/// A tool of the session's agent, as the page lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolInfo {
    /// Its name.
    pub name: String,
    /// What it does.
    pub description: String,
}

/// What the page shows besides the session file.
#[derive(Debug, Clone)]
pub struct PageOptions {
    /// The colours.
    pub theme: Theme,
    /// The entry the session is at (default: the file's last entry).
    pub leaf_id: Option<String>,
    /// The system prompt of the running session (none for a file export).
    pub system_prompt: Option<String>,
    /// The tools of the running session.
    pub tools: Vec<ToolInfo>,
    /// How many entries are in the page as live HTML; the rest are in chunks of
    /// [`Self::chunk_entries`] inside `<noscript>` (see [`write_page`]).
    pub live_entries: usize,
    /// Entries per chunk after the first [`Self::live_entries`].
    pub chunk_entries: usize,
}

impl Default for PageOptions {
    fn default() -> Self {
        Self {
            theme: Theme::dark(ColorMode::TrueColor),
            leaf_id: None,
            system_prompt: None,
            tools: Vec::new(),
            live_entries: LIVE_ENTRIES,
            chunk_entries: CHUNK_ENTRIES,
        }
    }
}

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The session file could not be read.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The page could not be written.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// The page's script element text.
fn script_text() -> String {
    format!("\n{SCRIPT}")
}

/// The Content-Security-Policy source of the page's one script (`sha256-...`): no
/// other script, inline handler or `javascript:` URL can run in the page.
fn script_hash() -> String {
    use base64::Engine as _;
    let digest = ring::digest::digest(&ring::digest::SHA256, script_text().as_bytes());
    format!(
        "sha256-{}",
        base64::engine::general_purpose::STANDARD.encode(digest.as_ref())
    )
}

fn write_head(out: &mut dyn Write, id: &str, options: &PageOptions) -> io::Result<()> {
    write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src '{}'\">\n\
         <title>pi session {}</title>\n<style>\n{}{STYLE}</style>\n</head>\n<body>\n",
        script_hash(),
        escape(id),
        theme_css::theme_css(&options.theme)
    )?;
    out.write_all(
        b"<div id=\"app\">\n<aside id=\"sidebar\">\n\
          <input type=\"search\" id=\"search\" placeholder=\"Search\" aria-label=\"Search the session\">\n\
          <div class=\"filters\" role=\"group\" aria-label=\"Filter\">\
          <button type=\"button\" data-filter=\"default\" class=\"active\" title=\"Hide settings entries\">Default</button>\
          <button type=\"button\" data-filter=\"no-tools\" title=\"Default without tool calls and results\">No-tools</button>\
          <button type=\"button\" data-filter=\"user-only\" title=\"Only user messages\">User</button>\
          <button type=\"button\" data-filter=\"labeled-only\" title=\"Only labeled entries\">Labeled</button>\
          <button type=\"button\" data-filter=\"all\" title=\"Everything\">All</button></div>\n\
          <div id=\"tree\" role=\"tree\"></div>\n<div id=\"tree-status\"></div>\n</aside>\n<main id=\"content\">\n",
    )
}

fn write_header(
    out: &mut dyn Write,
    header: &crate::session::SessionHeader,
    options: &PageOptions,
) -> io::Result<()> {
    write!(
        out,
        "<header id=\"session-header\"><h1 id=\"session-title\">Session {}</h1><dl class=\"info\"><dt>Session</dt><dd>{}</dd>",
        escape(&header.id),
        escape(&header.id)
    )?;
    if !header.cwd.is_empty() {
        write!(out, "<dt>Directory</dt><dd>{}</dd>", escape(&header.cwd))?;
    }
    if !header.timestamp.is_empty() {
        write!(
            out,
            "<dt>Started</dt><dd>{}</dd>",
            escape(&header.timestamp)
        )?;
    }
    out.write_all(b"</dl>")?;
    if let Some(prompt) = options.system_prompt.as_deref().filter(|p| !p.is_empty()) {
        write!(
            out,
            "<details class=\"system-prompt\"><summary>System prompt</summary><pre>{}</pre></details>",
            escape(prompt)
        )?;
    }
    if !options.tools.is_empty() {
        write!(
            out,
            "<details class=\"tool-list\"><summary>Tools ({})</summary><dl>",
            options.tools.len()
        )?;
        for tool in &options.tools {
            write!(
                out,
                "<dt>{}</dt><dd>{}</dd>",
                escape(&tool.name),
                escape(&tool.description)
            )?;
        }
        out.write_all(b"</dl></details>")?;
    }
    out.write_all(
        b"<div class=\"toolbar\"><button type=\"button\" id=\"expand-all\">Expand all</button> \
          <button type=\"button\" id=\"collapse-all\">Collapse all</button></div></header>\n\
          <div id=\"transcript\">\n",
    )
}

/// The script's data: the tree's nodes, the leaf, the labels and the session name.
#[derive(serde::Serialize)]
struct TreeData<'a> {
    leaf: Option<&'a str>,
    name: Option<&'a str>,
    labels: &'a std::collections::HashMap<String, String>,
    nodes: &'a [Node],
}

/// Writes the page of the session file at `session_file` to `out`, reading the file
/// one entry at a time: what is held is one entry's HTML and a line of tree data per
/// entry, never the session.
///
/// A long session's page stays light in a browser: after the first
/// [`PageOptions::live_entries`] entries, every [`PageOptions::chunk_entries`] are
/// wrapped in a `<noscript class="chunk" data-first="<index>">`. A browser with
/// scripting on reads that as one text node, not thousands of elements (a 100 MB
/// session's page loads about 9x faster); the page's script turns a chunk into
/// sections when it scrolls into view or holds an entry the reader jumps to. Without
/// scripting it is ordinary HTML, so the page still reads in order.
pub fn write_page(
    session_file: &Path,
    options: &PageOptions,
    out: &mut dyn Write,
) -> Result<Stats, ExportError> {
    let header = read_session_header(session_file)?;
    write_head(out, &header.id, options)?;
    write_header(out, &header, options)?;
    let mut renderer = entries::Renderer::default();
    let mut nodes: Vec<Node> = Vec::new();
    let mut name: Option<String> = None;
    let mut html = String::new();
    let mut failed: Option<io::Error> = None;
    let live = options.live_entries;
    let chunk = options.chunk_entries.max(1);
    visit_session_file(session_file, |entry| {
        if failed.is_some() {
            return;
        }
        let index = nodes.len();
        html.clear();
        if index >= live && (index - live).is_multiple_of(chunk) {
            if index > live {
                html.push_str("</noscript>\n");
            }
            let _ = std::fmt::Write::write_fmt(
                &mut html,
                format_args!("<noscript class=\"chunk\" data-first=\"{index}\">"),
            );
        }
        if let crate::session::SessionEntry::SessionInfo(info) = &entry {
            name.clone_from(&info.name);
        }
        nodes.push(renderer.entry(&mut html, &entry));
        if let Err(e) = out.write_all(html.as_bytes()) {
            failed = Some(e);
        }
    })?;
    if let Some(e) = failed {
        return Err(e.into());
    }
    if nodes.len() > live {
        out.write_all(b"</noscript>\n")?;
    }
    let leaf = options
        .leaf_id
        .clone()
        .or_else(|| nodes.last().map(|n| n.id.clone()));
    write!(
        out,
        "</div>\n<footer id=\"stats\">{}</footer>\n</main>\n</div>\n",
        renderer.stats.html()
    )?;
    let data = TreeData {
        leaf: leaf.as_deref(),
        name: name.as_deref(),
        labels: &renderer.labels,
        nodes: &nodes,
    };
    out.write_all(b"<script type=\"application/json\" id=\"tree-data\">")?;
    serde_json::to_writer(escape::ScriptJsonWriter(&mut *out), &data).map_err(io::Error::from)?;
    write!(
        out,
        "</script>\n<script>{}</script>\n</body>\n</html>\n",
        script_text()
    )?;
    out.flush()?;
    Ok(renderer.stats)
}

/// [`write_page`] into a string (for tests and small sessions).
pub fn render_page(session_file: &Path, options: &PageOptions) -> Result<String, ExportError> {
    let mut out = Vec::new();
    write_page(session_file, options, &mut out)?;
    String::from_utf8(out).map_err(|e| ExportError::Io(io::Error::other(e)))
}

#[cfg(test)]
#[path = "page_tests.rs"]
mod tests;
