//! A sandbox for the package tests, built as `fixtures/capture/packages/
//! capture.mjs` builds pi's: git repositories under `<root>/remotes`
//! reached as `git:localhost/user/<repo>` through `url.<base>.insteadOf` in
//! a scratch `GIT_CONFIG_GLOBAL`, npm packages from a loopback registry
//! (below), npm's prefix and cache inside the sandbox, so nothing touches
//! the machine or the network.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

/// The files of a package with one resource of each kind.
pub fn write_kit(dir: &Path, name: &str, version: &str, pi: Option<Value>) {
    let mut manifest = json!({"name": name, "version": version, "keywords": ["pi-package"]});
    if let Some(pi) = pi {
        manifest["pi"] = pi;
    }
    write(
        &dir.join("package.json"),
        &(serde_json::to_string_pretty(&manifest).unwrap() + "\n"),
    );
    write(
        &dir.join("extensions/hello.ts"),
        "export default function (pi) {\n  pi.registerCommand(\"hello\", { description: \"Says hello\", handler: async () => {} });\n}\n",
    );
    write(
        &dir.join("skills/greet/SKILL.md"),
        "---\nname: greet\ndescription: Greets.\n---\nSay hello.\n",
    );
    write(
        &dir.join("prompts/review.md"),
        "---\ndescription: Review\n---\nReview $1\n",
    );
    write(
        &dir.join("themes/dusk.json"),
        "{\"name\":\"dusk\",\"vars\":{},\"colors\":{}}\n",
    );
}

/// The manifest form of the npm kit.
pub fn kit_manifest() -> Value {
    json!({"extensions": ["./extensions"], "skills": ["./skills"], "prompts": ["./prompts"], "themes": ["./themes"]})
}

/// Writes `text` to `path`, creating folders.
pub fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const GIT_ENV: [(&str, &str); 6] = [
    ("GIT_AUTHOR_NAME", "t"),
    ("GIT_AUTHOR_EMAIL", "t@t"),
    ("GIT_COMMITTER_NAME", "t"),
    ("GIT_COMMITTER_EMAIL", "t@t"),
    ("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z"),
    ("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z"),
];

/// Runs `program args` in `dir`; panics with its stderr on failure.
pub fn sh(program: &str, args: &[&str], dir: &Path) -> String {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .envs(GIT_ENV)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("npm_config_loglevel", "silent")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A git repository at `dir` with its files committed (branch `main`).
pub fn git_repo(dir: &Path) {
    sh("git", &["init", "-q", "-b", "main"], dir);
    commit(dir, "one");
}

/// Commits everything in `dir`.
pub fn commit(dir: &Path, message: &str) {
    sh("git", &["add", "."], dir);
    sh("git", &["commit", "-q", "-m", message], dir);
}

/// A loopback npm registry: packuments at `/<name>`, tarballs at
/// `/<name>/-/<file>`, served from a folder.
pub struct Registry {
    /// Its port.
    pub port: u16,
    dir: PathBuf,
    packuments: std::collections::BTreeMap<String, Value>,
}

impl Registry {
    /// Starts serving `dir` (packuments as `<name with / as %2f>.json`,
    /// tarballs under `tarballs/`).
    pub fn start(dir: &Path) -> Self {
        std::fs::create_dir_all(dir.join("tarballs")).unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let root = dir.to_path_buf();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let root = root.clone();
                std::thread::spawn(move || serve(&root, stream));
            }
        });
        Self {
            port,
            dir: dir.to_path_buf(),
            packuments: Default::default(),
        }
    }

    /// `npm pack`s `source` and adds it as the latest version of `name`.
    pub fn publish(&mut self, source: &Path, name: &str, version: &str) {
        let tarballs = self.dir.join("tarballs");
        let out = sh(
            "npm",
            &[
                "pack",
                "--json",
                "--pack-destination",
                tarballs.to_str().unwrap(),
            ],
            source,
        );
        let info: Value = serde_json::from_str(&out).unwrap();
        let info = &info[0];
        let port = self.port;
        let doc = self
            .packuments
            .entry(name.to_owned())
            .or_insert_with(|| json!({"name": name, "dist-tags": {}, "versions": {}}));
        doc["versions"][version] = json!({
            "name": name, "version": version,
            "dist": {
                "tarball": format!("http://127.0.0.1:{port}/{name}/-/{}", info["filename"].as_str().unwrap()),
                "shasum": info["shasum"], "integrity": info["integrity"],
            }
        });
        doc["dist-tags"]["latest"] = json!(version);
        let file = self.dir.join(format!("{}.json", name.replace('/', "%2f")));
        std::fs::write(file, doc.to_string()).unwrap();
    }
}

