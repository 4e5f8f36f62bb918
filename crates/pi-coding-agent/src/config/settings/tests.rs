use std::path::Path;

use serde_json::{Map, Value, json};

use super::*;

fn obj(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

#[test]
fn defaults_are_pis() {
    let settings = Settings::default();
    assert_eq!(
        settings.compaction(),
        CompactionSettings {
            enabled: true,
            reserve_tokens: 16_384,
            keep_recent_tokens: 20_000
        }
    );
    assert_eq!(
        settings.retry(),
        RetrySettings {
            enabled: true,
            max_retries: 3,
            base_delay_ms: 2_000,
            max_delay_ms: 60_000,
            timeout_ms: None,
            idle_timeout_ms: None,
            provider_max_retries: None,
        }
    );
    assert_eq!(settings.code_block_indent(), "  ");
    assert!(settings.image_auto_resize());
    assert!(!settings.block_images());
    assert_eq!(settings.transport(), "auto");
    assert_eq!(settings.double_escape_action(), "tree");
    assert_eq!(settings.autocomplete_max_visible(), 5);
    assert!(settings.enable_skill_commands() && settings.show_images());
    assert!(!settings.quiet_startup() && !settings.hide_thinking_block());
    assert_eq!(settings.enabled_models(), None);
}

#[test]
fn project_layer_merges_one_level_deep_as_pi() {
    let global = json!({"defaultModel": "a", "compaction": {"enabled": false, "reserveTokens": 1000},
        "theme": "dark", "terminal": {"showImages": false, "deep": {"x": 1, "y": 2}}});
    let project = json!({"compaction": {"reserveTokens": 2000}, "retry": {"maxRetries": 5},
        "terminal": {"deep": {"x": 3}}, "enabledModels": ["a/*"]});
    let settings = Settings::from_layers(obj(global), obj(project));
    assert_eq!(settings.default_model.as_deref(), Some("a"));
    assert_eq!(
        settings.compaction(),
        CompactionSettings {
            enabled: false,
            reserve_tokens: 2000,
            keep_recent_tokens: 20_000
        }
    );
    assert_eq!(settings.retry().max_retries, 5);
    assert_eq!(settings.retry().base_delay_ms, 2_000);
    assert_eq!(settings.theme(), Some("dark"));
    assert!(!settings.show_images());
    assert_eq!(settings.image_width_cells(), 60);
    let wide = Settings::from_layers(
        obj(json!({"terminal": {"imageWidthCells": 80.7}})),
        obj(json!({})),
    );
    assert_eq!(wide.image_width_cells(), 80);
    // pi replaces second-level objects whole.
    assert_eq!(settings.extra["terminal"]["deep"], json!({"x": 3}));
    assert_eq!(settings.enabled_models(), Some(vec!["a/*".to_owned()]));
}

#[test]
fn wrongly_typed_keys_fall_back_to_defaults_and_keep_the_rest() {
    let global = json!({"compaction": "yes", "retry": {"maxRetries": "x", "enabled": false},
        "defaultThinkingLevel": 5, "shellPath": false, "defaultModel": "m",
        "images": {"blockImages": true, "autoResize": "no"}});
    let settings = Settings::from_layers(obj(global), Map::new());
    assert_eq!(settings.compaction(), CompactionSettings::default());
    assert!(!settings.retry().enabled);
    assert_eq!(settings.retry().max_retries, 3);
    assert_eq!(settings.default_thinking_level, None);
    assert_eq!(settings.shell_path, None);
    assert_eq!(settings.default_model.as_deref(), Some("m"));
    assert!(settings.block_images() && settings.image_auto_resize());
}

#[test]
fn old_keys_are_migrated_as_pi_migrates_them() {
    let global = json!({"queueMode": "all", "websockets": true,
        "skills": {"enableSkillCommands": false, "customDirectories": ["~/s"]},
        "retry": {"maxDelayMs": 5000}});
    let settings = Settings::from_layers(obj(global), Map::new());
    assert_eq!(settings.steering_mode.as_deref(), Some("all"));
    assert_eq!(settings.transport(), "websocket");
    assert!(!settings.enable_skill_commands());
    assert_eq!(settings.string_list("skills"), ["~/s"]);
    assert_eq!(settings.retry().max_delay_ms, 5000);
    let settings = Settings::from_layers(obj(json!({"skills": {}})), Map::new());
    assert!(!settings.extra.contains_key("skills"));
}

#[test]
fn files_are_read_from_both_layers() {
    let agent = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    std::fs::write(
        agent.path().join("settings.json"),
        r#"{"defaultProvider":"anthropic","steeringMode":"all","sessionDir":"~/sess"}"#,
    )
    .unwrap();
    std::fs::create_dir(cwd.path().join(".pi")).unwrap();
    std::fs::write(
        cwd.path().join(".pi/settings.json"),
        r#"{"steeringMode":"one-at-a-time"}"#,
    )
    .unwrap();
    let loaded = Settings::load(agent.path(), cwd.path());
    assert!(loaded.warnings.is_empty());
    assert_eq!(
        loaded.settings.default_provider.as_deref(),
        Some("anthropic")
    );
    assert_eq!(
        loaded.settings.steering_mode.as_deref(),
        Some("one-at-a-time")
    );
    assert_eq!(
        loaded.settings.session_dir(Path::new("/home/u")),
        Some(PathBuf::from("/home/u/sess"))
    );
    let missing = Settings::load(&agent.path().join("missing"), cwd.path());
    assert_eq!(missing.settings.default_provider, None);
    assert!(missing.warnings.is_empty());
    assert!(missing.writer.path().is_some());
}

#[test]
fn invalid_json_is_a_warning_naming_the_file_and_defaults_apply() {
    let agent = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    std::fs::write(agent.path().join("settings.json"), "{nope").unwrap();
    std::fs::create_dir(cwd.path().join(".pi")).unwrap();
    std::fs::write(
        cwd.path().join(".pi/settings.json"),
        r#"{"defaultModel":"p"}"#,
    )
    .unwrap();
    let loaded = Settings::load(agent.path(), cwd.path());
    assert_eq!(loaded.warnings.len(), 1);
    let warning = loaded.warnings[0].to_string();
    assert!(warning.starts_with("(global settings) "), "{warning}");
    assert!(
        warning.contains(&agent.path().join("settings.json").display().to_string()),
        "{warning}"
    );
    assert!(warning.contains("invalid JSON"), "{warning}");
    assert!(warning.contains("default settings"), "{warning}");
    // The project layer still applies; the broken global file is never rewritten.
    assert_eq!(loaded.settings.default_model.as_deref(), Some("p"));
    assert_eq!(loaded.writer.path(), None);
    loaded
        .writer
        .set(&[("defaultModel", Some(json!("x")))])
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(agent.path().join("settings.json")).unwrap(),
        "{nope"
    );
}

