//! The environment a Vertex call reads: process variables by default, a
//! fixed map in tests (so a test never depends on the machine's Google
//! Cloud setup).

use std::collections::BTreeMap;
use std::sync::Arc;

/// Where a Vertex call reads `GOOGLE_CLOUD_API_KEY`, `GOOGLE_CLOUD_PROJECT`,
/// `GOOGLE_APPLICATION_CREDENTIALS`, `HOME` and the others.
#[derive(Clone)]
pub struct VertexEnv {
    source: Source,
}

#[derive(Clone)]
enum Source {
    Process,
    Fixed(Arc<BTreeMap<String, String>>),
}

impl std::fmt::Debug for VertexEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.source {
            Source::Process => f.write_str("VertexEnv(process)"),
            Source::Fixed(vars) => f
                .debug_tuple("VertexEnv")
                .field(&vars.keys().collect::<Vec<_>>())
                .finish(),
        }
    }
}

impl Default for VertexEnv {
    fn default() -> Self {
        Self::process()
    }
}

impl VertexEnv {
    /// The process environment.
    pub fn process() -> Self {
        Self {
            source: Source::Process,
        }
    }

    /// Exactly these variables, nothing from the process.
    pub fn fixed<K: Into<String>, V: Into<String>>(vars: impl IntoIterator<Item = (K, V)>) -> Self {
        Self {
            source: Source::Fixed(Arc::new(
                vars.into_iter()
                    .map(|(k, v)| (k.into(), v.into()))
                    .collect(),
            )),
        }
    }

    /// The raw value of `name` (`None` when unset).
    pub fn raw(&self, name: &str) -> Option<String> {
        match &self.source {
            Source::Process => std::env::var(name).ok(),
            Source::Fixed(vars) => vars.get(name).cloned(),
        }
    }

    /// `name` when set and not empty (JavaScript's `process.env.X ||`).
    pub fn var(&self, name: &str) -> Option<String> {
        self.raw(name).filter(|v| !v.is_empty())
    }

    /// `name` trimmed, when that leaves something (`process.env.X?.trim()`).
    pub fn trimmed(&self, name: &str) -> Option<String> {
        self.raw(name)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    }
}
