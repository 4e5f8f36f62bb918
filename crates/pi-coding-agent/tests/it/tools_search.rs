#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `grep`, `find` and `ls`: .gitignore handling, pi's output format,
//! notices and details.

use crate::tools_common::{run, text};
use std::fs;
use std::path::Path;

use pi_coding_agent::tools::{FindTool, GrepTool, LsTool};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn write(root: &Path, path: &str, content: &str) {
    let path = root.join(path);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, content).unwrap();
}

/// A small project: a .gitignore (no git repository needed), ignored
/// files, a hidden file and sources.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".gitignore", "target/\n*.log\n");
    write(root, "README.md", "# Hello project\n");
    write(root, "src/main.rs", "fn main() {\n    hello();\n}\n");
    write(root, "src/lib.rs", "pub fn hello() {}\n");
    write(root, ".config/settings.toml", "greeting = \"hello\"\n");
    write(root, "target/debug/out.rs", "hello from a build artifact\n");
    write(root, "debug.log", "hello in a log\n");
    write(root, ".git/HEAD", "hello from git internals\n");
    dir
}

#[tokio::test]
async fn grep_respects_gitignore_and_includes_hidden_files() {
    let dir = project();
    let result = run(&GrepTool::new(dir.path()), json!({"pattern": "hello"}))
        .await
        .unwrap();
    assert_eq!(
        text(&result),
        ".config/settings.toml:1: greeting = \"hello\"\nsrc/lib.rs:1: pub fn hello() {}\nsrc/main.rs:2:     hello();"
    );
    assert_eq!(result.details, Value::Null);
}

#[tokio::test]
async fn grep_context_lines() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "f.txt", "one\ntwo\nthree\nfour\nfive\n");
    let result = run(
        &GrepTool::new(dir.path()),
        json!({"pattern": "three", "context": 1}),
    )
    .await
    .unwrap();
    assert_eq!(text(&result), "f.txt-2- two\nf.txt:3: three\nf.txt-4- four");
}

#[tokio::test]
async fn grep_ignore_case_and_literal() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "f.txt", "abc\na.c\nHELLO\n");
    let tool = GrepTool::new(dir.path());
    let result = run(&tool, json!({"pattern": "hello"})).await.unwrap();
    assert_eq!(text(&result), "No matches found");
    let result = run(&tool, json!({"pattern": "hello", "ignoreCase": true}))
        .await
        .unwrap();
    assert_eq!(text(&result), "f.txt:3: HELLO");
    let result = run(&tool, json!({"pattern": "a.c"})).await.unwrap();
    assert_eq!(text(&result), "f.txt:1: abc\nf.txt:2: a.c");
    let result = run(&tool, json!({"pattern": "a.c", "literal": true}))
        .await
        .unwrap();
    assert_eq!(text(&result), "f.txt:2: a.c");
}

#[tokio::test]
async fn grep_limit_notice_and_details() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "f.txt", "x1\nx2\nx3\nx4\nx5\n");
    let result = run(
        &GrepTool::new(dir.path()),
        json!({"pattern": "x", "limit": 2}),
    )
    .await
    .unwrap();
    assert_eq!(
        text(&result),
        "f.txt:1: x1\nf.txt:2: x2\n\n[2 matches limit reached. Use limit=4 for more, or refine pattern]"
    );
    assert_eq!(result.details, json!({"matchLimitReached": 2}));
}

#[tokio::test]
async fn grep_cuts_long_lines() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "f.txt", &format!("needle{}\n", "z".repeat(600)));
    let result = run(&GrepTool::new(dir.path()), json!({"pattern": "needle"}))
        .await
        .unwrap();
    let kept = format!("needle{}", "z".repeat(494));
    assert_eq!(
        text(&result),
        format!(
            "f.txt:1: {kept}... [truncated]\n\n[Some lines truncated to 500 chars. Use read tool to see full lines]"
        )
    );
    assert_eq!(result.details, json!({"linesTruncated": true}));
}

#[tokio::test]
async fn grep_glob_and_single_file_paths() {
    let dir = project();
    let tool = GrepTool::new(dir.path());
    let result = run(&tool, json!({"pattern": "hello", "glob": "*.rs"}))
        .await
        .unwrap();
    assert_eq!(
        text(&result),
        "src/lib.rs:1: pub fn hello() {}\nsrc/main.rs:2:     hello();"
    );
    let result = run(&tool, json!({"pattern": "hello", "path": "src/main.rs"}))
        .await
        .unwrap();
    assert_eq!(text(&result), "main.rs:2:     hello();");
    let result = run(&tool, json!({"pattern": "Hello", "path": "README.md"}))
        .await
        .unwrap();
    assert_eq!(text(&result), "README.md:1: # Hello project");
}

