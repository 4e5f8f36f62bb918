//! The system prompt: pi's structure in our own words — the role, the
//! available tools with one-line descriptions, guidelines that depend on
//! those tools — or the user's own (`--system-prompt`, `SYSTEM.md`); then,
//! formatted exactly as pi formats them, the appended texts, the project
//! context files (`AGENTS.md` / `CLAUDE.md`), the skills block (when the
//! read tool is on), the local date and the working directory.

use std::path::{Path, PathBuf};

use crate::resources::{Skill, format_skills_for_prompt};

/// Context file names, in order of preference within one directory.
const CONTEXT_FILE_NAMES: [&str; 4] = ["AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"];

/// A project instruction file found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextFile {
    /// Where it was found.
    pub path: PathBuf,
    /// Its text.
    pub content: String,
}

/// What goes into the system prompt.
#[derive(Debug, Clone, Default)]
pub struct SystemPromptOptions {
    /// Replaces the built-in role and guidelines (`--system-prompt`).
    pub custom_prompt: Option<String>,
    /// Appended after the base prompt (`--append-system-prompt`,
    /// `APPEND_SYSTEM.md`).
    pub append: Option<String>,
    /// Loaded skills; those the model may invoke are listed when the read
    /// tool is on.
    pub skills: Vec<Skill>,
    /// Active tools as (name, one-line description), in order.
    pub tools: Vec<(String, String)>,
    /// Extra guideline bullets (extension tools' `promptGuidelines`), after
    /// the tools' own and before the closing two; blank and repeated ones
    /// are dropped.
    pub guidelines: Vec<String>,
    /// Project context files, outermost first.
    pub context_files: Vec<ContextFile>,
    /// Today's date in the local time zone, `YYYY-MM-DD`.
    pub date: String,
    /// The working directory.
    pub cwd: PathBuf,
    /// Where pi-rs's own documentation was written
    /// ([`crate::user_docs::ensure`]); the built-in prompt points the
    /// model at it.
    pub docs: Option<PathBuf>,
}

/// The first context file of `dir` that exists and can be read.
fn context_file_in(dir: &Path) -> Option<ContextFile> {
    CONTEXT_FILE_NAMES.iter().find_map(|name| {
        let path = dir.join(name);
        if !path.exists() {
            return None;
        }
        match crate::file_read::read_regular_to_string(&path, crate::file_read::CONFIG_FILE_LIMIT) {
            Ok(content) => Some(ContextFile { path, content }),
            Err(e) => {
                tracing::warn!("Could not read {}: {e}", path.display());
                None
            }
        }
    })
}

/// Collects context files as pi does: the agent dir's own, then one per
/// directory from the filesystem root down to `cwd` (`AGENTS.md` preferred
/// over `CLAUDE.md`), each file once.
pub fn collect_context_files(agent_dir: &Path, cwd: &Path) -> Vec<ContextFile> {
    let mut files: Vec<ContextFile> = context_file_in(agent_dir).into_iter().collect();
    let mut ancestors = Vec::new();
    for dir in cwd.ancestors() {
        if let Some(file) = context_file_in(dir)
            && !files.iter().chain(&ancestors).any(|f| f.path == file.path)
        {
            ancestors.push(file);
        }
    }
    ancestors.reverse();
    files.extend(ancestors);
    files
}

fn has(options: &SystemPromptOptions, tool: &str) -> bool {
    options.tools.iter().any(|(name, _)| name == tool)
}

fn guidelines(options: &SystemPromptOptions) -> Vec<&str> {
    let mut lines: Vec<&str> = Vec::new();
    let search_tools = has(options, "grep") || has(options, "find") || has(options, "ls");
    if has(options, "bash") && !search_tools {
        lines.push("Use bash to explore the project (ls, rg, find) and to run builds and tests");
    }
    if search_tools {
        lines.push("Prefer the grep, find and ls tools over bash for searching and listing files");
    }
    if has(options, "read") {
        lines.push("Read files with the read tool rather than cat or sed");
    }
    if has(options, "edit") {
        lines.push("Change files with edit: each edits[].oldText must match the original file exactly and uniquely");
        lines.push("Put several changes to one file into a single edit call with several edits[] entries; they must not overlap");
        lines.push("Keep each oldText short, just long enough to be unique");
    }
    if has(options, "write") {
        lines.push("Use write only to create files or to replace a file entirely");
    }
    for extra in &options.guidelines {
        let extra = extra.trim();
        if !extra.is_empty() && !lines.contains(&extra) {
            lines.push(extra);
        }
    }
    lines.push("Keep answers short and to the point");
    lines.push("Name file paths explicitly when you talk about files");
    lines
}

/// Where the model finds pi-rs's documentation, to read only when asked
/// about pi-rs itself.
fn docs_section(docs: &Path) -> String {
    let docs = docs.to_string_lossy().replace('\\', "/");
    format!(
        "\n\nDocumentation of this agent, pi-rs (read it only when the user asks about pi-rs itself: \
         how to use it, configure it or extend it):\n\
         - Overview, install and command line: {docs}/README.md\n\
         - Topics in {docs}/docs/: interactive.md (terminal UI, commands, keys, themes), settings.md, \
         sessions.md, auth.md (logins and keys), extensions.md and extension-examples.md, packages.md, \
         mcp.md, export.md\n\
         - Read the whole relevant file before answering and follow its links to related files"
    )
}

