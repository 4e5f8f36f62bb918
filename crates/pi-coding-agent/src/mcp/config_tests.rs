use super::*;
use pretty_assertions::assert_eq;
use serde_json::json;

fn load(files: &[(&str, Scope, Value)]) -> McpConfig {
    let mut config = McpConfig::default();
    for (file, scope, value) in files {
        config.add_file(Path::new(file), *scope, &value.to_string());
    }
    config
}

#[test]
fn reads_stdio_and_http_servers_with_their_options() {
    let config = load(&[(
        "mcp.json",
        Scope::User,
        json!({"mcpServers": {
            "files": {"command": "npx", "args": ["-y", "srv"], "env": {"A": "1", "N": 2}, "cwd": "sub",
                      "includeTools": ["read", "list"], "excludeTools": ["list"], "timeout": 1500},
            "remote": {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": {"X-Key": "${KEY}"},
                       "startupTimeout": 250, "enabled": false}
        }}),
    )]);
    assert_eq!(config.problems, Vec::<String>::new());
    let files = &config.servers[0];
    assert_eq!(
        files.transport,
        Ok(Transport::Stdio {
            command: "npx".into(),
            args: vec!["-y".into(), "srv".into()],
            env: vec![("A".into(), "1".into()), ("N".into(), "2".into())],
            cwd: Some("sub".into()),
        })
    );
    assert!(files.tool_allowed("read"));
    assert!(!files.tool_allowed("list"), "excluded wins");
    assert!(!files.tool_allowed("write"), "not included");
    assert_eq!(files.call_timeout, Duration::from_millis(1500));
    assert!(!files.disabled);
    let remote = &config.servers[1];
    assert_eq!(
        remote.transport,
        Ok(Transport::Http {
            url: "http://127.0.0.1:1/mcp".into(),
            headers: vec![("X-Key".into(), "${KEY}".into())],
        })
    );
    assert!(remote.disabled, "enabled: false disables");
    assert_eq!(remote.startup_timeout, Duration::from_millis(250));
    assert_eq!(remote.call_timeout, DEFAULT_CALL_TIMEOUT);
}

#[test]
fn a_later_file_replaces_a_server_of_the_same_name_and_bad_entries_say_why() {
    let config = load(&[
        (
            "user.json",
            Scope::User,
            json!({"mcpServers": {"a": {"command": "one"}, "b": {"command": "two"}}}),
        ),
        (
            ".mcp.json",
            Scope::Project,
            json!({"mcpServers": {"a": {"command": "three"}, "c": {"type": "sse", "url": "http://x"},
                                  "d": {"args": []}, "e": 5, "f": {"command": "x", "args": "no"}}}),
        ),
    ]);
    let names: Vec<_> = config
        .servers
        .iter()
        .map(|s| (s.name.as_str(), s.scope))
        .collect();
    assert_eq!(
        names,
        vec![
            ("a", Scope::Project),
            ("b", Scope::User),
            ("c", Scope::Project),
            ("d", Scope::Project),
            ("e", Scope::Project),
            ("f", Scope::Project),
        ]
    );
    let errors: Vec<_> = config.servers[2..]
        .iter()
        .map(|s| s.transport.clone().unwrap_err().to_string())
        .collect();
    assert_eq!(
        errors,
        vec![
            "the HTTP+SSE transport (\"type\": \"sse\") is not supported; use streamable HTTP",
            "needs \"command\" (stdio) or \"url\" (streamable HTTP)",
            "a server's definition must be an object",
            "args must be an array of strings",
        ]
    );
}

#[test]
fn a_file_that_is_not_json_is_a_problem_not_a_failure() {
    let mut config = McpConfig::default();
    config.add_file(Path::new("/p/.mcp.json"), Scope::Project, "{nope");
    config.add_file(
        Path::new("/p/x.json"),
        Scope::Project,
        r#"{"mcpServers": []}"#,
    );
    assert_eq!(config.servers, Vec::new());
    assert_eq!(config.problems.len(), 2);
    assert!(config.problems[0].starts_with("/p/.mcp.json: "));
    assert_eq!(config.problems[1], "/p/x.json: mcpServers is not an object");
}

#[test]
fn the_fingerprint_ignores_key_order_but_not_values() {
    let def = |raw: Value| parse_server("s", Scope::Project, Path::new("f"), &raw);
    let a = def(json!({"command": "x", "args": ["1"], "env": {"A": "${A}", "B": "b"}}));
    let b = def(json!({"env": {"B": "b", "A": "${A}"}, "args": ["1"], "command": "x"}));
    let c = def(json!({"command": "x", "args": ["2"], "env": {"A": "${A}", "B": "b"}}));
    assert_eq!(a.fingerprint(), b.fingerprint());
    assert_ne!(a.fingerprint(), c.fingerprint());
    assert_eq!(a.fingerprint().len(), 64);
}

#[test]
fn expands_variables_with_defaults_and_reports_missing_ones() {
    let lookup = |name: &str| (name == "SET").then(|| "value".to_owned());
    assert_eq!(
        expand("Bearer ${SET}", &lookup),
        Ok("Bearer value".to_owned())
    );
    assert_eq!(
        expand("${UNSET:-fallback}/${SET:-x}", &lookup),
        Ok("fallback/value".to_owned())
    );
    assert_eq!(
        expand("$HOME ${open", &lookup),
        Ok("$HOME ${open".to_owned())
    );
    assert_eq!(
        expand("a ${UNSET} b", &lookup),
        Err(MissingVariable("UNSET".to_owned()))
    );
}
