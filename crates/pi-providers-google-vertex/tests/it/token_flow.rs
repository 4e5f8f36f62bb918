//! Application Default Credentials end to end, against a loopback token
//! endpoint (the credentials file's `token_uri`) and a loopback model
//! server (`GOOGLE_VERTEX_BASE_URL`): the service-account JWT (its RS256
//! signature verified with the test key's public half, its claims), the
//! cached token, the refresh of an expiring one, one refresh for concurrent
//! calls, the authorized-user refresh grant, the call hooks, and the errors
//! that name what is missing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use futures::StreamExt;
use futures::future::join_all;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use pi_ai::{
    AssistantMessageEvent, Context, ErrorClass, Model, PayloadHook, ResponseHook,
    SimpleStreamOptions, StopReason, StreamFunction, StreamOptions, UserMessage,
};
use pi_providers_google_vertex::{
    CLOUD_PLATFORM_SCOPE, GOOGLE_TOKEN_URL, JWT_BEARER_GRANT, JwtClaims, VertexEnv, VertexProvider,
    VertexWire,
};
use pi_test_support::final_message;
use pi_test_support::mock_server::{MockResponse, MockServer, RecordedRequest};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn model() -> Model {
    common::CAPTURES.model("mock-vtx-adc", "mock-vertex")
}

fn context() -> Context {
    Context {
        messages: vec![
            UserMessage {
                content: "Hi".into(),
                timestamp: 1,
                ..UserMessage::default()
            }
            .into(),
        ],
        ..Context::default()
    }
}

fn options() -> SimpleStreamOptions {
    SimpleStreamOptions {
        base: StreamOptions {
            // What pi-coding-agent passes for ADC (`getEnvApiKey`).
            api_key: Some("<authenticated>".into()),
            ..StreamOptions::default()
        },
        ..SimpleStreamOptions::default()
    }
}

fn answer() -> MockResponse {
    MockResponse::sse([
        "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hello.\"}],\"role\":\"model\"},\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":3,\"candidatesTokenCount\":2,\"totalTokenCount\":5}}\n\n",
    ])
}

async fn call(provider: &VertexProvider) -> Vec<AssistantMessageEvent> {
    provider
        .stream_simple(&model(), context().view(), options())
        .collect()
        .await
}

fn form(request: &RecordedRequest) -> Vec<(String, String)> {
    url::form_urlencoded::parse(&request.body)
        .into_owned()
        .collect()
}

fn field(request: &RecordedRequest, name: &str) -> String {
    form(request)
        .into_iter()
        .find(|(k, _)| k == name)
        .unwrap_or_else(|| panic!("no {name}"))
        .1
}

struct Setup {
    _dir: tempfile::TempDir,
    tokens: MockServer,
    models: MockServer,
    provider: VertexProvider,
}

/// A token endpoint answering `token_answers`, a model server answering
/// `calls` times, and a provider with the service account pointed at them.
async fn setup(token_answers: Vec<MockResponse>, calls: usize) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let tokens = MockServer::start(token_answers).await.unwrap();
    let models = MockServer::start((0..calls).map(|_| answer()))
        .await
        .unwrap();
    let credentials = common::write_credentials(
        dir.path(),
        &common::service_account_at(&format!("{}/token", tokens.url())),
    );
    let provider = VertexProvider::of(VertexWire::with_env(common::adc_env(
        &credentials,
        &models.url(),
    )));
    Setup {
        _dir: dir,
        tokens,
        models,
        provider,
    }
}

#[tokio::test]
async fn the_service_account_jwt_is_signed_by_its_key_and_exchanged() {
    let s = setup(
        vec![MockResponse::json(
            200,
            common::token_answer("ya29.one", 3599),
        )],
        1,
    )
    .await;
    let events = call(&s.provider).await;
    let message = final_message(&events);
    assert_eq!(
        message.stop_reason,
        StopReason::Stop,
        "{:?}",
        message.error_message
    );
    assert_eq!(message.text(), "Hello.");

    let token_requests = s.tokens.requests();
    assert_eq!(token_requests.len(), 1);
    let request = &token_requests[0];
    assert_eq!(request.path, "/token");
    assert_eq!(
        request.header("content-type"),
        Some("application/x-www-form-urlencoded;charset=UTF-8")
    );
    assert_eq!(field(request, "grant_type"), JWT_BEARER_GRANT);

    let key = DecodingKey::from_rsa_pem(&common::public_key_pem()).unwrap();
    let mut validation = Validation::new(Algorithm::RS256);
    validation.set_audience(&[GOOGLE_TOKEN_URL]);
    validation.set_required_spec_claims(&["exp", "aud", "iss"]);
    let jwt = field(request, "assertion");
    let decoded = jsonwebtoken::decode::<JwtClaims>(&jwt, &key, &validation).unwrap();
    assert_eq!(
        decoded.header.typ, None,
        "pi's header is {{\"alg\":\"RS256\"}}"
    );
    assert_eq!(decoded.header.kid, None);
    let claims = decoded.claims;
    assert_eq!(claims.iss, common::service_account()["client_email"]);
    assert_eq!(claims.scope, CLOUD_PLATFORM_SCOPE);
    assert_eq!(claims.exp - claims.iat, 3600);
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    assert!(claims.iat.abs_diff(now) < 60);

    // A JWT signed by another key does not verify.
    let mut tampered = jwt.rsplit_once('.').unwrap().0.to_owned();
    tampered.push_str(".AAAA");
    assert!(jsonwebtoken::decode::<JwtClaims>(&tampered, &key, &validation).is_err());

    let model_requests = s.models.requests();
    assert_eq!(model_requests.len(), 1);
    assert_eq!(
        model_requests[0].path,
        "/v1/projects/mock-project/locations/us-central1/publishers/google/models/mock-vertex:streamGenerateContent?alt=sse"
    );
    assert_eq!(
        model_requests[0].header("authorization"),
        Some("Bearer ya29.one")
    );
    assert_eq!(model_requests[0].header("x-goog-api-key"), None);
}

