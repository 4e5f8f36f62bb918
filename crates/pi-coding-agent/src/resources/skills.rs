//! Skills (pi's Agent Skills support): `SKILL.md` files (and `.md` files at
//! the root of a skills directory) with `name`, `description` and
//! `disable-model-invocation` in their frontmatter; pi's validation
//! warnings; the `<available_skills>` block of the system prompt; and the
//! `/skill:name args` expansion.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_yaml_ng::Value;

use super::Diagnostic;
use super::discovery::{self, Discovered, SkillDirMode, SourceInfo, display};
use super::frontmatter::{parse_frontmatter, strip_frontmatter};

/// Longest valid name (Agent Skills spec).
const MAX_NAME_LENGTH: usize = 64;
/// Longest valid description (Agent Skills spec).
const MAX_DESCRIPTION_LENGTH: usize = 1024;

/// A loaded skill.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Skill {
    /// Its name: frontmatter `name`, else the parent directory's name.
    pub name: String,
    /// Frontmatter `description`.
    pub description: String,
    /// The skill's file.
    pub file_path: PathBuf,
    /// The directory holding the file.
    pub base_dir: PathBuf,
    /// Where it was found.
    pub source_info: SourceInfo,
    /// Left out of the system prompt; only `/skill:name` invokes it.
    pub disable_model_invocation: bool,
}

/// Which kind of place a skill came from, for its fallback source info.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SkillSource {
    User,
    Project,
    Path,
}

fn source_info(file: &Path, base_dir: &Path, source: SkillSource) -> SourceInfo {
    let scope = match source {
        SkillSource::User => "user",
        SkillSource::Project => "project",
        SkillSource::Path => "temporary",
    };
    SourceInfo {
        path: display(file),
        source: "local".to_owned(),
        scope: scope.to_owned(),
        origin: "top-level".to_owned(),
        base_dir: Some(display(base_dir)),
    }
}

/// pi's name rules; each broken rule is one message.
fn validate_name(name: &str, parent_dir: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if name != parent_dir {
        errors.push(format!(
            "name \"{name}\" does not match parent directory \"{parent_dir}\""
        ));
    }
    let length = name.encode_utf16().count();
    if length > MAX_NAME_LENGTH {
        errors.push(format!(
            "name exceeds {MAX_NAME_LENGTH} characters ({length})"
        ));
    }
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        errors.push(
            "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)"
                .to_owned(),
        );
    }
    if name.starts_with('-') || name.ends_with('-') {
        errors.push("name must not start or end with a hyphen".to_owned());
    }
    if name.contains("--") {
        errors.push("name must not contain consecutive hyphens".to_owned());
    }
    errors
}

/// Loads one skill file; `None` (with diagnostics) when it is unusable.
pub(crate) fn load_skill_file(
    file: &Path,
    source: SkillSource,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Skill> {
    let warn = |diagnostics: &mut Vec<Diagnostic>, message: String| {
        diagnostics.push(Diagnostic::warning(message, Some(file)));
    };
    let content =
        match crate::file_read::read_regular_to_string(file, crate::file_read::CONFIG_FILE_LIMIT) {
            Ok(content) => content,
            Err(e) => {
                warn(diagnostics, e.to_string());
                return None;
            }
        };
    let frontmatter = match parse_frontmatter(&content) {
        Ok(f) => f,
        Err(e) => {
            warn(diagnostics, e.to_string());
            return None;
        }
    };
    let base_dir = file.parent().unwrap_or(Path::new("")).to_path_buf();
    let parent_name = base_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let description = match frontmatter.get("description") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Bool(false)) => None,
        Some(_) => {
            warn(diagnostics, "description must be a string".to_owned());
            return None;
        }
    };
    match &description {
        None => warn(diagnostics, "description is required".to_owned()),
        Some(d) if d.trim().is_empty() => warn(diagnostics, "description is required".to_owned()),
        Some(d) if d.encode_utf16().count() > MAX_DESCRIPTION_LENGTH => warn(
            diagnostics,
            format!(
                "description exceeds {MAX_DESCRIPTION_LENGTH} characters ({})",
                d.encode_utf16().count()
            ),
        ),
        Some(_) => {}
    }
    // A falsy name (missing, empty, null, false, 0) falls back to the
    // directory's; any other non-string makes pi's validation throw, which
    // skips the skill.
    let name = match frontmatter.get("name") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        None | Some(Value::Null | Value::Bool(false) | Value::String(_)) => parent_name.clone(),
        Some(Value::Number(n)) if n.as_f64() == Some(0.0) => parent_name.clone(),
        Some(_) => {
            warn(diagnostics, "name must be a string".to_owned());
            return None;
        }
    };
    for error in validate_name(&name, &parent_name) {
        warn(diagnostics, error);
    }
    let description = description.filter(|d| !d.trim().is_empty())?;
    Some(Skill {
        name,
        description,
        source_info: source_info(file, &base_dir, source),
        file_path: file.to_path_buf(),
        base_dir,
        disable_model_invocation: frontmatter.get("disable-model-invocation")
            == Some(&Value::Bool(true)),
    })
}

