use std::io::{Read, Write};
use std::net::TcpStream;

use super::*;

fn fixtures() -> std::path::PathBuf {
    crate::workspace_root().join("fixtures/pi-0.73.1")
}

#[test]
fn a_grown_answer_repeats_the_middle_delta_and_keeps_the_ends() {
    let recorded = answer(&fixtures(), "ant", 0).unwrap();
    let grown = answer(&fixtures(), "ant", 100_000).unwrap();
    assert!((100_000..101_000).contains(&grown.len()), "{}", grown.len());
    let first = recorded.split("\n\n").next().unwrap();
    let last = recorded.trim_end().rsplit("\n\n").next().unwrap();
    assert!(grown.starts_with(first));
    assert!(grown.trim_end().ends_with(last));
    assert_eq!(grown.matches("event: message_start").count(), 1);
    assert!(grown.matches("a mock model").count() > 100);
}

fn post(url: &str, path: &str, body: &[u8], chunked: bool) -> String {
    let address = url.trim_start_matches("http://");
    let mut stream = TcpStream::connect(address).unwrap();
    let head = if chunked {
        format!("POST {path} HTTP/1.1\r\nhost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
    } else {
        format!(
            "POST {path} HTTP/1.1\r\nhost: x\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
    };
    stream.write_all(head.as_bytes()).unwrap();
    if chunked {
        stream
            .write_all(format!("{:x}\r\n", body.len()).as_bytes())
            .unwrap();
        stream.write_all(body).unwrap();
        stream.write_all(b"\r\n0\r\n\r\n").unwrap();
    } else {
        // In pieces, as a client streams a large body.
        for piece in body.chunks(7) {
            stream.write_all(piece).unwrap();
        }
    }
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}

#[test]
fn each_endpoint_gets_its_wire_answer_whatever_the_body() {
    let answers = Answers {
        completions: "data: oai\n\n".to_owned(),
        anthropic: "data: ant\n\n".to_owned(),
        responses: "data: resp\n\n".to_owned(),
        google: "data: goog\n\n".to_owned(),
    };
    let mock = Loopback::start(answers).unwrap();
    let url = mock.url();
    let body = b"{not json at all".repeat(10_000);
    for (path, expected, chunked) in [
        ("/v1/chat/completions", "data: oai\n\n", false),
        ("/v1/messages", "data: ant\n\n", true),
        ("/v1/responses", "data: resp\n\n", false),
        (
            "/v1beta/models/m:streamGenerateContent?alt=sse",
            "data: goog\n\n",
            true,
        ),
    ] {
        let answer = post(&url, path, &body, chunked);
        assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
        assert!(
            answer.ends_with(&format!(
                "content-length: {}\r\nconnection: close\r\n\r\n{expected}",
                expected.len()
            )),
            "{path}: {answer}"
        );
    }
}
