//! The mode's layering, checked on its sources: the modules import each
//! other without a loop, the bottom layer (`action`, `events`) imports none
//! of them, and only the terminal loop uses the `Ui`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every `.rs` file under `dir`, as (path relative to the mode, text).
fn sources(dir: &Path, rel: &str, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let rel = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        if path.is_dir() {
            sources(&path, &rel, out);
        } else if rel.ends_with(".rs") {
            out.push((rel, std::fs::read_to_string(&path).unwrap()));
        }
    }
}

/// The first identifier of `text`.
fn ident(text: &str) -> String {
    text.trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// The mode's top-level modules that `text` (a file of `depth` folders
/// below the mode) names, comments left out.
fn imported(text: &str, depth: usize) -> BTreeSet<String> {
    let up = "super::".repeat(depth + 1);
    let mut names = BTreeSet::new();
    for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
        for prefix in ["crate::modes::interactive::", up.as_str()] {
            for (at, _) in line.match_indices(prefix) {
                // `super::super::x` is not `super::x` of a file one level up.
                if prefix.starts_with("super") && line[..at].ends_with("super::") {
                    continue;
                }
                let rest = &line[at + prefix.len()..];
                match rest.strip_prefix('{') {
                    Some(group) => {
                        let group = group.split('}').next().unwrap_or_default();
                        names.extend(group.split(',').map(ident));
                    }
                    None => {
                        names.insert(ident(rest));
                    }
                }
            }
        }
    }
    names.retain(|n| !n.is_empty() && n != "self");
    names
}

/// The import graph of the mode's top-level modules (`mod.rs` left out).
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/modes/interactive");
    let mut files = Vec::new();
    sources(&dir, "", &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (rel, text) in files {
        if rel == "mod.rs" {
            continue;
        }
        let module = rel.split('/').next().unwrap().trim_end_matches(".rs");
        let depth = rel.matches('/').count();
        let mut names = imported(&text, depth);
        names.remove(module);
        graph.entry(module.to_owned()).or_default().extend(names);
    }
    graph
}

/// A loop through `node`, if there is one.
fn find_loop(
    graph: &BTreeMap<String, BTreeSet<String>>,
    node: &str,
    path: &mut Vec<String>,
    done: &mut BTreeSet<String>,
) -> Option<Vec<String>> {
    if let Some(at) = path.iter().position(|n| n == node) {
        let mut cycle = path[at..].to_vec();
        cycle.push(node.to_owned());
        return Some(cycle);
    }
    if done.contains(node) {
        return None;
    }
    path.push(node.to_owned());
    for next in graph.get(node).into_iter().flatten() {
        if let Some(cycle) = find_loop(graph, next, path, done) {
            return Some(cycle);
        }
    }
    path.pop();
    done.insert(node.to_owned());
    None
}

#[test]
fn the_mode_imports_without_a_loop() {
    let graph = graph();
    assert!(graph.contains_key("ui") && graph["ui"].contains("events"));
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        if let Some(cycle) = find_loop(&graph, node, &mut Vec::new(), &mut done) {
            panic!("import loop: {}", cycle.join(" -> "));
        }
    }
}

#[test]
fn the_bottom_layer_imports_nothing_of_the_mode_and_only_the_loop_uses_the_ui() {
    let graph = graph();
    assert_eq!(graph["action"], BTreeSet::new());
    assert_eq!(graph["events"], BTreeSet::new());
    let users: Vec<&String> = graph
        .iter()
        .filter(|(_, names)| names.contains("ui"))
        .map(|(module, _)| module)
        .collect();
    assert_eq!(users, ["run"]);
}
