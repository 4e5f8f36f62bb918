//! The resources pi loads besides its tools: skills, prompt templates, the
//! system prompt files (`SYSTEM.md`, `APPEND_SYSTEM.md`) and the project
//! context files, found where pi 0.73.1 looks for them and shaped as it
//! reports them (`get_commands`, diagnostics).
//!
//! [`Resources::expand_input`] is the one entry point for user text: it
//! expands `/skill:name args` and `/template args` as pi does before a
//! prompt, steer or follow-up is sent, in every mode.

pub mod discovery;
pub mod frontmatter;
pub(crate) mod patterns;
pub mod prompt_templates;
pub mod skills;

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Value, json};

use crate::system_prompt::{ContextFile, collect_context_files};
use discovery::{Kind, Roots, canonical, resolve, resolve_user_path};
pub use prompt_templates::{PromptTemplate, TemplateSet, expand_prompt_template};
pub use skills::{Skill, SkillSet, expand_skill_command, format_skills_for_prompt};

/// A collision: the same name found twice; the first wins.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Collision {
    /// `skill` or `prompt`.
    pub resource_type: String,
    /// The name both have.
    pub name: String,
    /// The one kept.
    pub winner_path: String,
    /// The one skipped.
    pub loser_path: String,
}

/// A problem found while loading resources, as pi reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// `warning`, `error` or `collision`.
    #[serde(rename = "type")]
    pub kind: String,
    /// What is wrong.
    pub message: String,
    /// The file or path concerned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// For collisions: which file won.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collision: Option<Collision>,
}

impl Diagnostic {
    fn new(kind: &str, message: impl Into<String>, path: Option<&Path>) -> Self {
        Self {
            kind: kind.to_owned(),
            message: message.into(),
            path: path.map(discovery::display),
            collision: None,
        }
    }

    /// A warning about `path`.
    pub fn warning(message: impl Into<String>, path: Option<&Path>) -> Self {
        Self::new("warning", message, path)
    }

    /// A name collision; `shown` is the name as the message gives it.
    pub fn collision(
        resource_type: &str,
        name: &str,
        shown: &str,
        winner: &Path,
        loser: &Path,
    ) -> Self {
        let mut d = Self::new(
            "collision",
            format!("name \"{shown}\" collision"),
            Some(loser),
        );
        d.collision = Some(Collision {
            resource_type: resource_type.to_owned(),
            name: name.to_owned(),
            winner_path: discovery::display(winner),
            loser_path: discovery::display(loser),
        });
        d
    }
}

/// What to load (the command line's resource flags).
#[derive(Debug, Clone, Default)]
pub struct ResourceOptions {
    /// The working directory.
    pub cwd: PathBuf,
    /// The agent directory.
    pub agent_dir: PathBuf,
    /// The home directory (for `~` and `~/.agents/skills`).
    pub home: PathBuf,
    /// `--skill` paths.
    pub skill_paths: Vec<String>,
    /// `--prompt-template` paths.
    pub prompt_template_paths: Vec<String>,
    /// `--no-skills`: only the `--skill` paths.
    pub no_skills: bool,
    /// `--no-prompt-templates`: only the `--prompt-template` paths.
    pub no_prompt_templates: bool,
    /// `--no-context-files`.
    pub no_context_files: bool,
    /// `--system-prompt` (text or file); else `SYSTEM.md`.
    pub system_prompt: Option<String>,
    /// `--append-system-prompt` (texts or files); empty: `APPEND_SYSTEM.md`.
    pub append_system_prompt: Vec<String>,
    /// The skills and prompt templates of pi packages.
    pub packages: crate::packages::PackageResources,
}

/// Everything loaded.
#[derive(Debug, Clone, Default)]
pub struct Resources {
    /// Skills and their diagnostics.
    pub skills: SkillSet,
    /// Prompt templates and their diagnostics.
    pub templates: TemplateSet,
    /// The text replacing the built-in system prompt.
    pub system_prompt: Option<String>,
    /// Texts appended to the system prompt, joined with a blank line.
    pub append_system_prompt: Vec<String>,
    /// Project context files (`AGENTS.md` / `CLAUDE.md`).
    pub context_files: Vec<ContextFile>,
}

/// `input` itself, or the file it names relative to `cwd` (pi's
/// `resolvePromptInput`, which resolves against the process's directory).
fn text_or_file(input: &str, cwd: &Path) -> String {
    let path = cwd.join(input);
    if !input.is_empty() && path.exists() {
        // Named by the user: a FIFO (`<(...)`) is read too, within the bound.
        match crate::file_read::read_input(&path, crate::file_read::CONFIG_FILE_LIMIT) {
            Ok(bytes) => return String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => tracing::warn!("Could not read {}: {e}", path.display()),
        }
    }
    input.to_owned()
}

