//! The layering rules of DESIGN.md, checked against `cargo metadata`.

use crate::error::TaskError;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;
use std::process::Command;

use serde::Deserialize;

/// Crates whose whole dependency tree must not contain an HTTP stack.
const NO_HTTP_CRATES: &[&str] = &["pi-ai", "pi-agent-core"];
/// The HTTP client that must stay out of those trees.
const HTTP_CRATE: &str = "reqwest";
const PROVIDER_PREFIX: &str = "pi-providers-";
/// The dev-only test-support crate: allowed in `[dev-dependencies]` only.
const TEST_SUPPORT: &str = "pi-test-support";
/// The provider-to-provider edges DESIGN.md allows: a wire that speaks
/// another wire's format behind other endpoints and auth reuses that
/// crate's encoder and decoder instead of a copy.
const SHARED_WIRE_EDGES: &[(&str, &str)] = &[
    ("pi-providers-google-vertex", "pi-providers-google"),
    (
        "pi-providers-azure-openai-responses",
        "pi-providers-openai-responses",
    ),
    (
        "pi-providers-openai-codex-responses",
        "pi-providers-openai-responses",
    ),
];

/// The subset of `cargo metadata --format-version 1` this check reads.
#[derive(Debug, Deserialize)]
pub struct Metadata {
    packages: Vec<Package>,
    workspace_members: Vec<String>,
    #[serde(default)]
    resolve: Option<Resolve>,
}

#[derive(Debug, Deserialize)]
struct Package {
    id: String,
    name: String,
    #[serde(default)]
    dependencies: Vec<Dependency>,
}

#[derive(Debug, Deserialize)]
struct Dependency {
    name: String,
    #[serde(default)]
    kind: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Resolve {
    nodes: Vec<Node>,
}

#[derive(Debug, Deserialize)]
struct Node {
    id: String,
    #[serde(default)]
    deps: Vec<NodeDep>,
}

#[derive(Debug, Deserialize)]
struct NodeDep {
    pkg: String,
    #[serde(default)]
    dep_kinds: Vec<DepKind>,
}

#[derive(Debug, Deserialize)]
struct DepKind {
    #[serde(default)]
    kind: Option<String>,
}

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Violation {
    /// An internal edge that the table does not allow.
    Edge {
        /// Depending crate.
        from: String,
        /// Depended-on crate.
        to: String,
        /// `normal`, `dev` or `build`.
        kind: String,
        /// Why it is not allowed.
        reason: String,
    },
    /// The HTTP client found in a tree that must stay free of it.
    Http {
        /// The crate whose tree holds it.
        root: String,
        /// The chain of package names from the root to the HTTP crate.
        path: Vec<String>,
    },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Edge {
                from,
                to,
                kind,
                reason,
            } => {
                let kind = if kind == "normal" {
                    String::new()
                } else {
                    format!(" ({kind}-dependency)")
                };
                write!(f, "{from} -> {to}{kind} is not allowed: {reason}")
            }
            Self::Http { root, path } => write!(
                f,
                "{root} depends on {HTTP_CRATE} (via {}) is not allowed: {root} must compile no HTTP stack",
                path.join(" -> ")
            ),
        }
    }
}

/// Why `from` may not depend on `to` with dependency `kind` (`normal`,
/// `dev` or `build`); `None` when the edge is allowed.
fn forbidden(from: &str, to: &str, kind: &str) -> Option<String> {
    let is_provider = |n: &str| n.starts_with(PROVIDER_PREFIX);
    if to == TEST_SUPPORT {
        return match from {
            _ if kind != "dev" => Some(format!(
                "{TEST_SUPPORT} is dev-only: it may appear only in [dev-dependencies]"
            )),
            "pi-http" | "pi-coding-agent" => None,
            p if is_provider(p) => None,
            _ => Some(format!(
                "only the tests of pi-http, pi-providers-* and pi-coding-agent use {TEST_SUPPORT}"
            )),
        };
    }
    match from {
        "pi-ai" => Some("pi-ai may depend on no internal crate".to_owned()),
        "pi-http" if to == "pi-ai" => None,
        "pi-http" => Some("pi-http may depend on pi-ai only".to_owned()),
        "pi-agent-core" if to == "pi-ai" => None,
        "pi-agent-core" => Some("pi-agent-core may depend on pi-ai only".to_owned()),
        "pi-tui" => Some("pi-tui may depend on no internal crate".to_owned()),
        "pi-alloc" => Some("pi-alloc may depend on no internal crate".to_owned()),
        TEST_SUPPORT if matches!(to, "pi-ai" | "pi-http") => None,
        TEST_SUPPORT => Some(format!("{TEST_SUPPORT} may depend on pi-ai and pi-http only")),
        "pi-coding-agent"
            if matches!(
                to,
                "pi-agent-core" | "pi-ai" | "pi-http" | "pi-tui" | "pi-alloc"
            ) || is_provider(to) =>
        {
            None
        }
        "pi-coding-agent" => Some(
            "pi-coding-agent may depend on pi-agent-core, pi-ai, pi-http, pi-tui, pi-alloc and pi-providers-* only"
                .to_owned(),
        ),
        "xtask" => {
            Some("xtask may depend on no internal crate (it reads cargo metadata)".to_owned())
        }
        p if is_provider(p) && SHARED_WIRE_EDGES.contains(&(p, to)) => None,
        p if is_provider(p) && is_provider(to) => {
            Some("no provider depends on another provider".to_owned())
        }
        p if is_provider(p) && matches!(to, "pi-ai" | "pi-http") => None,
        p if is_provider(p) => Some(format!("{p} may depend on pi-ai and pi-http only")),
        other => Some(format!(
            "{other} is not in the allowed-edges table of DESIGN.md"
        )),
    }
}

