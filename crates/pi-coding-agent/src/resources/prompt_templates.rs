//! Prompt templates: `.md` files whose name (without `.md`) is a `/name`
//! command; `/name args` expands to the file's body with the arguments
//! substituted (`$1`, `$@`, `$ARGUMENTS`, `${@:N}`, `${@:N:L}`).

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::{Captures, Regex};
use serde::Serialize;

use super::Diagnostic;
use super::discovery::{self, Discovered, SourceInfo, display};
use super::frontmatter::parse_frontmatter;

/// A loaded prompt template.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptTemplate {
    /// The command name: the file name without `.md`.
    pub name: String,
    /// Frontmatter `description`, else the first non-empty line (cut at 60 characters).
    pub description: String,
    /// Frontmatter `argument-hint`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub argument_hint: Option<String>,
    /// The body the arguments are substituted into.
    pub content: String,
    /// Where it was found.
    pub source_info: SourceInfo,
    /// The template's file.
    pub file_path: PathBuf,
}

/// The first `max` UTF-16 units of `text` (JavaScript's `slice`), on a char boundary.
fn js_prefix(text: &str, max: usize) -> (&str, bool) {
    let mut units = 0;
    for (i, c) in text.char_indices() {
        units += c.len_utf16();
        if units > max {
            return (&text[..i], true);
        }
    }
    (text, false)
}

fn load_file(file: &Path, source_info: SourceInfo) -> Option<PromptTemplate> {
    let content =
        crate::file_read::read_regular_to_string(file, crate::file_read::CONFIG_FILE_LIMIT).ok()?;
    let frontmatter = match parse_frontmatter(&content) {
        Ok(f) => f,
        Err(e) => {
            tracing::warn!("prompt template {}: {e}", file.display());
            return None;
        }
    };
    let name = file
        .file_name()?
        .to_string_lossy()
        .trim_end_matches(".md")
        .to_owned();
    let mut description = frontmatter
        .non_empty_str("description")
        .unwrap_or_default()
        .to_owned();
    if description.is_empty()
        && let Some(first) = frontmatter.body.split('\n').find(|l| !l.trim().is_empty())
    {
        let (cut, longer) = js_prefix(first, 60);
        description = if longer {
            format!("{cut}...")
        } else {
            cut.to_owned()
        };
    }
    Some(PromptTemplate {
        name,
        description,
        argument_hint: frontmatter
            .non_empty_str("argument-hint")
            .map(str::to_owned),
        content: frontmatter.body,
        source_info,
        file_path: file.to_path_buf(),
    })
}

/// The `.md` files directly in `dir`, loaded.
fn load_dir(dir: &Path, info: &impl Fn(&Path) -> SourceInfo) -> Vec<PromptTemplate> {
    discovery::read_dir_sorted(dir)
        .into_iter()
        .filter(|e| e.is_file && e.name.ends_with(".md"))
        .filter_map(|e| load_file(&e.path, info(&e.path)))
        .collect()
}

/// Templates and their diagnostics (name collisions).
#[derive(Debug, Clone, Default)]
pub struct TemplateSet {
    /// Loaded templates, the first of each name only.
    pub templates: Vec<PromptTemplate>,
    /// Collisions.
    pub diagnostics: Vec<Diagnostic>,
}

/// Loads the templates of `paths` (files, or directories searched without
/// recursion), in precedence order; the first of a name wins.
pub(crate) fn load_templates(
    paths: &[PathBuf],
    agent_dir: &Path,
    cwd: &Path,
    discovered: &Discovered,
) -> TemplateSet {
    let user_dir = agent_dir.join("prompts");
    let project_dir = cwd.join(".pi").join("prompts");
    let info = |path: &Path| -> SourceInfo {
        if let Some(meta) = discovered.metadata_for(path) {
            return meta.info(path);
        }
        let (scope, base) = if discovery::is_under(path, &user_dir) {
            ("user", user_dir.clone())
        } else if discovery::is_under(path, &project_dir) {
            ("project", project_dir.clone())
        } else if path.is_dir() {
            ("temporary", path.to_path_buf())
        } else {
            ("temporary", path.parent().unwrap_or(path).to_path_buf())
        };
        SourceInfo {
            path: display(path),
            source: "local".to_owned(),
            scope: scope.to_owned(),
            origin: "top-level".to_owned(),
            base_dir: Some(display(&base)),
        }
    };
    let mut all = Vec::new();
    for path in paths {
        if path.is_dir() {
            all.extend(load_dir(path, &info));
        } else if path.is_file() && path.to_string_lossy().ends_with(".md") {
            all.extend(load_file(path, info(path)));
        }
    }
    let mut set = TemplateSet::default();
    for template in all {
        if let Some(winner) = set.templates.iter().find(|t| t.name == template.name) {
            set.diagnostics.push(Diagnostic::collision(
                "prompt",
                &template.name,
                &format!("/{}", template.name),
                &winner.file_path,
                &template.file_path,
            ));
        } else {
            set.templates.push(template);
        }
    }
    set
}