#[test]
fn tilde_expands_as_pi() {
    let home = Path::new("/h");
    assert_eq!(expand_tilde("~", home), PathBuf::from("/h"));
    assert_eq!(expand_tilde("~/a", home), PathBuf::from("/h/a"));
    assert_eq!(expand_tilde("~a", home), PathBuf::from("~a"));
    assert_eq!(expand_tilde("/x", home), PathBuf::from("/x"));
}

#[test]
fn write_back_keeps_other_keys_and_their_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    std::fs::write(
        &path,
        "{\n  \"theme\": \"dark\",\n  \"compaction\": {\n    \"enabled\": true\n  },\n  \"defaultThinkingLevel\": \"low\"\n}",
    )
    .unwrap();
    let writer = SettingsWriter::new(path.clone(), true);
    writer
        .set(&[
            ("defaultProvider", Some(json!("mock-oai"))),
            ("defaultModel", Some(json!("mock-gpt-think"))),
        ])
        .unwrap();
    // Byte for byte what pi 0.73.1 wrote for the same change
    // (fixtures/pi-0.73.1/settings-write-back, run rpc-set-model-thinking).
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{\n  \"theme\": \"dark\",\n  \"compaction\": {\n    \"enabled\": true\n  },\n  \"defaultThinkingLevel\": \"low\",\n  \"defaultProvider\": \"mock-oai\",\n  \"defaultModel\": \"mock-gpt-think\"\n}"
    );
    assert!(!dir.path().join("settings.json.lock").exists());
}

