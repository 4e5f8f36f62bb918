//! `@file` arguments: text files are inlined as
//! `<file name="/abs/path">\n...\n</file>\n` before the first message, images
//! are attached to it.

use std::path::{Path, PathBuf};

use base64::Engine;
use pi_ai::ImageContent;

/// The text and images that `@file` arguments contribute.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileInputs {
    /// Inlined text files.
    pub text: String,
    /// Attached images.
    pub images: Vec<ImageContent>,
}

fn image_mime(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "png" => Some("image/png"),
        "jpg" | "jpeg" => Some("image/jpeg"),
        "gif" => Some("image/gif"),
        "webp" => Some("image/webp"),
        _ => None,
    }
}

fn resolve(cwd: &Path, raw: &str) -> PathBuf {
    if let Some(rest) = raw.strip_prefix("~/")
        && let Some(home) = dirs::home_dir()
    {
        return home.join(rest);
    }
    cwd.join(raw)
}

/// Splits `args` into `@file` inputs and plain messages. A missing or
/// unreadable file is an error naming it.
pub fn process_file_args(cwd: &Path, args: &[String]) -> Result<(FileInputs, Vec<String>), String> {
    let mut inputs = FileInputs::default();
    let mut messages = Vec::new();
    for arg in args {
        let Some(raw) = arg.strip_prefix('@').filter(|r| !r.is_empty()) else {
            messages.push(arg.clone());
            continue;
        };
        let path = resolve(cwd, raw);
        let bytes = std::fs::read(&path)
            .map_err(|e| format!("Cannot read file {}: {e}", path.display()))?;
        if let Some(mime) = image_mime(&path) {
            let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
            inputs.images.push(ImageContent {
                data,
                mime_type: mime.to_owned(),
                extra: serde_json::Map::new(),
            });
            continue;
        }
        let text =
            String::from_utf8(bytes).map_err(|_| format!("File {} is not text", path.display()))?;
        let shown = std::fs::canonicalize(&path).unwrap_or(path);
        inputs.text.push_str(&format!(
            "<file name=\"{}\">\n{}\n</file>\n",
            shown.display(),
            text.trim_end_matches('\n')
        ));
    }
    Ok((inputs, messages))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_files_are_inlined_and_images_attached() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "alpha\n").unwrap();
        std::fs::write(dir.path().join("p.png"), [0x89, b'P', b'N', b'G']).unwrap();
        let args = vec![
            "@a.txt".to_owned(),
            "@p.png".to_owned(),
            "explain".to_owned(),
        ];
        let (inputs, messages) = process_file_args(dir.path(), &args).unwrap();
        assert_eq!(messages, ["explain"]);
        let abs = std::fs::canonicalize(dir.path().join("a.txt")).unwrap();
        assert_eq!(
            inputs.text,
            format!("<file name=\"{}\">\nalpha\n</file>\n", abs.display())
        );
        assert_eq!(inputs.images.len(), 1);
        assert_eq!(inputs.images[0].mime_type, "image/png");
        assert_eq!(inputs.images[0].data, "iVBORw==");
        let err = process_file_args(dir.path(), &["@missing".to_owned()]).unwrap_err();
        assert!(err.starts_with("Cannot read file"), "{err}");
    }
}
