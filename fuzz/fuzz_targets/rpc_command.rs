//! rpc mode input: any bytes, split into lines as the loop reads them,
//! decoded into the dispatch decision (blank, parse error, command); no
//! panic, and every decision is well formed.
#![no_main]

use pi_coding_agent::modes::rpc::line::{Line, decode_line};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    for line in data.split_inclusive(|&b| b == b'\n') {
        match decode_line(line) {
            Line::Blank => {}
            Line::Invalid(error) => {
                if !error.starts_with("Failed to parse command: ") {
                    std::process::abort();
                }
            }
            Line::Command(command) => {
                let type_ok = match command.value.get("type").and_then(|t| t.as_str()) {
                    Some(kind) => kind == command.kind,
                    None => command.kind == "undefined",
                };
                if !command.value.is_object() || !type_ok || command.id.as_ref() != command.value.get("id") {
                    std::process::abort();
                }
            }
        }
    }
});