#[tokio::test]
async fn a_valid_token_is_reused_and_an_expiring_one_refreshed() {
    // 3599 s: cached. 200 s: inside the five-minute margin, refreshed on
    // the next call.
    let s = setup(
        vec![
            MockResponse::json(200, common::token_answer("ya29.long", 3599)),
            MockResponse::json(200, common::token_answer("ya29.short", 200)),
            MockResponse::json(200, common::token_answer("ya29.next", 3599)),
        ],
        2,
    )
    .await;
    for _ in 0..2 {
        let events = call(&s.provider).await;
        assert_eq!(final_message(&events).stop_reason, StopReason::Stop);
    }
    assert_eq!(
        s.tokens.requests().len(),
        1,
        "the second call used the cache"
    );
    let auth: Vec<_> = s
        .models
        .requests()
        .iter()
        .map(|r| r.header("authorization").unwrap().to_owned())
        .collect();
    assert_eq!(auth, ["Bearer ya29.long", "Bearer ya29.long"]);

    let s = setup(
        vec![
            MockResponse::json(200, common::token_answer("ya29.short", 200)),
            MockResponse::json(200, common::token_answer("ya29.next", 3599)),
        ],
        3,
    )
    .await;
    for _ in 0..3 {
        let events = call(&s.provider).await;
        assert_eq!(final_message(&events).stop_reason, StopReason::Stop);
    }
    assert_eq!(s.tokens.requests().len(), 2);
    let auth: Vec<_> = s
        .models
        .requests()
        .iter()
        .map(|r| r.header("authorization").unwrap().to_owned())
        .collect();
    assert_eq!(
        auth,
        ["Bearer ya29.short", "Bearer ya29.next", "Bearer ya29.next"]
    );
}

#[tokio::test]
async fn with_adc_the_hooks_see_the_model_call_only() {
    let s = setup(
        vec![MockResponse::json(
            200,
            common::token_answer("ya29.hooks", 3599),
        )],
        1,
    )
    .await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let mut options = options();
    options.base.on_payload = Some(PayloadHook::new(|mut body: Value, _: &Model| async move {
        tokio::task::yield_now().await;
        body["piHooked"] = json!(true);
        Some(body)
    }));
    options.base.on_response = Some(ResponseHook::sync(move |response| {
        record.lock().unwrap().push(response.status);
    }));
    let events: Vec<_> = s
        .provider
        .stream_simple(&model(), context().view(), options)
        .collect()
        .await;
    assert_eq!(final_message(&events).stop_reason, StopReason::Stop);
    assert_eq!(s.models.requests()[0].json()["piHooked"], true);
    assert_eq!(s.tokens.requests().len(), 1);
    assert_eq!(
        *seen.lock().unwrap(),
        [200],
        "the token answer is not reported"
    );
}

#[tokio::test]
async fn concurrent_calls_share_one_token_request() {
    let s = setup(
        vec![MockResponse::json(
            200,
            common::token_answer("ya29.shared", 3599),
        )],
        6,
    )
    .await;
    let results = join_all((0..6).map(|_| call(&s.provider))).await;
    for events in &results {
        assert_eq!(final_message(events).stop_reason, StopReason::Stop);
    }
    assert_eq!(s.tokens.requests().len(), 1);
    assert_eq!(s.models.requests().len(), 6);
}