/// Builds the system prompt.
pub fn build_system_prompt(options: &SystemPromptOptions) -> String {
    let mut prompt = match &options.custom_prompt {
        Some(custom) => custom.clone(),
        None => {
            let mut base = String::from(
                "You are a skilled coding assistant running inside pi, a coding agent for the terminal. \
                 You help the user by reading files, running commands, editing code and writing new files.",
            );
            if !options.tools.is_empty() {
                base.push_str("\n\nAvailable tools:\n");
                for (name, description) in &options.tools {
                    base.push_str(&format!("- {name}: {description}\n"));
                }
                base.push_str("\nThe project may also provide further tools beyond these.");
            }
            base.push_str("\n\nGuidelines:\n");
            for line in guidelines(options) {
                base.push_str(&format!("- {line}\n"));
            }
            base.truncate(base.trim_end().len());
            if let Some(docs) = &options.docs {
                base.push_str(&docs_section(docs));
            }
            base
        }
    };
    if let Some(append) = options.append.as_deref().filter(|a| !a.is_empty()) {
        prompt.push_str("\n\n");
        prompt.push_str(append);
    }
    if !options.context_files.is_empty() {
        prompt
            .push_str("\n\n# Project Context\n\nProject-specific instructions and guidelines:\n\n");
        for file in &options.context_files {
            prompt.push_str(&format!(
                "## {}\n\n{}\n\n",
                file.path.display(),
                file.content
            ));
        }
    }
    if has(options, "read") {
        prompt.push_str(&format_skills_for_prompt(&options.skills));
    }
    prompt.push_str(&format!("\nCurrent date: {}", options.date));
    prompt.push_str(&format!(
        "\nCurrent working directory: {}",
        options.cwd.to_string_lossy().replace('\\', "/")
    ));
    prompt
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> SystemPromptOptions {
        SystemPromptOptions {
            tools: vec![
                ("read".into(), "Read a file".into()),
                ("bash".into(), "Run a shell command".into()),
            ],
            date: "2026-11-30".into(),
            cwd: PathBuf::from("/work/x"),
            ..SystemPromptOptions::default()
        }
    }

    #[test]
    fn the_default_prompt_lists_tools_guidelines_date_and_cwd() {
        let prompt = build_system_prompt(&options());
        assert!(
            prompt.contains("Available tools:\n- read: Read a file\n- bash: Run a shell command\n"),
            "{prompt}"
        );
        assert!(prompt.contains("- Read files with the read tool rather than cat or sed"));
        assert!(
            !prompt.contains("edits[]"),
            "edit guidelines only with the edit tool"
        );
        assert!(
            prompt.ends_with("\nCurrent date: 2026-11-30\nCurrent working directory: /work/x"),
            "{prompt}"
        );
    }

    #[test]
    fn the_default_prompt_points_at_the_docs_a_custom_one_does_not() {
        let mut o = options();
        o.docs = Some(PathBuf::from("/home/u/.pi/agent/pi-rs-docs"));
        let prompt = build_system_prompt(&o);
        assert!(
            prompt.contains(
                "- Overview, install and command line: /home/u/.pi/agent/pi-rs-docs/README.md\n"
            ),
            "{prompt}"
        );
        assert!(prompt.contains("Topics in /home/u/.pi/agent/pi-rs-docs/docs/: interactive.md"));
        o.custom_prompt = Some("You are terse.".into());
        assert!(!build_system_prompt(&o).contains("pi-rs-docs"));
    }

    #[test]
    fn every_file_the_docs_section_names_is_shipped() {
        let section = docs_section(Path::new("/d"));
        let shipped: Vec<&str> = crate::user_docs::files().iter().map(|(n, _)| *n).collect();
        let named = section
            .split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')')
            .filter(|w| w.ends_with(".md"))
            .map(|w| match w.strip_prefix("/d/") {
                Some(path) => path.to_owned(),
                None => format!("docs/{w}"),
            })
            .collect::<Vec<_>>();
        assert!(named.len() >= 10, "{named:?}");
        for name in &named {
            assert!(
                shipped.contains(&name.as_str()),
                "{name} is not shipped: {shipped:?}"
            );
        }
    }

    #[test]
    fn a_custom_prompt_replaces_the_base_and_keeps_context_and_date() {
        let mut o = options();
        o.custom_prompt = Some("You are terse.".into());
        o.append = Some("Always answer in French.".into());
        o.context_files = vec![ContextFile {
            path: "/work/AGENTS.md".into(),
            content: "Use tabs.\n".into(),
        }];
        let prompt = build_system_prompt(&o);
        assert_eq!(
            prompt,
            "You are terse.\n\nAlways answer in French.\n\n# Project Context\n\nProject-specific instructions and guidelines:\n\n## /work/AGENTS.md\n\nUse tabs.\n\n\n\nCurrent date: 2026-11-30\nCurrent working directory: /work/x"
        );
    }

    #[test]
    fn context_files_are_collected_from_the_agent_dir_and_every_ancestor() {
        let root = tempfile::tempdir().unwrap();
        let agent = root.path().join("agent");
        let project = root.path().join("project");
        let sub = project.join("sub");
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(agent.join("AGENTS.md"), "global").unwrap();
        std::fs::write(project.join("CLAUDE.md"), "claude").unwrap();
        std::fs::write(sub.join("AGENTS.md"), "agents").unwrap();
        std::fs::write(sub.join("CLAUDE.md"), "ignored: AGENTS.md wins").unwrap();
        let files = collect_context_files(&agent, &sub);
        let contents: Vec<&str> = files.iter().map(|f| f.content.as_str()).collect();
        assert_eq!(contents, ["global", "claude", "agents"]);
    }
}
