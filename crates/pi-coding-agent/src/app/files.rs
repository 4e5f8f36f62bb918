//! `@file` arguments, as pi handles them: a text file is inlined as
//! `<file name="/abs/path">\n{content}\n</file>\n`, an image is attached
//! and named by an empty `<file name="/abs/path"></file>\n`; the texts go
//! before the first message. Paths resolve as the `read` tool's do
//! ([`crate::tools::path::resolve_read_path`]: `~`, Unicode spaces, macOS
//! screenshot names), then lexically normalized like Node's `path.resolve`.

use std::path::Path;

use base64::Engine;
use pi_ai::ImageContent;

use super::AppError;
use crate::tools::image_mime_type;
use crate::tools::image_resize::{
    IMAGE_OMITTED_NOTE, ResizeLimits, format_dimension_note, resize_image,
};
use crate::tools::path::{normalize_lexically, resolve_read_path};

/// The text and images that `@file` arguments contribute.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileInputs {
    /// Inlined text files.
    pub text: String,
    /// Attached images.
    pub images: Vec<ImageContent>,
}

/// Splits `args` into `@file` inputs and plain messages, fitting images to
/// pi's size limits. A missing or unreadable file is an error naming it.
pub fn process_file_args(
    cwd: &Path,
    args: &[String],
) -> Result<(FileInputs, Vec<String>), AppError> {
    process_file_args_with(cwd, args, true)
}

/// [`process_file_args`]; `resize_images: false` attaches images as they
/// are (pi's `images.autoResize: false`). Empty files are skipped; an
/// image is recognised by its content (png, jpeg, gif, webp), as by the
/// `read` tool; any other file is text (invalid UTF-8 replaced, as Node
/// decodes it). A resized
/// image's `<file>` tag carries pi's dimension note; one that cannot be made
/// small enough is left out with pi's note instead.
pub fn process_file_args_with(
    cwd: &Path,
    args: &[String],
    resize_images: bool,
) -> Result<(FileInputs, Vec<String>), AppError> {
    let mut inputs = FileInputs::default();
    let mut messages = Vec::new();
    for arg in args {
        let Some(raw) = arg.strip_prefix('@').filter(|r| !r.is_empty()) else {
            messages.push(arg.clone());
            continue;
        };
        let path = normalize_lexically(&resolve_read_path(raw, cwd));
        if !path.exists() {
            return Err(AppError::FileNotFound(path));
        }
        // A FIFO (`@<(git diff)`) or device is read too, within the bound.
        let bytes = crate::file_read::read_input(&path, crate::file_read::INPUT_FILE_LIMIT)
            .map_err(|source| AppError::ReadFile {
                path: path.clone(),
                source,
            })?;
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
                extra: pi_ai::ExtraFields::new(),
            });
            inputs
                .text
                .push_str(&format!("<file name=\"{name}\">{note}</file>\n"));
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
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
        assert_eq!(
            err.to_string(),
            format!("File not found: {}", dir.path().join("missing").display())
        );
        let err = process_file_args(dir.path(), &["@.".to_owned()]).unwrap_err();
        assert!(
            err.to_string()
                .starts_with(&format!("Could not read file {}: ", dir.path().display())),
            "{err}"
        );
    }

    #[test]
    fn paths_resolve_as_the_read_tool_resolves_them() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        // macOS screenshot names: typed with a plain space, stored with U+202F.
        let shot = dir.path().join("Shot 1.00\u{202F}PM.txt");
        std::fs::write(&shot, "shot").unwrap();
        let bad = dir.path().join("bad.txt");
        std::fs::write(&bad, b"a\xFFb").unwrap();
        let args = ["@sub/../Shot 1.00 PM.txt".to_owned(), "@bad.txt".to_owned()];
        let (inputs, _) = process_file_args(dir.path(), &args).unwrap();
        assert_eq!(
            inputs.text,
            format!(
                "<file name=\"{}\">\nshot\n</file>\n<file name=\"{}\">\na\u{FFFD}b\n</file>\n",
                shot.display(),
                bad.display()
            )
        );
        // `~/` is the home directory, as for the tools.
        let home = dirs::home_dir().unwrap();
        let missing = "pi-rs-no-such-file-7f3a1c";
        let err = process_file_args(dir.path(), &[format!("@~/{missing}")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("File not found: {}", home.join(missing).display())
        );
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
