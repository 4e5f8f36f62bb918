//! Session files (any version, any damage): loading never panics.
#![no_main]

use std::io::Write;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("pi-fuzz-session-{}.jsonl", std::process::id()));
    let written = std::fs::File::create(&path).and_then(|mut file| file.write_all(data));
    if written.is_ok() {
        let _ = pi_coding_agent::session::load_session_file(&path);
    }
});