#[tokio::test]
async fn grep_errors() {
    let dir = tempfile::tempdir().unwrap();
    let tool = GrepTool::new(dir.path());
    let err = run(&tool, json!({"pattern": "x", "path": "nope"}))
        .await
        .unwrap_err();
    assert_eq!(
        err.message(),
        format!("Path not found: {}", dir.path().join("nope").display())
    );
    let err = run(&tool, json!({"pattern": "("})).await.unwrap_err();
    assert!(
        err.message().contains("regex parse error"),
        "{}",
        err.message()
    );
}

#[tokio::test]
async fn find_matches_names_and_paths() {
    let dir = project();
    let tool = FindTool::new(dir.path());
    let result = run(&tool, json!({"pattern": "*.rs"})).await.unwrap();
    assert_eq!(text(&result), "src/lib.rs\nsrc/main.rs");
    assert_eq!(result.details, Value::Null);
    let result = run(&tool, json!({"pattern": "src/**/main.rs"}))
        .await
        .unwrap();
    assert_eq!(text(&result), "src/main.rs");
    let result = run(&tool, json!({"pattern": "**/*.toml"})).await.unwrap();
    assert_eq!(text(&result), ".config/settings.toml");
    let result = run(&tool, json!({"pattern": "src"})).await.unwrap();
    assert_eq!(text(&result), "src/");
    let result = run(&tool, json!({"pattern": "*.log"})).await.unwrap();
    assert_eq!(text(&result), "No files found matching pattern");
    let result = run(&tool, json!({"pattern": "*.rs", "path": "src"}))
        .await
        .unwrap();
    assert_eq!(text(&result), "lib.rs\nmain.rs");
}

#[tokio::test]
async fn find_limit_notice_and_errors() {
    let dir = project();
    let tool = FindTool::new(dir.path());
    let result = run(&tool, json!({"pattern": "*.rs", "limit": 1}))
        .await
        .unwrap();
    assert_eq!(
        text(&result),
        "src/lib.rs\n\n[1 results limit reached. Use limit=2 for more, or refine pattern]"
    );
    assert_eq!(result.details, json!({"resultLimitReached": 1}));
    let err = run(&tool, json!({"pattern": "*", "path": "missing"}))
        .await
        .unwrap_err();
    assert_eq!(
        err.message(),
        format!("Path not found: {}", dir.path().join("missing").display())
    );
}

#[tokio::test]
async fn ls_sorts_marks_directories_and_includes_dotfiles() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "b.txt", "");
    write(dir.path(), "A.txt", "");
    write(dir.path(), ".env", "");
    write(dir.path(), "sub/x", "");
    let tool = LsTool::new(dir.path());
    let result = run(&tool, json!({})).await.unwrap();
    assert_eq!(text(&result), ".env\nA.txt\nb.txt\nsub/");
    assert_eq!(result.details, Value::Null);

    let result = run(&tool, json!({"limit": 2})).await.unwrap();
    assert_eq!(
        text(&result),
        ".env\nA.txt\n\n[2 entries limit reached. Use limit=4 for more]"
    );
    assert_eq!(result.details, json!({"entryLimitReached": 2}));

    let result = run(&tool, json!({"path": "sub"})).await.unwrap();
    assert_eq!(text(&result), "x");
}

#[tokio::test]
async fn ls_empty_missing_and_not_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("empty")).unwrap();
    write(dir.path(), "file.txt", "");
    let tool = LsTool::new(dir.path());
    let result = run(&tool, json!({"path": "empty"})).await.unwrap();
    assert_eq!(text(&result), "(empty directory)");
    let err = run(&tool, json!({"path": "nope"})).await.unwrap_err();
    assert_eq!(
        err.message(),
        format!("Path not found: {}", dir.path().join("nope").display())
    );
    let err = run(&tool, json!({"path": "file.txt"})).await.unwrap_err();
    assert_eq!(
        err.message(),
        format!("Not a directory: {}", dir.path().join("file.txt").display())
    );
}