/// Loads the skills of a directory given on the command line or in
/// settings: like discovery, with root `.md` files.
fn load_dir(dir: &Path, source: SkillSource, diagnostics: &mut Vec<Diagnostic>) -> Vec<Skill> {
    discovery::collect_skill_entries(dir, SkillDirMode::Pi)
        .iter()
        .filter_map(|file| load_skill_file(file, source, diagnostics))
        .collect()
}

/// Skills and their diagnostics.
#[derive(Debug, Clone, Default)]
pub struct SkillSet {
    /// Loaded skills, first of each name only.
    pub skills: Vec<Skill>,
    /// Warnings, then collisions.
    pub diagnostics: Vec<Diagnostic>,
}

/// Loads the skills of `paths` (files or directories, in precedence order):
/// the first skill of a name wins, later ones are reported as collisions; a
/// file reached twice (e.g. through a symlink) counts once.
pub(crate) fn load_skills(
    paths: &[PathBuf],
    agent_dir: &Path,
    cwd: &Path,
    discovered: &Discovered,
) -> SkillSet {
    let user_dir = agent_dir.join("skills");
    let project_dir = cwd.join(".pi").join("skills");
    let mut diagnostics = Vec::new();
    let mut collisions = Vec::new();
    let mut skills: Vec<Skill> = Vec::new();
    let mut real_paths = std::collections::HashSet::new();
    for path in paths {
        let source = if discovery::is_under(path, &user_dir) {
            SkillSource::User
        } else if discovery::is_under(path, &project_dir) {
            SkillSource::Project
        } else {
            SkillSource::Path
        };
        let found = if !path.exists() {
            diagnostics.push(Diagnostic::warning("skill path does not exist", Some(path)));
            continue;
        } else if path.is_dir() {
            load_dir(path, source, &mut diagnostics)
        } else if path.is_file() && path.to_string_lossy().ends_with(".md") {
            load_skill_file(path, source, &mut diagnostics)
                .into_iter()
                .collect()
        } else {
            diagnostics.push(Diagnostic::warning(
                "skill path is not a markdown file",
                Some(path),
            ));
            continue;
        };
        for mut skill in found {
            let real = discovery::canonical(&skill.file_path);
            if real_paths.contains(&real) {
                continue;
            }
            if let Some(winner) = skills.iter().find(|s| s.name == skill.name) {
                collisions.push(Diagnostic::collision(
                    "skill",
                    &skill.name,
                    &skill.name,
                    winner.file_path.as_path(),
                    &skill.file_path,
                ));
                continue;
            }
            if let Some(meta) = discovered.metadata_for(&skill.file_path) {
                skill.source_info = meta.info(&skill.file_path);
            }
            real_paths.insert(real);
            skills.push(skill);
        }
    }
    diagnostics.extend(collisions);
    SkillSet {
        skills,
        diagnostics,
    }
}

/// Escapes `& < > " '` for XML.
fn escape_xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

/// The skills block of the system prompt (empty when no skill may be
/// invoked by the model). Begins with a blank line.
pub fn format_skills_for_prompt(skills: &[Skill]) -> String {
    let visible: Vec<&Skill> = skills
        .iter()
        .filter(|s| !s.disable_model_invocation)
        .collect();
    if visible.is_empty() {
        return String::new();
    }
    let mut lines = vec![
        "\n\nThe following skills provide specialized instructions for specific tasks.".to_owned(),
        "Use the read tool to load a skill's file when the task matches its description.".to_owned(),
        "When a skill file references a relative path, resolve it against the skill directory (parent of SKILL.md / dirname of the path) and use that absolute path in tool commands.".to_owned(),
        String::new(),
        "<available_skills>".to_owned(),
    ];
    for skill in visible {
        lines.push("  <skill>".to_owned());
        lines.push(format!("    <name>{}</name>", escape_xml(&skill.name)));
        lines.push(format!(
            "    <description>{}</description>",
            escape_xml(&skill.description)
        ));
        lines.push(format!(
            "    <location>{}</location>",
            escape_xml(&display(&skill.file_path))
        ));
        lines.push("  </skill>".to_owned());
    }
    lines.push("</available_skills>".to_owned());
    lines.join("\n")
}

