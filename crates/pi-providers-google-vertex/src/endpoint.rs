//! Where a Vertex call goes, as pi 0.73.1 builds it through the Google Gen
//! AI SDK (`vertexai: true`, API version `v1`):
//!
//! - A model base URL that is set and has no `{location}` placeholder is a
//!   custom collection root: `{base}[/v1]/publishers/google/models/{id}`,
//!   `/v1` added only when the base has no version segment of its own, and
//!   no project path.
//! - Otherwise the root is `GOOGLE_VERTEX_BASE_URL` when set, else
//!   `https://aiplatform.googleapis.com` (API key, or location `global`),
//!   `https://aiplatform.{us|eu}.rep.googleapis.com` (multi-region) or
//!   `https://{location}-aiplatform.googleapis.com`, then `/v1`, then with
//!   ADC `projects/{project}/locations/{location}/`.
//! - The model path is `publishers/google/models/{id}` for a plain id,
//!   `publishers/{a}/models/{b}` for `a/b`, the id itself when it starts
//!   with `publishers/`, `projects/` or `models/`.
//! - Then `:streamGenerateContent?alt=sse`.

/// The API version pi asks the SDK for.
pub const API_VERSION: &str = "v1";

/// The host of Vertex's global and API-key (express) endpoint.
pub const GLOBAL_ROOT: &str = "https://aiplatform.googleapis.com";

/// How the call authenticates, as far as the URL cares.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Target {
    /// API key (Vertex express mode): no project path.
    #[default]
    ApiKey,
    /// Application Default Credentials for this project and location.
    Project {
        /// Google Cloud project id.
        project: String,
        /// Region, `global`, `us` or `eu`.
        location: String,
    },
}

/// The full `streamGenerateContent` URL of `model_id` for a model base URL
/// `base_url`, the value of `GOOGLE_VERTEX_BASE_URL` (`env_base`) and
/// `target`.
pub fn stream_url(
    base_url: &str,
    env_base: Option<&str>,
    model_id: &str,
    target: &Target,
) -> String {
    let model = model_path(model_id);
    let custom = custom_base_url(base_url);
    let mut url = match custom {
        Some(base) => {
            let mut url = base.trim_end_matches('/').to_owned();
            if !includes_api_version(base) {
                url.push('/');
                url.push_str(API_VERSION);
            }
            url
        }
        None => {
            let root = match (env_base, target) {
                (Some(base), _) => base.to_owned(),
                (None, Target::ApiKey) => GLOBAL_ROOT.to_owned(),
                (None, Target::Project { location, .. }) => default_root(location),
            };
            format!("{}/{API_VERSION}", root.trim_end_matches('/'))
        }
    };
    if let (None, Target::Project { project, location }) = (custom, target)
        && !model.starts_with("projects/")
    {
        url.push_str(&format!("/projects/{project}/locations/{location}"));
    }
    url.push('/');
    url.push_str(&model);
    url.push_str(":streamGenerateContent?alt=sse");
    url
}

/// The regional root for ADC calls to `location`.
fn default_root(location: &str) -> String {
    match location {
        "global" => GLOBAL_ROOT.to_owned(),
        "us" | "eu" => format!("https://aiplatform.{location}.rep.googleapis.com"),
        _ => format!("https://{location}-aiplatform.googleapis.com"),
    }
}

/// The model base URL pi passes to the SDK: trimmed, and only when it is
/// set and not the catalog's `{location}` template.
pub fn custom_base_url(base_url: &str) -> Option<&str> {
    let trimmed = base_url.trim();
    (!trimmed.is_empty() && !trimmed.contains("{location}")).then_some(trimmed)
}

/// True when a path segment of `base` is an API version (`v1`, `v1beta`,
/// `v1beta1`): pi then sends no version of its own.
fn includes_api_version(base: &str) -> bool {
    let path = match url::Url::parse(base) {
        Ok(url) => url.path().to_owned(),
        Err(_) => base.to_owned(),
    };
    path.split('/').any(is_version_segment)
}

/// `^v\d+(?:beta\d*)?$`.
fn is_version_segment(segment: &str) -> bool {
    let Some(rest) = segment.strip_prefix('v') else {
        return false;
    };
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return false;
    }
    let rest = &rest[digits..];
    rest.is_empty()
        || rest
            .strip_prefix("beta")
            .is_some_and(|tail| tail.bytes().all(|b| b.is_ascii_digit()))
}

/// The SDK's model resource path for `id` on Vertex.
fn model_path(id: &str) -> String {
    if id.starts_with("publishers/") || id.starts_with("projects/") || id.starts_with("models/") {
        return id.to_owned();
    }
    match id.split_once('/') {
        Some((publisher, rest)) => {
            let name = rest.split('/').next().unwrap_or(rest);
            format!("publishers/{publisher}/models/{name}")
        }
        None => format!("publishers/google/models/{id}"),
    }
}

#[cfg(test)]
#[path = "endpoint_tests.rs"]
mod tests;
