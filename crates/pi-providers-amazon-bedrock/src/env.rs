//! Where the wire reads its environment: the process environment, or a
//! fixed map (tests, embedders that keep AWS settings apart from the process).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// Environment variables and the home directory (`~/.aws`).
#[derive(Debug, Clone, Default)]
pub struct AwsEnvironment {
    vars: Option<Arc<BTreeMap<String, String>>>,
}

impl AwsEnvironment {
    /// The process environment (the default).
    pub fn process() -> Self {
        Self::default()
    }

    /// Only these variables (`HOME` among them names the home directory).
    pub fn from_vars<K: Into<String>, V: Into<String>>(
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        Self {
            vars: Some(Arc::new(
                vars.into_iter()
                    .map(|(k, v)| (k.into(), v.into()))
                    .collect(),
            )),
        }
    }

    /// The variable `name` when set and non-empty.
    pub fn var(&self, name: &str) -> Option<String> {
        let value = match &self.vars {
            Some(vars) => vars.get(name).cloned(),
            None => std::env::var(name).ok(),
        };
        value.filter(|v| !v.is_empty())
    }

    /// The home directory: `HOME` (also `USERPROFILE`), else the system's.
    pub fn home(&self) -> Option<PathBuf> {
        if let Some(home) = self.var("HOME").or_else(|| self.var("USERPROFILE")) {
            return Some(PathBuf::from(home));
        }
        match self.vars {
            Some(_) => None,
            None => dirs::home_dir(),
        }
    }

    /// `AWS_SHARED_CREDENTIALS_FILE`, else `~/.aws/credentials`.
    pub fn credentials_file(&self) -> Option<PathBuf> {
        self.var("AWS_SHARED_CREDENTIALS_FILE")
            .map(|path| self.expand(&path))
            .or_else(|| self.home().map(|h| h.join(".aws").join("credentials")))
    }

    /// `AWS_CONFIG_FILE`, else `~/.aws/config`.
    pub fn config_file(&self) -> Option<PathBuf> {
        self.var("AWS_CONFIG_FILE")
            .map(|path| self.expand(&path))
            .or_else(|| self.home().map(|h| h.join(".aws").join("config")))
    }

    /// A leading `~/` as the home directory.
    fn expand(&self, path: &str) -> PathBuf {
        match (path.strip_prefix("~/"), self.home()) {
            (Some(rest), Some(home)) => home.join(rest),
            _ => PathBuf::from(path),
        }
    }
}
