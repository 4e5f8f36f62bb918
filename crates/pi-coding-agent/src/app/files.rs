//! `@file` arguments, as pi handles them: a text file is inlined as
//! `<file name="/abs/path">\n{content}\n</file>\n`, an image is attached
//! and named by an empty `<file name="/abs/path"></file>\n`; the texts go
//! before the first message.

use std::path::{Path, PathBuf};

use base64::Engine;
use pi_ai::ImageContent;

use crate::tools::image_mime_type;
use crate::tools::image_resize::{
    IMAGE_OMITTED_NOTE, ResizeLimits, format_dimension_note, resize_image,
};

/// The text and images that `@file` arguments contribute.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileInputs {
    /// Inlined text files.
    pub text: String,
    /// Attached images.
    pub images: Vec<ImageContent>,
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

/// Splits `args` into `@file` inputs and plain messages, fitting images to
/// pi's size limits. A missing or unreadable file is an error naming it.
pub fn process_file_args(cwd: &Path, args: &[String]) -> Result<(FileInputs, Vec<String>), String> {
    process_file_args_with(cwd, args, true)
}

/// [`process_file_args`]; `resize_images: false` attaches images as they
/// are (pi's `images.autoResize: false`). Empty files are skipped; an
/// image is recognised by its content (png, jpeg, gif, webp). A resized
/// image's `<file>` tag carries pi's dimension note; one that cannot be made
/// small enough is left out with pi's note instead.
pub fn process_file_args_with(
    cwd: &Path,
    args: &[String],
    resize_images: bool,
) -> Result<(FileInputs, Vec<String>), String> {
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
        if bytes.is_empty() {
            continue;
        }
        if let Some(mime) = image_mime_type(&bytes) {
            let name = path.display();
            let (data, mime_type, note) = if resize_images {
                match resize_image(&bytes, mime, ResizeLimits::default()) {
                    Some(resized) => {
                        let note = format_dimension_note(&resized).unwrap_or_default();
                        (resized.data, resized.mime_type, note)
                    }
                    None => {
                        inputs.text.push_str(&format!(
                            "<file name=\"{name}\">{IMAGE_OMITTED_NOTE}</file>\n"
                        ));
                        continue;
                    }
                }
            } else {
                let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
                (data, mime.to_owned(), String::new())
            };
            inputs.images.push(ImageContent {
                data,
                mime_type,
                extra: serde_json::Map::new(),
            });
            inputs
                .text
                .push_str(&format!("<file name=\"{name}\">{note}</file>\n"));
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
        let small = crate::tools::image_resize::tests::test_png(4, 3);
        std::fs::write(dir.path().join("p.png"), &small).unwrap();
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
        assert_eq!(
            inputs.images[0].data,
            base64::engine::general_purpose::STANDARD.encode(&small)
        );
        let err = process_file_args(dir.path(), &["@missing".to_owned()]).unwrap_err();
        assert!(err.starts_with("Cannot read file"), "{err}");
    }

    #[test]
    fn large_images_are_resized_with_pis_note_and_empty_files_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let big = crate::tools::image_resize::tests::test_png(2500, 500);
        // The content decides, not the extension.
        std::fs::write(dir.path().join("shot.dat"), &big).unwrap();
        std::fs::write(dir.path().join("empty.txt"), "").unwrap();
        let args = vec!["@shot.dat".to_owned(), "@empty.txt".to_owned()];
        let (inputs, _) = process_file_args(dir.path(), &args).unwrap();
        assert_eq!(
            inputs.text,
            format!(
                "<file name=\"{}\">[Image: original 2500x500, displayed at 2000x400. Multiply coordinates by 1.25 to map to original image.]</file>\n",
                dir.path().join("shot.dat").display()
            )
        );
        assert_eq!(inputs.images.len(), 1);
        assert!(inputs.images[0].data.len() < 4_718_592);
        let (raw, _) = process_file_args_with(dir.path(), &args[..1], false).unwrap();
        assert_eq!(
            raw.images[0].data,
            base64::engine::general_purpose::STANDARD.encode(&big)
        );
        assert_eq!(raw.images[0].mime_type, "image/png");
    }
}
