//! The names the model calls MCP tools by, and `/` commands MCP prompts
//! run under: `mcp__<server>__<name>` (Claude Code's form), at most 64
//! characters of `[A-Za-z0-9_-]` (what every provider accepts). Other
//! characters become `_`; a name too long, or already taken (by a
//! built-in, another extension's tool, or another MCP tool whose name
//! reads the same once cleaned), keeps its start and ends in `_` and eight
//! hex digits of a hash of the server and the original name, so the same
//! configuration always yields the same names.

/// The longest name providers accept.
pub const MAX_NAME: usize = 64;

/// The prefix of every MCP tool and command name.
pub const PREFIX: &str = "mcp__";

/// `text` with every character outside `[A-Za-z0-9_-]` replaced by `_`.
pub fn sanitize(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn short_hash(server: &str, name: &str, round: u32) -> String {
    let input = format!("{server}\0{name}\0{round}");
    let digest = ring::digest::digest(&ring::digest::SHA256, input.as_bytes());
    digest.as_ref()[..4]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The name of `server`'s `name` (a tool or a prompt), unique among the
/// names `taken` says are in use.
pub fn namespaced(server: &str, name: &str, taken: &dyn Fn(&str) -> bool) -> String {
    let base = format!("{PREFIX}{}__{}", sanitize(server), sanitize(name));
    if base.len() <= MAX_NAME && !taken(&base) {
        return base;
    }
    // `base` is ASCII: any byte index is a character boundary.
    let keep = &base[..base.len().min(MAX_NAME - 9)];
    let mut round = 0;
    loop {
        let candidate = format!("{keep}_{}", short_hash(server, name, round));
        if !taken(&candidate) {
            return candidate;
        }
        round += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn valid(name: &str) -> bool {
        name.len() <= MAX_NAME
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    }

    #[test]
    fn short_names_read_as_server_and_tool() {
        let none = |_: &str| false;
        assert_eq!(namespaced("time", "get_time", &none), "mcp__time__get_time");
        assert_eq!(
            namespaced("my server", "do.it/now", &none),
            "mcp__my_server__do_it_now"
        );
        assert_eq!(namespaced("é", "ü", &none), "mcp______");
    }

    #[test]
    fn long_names_are_cut_with_a_stable_hash() {
        let none = |_: &str| false;
        let long = "x".repeat(100);
        let name = namespaced("srv", &long, &none);
        assert!(valid(&name), "{name}");
        assert_eq!(name.len(), MAX_NAME);
        assert!(name.starts_with("mcp__srv__xxxx"));
        assert_eq!(name, namespaced("srv", &long, &none), "stable");
        let other = namespaced("srv", &format!("{long}y"), &none);
        assert_ne!(name, other, "names that share a start still differ");
    }

    #[test]
    fn a_taken_name_gets_a_hash_and_never_a_duplicate() {
        let mut names: Vec<String> = vec!["mcp__s__a_b".to_owned()];
        for tool in ["a.b", "a b", "a_b"] {
            let taken = |n: &str| names.iter().any(|t| t == n);
            let name = namespaced("s", tool, &taken);
            assert!(valid(&name), "{name}");
            assert!(!names.contains(&name), "{name} again");
            names.push(name);
        }
        assert!(names[1].starts_with("mcp__s__a_b_"));
        assert_eq!(names.len(), 4);
    }
}