/// Runs `cargo metadata` for the current workspace and returns its JSON.
pub fn run_cargo_metadata() -> Result<String, TaskError> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked"])
        .output()
        .map_err(TaskError::spawn("cargo metadata"))?;
    if !out.status.success() {
        return Err(TaskError::Failed(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    String::from_utf8(out.stdout)
        .map_err(|e| TaskError::Invalid(format!("cargo metadata printed invalid UTF-8: {e}")))
}

/// Parses a metadata document and returns every violation, in a stable order.
pub fn check_document(document: &str) -> Result<Vec<Violation>, TaskError> {
    let metadata: Metadata = serde_json::from_str(document)
        .map_err(|e| TaskError::Invalid(format!("invalid cargo metadata: {e}")))?;
    Ok(check(&metadata))
}

/// Every violation in `metadata`.
pub fn check(metadata: &Metadata) -> Vec<Violation> {
    let members: BTreeSet<&str> = metadata
        .workspace_members
        .iter()
        .map(String::as_str)
        .collect();
    let workspace: Vec<&Package> = metadata
        .packages
        .iter()
        .filter(|p| members.contains(p.id.as_str()))
        .collect();
    let internal: BTreeSet<&str> = workspace.iter().map(|p| p.name.as_str()).collect();

    let mut violations = Vec::new();
    for package in &workspace {
        for dep in &package.dependencies {
            // A crate may dev-depend on itself to enable its own test features.
            if !internal.contains(dep.name.as_str()) || dep.name == package.name {
                continue;
            }
            let kind = dep.kind.as_deref().unwrap_or("normal");
            if let Some(reason) = forbidden(&package.name, &dep.name, kind) {
                violations.push(Violation::Edge {
                    from: package.name.clone(),
                    to: dep.name.clone(),
                    kind: kind.to_owned(),
                    reason,
                });
            }
        }
    }
    if let Some(resolve) = &metadata.resolve {
        for root in NO_HTTP_CRATES {
            if let Some(root_pkg) = workspace.iter().find(|p| p.name == *root)
                && let Some(path) = http_path(metadata, resolve, &root_pkg.id)
            {
                violations.push(Violation::Http {
                    root: (*root).to_owned(),
                    path,
                });
            }
        }
    }
    violations
}

/// Breadth-first search from `root` for the HTTP crate. The root's own
/// dev-dependencies count; below the root only what is compiled into a
/// dependent (normal and build edges) is followed.
fn http_path(metadata: &Metadata, resolve: &Resolve, root: &str) -> Option<Vec<String>> {
    let names: BTreeMap<&str, &str> = metadata
        .packages
        .iter()
        .map(|p| (p.id.as_str(), p.name.as_str()))
        .collect();
    let nodes: BTreeMap<&str, &Node> = resolve.nodes.iter().map(|n| (n.id.as_str(), n)).collect();
    let mut parent: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = VecDeque::from([root]);
    let mut seen = BTreeSet::from([root]);
    while let Some(id) = queue.pop_front() {
        if names.get(id) == Some(&HTTP_CRATE) {
            let mut path = vec![id];
            while let Some(p) = parent.get(path[path.len() - 1]) {
                path.push(p);
            }
            path.reverse();
            return Some(
                path.iter()
                    .map(|id| names.get(id).copied().unwrap_or(id).to_owned())
                    .collect(),
            );
        }
        let Some(node) = nodes.get(id) else { continue };
        for dep in &node.deps {
            let compiled_in = id == root
                || dep.dep_kinds.is_empty()
                || dep
                    .dep_kinds
                    .iter()
                    .any(|k| k.kind.as_deref() != Some("dev"));
            if compiled_in && seen.insert(dep.pkg.as_str()) {
                parent.insert(dep.pkg.as_str(), id);
                queue.push_back(dep.pkg.as_str());
            }
        }
    }
    None
}

#[cfg(test)]
#[path = "check_deps_tests.rs"]
mod tests;
