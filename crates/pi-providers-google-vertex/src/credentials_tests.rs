use super::*;

fn parse(text: &str) -> Result<Credentials, VertexError> {
    parse_credentials(Path::new("/x/adc.json"), text)
}

#[test]
fn service_account_and_authorized_user_files() {
    let sa = parse(r#"{"type":"service_account","client_email":"a@b","private_key":"K","quota_project_id":"q","extra":1}"#).unwrap();
    assert_eq!(sa.token_url(), GOOGLE_TOKEN_URL);
    assert_eq!(
        sa.quota_project(&VertexEnv::fixed::<&str, &str>([])),
        Some("q".into())
    );
    assert_eq!(
        sa.quota_project(&VertexEnv::fixed([("GOOGLE_CLOUD_QUOTA_PROJECT", "env")])),
        Some("env".into())
    );
    let user = parse(r#"{"type":"authorized_user","client_id":"c","client_secret":"s","refresh_token":"r","token_uri":"http://127.0.0.1:1/token"}"#).unwrap();
    assert_eq!(user.token_url(), "http://127.0.0.1:1/token");
    assert!(matches!(user, Credentials::AuthorizedUser(_)));
}

#[test]
fn missing_fields_and_unsupported_types_are_named() {
    let err = parse(r#"{"type":"service_account","private_key":"K"}"#).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Invalid credentials file /x/adc.json: The incoming JSON object does not contain a client_email field"
    );
    let err =
        parse(r#"{"type":"authorized_user","client_id":"c","client_secret":"s"}"#).unwrap_err();
    assert!(err.to_string().ends_with("a refresh_token field"), "{err}");
    let err = parse(r#"{"type":"external_account"}"#).unwrap_err();
    assert!(err.to_string().contains("\"external_account\""), "{err}");
    let err = parse("nope").unwrap_err();
    assert!(err.to_string().contains("not JSON"), "{err}");
}

#[tokio::test]
async fn the_variable_wins_then_gcloud_s_file_then_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let gcloud = dir.path().join(".config/gcloud");
    std::fs::create_dir_all(&gcloud).unwrap();
    let home = dir.path().to_str().unwrap().to_owned();

    let err = find_credentials(&VertexEnv::fixed([("HOME", home.as_str())]))
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("Could not load the default credentials."),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("application_default_credentials.json")
    );

    let user =
        r#"{"type":"authorized_user","client_id":"c","client_secret":"s","refresh_token":"r"}"#;
    std::fs::write(gcloud.join("application_default_credentials.json"), user).unwrap();
    let (path, found) = find_credentials(&VertexEnv::fixed([("HOME", home.as_str())]))
        .await
        .unwrap();
    assert!(path.ends_with(".config/gcloud/application_default_credentials.json"));
    assert!(matches!(found, Credentials::AuthorizedUser(_)));

    let config = dir.path().join("cfg");
    std::fs::create_dir_all(&config).unwrap();
    let err = find_credentials(&VertexEnv::fixed([
        ("HOME", home.as_str()),
        ("CLOUDSDK_CONFIG", config.to_str().unwrap()),
    ]))
    .await
    .unwrap_err();
    assert!(
        matches!(err, VertexError::NoCredentials { .. }),
        "CLOUDSDK_CONFIG replaces HOME"
    );

    let missing = dir.path().join("nope.json");
    let err = find_credentials(&VertexEnv::fixed([
        ("HOME", home.as_str()),
        ("GOOGLE_APPLICATION_CREDENTIALS", missing.to_str().unwrap()),
    ]))
    .await
    .unwrap_err();
    assert!(
        err.to_string().starts_with(
            "Unable to read the credential file specified by the GOOGLE_APPLICATION_CREDENTIALS environment variable"
        ),
        "{err}"
    );
}
