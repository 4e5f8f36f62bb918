//! rpc mode input: any bytes, split into lines as the loop reads them,
//! decoded into the dispatch decision (blank, parse error, typed command or
//! the error it is answered with); no panic, and every decision is well
//! formed.
#![no_main]

use pi_coding_agent::modes::rpc::line::{Line, decode_line};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    for line in data.split_inclusive(|&b| b == b'\n') {
        match decode_line(line) {
            Line::Blank => {}
            Line::Invalid(error) => {
                if !error.to_string().starts_with("Failed to parse command: ") {
                    std::process::abort();
                }
            }
            Line::Command { kind, command, .. } => {
                if kind.is_empty() && command.is_ok() {
                    std::process::abort();
                }
                if let Err(error) = command {
                    // Every error has a text for the response.
                    if error.to_string().is_empty() {
                        std::process::abort();
                    }
                }
            }
        }
    }
});
