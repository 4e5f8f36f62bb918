//! `@file` arguments, as pi handles them: a text file is inlined as
//! `<file name="/abs/path">\n{content}\n</file>\n`, an image is attached
//! and named by an empty `<file name="/abs/path"></file>\n`; the texts go
//! before the first message.

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

/// The absolute path of `raw` (with `~` expanded), normalized lexically
/// like Node's `path.resolve` (symlinks are not followed).
fn resolve(cwd: &Path, raw: &str) -> PathBuf {
    let joined = match raw.strip_prefix("~/").zip(dirs::home_dir()) {
        Some((rest, home)) => home.join(rest),
        None => cwd.join(raw),
    };
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
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
            inputs
                .text
                .push_str(&format!("<file name=\"{}\"></file>\n", path.display()));
            continue;
        }
        let text =
            String::from_utf8(bytes).map_err(|_| format!("File {} is not text", path.display()))?;
        inputs.text.push_str(&format!(
            "<file name=\"{}\">\n{text}\n</file>\n",
            path.display()
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
        let (a, p) = (dir.path().join("a.txt"), dir.path().join("p.png"));
        assert_eq!(
            inputs.text,
            format!(
                "<file name=\"{}\">\nalpha\n\n</file>\n<file name=\"{}\"></file>\n",
                a.display(),
                p.display()
            )
        );
        assert_eq!(inputs.images.len(), 1);
        assert_eq!(inputs.images[0].mime_type, "image/png");
        assert_eq!(inputs.images[0].data, "iVBORw==");
        let err = process_file_args(dir.path(), &["@missing".to_owned()]).unwrap_err();
        assert!(err.starts_with("Cannot read file"), "{err}");
    }
}
