//! Redirects, followed by hand so that no credential reaches another
//! origin. reqwest (like `fetch`) drops only `Authorization`, `Cookie` and
//! the proxy's on a cross-origin redirect and forwards `x-api-key` or
//! `x-goog-api-key`; here every header that may carry a secret is dropped
//! before the request goes to another scheme, host or port.

use reqwest::header::{HeaderMap, LOCATION};
use reqwest::{Method, StatusCode, Url};

/// Redirects followed before giving up (reqwest's and `fetch`'s limit).
pub(crate) const MAX_REDIRECTS: usize = 10;

/// Where a redirect response sends the request next.
#[derive(Debug)]
pub(crate) struct Hop {
    /// The new URL.
    pub(crate) url: Url,
    /// The method: kept for 307 and 308; `GET` without a body for 303, and
    /// for 301 and 302 after a `POST`, as `fetch` does.
    pub(crate) method: Method,
    /// The new URL is of another origin than the one redirected from.
    pub(crate) cross_origin: bool,
}

/// A redirect whose `Location` is no http(s) URL (the header's text).
#[derive(Debug, thiserror::Error)]
#[error("the server redirected to {0:?}, which is not an http(s) URL")]
pub(crate) struct BadRedirect(String);

/// The next hop of a response with `status` and `headers` to a request of
/// `method` at `current`: `None` when it is no redirect to follow (not a
/// 301, 302, 303, 307 or 308, or one without a `Location`), an error text
/// when its `Location` is no http(s) URL.
pub(crate) fn next_hop(
    current: &Url,
    method: &Method,
    status: StatusCode,
    headers: &HeaderMap,
) -> Option<Result<Hop, BadRedirect>> {
    let keeps_method = match status.as_u16() {
        307 | 308 => true,
        301 | 302 => *method != Method::POST,
        303 => *method == Method::HEAD,
        _ => return None,
    };
    let location = headers.get(LOCATION)?;
    let url = match location
        .to_str()
        .ok()
        .and_then(|text| current.join(text).ok())
    {
        Some(url) if matches!(url.scheme(), "http" | "https") => url,
        _ => {
            return Some(Err(BadRedirect(
                String::from_utf8_lossy(location.as_bytes()).into_owned(),
            )));
        }
    };
    let cross_origin = url.origin() != current.origin();
    Some(Ok(Hop {
        url,
        method: if keeps_method {
            method.clone()
        } else {
            Method::GET
        },
        cross_origin,
    }))
}

/// Words in a header name that mark it as possibly carrying a secret.
const SECRET_WORDS: [&str; 9] = [
    "auth",
    "key",
    "token",
    "secret",
    "cookie",
    "session",
    "signature",
    "credential",
    "password",
];

/// Whether header `name` may carry a credential (any wire's key header,
/// `Authorization`, cookies, AWS signing headers, and any custom header
/// whose name says key, token, secret, ...): such headers never go to
/// another origin.
pub(crate) fn is_sensitive(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.starts_with("x-amz-") || SECRET_WORDS.iter().any(|word| name.contains(word))
}

/// Whether header `name` describes a body (dropped with the body).
pub(crate) fn describes_body(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.starts_with("content-")
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;

    fn hop(status: u16, location: &str, method: Method) -> Option<Result<Hop, BadRedirect>> {
        let mut headers = HeaderMap::new();
        headers.insert(LOCATION, HeaderValue::from_str(location).unwrap());
        let current = Url::parse("https://api.example.com/v1/messages").unwrap();
        next_hop(
            &current,
            &method,
            StatusCode::from_u16(status).unwrap(),
            &headers,
        )
    }

    #[test]
    fn a_307_keeps_the_post_and_tells_another_origin() {
        let next = hop(307, "https://other.example.com/v1/messages", Method::POST)
            .unwrap()
            .unwrap();
        assert_eq!(next.method, Method::POST);
        assert!(next.cross_origin);
        let same = hop(308, "/v2/messages", Method::POST).unwrap().unwrap();
        assert_eq!(same.url.as_str(), "https://api.example.com/v2/messages");
        assert!(!same.cross_origin);
        // Another port or scheme is another origin.
        for other in ["https://api.example.com:8443/x", "http://api.example.com/x"] {
            assert!(hop(307, other, Method::POST).unwrap().unwrap().cross_origin);
        }
    }

    #[test]
    fn a_303_and_a_302_after_a_post_become_a_get() {
        for status in [301, 302, 303] {
            let next = hop(status, "/elsewhere", Method::POST).unwrap().unwrap();
            assert_eq!(next.method, Method::GET, "{status}");
        }
        assert!(hop(304, "/x", Method::POST).is_none());
        assert!(hop(200, "/x", Method::POST).is_none());
        assert!(hop(307, "ftp://x/y", Method::POST).unwrap().is_err());
    }

    #[test]
    fn every_wires_key_header_is_sensitive() {
        for name in [
            "authorization",
            "Authorization",
            "x-api-key",
            "api-key",
            "x-goog-api-key",
            "proxy-authorization",
            "cookie",
            "x-amz-security-token",
            "x-amz-date",
            "x-my-gateway-token",
        ] {
            assert!(is_sensitive(name), "{name}");
        }
        for name in [
            "content-type",
            "accept",
            "user-agent",
            "anthropic-version",
            "anthropic-beta",
            "openai-beta",
        ] {
            assert!(!is_sensitive(name), "{name}");
        }
    }
}
