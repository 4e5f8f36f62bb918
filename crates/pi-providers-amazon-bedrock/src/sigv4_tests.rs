#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::time::{Duration, UNIX_EPOCH};

use super::*;

/// 2015-08-30T12:36:00Z, the time of every vector.
fn vector_time() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_440_938_160)
}

fn suite_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/aws-sigv4-test-suite")
}

fn encode_path(path: &str) -> String {
    let (path, query) = path
        .split_once('?')
        .map_or((path, None), |(p, q)| (p, Some(q)));
    let mut out: String = path
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    if let Some(query) = query {
        out.push('?');
        out.push_str(query);
    }
    out
}

/// Signs the unsigned form of a suite case and returns (ours, expected).
fn sign_case(name: &str) -> (String, String) {
    let text =
        std::fs::read_to_string(suite_dir().join(name).join("header-signed-request.txt")).unwrap();
    let mut lines = text.lines();
    let request_line = lines.next().unwrap();
    let mut parts = request_line.split(' ');
    let method = parts.next().unwrap();
    let path = parts.next().unwrap();
    let mut expected = String::new();
    let mut token = None;
    for line in lines.take_while(|l| !l.is_empty()) {
        let (name, value) = line.split_once(':').unwrap();
        match name.to_ascii_lowercase().as_str() {
            "authorization" => expected = value.to_owned(),
            "x-amz-security-token" => token = Some(value.to_owned()),
            _ => {}
        }
    }
    let credentials = AwsCredentials {
        access_key_id: "AKIDEXAMPLE".into(),
        secret_access_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".into(),
        session_token: token.clone(),
    };
    let mut request = HttpRequest {
        url: format!("https://example.amazonaws.com{}", encode_path(path)),
        headers: Vec::new(),
        body: Vec::new().into(),
    };
    let scope = SigningScope {
        service: "service",
        region: "us-east-1",
        double_encode_path: false,
        content_sha256_header: false,
    };
    sign_with_method(method, &mut request, &credentials, scope, vector_time()).unwrap();
    let header = |name: &str| {
        request
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    };
    assert_eq!(
        header("x-amz-date").as_deref(),
        Some("20150830T123600Z"),
        "{name}"
    );
    assert_eq!(header("x-amz-security-token"), token, "{name}");
    (header("authorization").unwrap(), expected)
}

#[test]
fn aws_published_test_vectors() {
    for case in [
        "get-vanilla",
        "post-vanilla",
        "get-vanilla-query-order-key-case",
        "get-utf8",
        "get-vanilla-with-session-token",
    ] {
        let (ours, expected) = sign_case(case);
        assert_eq!(ours, expected, "{case}");
    }
}

#[test]
fn bedrock_requests_sign_the_body_hash_and_double_encode_the_path() {
    let credentials = AwsCredentials {
        access_key_id: "AKIDEXAMPLE".into(),
        secret_access_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".into(),
        session_token: None,
    };
    let url = "https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.nova-lite-v1%3A0/converse-stream";
    let sign = |double: bool| {
        let mut request = HttpRequest {
            url: url.into(),
            headers: vec![("content-type".into(), "application/json".into())],
            body: b"{}".to_vec().into(),
        };
        let mut scope = SigningScope::bedrock("us-east-1");
        scope.double_encode_path = double;
        sign_request(&mut request, &credentials, scope, vector_time()).unwrap();
        request
    };
    let request = sign(true);
    let header = |name: &str| {
        request
            .headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    // sha256("{}")
    assert_eq!(
        header("x-amz-content-sha256"),
        Some("44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a")
    );
    let authorization = header("authorization").unwrap();
    assert!(
        authorization.starts_with(
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/bedrock/aws4_request, \
             SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date, Signature="
        ),
        "{authorization}"
    );
    let single = sign(false);
    let other = single
        .headers
        .iter()
        .find(|(n, _)| n == "authorization")
        .unwrap();
    assert_ne!(
        other.1, authorization,
        "the `%3A` is encoded again in the canonical path"
    );
}

#[test]
fn a_url_without_a_host_is_refused_before_signing() {
    let credentials = AwsCredentials {
        access_key_id: "a".into(),
        secret_access_key: "b".into(),
        session_token: None,
    };
    let mut request = HttpRequest {
        url: "/model/x/converse-stream".into(),
        headers: Vec::new(),
        body: Vec::new().into(),
    };
    let error = sign_request(
        &mut request,
        &credentials,
        SigningScope::bedrock("us-east-1"),
        vector_time(),
    )
    .unwrap_err();
    assert!(
        error.to_string().contains("not a valid http(s) URL"),
        "{error}"
    );
}