/// The project file `.pi/<name>`, else the agent dir's `<name>`.
fn discover_file(cwd: &Path, agent_dir: &Path, name: &str) -> Option<String> {
    [cwd.join(".pi").join(name), agent_dir.join(name)]
        .into_iter()
        .find(|p| p.exists())
        .map(|p| discovery::display(&p))
}

/// Discovered paths then explicit ones, resolved and without duplicates.
fn merge_paths(primary: Vec<PathBuf>, extra: &[PathBuf], cwd: &Path, home: &Path) -> Vec<PathBuf> {
    let mut seen = std::collections::HashSet::new();
    primary
        .into_iter()
        .chain(extra.iter().cloned())
        .map(|p| resolve_user_path(&p.to_string_lossy(), cwd, home))
        .filter(|p| seen.insert(canonical(p)))
        .collect()
}

impl Resources {
    /// Loads everything `options` asks for.
    pub fn load(options: &ResourceOptions) -> Self {
        let cwd = options.cwd.as_path();
        let roots = Roots {
            cwd,
            agent_dir: &options.agent_dir,
            home: &options.home,
            packages: &options.packages,
        };
        let cli = |paths: &[String]| -> Vec<PathBuf> {
            paths.iter().map(|p| resolve(cwd, Path::new(p))).collect()
        };

        let found = discovery::discover(&roots, Kind::Skills);
        let cli_skills = cli(&options.skill_paths);
        let auto = if options.no_skills {
            Vec::new()
        } else {
            found.enabled()
        };
        let paths = merge_paths(auto, &cli_skills, cwd, &options.home);
        let mut skills = skills::load_skills(&paths, &options.agent_dir, cwd, &found);
        for path in &cli_skills {
            let text = discovery::display(path);
            if !path.exists()
                && !skills
                    .diagnostics
                    .iter()
                    .any(|d| d.path.as_deref() == Some(&text))
            {
                skills.diagnostics.push(Diagnostic::new(
                    "error",
                    "Skill path does not exist",
                    Some(path),
                ));
            }
        }

        let found = discovery::discover(&roots, Kind::Prompts);
        let cli_prompts = cli(&options.prompt_template_paths);
        let auto = if options.no_prompt_templates {
            Vec::new()
        } else {
            found.enabled()
        };
        let paths = merge_paths(auto, &cli_prompts, cwd, &options.home);
        let mut templates =
            prompt_templates::load_templates(&paths, &options.agent_dir, cwd, &found);
        for path in &cli_prompts {
            let text = discovery::display(path);
            if !path.exists()
                && !templates
                    .diagnostics
                    .iter()
                    .any(|d| d.path.as_deref() == Some(&text))
            {
                templates.diagnostics.push(Diagnostic::new(
                    "error",
                    "Prompt template path does not exist",
                    Some(path),
                ));
            }
        }

        let context_files = if options.no_context_files {
            Vec::new()
        } else {
            collect_context_files(&options.agent_dir, cwd)
        };
        let system_prompt = options
            .system_prompt
            .clone()
            .or_else(|| discover_file(cwd, &options.agent_dir, "SYSTEM.md"))
            .map(|s| text_or_file(&s, cwd));
        let append_system_prompt = if options.append_system_prompt.is_empty() {
            discover_file(cwd, &options.agent_dir, "APPEND_SYSTEM.md")
                .into_iter()
                .collect()
        } else {
            options.append_system_prompt.clone()
        };
        Self {
            skills,
            templates,
            system_prompt,
            append_system_prompt: append_system_prompt
                .iter()
                .map(|s| text_or_file(s, cwd))
                .collect(),
            context_files,
        }
    }

    /// Expands `/skill:name args`, then `/template args`, as pi does with
    /// every prompt, steer and follow-up; other text comes back unchanged.
    pub fn expand_input(&self, text: &str) -> String {
        let text = expand_skill_command(text, &self.skills.skills);
        expand_prompt_template(&text, &self.templates.templates)
    }

    /// The appended texts as one (`None` when there are none).
    pub fn append_text(&self) -> Option<String> {
        (!self.append_system_prompt.is_empty()).then(|| self.append_system_prompt.join("\n\n"))
    }

    /// The slash commands that come from files, as rpc `get_commands` lists
    /// them: templates, then skills (`skill:name`).
    pub fn commands(&self) -> Vec<Value> {
        let templates = self.templates.templates.iter().map(|t| {
            json!({"name": t.name, "description": t.description, "source": "prompt", "sourceInfo": t.source_info})
        });
        let skills = self.skills.skills.iter().map(|s| {
            json!({"name": format!("skill:{}", s.name), "description": s.description, "source": "skill", "sourceInfo": s.source_info})
        });
        templates.chain(skills).collect()
    }

    /// Every diagnostic, logged as a warning (pi shows them only in the
    /// interactive mode).
    pub fn log_diagnostics(&self) {
        for d in self
            .skills
            .diagnostics
            .iter()
            .chain(&self.templates.diagnostics)
        {
            tracing::warn!("{}: {}", d.path.as_deref().unwrap_or(""), d.message);
        }
    }
}
