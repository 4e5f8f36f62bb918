//! `cargo xtask import-catalog <models.generated.js> [OUT]`: rewrites the
//! embedded model catalog of `pi-ai` from pi's generated model module.
//!
//! Node evaluates the module (it is plain JavaScript, but evaluating it is
//! the only robust parse) and prints its `MODELS` map as JSON; this side
//! flattens it to the catalog's format: a JSON list of models, provider by
//! provider and model by model in pi's order, one model per line.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Where the catalog lives, relative to the workspace root.
pub const DEFAULT_OUTPUT: &str = "crates/pi-ai/src/catalog/models.json";

/// The node program that prints the module's `MODELS` as JSON on stdout.
const DUMP_SCRIPT: &str = r#"
const { pathToFileURL } = await import("node:url");
const mod = await import(pathToFileURL(process.argv[1]).href);
if (!mod.MODELS || typeof mod.MODELS !== "object") {
  console.error("the module exports no MODELS object");
  process.exit(3);
}
process.stdout.write(JSON.stringify(mod.MODELS));
"#;

/// Why an import failed.
#[derive(Debug)]
pub enum ImportError {
    /// `node` could not be started.
    NodeMissing(std::io::Error),
    /// `node` ran but failed.
    NodeFailed(String),
    /// The dump is not the expected shape.
    Shape(String),
    /// Writing the catalog failed.
    Write(PathBuf, std::io::Error),
}

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NodeMissing(e) => write!(
                f,
                "cannot run `node` ({e}); Node.js is needed to evaluate pi's models.generated.js"
            ),
            Self::NodeFailed(message) => write!(f, "node failed: {message}"),
            Self::Shape(message) => write!(f, "unexpected MODELS shape: {message}"),
            Self::Write(path, e) => write!(f, "cannot write {}: {e}", path.display()),
        }
    }
}

/// Runs node on `module` and returns its `MODELS` object as JSON text.
pub fn dump_with_node(module: &Path) -> Result<String, ImportError> {
    let output = Command::new("node")
        .arg("--input-type=module")
        .arg("-e")
        .arg(DUMP_SCRIPT)
        .arg(module)
        .output()
        .map_err(ImportError::NodeMissing)?;
    if !output.status.success() {
        return Err(ImportError::NodeFailed(format!(
            "{}: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    String::from_utf8(output.stdout).map_err(|e| ImportError::NodeFailed(e.to_string()))
}

/// The catalog text for a `MODELS` dump: a JSON list with one model per
/// line, in the dump's order. Returns the text and the model count.
pub fn render_catalog(dump: &str) -> Result<(String, usize), ImportError> {
    let models: Value =
        serde_json::from_str(dump).map_err(|e| ImportError::Shape(e.to_string()))?;
    let providers = models
        .as_object()
        .ok_or_else(|| ImportError::Shape("not an object of providers".to_owned()))?;
    let mut lines = Vec::new();
    for (provider, by_id) in providers {
        let by_id = by_id
            .as_object()
            .ok_or_else(|| ImportError::Shape(format!("provider {provider} is not an object")))?;
        for (id, model) in by_id {
            let fields = model.as_object().ok_or_else(|| {
                ImportError::Shape(format!("model {provider}/{id} is not an object"))
            })?;
            for required in ["id", "name", "api", "provider", "baseUrl"] {
                if !fields.get(required).is_some_and(Value::is_string) {
                    return Err(ImportError::Shape(format!(
                        "model {provider}/{id} has no string {required}"
                    )));
                }
            }
            lines.push(model.to_string());
        }
    }
    let count = lines.len();
    Ok((format!("[\n{}\n]\n", lines.join(",\n")), count))
}

/// Imports `module` into `output` (atomically: a temp file, then rename).
pub fn import(module: &Path, output: &Path) -> Result<usize, ImportError> {
    let dump = dump_with_node(module)?;
    let (text, count) = render_catalog(&dump)?;
    let temp = output.with_extension("json.tmp");
    std::fs::write(&temp, text)
        .and_then(|()| std::fs::rename(&temp, output))
        .map_err(|e| ImportError::Write(output.to_path_buf(), e))?;
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dump_flattens_in_order_one_model_per_line() {
        let dump = r#"{"b":{"x":{"id":"x","name":"X","api":"a","provider":"b","baseUrl":"u","cost":{"input":0.5}}},"a":{"y":{"id":"y","name":"Y","api":"a","provider":"a","baseUrl":"u"}}}"#;
        let (text, count) = render_catalog(dump).unwrap();
        assert_eq!(count, 2);
        assert_eq!(
            text,
            "[\n{\"id\":\"x\",\"name\":\"X\",\"api\":\"a\",\"provider\":\"b\",\"baseUrl\":\"u\",\"cost\":{\"input\":0.5}},\n{\"id\":\"y\",\"name\":\"Y\",\"api\":\"a\",\"provider\":\"a\",\"baseUrl\":\"u\"}\n]\n"
        );
    }

    #[test]
    fn numbers_are_written_back_exactly() {
        let dump = r#"{"p":{"m":{"id":"m","name":"M","api":"a","provider":"p","baseUrl":"u","cost":{"output":0.44999999999999996,"cacheRead":0.09999999999999999}}}}"#;
        let (text, _) = render_catalog(dump).unwrap();
        assert!(
            text.contains("\"output\":0.44999999999999996,\"cacheRead\":0.09999999999999999"),
            "{text}"
        );
    }

    #[test]
    fn a_model_without_required_fields_is_refused() {
        let err = render_catalog(r#"{"p":{"m":{"id":"m"}}}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unexpected MODELS shape: model p/m has no string name"
        );
    }
}