/// Expands `/skill:name [args]` into the skill's body wrapped in a
/// `<skill>` element, the arguments after a blank line. Other text, an
/// unknown skill or an unreadable file leave `text` as it is.
pub fn expand_skill_command(text: &str, skills: &[Skill]) -> String {
    let Some(rest) = text.strip_prefix("/skill:") else {
        return text.to_owned();
    };
    let (name, args) = match rest.split_once(' ') {
        Some((name, args)) => (name, args.trim()),
        None => (rest, ""),
    };
    let Some(skill) = skills.iter().find(|s| s.name == name) else {
        return text.to_owned();
    };
    let body = crate::file_read::read_regular_to_string(
        &skill.file_path,
        crate::file_read::CONFIG_FILE_LIMIT,
    )
    .map_err(|e| e.to_string())
    .and_then(|content| strip_frontmatter(&content).map_err(|e| e.to_string()));
    match body {
        Ok(body) => {
            let block = format!(
                "<skill name=\"{}\" location=\"{}\">\nReferences are relative to {}.\n\n{}\n</skill>",
                skill.name,
                display(&skill.file_path),
                display(&skill.base_dir),
                body.trim()
            );
            if args.is_empty() {
                block
            } else {
                format!("{block}\n\n{args}")
            }
        }
        Err(e) => {
            tracing::error!(
                "skill {}: cannot expand {}: {e}",
                skill.name,
                skill.file_path.display()
            );
            text.to_owned()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_rules_as_pi() {
        assert!(validate_name("good-name", "good-name").is_empty());
        assert_eq!(
            validate_name("-a--b-", "-a--b-"),
            [
                "name must not start or end with a hyphen",
                "name must not contain consecutive hyphens"
            ]
        );
        assert_eq!(validate_name("A_b", "x").len(), 2);
        assert_eq!(
            validate_name(&"a".repeat(65), &"a".repeat(65)),
            ["name exceeds 64 characters (65)"]
        );
    }

    fn load(frontmatter: &str) -> (Option<Skill>, Vec<String>) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("my-skill").join("SKILL.md");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, format!("---\n{frontmatter}\n---\nBody\n")).unwrap();
        let mut diagnostics = Vec::new();
        let skill = load_skill_file(&file, SkillSource::Path, &mut diagnostics);
        (skill, diagnostics.into_iter().map(|d| d.message).collect())
    }

    #[test]
    fn frontmatter_values_as_pi_reads_them() {
        let (skill, warnings) = load("description: d\nname: false\ndisable-model-invocation: yes");
        let skill = skill.unwrap();
        assert_eq!(skill.name, "my-skill");
        assert!(!skill.disable_model_invocation, "only a real true counts");
        assert!(warnings.is_empty());
        let (skill, warnings) = load("description: d\nname: 12");
        assert!(skill.is_none());
        assert_eq!(warnings, ["name must be a string"]);
        let (skill, warnings) = load("description: 5");
        assert!(skill.is_none());
        assert_eq!(warnings, ["description must be a string"]);
        let (skill, warnings) = load(&format!("description: {}", "x".repeat(1025)));
        assert!(skill.is_some(), "a long description warns but loads");
        assert_eq!(warnings, ["description exceeds 1024 characters (1025)"]);
        let (skill, warnings) = load("description: '  '");
        assert!(skill.is_none());
        assert_eq!(warnings, ["description is required"]);
    }

    #[test]
    fn the_prompt_block_skips_manual_skills_and_escapes() {
        let skill = |name: &str, manual: bool| Skill {
            name: name.to_owned(),
            description: "Use <this> & 'that'".to_owned(),
            file_path: PathBuf::from(format!("/s/{name}/SKILL.md")),
            base_dir: PathBuf::from(format!("/s/{name}")),
            source_info: source_info(Path::new("/s"), Path::new("/s"), SkillSource::Path),
            disable_model_invocation: manual,
        };
        assert_eq!(format_skills_for_prompt(&[skill("m", true)]), "");
        let block = format_skills_for_prompt(&[skill("a", false), skill("m", true)]);
        assert!(block.starts_with("\n\nThe following skills"));
        assert!(block.ends_with(
            "<available_skills>\n  <skill>\n    <name>a</name>\n    <description>Use &lt;this&gt; &amp; &apos;that&apos;</description>\n    <location>/s/a/SKILL.md</location>\n  </skill>\n</available_skills>"
        ));
    }
}