fn serve(root: &Path, stream: std::net::TcpStream) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    // Skip the headers.
    let mut header = String::new();
    while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
        header.clear();
    }
    let raw = line.split_whitespace().nth(1).unwrap_or("/");
    let path = percent_decode(raw.split('?').next().unwrap_or("/"));
    let path = path.trim_start_matches('/');
    let file = match path.rfind("/-/") {
        Some(at) => root.join("tarballs").join(&path[at + 3..]),
        None => root.join(format!("{}.json", path.replace('/', "%2f"))),
    };
    let (status, body) = match std::fs::read(&file) {
        Ok(body) => ("200 OK", body),
        Err(_) => ("404 Not Found", b"{\"error\":\"Not found\"}".to_vec()),
    };
    let mut stream = stream;
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\ncontent-length: {}\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(&body);
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = text.get(i + 1..i + 3)
            && let Ok(b) = u8::from_str_radix(hex, 16)
        {
            out.push(b);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The sandbox.
pub struct Sandbox {
    _dir: tempfile::TempDir,
    /// Its real path.
    pub root: PathBuf,
    /// The project (the working directory of every run).
    pub project: PathBuf,
    /// The agent dir.
    pub agent: PathBuf,
    /// `<root>/remotes/user/kit` (convention folders, a `package.json`).
    pub kit: PathBuf,
    /// The registry.
    pub registry: Registry,
}

impl Sandbox {
    /// Builds it, or `None` (said on stderr; a failure under CI) when node,
    /// npm or git is missing.
    pub fn new() -> Option<Self> {
        pi_test_support::external::npm()?;
        pi_test_support::external::git()?;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let remotes = root.join("remotes");
        let kit = remotes.join("user/kit");
        write_kit(&kit, "kit", "1.0.0", None);
        git_repo(&kit);
        sh("git", &["tag", "v1"], &kit);
        let plain = remotes.join("user/plain");
        write(
            &plain.join("skills/solo/SKILL.md"),
            "---\nname: solo\ndescription: Alone.\n---\nBody.\n",
        );
        git_repo(&plain);
        write(
            &root.join("gitconfig"),
            &format!(
                "[url \"{}/\"]\n\tinsteadOf = https://localhost/\n[protocol \"file\"]\n\tallow = always\n",
                remotes.display()
            ),
        );
        let mut registry = Registry::start(&root.join("registry"));
        let sandbox_publish =
            |registry: &mut Registry, name: &str, version: &str, pi: Option<Value>| {
                let src = root
                    .join("pkgsrc")
                    .join(name.replace('/', "+"))
                    .join(version);
                write_kit(&src, name, version, pi);
                registry.publish(&src, name, version);
            };
        sandbox_publish(&mut registry, "pi-kit", "1.0.0", Some(kit_manifest()));
        sandbox_publish(&mut registry, "@demo/tools", "1.0.0", None);
        let project = root.join("project");
        write_kit(&project.join("local-kit"), "local-kit", "1.0.0", None);
        let agent = root.join("home/.pi/agent");
        std::fs::create_dir_all(&agent).unwrap();
        Some(Self {
            _dir: dir,
            root,
            project,
            agent,
            kit,
            registry,
        })
    }

    /// Publishes `name@version` (the kit's files) to the registry.
    pub fn publish(&mut self, name: &str, version: &str, pi: Option<Value>) {
        let src = self
            .root
            .join("pkgsrc")
            .join(name.replace('/', "+"))
            .join(version);
        write_kit(&src, name, version, pi);
        self.registry.publish(&src, name, version);
    }

    /// `pi args` in the project, with the sandbox's environment.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pi"));
        command
            .args(args)
            .current_dir(&self.project)
            .env("HOME", self.root.join("home"))
            .env("PI_CODING_AGENT_DIR", &self.agent)
            .env("GIT_CONFIG_GLOBAL", self.root.join("gitconfig"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("npm_config_prefix", self.root.join("npm-global"))
            .env("npm_config_cache", self.root.join("npm-cache"))
            .env(
                "npm_config_registry",
                format!("http://127.0.0.1:{}/", self.registry.port),
            )
            .env("npm_config_loglevel", "silent")
            .env("npm_config_fund", "false")
            .env("npm_config_audit", "false")
            .env("npm_config_update_notifier", "false")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("TMPDIR", self.root.join("tmp"))
            .env(
                "PI_EXTENSION_HOST_DIR",
                Path::new(env!("CARGO_MANIFEST_DIR")).join("host"),
            )
            .env_remove("PI_OFFLINE")
            .env_remove("OPENAI_API_KEY")
            .env_remove("ANTHROPIC_API_KEY")
            .stdin(std::process::Stdio::null());
        std::fs::create_dir_all(self.root.join("tmp")).unwrap();
        command
    }

    /// Runs `pi args`.
    pub fn pi(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// `text` with the sandbox's root and the registry's port as pi's
    /// captures write them.
    pub fn norm(&self, text: &str) -> String {
        text.replace(&self.root.display().to_string(), "<root>")
            .replace(&self.registry.port.to_string(), "<port>")
    }

    /// A settings file's text (`None`: missing), normalized.
    pub fn settings(&self, project: bool) -> Option<String> {
        let path = if project {
            self.project.join(".pi/settings.json")
        } else {
            self.agent.join("settings.json")
        };
        std::fs::read_to_string(path).ok().map(|t| self.norm(&t))
    }

    /// A models.json with a mock provider that is never called, for runs
    /// that only start (`--mode rpc` + `get_commands`).
    pub fn mock_model(&self) {
        write(
            &self.agent.join("models.json"),
            r#"{"providers": {"mock-oai": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": "k", "models": [{"id": "mock-gpt"}]}}}"#,
        );
    }

    /// `pi --mode rpc` with `extra` arguments answering `get_commands`:
    /// the commands and the run's stderr.
    pub fn commands(&self, extra: &[&str]) -> (Vec<Value>, String) {
        self.commands_with(extra, |_| {})
    }

    /// [`Sandbox::commands`] with the command adjusted first.
    pub fn commands_with(
        &self,
        extra: &[&str],
        adjust: impl FnOnce(&mut Command),
    ) -> (Vec<Value>, String) {
        self.mock_model();
        let mut args = vec![
            "--no-session",
            "--model",
            "mock-oai/mock-gpt",
            "--mode",
            "rpc",
        ];
        args.extend(extra);
        let mut command = self.command(&args);
        adjust(&mut command);
        command
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = command.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"{\"id\":\"c1\",\"type\":\"get_commands\"}\n")
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let response = stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|v| v["id"] == "c1")
            .unwrap_or_else(|| {
                panic!(
                    "no get_commands answer; stdout {stdout}; stderr {}",
                    String::from_utf8_lossy(&out.stderr)
                )
            });
        let commands = response["data"]["commands"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        (commands, self.norm(&String::from_utf8_lossy(&out.stderr)))
    }
}
