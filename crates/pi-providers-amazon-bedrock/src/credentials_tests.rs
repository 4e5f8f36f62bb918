#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;

struct Files {
    dir: tempfile::TempDir,
}

impl Files {
    fn new(credentials: &str, config: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".aws")).unwrap();
        std::fs::write(dir.path().join(".aws/credentials"), credentials).unwrap();
        std::fs::write(dir.path().join(".aws/config"), config).unwrap();
        Self { dir }
    }

    fn env(&self, vars: &[(&str, &str)]) -> AwsEnvironment {
        let home = self.dir.path().display().to_string();
        AwsEnvironment::from_vars(
            vars.iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .chain([("HOME".to_owned(), home)]),
        )
    }
}

fn keys(id: &str, secret: &str, token: Option<&str>) -> Auth {
    Auth::SigV4(AwsCredentials {
        access_key_id: id.into(),
        secret_access_key: secret.into(),
        session_token: token.map(str::to_owned),
    })
}

const CREDENTIALS: &str = "[default]\naws_access_key_id = DEFAULTKEY\naws_secret_access_key = defaultsecret\n\n[work]\naws_access_key_id=WORKKEY\naws_secret_access_key=worksecret\naws_session_token=worktoken\n";
const CONFIG: &str = "[profile cfg]\naws_access_key_id = CFGKEY\naws_secret_access_key = cfgsecret\nregion = eu-west-3\n[profile sso]\nsso_session = corp\n[profile assume]\nrole_arn = arn:aws:iam::1:role/x\nsource_profile = default\n[profile half]\naws_access_key_id = HALF\n";

#[test]
fn environment_keys_come_first_without_a_profile() {
    let files = Files::new(CREDENTIALS, CONFIG);
    let env = files.env(&[
        ("AWS_ACCESS_KEY_ID", "ENVKEY"),
        ("AWS_SECRET_ACCESS_KEY", "envsecret"),
        ("AWS_SESSION_TOKEN", "envtoken"),
    ]);
    let auth = resolve_auth(&BedrockOptions::default(), &env).unwrap();
    assert_eq!(auth, keys("ENVKEY", "envsecret", Some("envtoken")));
}

#[test]
fn a_named_profile_skips_the_environment_keys_as_the_sdk_does() {
    let files = Files::new(CREDENTIALS, CONFIG);
    let env = files.env(&[
        ("AWS_PROFILE", "work"),
        ("AWS_ACCESS_KEY_ID", "ENVKEY"),
        ("AWS_SECRET_ACCESS_KEY", "envsecret"),
    ]);
    let auth = resolve_auth(&BedrockOptions::default(), &env).unwrap();
    assert_eq!(auth, keys("WORKKEY", "worksecret", Some("worktoken")));
    let option = BedrockOptions {
        profile: Some("cfg".into()),
        ..BedrockOptions::default()
    };
    assert_eq!(
        resolve_auth(&option, &env).unwrap(),
        keys("CFGKEY", "cfgsecret", None)
    );
    assert_eq!(profile_region("cfg", &env).as_deref(), Some("eu-west-3"));
}

#[test]
fn the_default_profile_is_used_when_nothing_else_is_set() {
    let files = Files::new(CREDENTIALS, "");
    let auth = resolve_auth(&BedrockOptions::default(), &files.env(&[])).unwrap();
    assert_eq!(auth, keys("DEFAULTKEY", "defaultsecret", None));
}

#[test]
fn a_bearer_token_wins_unless_auth_is_skipped() {
    let files = Files::new(CREDENTIALS, CONFIG);
    let env = files.env(&[
        ("AWS_BEARER_TOKEN_BEDROCK", "ABSKtoken"),
        ("AWS_PROFILE", "work"),
    ]);
    assert_eq!(
        resolve_auth(&BedrockOptions::default(), &env).unwrap(),
        Auth::Bearer("ABSKtoken".into())
    );
    let option = BedrockOptions {
        bearer_token: Some("fromoption".into()),
        ..BedrockOptions::default()
    };
    assert_eq!(
        resolve_auth(&option, &env).unwrap(),
        Auth::Bearer("fromoption".into())
    );
    let skip = files.env(&[
        ("AWS_BEARER_TOKEN_BEDROCK", "x"),
        ("AWS_BEDROCK_SKIP_AUTH", "1"),
    ]);
    assert_eq!(
        resolve_auth(&BedrockOptions::default(), &skip).unwrap(),
        keys("dummy-access-key", "dummy-secret-key", None)
    );
}

#[test]
fn unsupported_and_missing_sources_say_what_to_do() {
    let files = Files::new(CREDENTIALS, CONFIG);
    let error = |profile: &str| {
        resolve_auth(
            &BedrockOptions::default(),
            &files.env(&[("AWS_PROFILE", profile)]),
        )
        .unwrap_err()
        .to_string()
    };
    assert!(error("sso").starts_with("AWS profile \"sso\" uses SSO, which pi-rs does not support"));
    assert!(error("assume").contains("uses role_arn (assume role)"));
    assert_eq!(
        error("half"),
        "AWS profile \"half\" has aws_access_key_id but no aws_secret_access_key"
    );
    let missing = error("nobody");
    assert!(
        missing.starts_with("Could not load credentials from any providers: set AWS_ACCESS_KEY_ID"),
        "{missing}"
    );
    assert!(missing.contains(".aws/credentials"), "{missing}");
    let empty = Files::new("", "");
    let error = resolve_auth(&BedrockOptions::default(), &empty.env(&[])).unwrap_err();
    assert!(matches!(error, CredentialsError::Missing { .. }));
}

#[test]
fn debug_output_hides_the_secret() {
    let credentials = AwsCredentials {
        access_key_id: "AKID".into(),
        secret_access_key: "very-secret".into(),
        session_token: Some("token-secret".into()),
    };
    let shown = format!("{credentials:?}");
    assert!(shown.contains("AKID"));
    assert!(!shown.contains("very-secret") && !shown.contains("token-secret"));
}
