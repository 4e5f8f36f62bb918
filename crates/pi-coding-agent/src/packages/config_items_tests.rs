use super::*;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn kit(dir: &Path) {
    write(
        &dir.join("extensions/hello.ts"),
        "export default () => {}\n",
    );
    write(
        &dir.join("extensions/tool/index.ts"),
        "export default () => {}\n",
    );
    write(
        &dir.join("skills/greet/SKILL.md"),
        "---\nname: greet\ndescription: G\n---\n",
    );
    write(&dir.join("prompts/review.md"), "Review\n");
    write(&dir.join("themes/dusk.json"), "{}\n");
}

fn setup() -> (tempfile::TempDir, PackageManager) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let project = root.join("project");
    let agent = root.join("agent");
    kit(&project.join("kit"));
    write(&agent.join("prompts/mine.md"), "Mine\n");
    write(&agent.join("themes/light2.json"), "{}\n");
    write(
        &project.join(".pi/extensions/local.ts"),
        "export default () => {}\n",
    );
    write(
        &project.join(".pi/settings.json"),
        "{\n  \"packages\": [\n    \"../kit\"\n  ]\n}",
    );
    let mut manager = PackageManager::new(&project, &agent);
    manager.home = root.join("home");
    (dir, manager)
}

fn summary(groups: &[ConfigGroup]) -> Vec<String> {
    let mut out = Vec::new();
    for group in groups {
        out.push(group.label.clone());
        for (kind, items) in &group.kinds {
            out.push(format!("  {}", kind_label(kind)));
            for item in items {
                let mark = if item.enabled { "[x]" } else { "[ ]" };
                out.push(format!("    {mark} {}", item.name));
            }
        }
    }
    out
}

#[test]
fn groups_packages_first_then_top_level() {
    let (_dir, manager) = setup();
    assert_eq!(
        summary(&manager.config_groups()),
        [
            "../kit (project)",
            "  Extensions",
            "    [x] hello.ts",
            "    [x] tool/index.ts",
            "  Skills",
            "    [x] greet",
            "  Prompts",
            "    [x] review.md",
            "  Themes",
            "    [x] dusk.json",
            "User (~/.pi/agent/)",
            "  Prompts",
            "    [x] mine.md",
            "  Themes",
            "    [x] light2.json",
            "Project (.pi/)",
            "  Extensions",
            "    [x] local.ts",
        ]
    );
}

fn find(manager: &PackageManager, name: &str) -> ConfigItem {
    manager
        .config_groups()
        .into_iter()
        .flat_map(|g| g.kinds.into_iter().flat_map(|(_, items)| items))
        .find(|i| i.name == name)
        .unwrap()
}

#[test]
fn toggling_a_package_resource_writes_its_object_form() {
    let (_dir, manager) = setup();
    let greet = find(&manager, "greet");
    manager.toggle(&greet, false).unwrap();
    let file = manager.settings_path(Scope::Project);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "{\n  \"packages\": [\n    {\n      \"source\": \"../kit\",\n      \"skills\": [\n        \"-skills/greet/SKILL.md\"\n      ]\n    }\n  ]\n}"
    );
    assert!(!find(&manager, "greet").enabled);
    assert!(find(&manager, "review.md").enabled);
    // On again: the `-` entry is replaced by a `+` one.
    manager.toggle(&find(&manager, "greet"), true).unwrap();
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .contains("\"+skills/greet/SKILL.md\"")
    );
    assert!(find(&manager, "greet").enabled);
}

#[test]
fn toggling_a_top_level_resource_writes_the_scope_list() {
    let (_dir, manager) = setup();
    manager.toggle(&find(&manager, "mine.md"), false).unwrap();
    assert_eq!(
        std::fs::read_to_string(manager.settings_path(Scope::User)).unwrap(),
        "{\n  \"prompts\": [\n    \"-prompts/mine.md\"\n  ]\n}"
    );
    assert!(!find(&manager, "mine.md").enabled);
    manager.toggle(&find(&manager, "local.ts"), false).unwrap();
    assert!(!find(&manager, "local.ts").enabled);
    let project = std::fs::read_to_string(manager.settings_path(Scope::Project)).unwrap();
    assert!(
        project.contains("\"extensions\": [\n    \"-extensions/local.ts\"\n  ]"),
        "{project}"
    );
}
