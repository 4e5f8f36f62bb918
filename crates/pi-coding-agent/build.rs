//! Release builds of the `pi` binary on x86_64 Linux with the toolchain's
//! LLD are linked for a small resident set:
//! - the functions a run executes come first and together
//!   (`link-order.txt`, LLD's `--symbol-ordering-file`): the kernel maps
//!   code in 64 KiB windows around each page it faults in, so scattered hot
//!   functions made 12 MB of a resume's code resident where 2 MB runs (see
//!   `cargo xtask link-order`);
//! - relative relocations are packed (`-z pack-relative-relocs`, DT_RELR),
//!   when the C library loads them (glibc 2.36 or later): the loader reads
//!   every relocation at startup, and the 45,000 of them took 1 MB as RELA.
//!
//! Skipped when the linker is not the toolchain's LLD (a linker set for the
//! target, or linker flags in RUSTFLAGS), for other targets and profiles,
//! and with `PI_LINK_ORDER=0`.

// A build script talks to cargo on stdout.
#![allow(clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    embed_extension_host();
    embed_user_docs();
    let file = Path::new("link-order.txt");
    println!("cargo:rerun-if-changed={}", file.display());
    println!("cargo:rerun-if-env-changed=PI_LINK_ORDER");
    let env = |name: &str| std::env::var(name).unwrap_or_default();
    // Rust's x86_64-unknown-linux-gnu links with its own LLD by default
    // (since 1.90); another linker may not know these flags.
    let default_lld = env("TARGET") == "x86_64-unknown-linux-gnu"
        && std::env::var_os("RUSTC_LINKER").is_none()
        && !env("CARGO_ENCODED_RUSTFLAGS").contains("link");
    if !default_lld || env("PROFILE") != "release" || env("PI_LINK_ORDER") == "0" {
        return;
    }
    let arg = |value: &str| println!("cargo:rustc-link-arg-bin=pi=-Wl,{value}");
    if file.exists() {
        let path = Path::new(&env("CARGO_MANIFEST_DIR")).join(file);
        arg(&format!("--symbol-ordering-file={}", path.display()));
        // Names the binary no longer has (a newer toolchain or dependency)
        // are skipped without a warning each.
        arg("--no-warn-symbol-ordering");
    }
    if glibc_loads_relr() {
        arg("-z,pack-relative-relocs");
    }
}

/// True when the C library here is glibc 2.36 or later (`getconf
/// GNU_LIBC_VERSION`), whose loader applies DT_RELR relocations.
fn glibc_loads_relr() -> bool {
    let Ok(out) = Command::new("getconf").arg("GNU_LIBC_VERSION").output() else {
        return false;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let Some(version) = text.trim().strip_prefix("glibc ") else {
        return false;
    };
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (major, minor) >= (2, 36)
}

/// Writes `$OUT_DIR/extension_host_files.rs`: every file of `host/` (the
/// Node extension host) but its `node_modules/` and `test/`, embedded in
/// the binary, and a fingerprint of them that names the folder they are
/// installed into.
fn embed_extension_host() {
    let root = Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join("host");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    collect_host_files(&root, &root, &mut files);
    write_embedded(
        "extension_host_files.rs",
        "The host's files",
        "include_bytes",
        &files,
    );
}

/// Writes `$OUT_DIR/user_docs_files.rs`: the user documentation shipped
/// with the binary (the README and every `docs/*.md`), embedded as text,
/// and a fingerprint of them and the version. `docs/` is a link to the
/// workspace's `docs/` that `cargo package` follows; the packaged crate
/// has the README beside its manifest, a checkout two levels up.
fn embed_user_docs() {
    let manifest = Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).to_owned();
    let mut files = Vec::new();
    let readme = [manifest.join("README.md"), manifest.join("../../README.md")]
        .into_iter()
        .find(|p| p.is_file());
    if let Some(readme) = readme {
        println!("cargo:rerun-if-changed={}", readme.display());
        files.push(("README.md".to_owned(), readme));
    }
    let docs = manifest.join("docs");
    println!("cargo:rerun-if-changed={}", docs.display());
    if let Ok(read) = std::fs::read_dir(&docs) {
        for entry in read.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".md") && entry.path().is_file() {
                files.push((format!("docs/{name}"), entry.path()));
            }
        }
    }
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    write_embedded_with(
        "user_docs_files.rs",
        "The shipped documentation's files",
        "include_str",
        &files,
        &version,
    );
}

fn write_embedded(out_name: &str, what: &str, macro_name: &str, files: &[(String, PathBuf)]) {
    write_embedded_with(out_name, what, macro_name, files, "");
}

/// Writes `$OUT_DIR/<out_name>` with `FILES` (path, contents through
/// `macro_name`) sorted by path, and `FINGERPRINT`: FNV-1a over `salt`,
/// the names and the contents.
fn write_embedded_with(
    out_name: &str,
    what: &str,
    macro_name: &str,
    files: &[(String, PathBuf)],
    salt: &str,
) {
    let mut files = files.to_vec();
    files.sort();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut entries = String::new();
    let content_type = if macro_name == "include_str" {
        "&str"
    } else {
        "&[u8]"
    };
    for byte in salt.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    for (name, path) in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let bytes = std::fs::read(path).unwrap_or_default();
        for byte in name.bytes().chain(bytes) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        entries.push_str(&format!(
            "    ({name:?}, {macro_name}!({:?})),\n",
            path.display().to_string()
        ));
    }
    let code = format!(
        "/// {what}: (relative path, contents).\npub(super) const FILES: &[(&str, {content_type})] = &[\n{entries}];\n/// A fingerprint of [`FILES`].\npub(super) const FINGERPRINT: &str = \"{hash:016x}\";\n"
    );
    let out = Path::new(&std::env::var("OUT_DIR").unwrap_or_default()).join(out_name);
    let _ = std::fs::write(out, code);
}

fn collect_host_files(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in read.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "node_modules" || (dir == root && name == "test") {
            continue;
        }
        if path.is_dir() {
            collect_host_files(root, &path, out);
        } else if let Ok(relative) = path.strip_prefix(root) {
            out.push((relative.to_string_lossy().into_owned(), path));
        }
    }
}