/// Splits command arguments as pi does: on spaces and tabs, with `"…"` and
/// `'…'` quoting (quotes removed, no escapes).
pub fn parse_command_args(text: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => current.push(c),
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == ' ' || c == '\t' => {
                if !current.is_empty() {
                    args.push(std::mem::take(&mut current));
                }
            }
            None => current.push(c),
        }
    }
    if !current.is_empty() {
        args.push(current);
    }
    args
}

static POSITIONAL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\$(\d+)").unwrap_or_else(|_| unreachable!()));
static SLICE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\$\{@:(\d+)(?::(\d+))?\}").unwrap_or_else(|_| unreachable!()));

fn number(captures: &Captures<'_>, group: usize) -> usize {
    captures
        .get(group)
        .and_then(|m| m.as_str().parse().ok())
        .unwrap_or(usize::MAX)
}

/// Substitutes the arguments into `content`: `$1`… first, then `${@:N}` /
/// `${@:N:L}`, then `$ARGUMENTS` and `$@`. Substituted values are not
/// substituted again.
pub fn substitute_args(content: &str, args: &[String]) -> String {
    let result = POSITIONAL.replace_all(content, |c: &Captures<'_>| {
        let n = number(c, 1);
        n.checked_sub(1)
            .and_then(|i| args.get(i))
            .cloned()
            .unwrap_or_default()
    });
    let result = SLICE.replace_all(&result, |c: &Captures<'_>| {
        let start = number(c, 1).saturating_sub(1).min(args.len());
        let end = match c.get(2) {
            Some(_) => start.saturating_add(number(c, 2)).min(args.len()),
            None => args.len(),
        };
        args[start..end].join(" ")
    });
    let all = args.join(" ");
    let result = js_replace_all(&result, "$ARGUMENTS", &all);
    js_replace_all(&result, "$@", &all)
}

/// JavaScript's `text.replace(/needle/g, replacement)` with a string
/// replacement: `$$`, `$&`, `` $` `` and `$'` in it are expanded.
fn js_replace_all(text: &str, needle: &str, replacement: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (at, _) in text.match_indices(needle) {
        out.push_str(&text[last..at]);
        let mut chars = replacement.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '$' {
                out.push(c);
                continue;
            }
            match chars.peek() {
                Some('$') => out.push('$'),
                Some('&') => out.push_str(needle),
                Some('`') => out.push_str(&text[..at]),
                Some('\'') => out.push_str(&text[at + needle.len()..]),
                _ => {
                    out.push('$');
                    continue;
                }
            }
            chars.next();
        }
        last = at + needle.len();
    }
    out.push_str(&text[last..]);
    out
}

/// Expands `/name args` when `name` is a template; any other text is
/// returned as it is.
pub fn expand_prompt_template(text: &str, templates: &[PromptTemplate]) -> String {
    let Some(rest) = text.strip_prefix('/') else {
        return text.to_owned();
    };
    let (name, args) = rest.split_once(' ').unwrap_or((rest, ""));
    match templates.iter().find(|t| t.name == name) {
        Some(template) => substitute_args(&template.content, &parse_command_args(args)),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn quoted_arguments() {
        assert_eq!(
            parse_command_args("a \"b c\"\t'd''e' \"\" f\"g h\""),
            ["a", "b c", "de", "fg h"]
        );
        assert!(parse_command_args("   ").is_empty());
    }

    #[test]
    fn substitution_as_pi() {
        let a = args(&["x", "y", "z"]);
        assert_eq!(substitute_args("$1-$2-$3-$4", &a), "x-y-z-");
        assert_eq!(
            substitute_args("${@:2}|${@:2:1}|${@:0}|${@:9}", &a),
            "y z|y|x y z|"
        );
        assert_eq!(substitute_args("$@ / $ARGUMENTS", &a), "x y z / x y z");
        assert_eq!(substitute_args("$0 $10", &a), " ");
        // Positional values are not substituted again; `$@` after
        // `$ARGUMENTS` is, and `$$` in a value is one `$` (JavaScript's replace).
        assert_eq!(substitute_args("$1 $@", &args(&["$2", "$@"])), "$2 $2 $@");
        assert_eq!(substitute_args("$ARGUMENTS", &args(&["a$@"])), "aa$@");
        assert_eq!(substitute_args("$@", &args(&["1$$2"])), "1$2");
    }

    #[test]
    fn first_line_description_is_cut_at_60_units() {
        assert_eq!(js_prefix(&"é".repeat(70), 60).0.chars().count(), 60);
        assert!(!js_prefix("short", 60).1);
    }
}
