use std::io::{Cursor, Read, Seek, SeekFrom};

use super::*;

/// A reader that counts the bytes it hands out.
struct Counting {
    inner: Cursor<Vec<u8>>,
    read: u64,
}

impl Read for Counting {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        Ok(n)
    }
}

impl Seek for Counting {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

fn header() -> String {
    r#"{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}"#
        .to_owned()
}

fn message(i: usize, role: &str, text: &str) -> String {
    format!(
        r#"{{"type":"message","id":"m{i}","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z","message":{{"role":"{role}","content":[{{"type":"text","text":"{text}"}}],"timestamp":{i}}}}}"#
    )
}

fn info(name: &str) -> String {
    format!(
        r#"{{"type":"session_info","id":"i","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z","name":"{name}"}}"#
    )
}

/// A file of `count` messages, each padded to about `pad` bytes.
fn file(count: usize, pad: usize, extra_last: &[String]) -> Vec<u8> {
    let mut out = header();
    out.push('\n');
    out.push_str(&info("early"));
    out.push('\n');
    let filler = "x".repeat(pad);
    for i in 1..=count {
        let role = if i % 2 == 1 { "user" } else { "assistant" };
        let text = if i == 1 {
            "first prompt".to_owned()
        } else {
            filler.clone()
        };
        out.push_str(&message(i, role, &text));
        out.push('\n');
    }
    for line in extra_last {
        out.push_str(line);
        out.push('\n');
    }
    out.into_bytes()
}

fn run(bytes: Vec<u8>) -> (Option<Summary>, u64) {
    let len = bytes.len() as u64;
    let mut reader = Counting {
        inner: Cursor::new(bytes),
        read: 0,
    };
    let summary = summarize(&mut reader, len).unwrap();
    (summary, reader.read)
}

#[test]
fn a_small_file_is_read_whole_and_exact() {
    let bytes = file(10, 10, &[info("  late  ")]);
    let len = bytes.len() as u64;
    let (summary, read) = run(bytes);
    let summary = summary.unwrap();
    assert!(summary.exact);
    assert_eq!(read, len);
    assert_eq!(summary.message_count, 10);
    assert_eq!(summary.first_message, "first prompt");
    assert_eq!(summary.name.as_deref(), Some("late"));
    assert_eq!(summary.last_activity, Some(10));
}

#[test]
fn a_large_file_is_read_in_two_bounded_windows() {
    // About 8 MB: 20,000 messages of ~400 bytes.
    let bytes = file(20_000, 300, &[info("renamed")]);
    let len = bytes.len() as u64;
    assert!(len > 4 * (HEAD_WINDOW + TAIL_WINDOW));
    let (summary, read) = run(bytes);
    let summary = summary.unwrap();
    assert!(
        read <= HEAD_WINDOW + TAIL_WINDOW,
        "read {read} of {len} bytes"
    );
    assert!(!summary.exact);
    assert_eq!(summary.first_message, "first prompt");
    assert_eq!(summary.name.as_deref(), Some("renamed"));
    assert_eq!(summary.last_activity, Some(20_000));
    let count = summary.message_count as f64;
    assert!(
        (count - 20_000.0).abs() < 20_000.0 * 0.05,
        "estimated {count}"
    );
}

#[test]
fn bytes_read_do_not_grow_with_the_file() {
    let (_, small) = run(file(4_000, 300, &[]));
    let (_, large) = run(file(16_000, 300, &[]));
    assert_eq!(small, large);
}

#[test]
fn a_header_longer_than_the_window_is_read_to_its_end() {
    let long_cwd = "d".repeat(HEAD_WINDOW as usize + 10);
    let mut bytes = format!(r#"{{"type":"session","id":"s1","cwd":"{long_cwd}"}}"#).into_bytes();
    bytes.push(b'\n');
    bytes.extend(
        file(5_000, 300, &[])
            .split(|b| *b == b'\n')
            .skip(1)
            .flat_map(|l| {
                let mut l = l.to_vec();
                l.push(b'\n');
                l
            }),
    );
    let (summary, _) = run(bytes);
    let summary = summary.unwrap();
    assert_eq!(
        summary.header["cwd"].as_str().map(str::len),
        Some(long_cwd.len())
    );
    assert_eq!(summary.first_message, "first prompt");
}

#[test]
fn not_a_session_file() {
    assert!(run(b"not json\n".to_vec()).0.is_none());
    assert!(run(br#"{"type":"message"}"#.to_vec()).0.is_none());
    assert!(run(Vec::new()).0.is_none());
    let mut huge = vec![b'x'; (MAX_HEADER + HEAD_WINDOW) as usize];
    huge.push(b'\n');
    let (summary, read) = run(huge);
    assert!(summary.is_none());
    assert!(read <= MAX_HEADER);
}