#[tokio::test]
async fn a_refused_token_is_a_clear_auth_error_and_nothing_is_sent() {
    let s = setup(
        vec![MockResponse::json(
            400,
            r#"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#,
        )],
        1,
    )
    .await;
    let events = call(&s.provider).await;
    assert_eq!(events.len(), 1, "a lone error event");
    let message = final_message(&events);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some(
            format!(
                "Could not get a Google access token from {}/token: invalid_grant: Invalid JWT Signature.",
                s.tokens.url()
            )
            .as_str()
        )
    );
    assert_eq!(message.error_class, Some(ErrorClass::Auth));
    assert!(s.models.requests().is_empty());

    // Nothing cached: the next call asks again.
    s.tokens.push(MockResponse::json(
        200,
        common::token_answer("ya29.ok", 3599),
    ));
    let events = call(&s.provider).await;
    assert_eq!(final_message(&events).stop_reason, StopReason::Stop);
    assert_eq!(s.tokens.requests().len(), 2);
}

#[tokio::test]
async fn an_authorized_user_refreshes_its_token_with_its_quota_project() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = MockServer::start([MockResponse::json(
        200,
        common::token_answer("ya29.user", 3599),
    )])
    .await
    .unwrap();
    let models = MockServer::start([answer()]).await.unwrap();
    let user = json!({
        "type": "authorized_user", "client_id": "cid.apps.googleusercontent.com",
        "client_secret": "secret", "refresh_token": "1//refresh",
        "quota_project_id": "billing-project", "token_uri": format!("{}/token", tokens.url())
    });
    let credentials = common::write_credentials(dir.path(), &user);
    let provider = VertexProvider::of(VertexWire::with_env(common::adc_env(
        &credentials,
        &models.url(),
    )));
    let events = call(&provider).await;
    assert_eq!(final_message(&events).stop_reason, StopReason::Stop);
    let request = &tokens.requests()[0];
    let mut fields = form(request);
    fields.sort();
    assert_eq!(
        fields,
        [
            ("client_id".into(), "cid.apps.googleusercontent.com".into()),
            ("client_secret".into(), "secret".into()),
            ("grant_type".into(), "refresh_token".into()),
            ("refresh_token".into(), "1//refresh".into()),
        ]
    );
    let sent = &models.requests()[0];
    assert_eq!(sent.header("authorization"), Some("Bearer ya29.user"));
    assert_eq!(sent.header("x-goog-user-project"), Some("billing-project"));
}

async fn lone_error(provider: &VertexProvider, options: SimpleStreamOptions) -> String {
    let events: Vec<_> = provider
        .stream_simple(&model(), context().view(), options)
        .collect()
        .await;
    assert_eq!(events.len(), 1);
    final_message(&events).error_message.unwrap()
}

#[tokio::test]
async fn missing_project_location_or_credentials_are_named() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path().to_str().unwrap().to_owned();
    let env = |vars: &[(&str, &str)]| {
        let mut all = vec![("HOME", home.as_str())];
        all.extend_from_slice(vars);
        VertexProvider::of(VertexWire::with_env(VertexEnv::fixed(all)))
    };
    assert_eq!(
        lone_error(&env(&[]), options()).await,
        "Vertex AI requires a project ID. Set GOOGLE_CLOUD_PROJECT/GCLOUD_PROJECT or pass project in options."
    );
    assert_eq!(
        lone_error(&env(&[("GCLOUD_PROJECT", "p")]), options()).await,
        "Vertex AI requires a location. Set GOOGLE_CLOUD_LOCATION or pass location in options."
    );
    let message = lone_error(
        &env(&[
            ("GOOGLE_CLOUD_PROJECT", "p"),
            ("GOOGLE_CLOUD_LOCATION", "l"),
        ]),
        options(),
    )
    .await;
    assert!(
        message.starts_with("Could not load the default credentials.")
            && message.contains(".config/gcloud/application_default_credentials.json"),
        "{message}"
    );
    // pi's marker and a `<...>` placeholder are no keys: ADC is asked for.
    for key in ["gcp-vertex-credentials", " <authenticated> "] {
        let mut o = options();
        o.base.api_key = Some(key.into());
        let message = lone_error(&env(&[("GOOGLE_CLOUD_API_KEY", "from-env")]), o).await;
        assert!(
            message.starts_with("Vertex AI requires a project ID."),
            "{key}: {message}"
        );
    }
}

#[tokio::test]
async fn an_api_key_from_the_environment_needs_no_project() {
    let models = MockServer::start([answer()]).await.unwrap();
    let provider = VertexProvider::of(VertexWire::with_env(VertexEnv::fixed([
        ("GOOGLE_CLOUD_API_KEY", " env-key "),
        ("GOOGLE_VERTEX_BASE_URL", models.url().as_str()),
    ])));
    let mut o = options();
    o.base.api_key = None;
    let events: Vec<_> = provider
        .stream_simple(&model(), context().view(), o)
        .collect()
        .await;
    assert_eq!(final_message(&events).stop_reason, StopReason::Stop);
    let sent = &models.requests()[0];
    assert_eq!(sent.header("x-goog-api-key"), Some("env-key"));
    assert_eq!(
        sent.path,
        "/v1/publishers/google/models/mock-vertex:streamGenerateContent?alt=sse"
    );
}
