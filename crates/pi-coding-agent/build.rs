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

use std::path::Path;
use std::process::Command;

fn main() {
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
