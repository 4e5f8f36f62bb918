//! The slash commands, read into [`Action`]s: `/quit`, `/session`,
//! `/settings`, `/login`, `/logout`, `/hotkeys`, `/changelog`, `/reload`, `/export [path]`, `/share`,
//! `/copy`, `/new`, `/resume`, `/tree`, `/fork`, `/clone`, `/scoped-models`,
//! `/import <file>`, `/name [name]`, `/model [search]` and
//! `/compact [instructions]`. Anything else that starts with `/` goes to the
//! model unchanged, as pi does.

use std::path::PathBuf;

use super::action::Action;

/// The action of the command `text`; `None` sends `text` to the model.
pub fn parse(text: &str) -> Option<Action> {
    if !text.starts_with('/') {
        return None;
    }
    let owned = |s: Option<&str>| s.map(str::to_owned);
    Some(match text {
        "/quit" => Action::Quit,
        "/session" => Action::SessionInfo,
        "/settings" => Action::OpenSettings,
        "/login" => Action::OpenLogin,
        "/logout" => Action::OpenLogout,
        "/hotkeys" => Action::Hotkeys,
        "/changelog" => Action::Changelog,
        "/reload" => Action::Reload,
        "/copy" => Action::Copy,
        "/new" => Action::NewSession,
        "/resume" => Action::OpenSessions { startup: false },
        "/tree" => Action::OpenTree,
        "/fork" => Action::OpenFork,
        "/clone" => Action::CloneSession,
        "/scoped-models" => Action::OpenScopedModels,
        "/share" => Action::Share,
        "/import" => import_usage(),
        _ if text == "/export" || text.starts_with("/export ") => {
            Action::Export(owned(path_argument(text, "/export")))
        }
        _ => {
            if let Some(path) = text.strip_prefix("/import ") {
                let path = path.trim();
                let path = path
                    .strip_prefix('"')
                    .and_then(|p| p.strip_suffix('"'))
                    .unwrap_or(path);
                return Some(if path.is_empty() {
                    import_usage()
                } else {
                    Action::ConfirmImport(PathBuf::from(path))
                });
            }
            if let Some(name) = argument(text, "/name") {
                return Some(Action::Name(owned(name)));
            }
            if let Some(search) = argument(text, "/model") {
                return Some(Action::ModelCommand(owned(search)));
            }
            return argument(text, "/compact").map(|i| Action::Compact(owned(i)));
        }
    })
}

fn import_usage() -> Action {
    Action::Error("Usage: /import <path.jsonl>".to_owned())
}

/// `/name` argument, `None` for `/name` alone.
fn argument<'a>(text: &'a str, name: &str) -> Option<Option<&'a str>> {
    let rest = text.strip_prefix(name)?;
    if rest.is_empty() {
        return Some(None);
    }
    rest.strip_prefix(' ')
        .map(|r| Some(r.trim()).filter(|r| !r.is_empty()))
}

/// The first argument of a path command (`/export "my file.html"`), as pi reads it.
fn path_argument<'a>(text: &'a str, command: &str) -> Option<&'a str> {
    let rest = text.strip_prefix(command)?.strip_prefix(' ')?.trim_start();
    let first = rest.chars().next()?;
    if first == '"' || first == '\'' {
        let end = rest[1..].find(first)?;
        return Some(&rest[1..=end]);
    }
    Some(rest.split_whitespace().next().unwrap_or(rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_need_a_space() {
        assert_eq!(argument("/name", "/name"), Some(None));
        assert_eq!(argument("/name  x y ", "/name"), Some(Some("x y")));
        assert_eq!(argument("/names", "/name"), None);
        assert_eq!(argument("/name ", "/name"), Some(None));
    }

    #[test]
    fn path_arguments_as_pi() {
        assert_eq!(path_argument("/export", "/export"), None);
        assert_eq!(
            path_argument("/export out.html", "/export"),
            Some("out.html")
        );
        assert_eq!(path_argument("/export  a b", "/export"), Some("a"));
        assert_eq!(
            path_argument("/export \"my file.html\" x", "/export"),
            Some("my file.html")
        );
        assert_eq!(
            path_argument("/export 'x.jsonl'", "/export"),
            Some("x.jsonl")
        );
        assert_eq!(path_argument("/export \"open", "/export"), None);
    }

    #[test]
    fn commands_read_into_actions() {
        assert_eq!(parse("hello"), None);
        assert_eq!(parse("/unknown"), None);
        assert_eq!(parse("/names"), None);
        assert_eq!(parse("/model"), Some(Action::ModelCommand(None)));
        assert_eq!(
            parse("/compact be brief"),
            Some(Action::Compact(Some("be brief".to_owned())))
        );
        assert_eq!(
            parse("/import \"a b.jsonl\""),
            Some(Action::ConfirmImport(PathBuf::from("a b.jsonl")))
        );
        assert_eq!(parse("/import  "), Some(import_usage()));
        assert_eq!(parse("/export"), Some(Action::Export(None)));
    }
}