#[test]
fn write_back_rereads_so_a_concurrent_edit_survives() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    std::fs::write(&path, r#"{"theme":"dark"}"#).unwrap();
    let loaded = Settings::load(dir.path(), dir.path());
    // Another writer changes a different key after our read.
    std::fs::write(&path, r#"{"theme":"light","quietStartup":true}"#).unwrap();
    loaded
        .writer
        .set(&[("defaultThinkingLevel", Some(json!("high")))])
        .unwrap();
    let now: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        now,
        json!({"theme": "light", "quietStartup": true, "defaultThinkingLevel": "high"})
    );
}

#[test]
fn write_back_waits_for_the_lock_and_takes_over_a_stale_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    let lock_dir = dir.path().join("settings.json.lock");
    std::fs::create_dir(&lock_dir).unwrap();
    let writer = SettingsWriter::new(path.clone(), true);
    let releaser = {
        let lock_dir = lock_dir.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(150));
            // The other holder writes its key, then releases.
            std::fs::write(
                lock_dir.parent().unwrap().join("settings.json"),
                r#"{"other":1}"#,
            )
            .unwrap();
            std::fs::remove_dir(&lock_dir).unwrap();
        })
    };
    writer.set(&[("defaultModel", Some(json!("m")))]).unwrap();
    releaser.join().unwrap();
    let now: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(now, json!({"other": 1, "defaultModel": "m"}));

    // A lock left behind long ago is taken over.
    std::fs::create_dir(&lock_dir).unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    std::fs::File::open(&lock_dir)
        .unwrap()
        .set_modified(old)
        .unwrap();
    writer.set(&[("defaultModel", None)]).unwrap();
    let now: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(now, json!({"other": 1}));
}

#[test]
fn concurrent_writers_lose_no_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    let handles: Vec<_> = (0..8)
        .map(|i| {
            let writer = SettingsWriter::new(path.clone(), true);
            std::thread::spawn(move || {
                writer
                    .set(&[(format!("k{i}").as_str(), Some(json!(i)))])
                    .unwrap();
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let now: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(now.as_object().unwrap().len(), 8, "{now}");
}

#[test]
fn values_set_in_this_run_are_remembered_even_when_the_file_is_not_written() {
    let dir = tempfile::tempdir().unwrap();
    let disabled = SettingsWriter::new(dir.path().join("settings.json"), false);
    assert_eq!(disabled.changed("defaultThinkingLevel"), None);
    disabled
        .set(&[("defaultThinkingLevel", Some(json!("high")))])
        .unwrap();
    assert_eq!(
        disabled.changed("defaultThinkingLevel"),
        Some(json!("high"))
    );
    assert!(!dir.path().join("settings.json").exists());
    // Clones share what was set.
    let clone = disabled.clone();
    clone.set(&[("defaultThinkingLevel", None)]).unwrap();
    assert_eq!(disabled.changed("defaultThinkingLevel"), Some(Value::Null));
}

#[test]
fn provider_timeouts_are_read_from_retry_provider() {
    let global = json!({"retry": {"provider": {"timeoutMs": 1500, "idleTimeoutMs": 700,
        "maxRetryDelayMs": 9000, "maxRetries": 0}}});
    let retry = Settings::from_layers(obj(global), Map::new()).retry();
    assert_eq!(retry.provider_max_retries, Some(0));
    assert_eq!(retry.timeout_ms, Some(1500));
    assert_eq!(retry.idle_timeout_ms, Some(700));
    assert_eq!(retry.max_delay_ms, 9000);
    let retry = Settings::from_layers(Map::new(), Map::new()).retry();
    assert_eq!((retry.timeout_ms, retry.idle_timeout_ms), (None, None));
    assert_eq!(retry.provider_max_retries, None);
}

#[test]
fn the_code_block_indent_is_read_from_markdown() {
    let global = json!({"markdown": {"codeBlockIndent": "    "}});
    let settings = Settings::from_layers(obj(global), Map::new());
    assert_eq!(settings.code_block_indent(), "    ");
    // A wrong type keeps pi's default.
    let global = json!({"markdown": {"codeBlockIndent": 4}});
    let settings = Settings::from_layers(obj(global), Map::new());
    assert_eq!(settings.code_block_indent(), "  ");
}
