use super::*;

#[test]
fn endpoint_errors_read_as_google_auth_library_words_them() {
    assert_eq!(
        endpoint_error(
            400,
            r#"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#
        ),
        "invalid_grant: Invalid JWT Signature."
    );
    assert_eq!(
        endpoint_error(401, r#"{"error":"unauthorized_client"}"#),
        "401 unauthorized_client"
    );
    assert_eq!(
        endpoint_error(502, "<html>bad gateway</html>"),
        "502 <html>bad gateway</html>"
    );
    assert_eq!(endpoint_error(500, ""), "500");
    assert_eq!(token_error_class(400), ErrorClass::Auth);
    assert_eq!(token_error_class(503), ErrorClass::Server);
    assert_eq!(token_error_class(429), ErrorClass::RateLimited);
}

#[test]
fn a_key_that_is_not_pem_is_named() {
    let sa = ServiceAccount {
        client_email: "a@b".into(),
        private_key: "not a key".into(),
        private_key_id: None,
        token_uri: None,
        quota_project_id: None,
    };
    let err = sign_jwt(&sa, 1, "/x/sa.json").unwrap_err();
    assert!(
        err.to_string().starts_with(
            "The private_key of the service account in /x/sa.json is not a usable RSA key"
        ),
        "{err}"
    );
}

#[test]
fn the_refresh_form_is_url_encoded() {
    let user = AuthorizedUser {
        client_id: "id".into(),
        client_secret: "s&=x".into(),
        refresh_token: "1//r t".into(),
        token_uri: None,
        quota_project_id: None,
    };
    assert_eq!(
        refresh_form(&user),
        "refresh_token=1%2F%2Fr+t&client_id=id&client_secret=s%26%3Dx&grant_type=refresh_token"
    );
}
