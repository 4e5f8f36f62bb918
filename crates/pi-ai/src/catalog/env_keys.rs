//! API keys from environment variables (pi 0.73.1's `env-api-keys.ts`).

use std::path::{Path, PathBuf};

/// What [`get_env_api_key`] returns for providers whose ambient credentials
/// (Vertex ADC, AWS profiles and roles) are found but are not a key.
const AUTHENTICATED: &str = "<authenticated>";

/// Providers whose key is exactly one variable.
const SINGLE_VARIABLE_KEYS: &[(&str, &str)] = &[
    ("openai", "OPENAI_API_KEY"),
    ("azure-openai-responses", "AZURE_OPENAI_API_KEY"),
    ("deepseek", "DEEPSEEK_API_KEY"),
    ("google", "GEMINI_API_KEY"),
    ("groq", "GROQ_API_KEY"),
    ("cerebras", "CEREBRAS_API_KEY"),
    ("xai", "XAI_API_KEY"),
    ("openrouter", "OPENROUTER_API_KEY"),
    ("vercel-ai-gateway", "AI_GATEWAY_API_KEY"),
    ("zai", "ZAI_API_KEY"),
    ("mistral", "MISTRAL_API_KEY"),
    ("minimax", "MINIMAX_API_KEY"),
    ("minimax-cn", "MINIMAX_CN_API_KEY"),
    ("moonshotai", "MOONSHOT_API_KEY"),
    ("moonshotai-cn", "MOONSHOT_API_KEY"),
    ("huggingface", "HF_TOKEN"),
    ("fireworks", "FIREWORKS_API_KEY"),
    ("opencode", "OPENCODE_API_KEY"),
    ("opencode-go", "OPENCODE_API_KEY"),
    ("kimi-coding", "KIMI_API_KEY"),
    ("cloudflare-workers-ai", "CLOUDFLARE_API_KEY"),
    ("cloudflare-ai-gateway", "CLOUDFLARE_API_KEY"),
    ("xiaomi", "XIAOMI_API_KEY"),
    ("xiaomi-token-plan-cn", "XIAOMI_TOKEN_PLAN_CN_API_KEY"),
    ("xiaomi-token-plan-ams", "XIAOMI_TOKEN_PLAN_AMS_API_KEY"),
    ("xiaomi-token-plan-sgp", "XIAOMI_TOKEN_PLAN_SGP_API_KEY"),
];

/// Anthropic: an OAuth token takes precedence over the API key.
const ANTHROPIC_KEYS: &[&str] = &["ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"];

/// GitHub Copilot tokens, first set wins.
const COPILOT_KEYS: &[&str] = &["COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"];

/// Any one of these means Amazon Bedrock has ambient credentials
/// (a profile, a bearer token, ECS task roles, IRSA).
const BEDROCK_SINGLE_CREDENTIALS: &[&str] = &[
    "AWS_PROFILE",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
];

/// The API key for `provider` from the process environment (pi's
/// `getEnvApiKey`). Empty variables count as unset. Vertex with Application
/// Default Credentials and Bedrock with AWS credentials yield
/// `"<authenticated>"`. Providers that only work with OAuth get `None`.
pub fn get_env_api_key(provider: &str) -> Option<String> {
    get_env_api_key_from(provider, |name| std::env::var(name).ok())
}

/// [`get_env_api_key`] reading variables through `lookup` instead of the
/// process environment (for tests and for callers with their own env map).
/// The Vertex ADC check still looks at the file system, at the path
/// `lookup` gives for `GOOGLE_APPLICATION_CREDENTIALS` or else under the
/// home directory (`HOME`, then `USERPROFILE`).
pub fn get_env_api_key_from(
    provider: &str,
    lookup: impl Fn(&str) -> Option<String>,
) -> Option<String> {
    let var = |name: &str| lookup(name).filter(|value| !value.is_empty());
    let first_set = |names: &[&str]| names.iter().find_map(|name| var(name));

    match provider {
        "github-copilot" => first_set(COPILOT_KEYS),
        "anthropic" => first_set(ANTHROPIC_KEYS),
        "google-vertex" => var("GOOGLE_CLOUD_API_KEY").or_else(|| {
            let has_project = first_set(&["GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT"]).is_some();
            let has_location = var("GOOGLE_CLOUD_LOCATION").is_some();
            (has_project && has_location && has_vertex_adc_credentials(&var))
                .then(|| AUTHENTICATED.to_owned())
        }),
        "amazon-bedrock" => {
            let has_keys =
                var("AWS_ACCESS_KEY_ID").is_some() && var("AWS_SECRET_ACCESS_KEY").is_some();
            (has_keys || first_set(BEDROCK_SINGLE_CREDENTIALS).is_some())
                .then(|| AUTHENTICATED.to_owned())
        }
        _ => single_variable(provider).and_then(var),
    }
}

/// The main environment variable holding `provider`'s key, for messages
/// such as "set X". Anthropic names `ANTHROPIC_API_KEY` (an
/// `ANTHROPIC_OAUTH_TOKEN` is also honoured), Copilot `COPILOT_GITHUB_TOKEN`,
/// Vertex `GOOGLE_CLOUD_API_KEY` and Bedrock `AWS_PROFILE`, the first of the
/// credential sources pi checks. `None` for a provider pi has no variable for.
pub fn env_api_key_var(provider: &str) -> Option<&'static str> {
    match provider {
        "anthropic" => Some("ANTHROPIC_API_KEY"),
        "github-copilot" => Some("COPILOT_GITHUB_TOKEN"),
        "google-vertex" => Some("GOOGLE_CLOUD_API_KEY"),
        "amazon-bedrock" => Some("AWS_PROFILE"),
        _ => single_variable(provider),
    }
}

/// The variable of a provider from [`SINGLE_VARIABLE_KEYS`].
fn single_variable(provider: &str) -> Option<&'static str> {
    SINGLE_VARIABLE_KEYS
        .iter()
        .find(|(name, _)| *name == provider)
        .map(|(_, variable)| *variable)
}

/// True when Application Default Credentials exist: the file named by
/// `GOOGLE_APPLICATION_CREDENTIALS`, or else gcloud's default file under the
/// home directory.
fn has_vertex_adc_credentials(var: &impl Fn(&str) -> Option<String>) -> bool {
    let path = match var("GOOGLE_APPLICATION_CREDENTIALS") {
        Some(path) => PathBuf::from(path),
        None => match var("HOME").or_else(|| var("USERPROFILE")) {
            Some(home) => Path::new(&home)
                .join(".config")
                .join("gcloud")
                .join("application_default_credentials.json"),
            None => return false,
        },
    };
    path.exists()
}
