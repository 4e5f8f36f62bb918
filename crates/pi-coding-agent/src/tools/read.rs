//! `read {path, offset?, limit?}`: a text file with head truncation and a
//! note on how to continue, or an image as an image block.

use std::io::Read;
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use base64::Engine as _;
use pi_agent_core::{AgentToolResult, ArgumentConversion, ToolError, ToolUpdateFn, TypedTool};
use pi_ai::{CancellationToken, UserBlock};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::image_resize::{IMAGE_OMITTED_NOTE, ResizeLimits, format_dimension_note, resize_image};
use super::path::resolve_read_path;
use super::read_lines::{Selection, select_lines};
use super::truncate::{
    DEFAULT_MAX_BYTES, TruncatedBy, TruncationOptions, TruncationResult, format_size, truncate_head,
};
use super::{ImageInputProbe, node_io_error, run_blocking, to_count};

/// How many leading bytes are checked for NUL to call a file binary.
const BINARY_SNIFF_BYTES: usize = 8192;

/// pi's extra line under an image read for a model without image input.
pub const NON_VISION_IMAGE_NOTE: &str =
    "[Current model does not support images. The image will be omitted from this request.]";

/// The `read` tool.
#[derive(Debug)]
pub struct ReadTool {
    cwd: PathBuf,
    parameters: Value,
    image_input: Option<ImageInputProbe>,
    resize_images: bool,
}

/// The arguments of `read`, as the model sends them (opaque: built from
/// that JSON).
#[derive(Debug, Deserialize)]
pub struct ReadArgs {
    path: String,
    offset: Option<f64>,
    limit: Option<f64>,
}

/// `details` of a truncated read.
#[derive(Debug, Serialize)]
struct ReadDetails {
    truncation: TruncationResult,
}

impl ReadTool {
    /// A read tool resolving paths against `cwd`, that knows nothing of the
    /// model (image reads carry no note on image support).
    pub fn new(cwd: &Path) -> Self {
        Self::with_image_input(cwd, None)
    }

    /// A read tool that asks `image_input` at each image read whether the
    /// current model takes images, and adds pi's note when it does not.
    pub fn with_image_input(cwd: &Path, image_input: Option<ImageInputProbe>) -> Self {
        Self {
            cwd: cwd.to_path_buf(),
            image_input,
            resize_images: true,
            parameters: json!({
                "type": "object",
                "required": ["path"],
                "properties": {
                    "path": {
                        "type": "string",
                        "description": "File to read, relative to the working directory or absolute"
                    },
                    "offset": {
                        "type": "number",
                        "description": "First line to return, counting from 1"
                    },
                    "limit": {
                        "type": "number",
                        "description": "How many lines to return at most"
                    }
                }
            }),
        }
    }
}

impl ReadTool {
    /// Whether images are fitted to pi's size limits before they are sent
    /// (the default; pi's `images.autoResize`).
    pub fn with_image_resize(mut self, resize: bool) -> Self {
        self.resize_images = resize;
        self
    }
}

#[async_trait]
impl TypedTool for ReadTool {
    type Args = ReadArgs;

    fn name(&self) -> &str {
        "read"
    }

    fn description(&self) -> &str {
        "Read a file. Text comes back as text; png, jpeg, gif and webp images come back as \
         image attachments. Text output stops after 2000 lines or 50KB, whichever comes \
         first, and then says which offset to continue from. Use offset and limit to page \
         through large files, and keep going with offset when you need all of it."
    }

    fn parameters(&self) -> &Value {
        &self.parameters
    }

    fn argument_conversion(&self) -> ArgumentConversion {
        ArgumentConversion::TypeBox
    }

    async fn run(
        &self,
        _call_id: &str,
        args: ReadArgs,
        cancel: CancellationToken,
        _on_update: ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError> {
        let cwd = self.cwd.clone();
        let images_supported = self
            .image_input
            .as_ref()
            .and_then(ImageInputProbe::supports_images);
        let resize = self.resize_images;
        run_blocking(&cancel, move |_| {
            read_file(&cwd, &args, images_supported, resize)
        })
        .await
    }
}

/// `images_supported`: whether the current model takes images (`None`:
/// no model known); `resize`: fit images to pi's limits.
fn read_file(
    cwd: &Path,
    args: &ReadArgs,
    images_supported: Option<bool>,
    resize: bool,
) -> Result<AgentToolResult, ToolError> {
    let absolute = resolve_read_path(&args.path, cwd);
    let metadata = std::fs::metadata(&absolute)
        .map_err(|e| ToolError::new(node_io_error(&e, "access", &absolute)))?;
    if metadata.is_dir() {
        return Err(ToolError::new(
            "EISDIR: illegal operation on a directory, read",
        ));
    }
    special_file_error(&metadata, &args.path, "read")?;
    let open_error = |e: std::io::Error| ToolError::new(node_io_error(&e, "open", &absolute));
    let mut file = std::fs::File::open(&absolute).map_err(open_error)?;
    let mut head = Vec::with_capacity(BINARY_SNIFF_BYTES);
    (&mut file)
        .take(BINARY_SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(open_error)?;

    if let Some(mime_type) = image_mime_type(&head) {
        let mut bytes = head;
        file.read_to_end(&mut bytes).map_err(open_error)?;
        return Ok(read_image(&bytes, mime_type, images_supported, resize));
    }
    if head.contains(&0) {
        return Err(ToolError::new(format!(
            "Cannot read {}: it is a binary file (only text files and png, jpeg, gif or webp \
             images can be read). Use bash to inspect it, for example with `file` or `xxd`.",
            args.path
        )));
    }
    read_text(std::io::Cursor::new(head).chain(file), args, &absolute)
}

/// An image read: pi's `Read image file [mime]` line (with the dimension
/// note of a resized image and the note for a model without image input)
/// and the image, or only the text when it cannot be made small enough.
fn read_image(
    bytes: &[u8],
    mime_type: &str,
    images_supported: Option<bool>,
    resize: bool,
) -> AgentToolResult {
    let non_vision = (images_supported == Some(false)).then_some(NON_VISION_IMAGE_NOTE);
    let (note, image) = if resize {
        match resize_image(bytes, mime_type, ResizeLimits::default()) {
            Some(resized) => {
                let mut note = format!("Read image file [{}]", resized.mime_type);
                if let Some(dimensions) = format_dimension_note(&resized) {
                    note.push('\n');
                    note.push_str(&dimensions);
                }
                (note, Some((resized.data, resized.mime_type)))
            }
            None => (
                format!("Read image file [{mime_type}]\n{IMAGE_OMITTED_NOTE}"),
                None,
            ),
        }
    } else {
        let data = base64::engine::general_purpose::STANDARD.encode(bytes);
        (
            format!("Read image file [{mime_type}]"),
            Some((data, mime_type.to_owned())),
        )
    };
    let mut note = note;
    if let Some(extra) = non_vision {
        note.push('\n');
        note.push_str(extra);
    }
    let mut content = vec![UserBlock::text(note)];
    if let Some((data, mime)) = image {
        content.push(UserBlock::image(data, mime));
    }
    AgentToolResult {
        content,
        details: Value::Null,
        terminate: None,
    }
}

/// The text part of `read`: offset/limit selection, truncation and notices,
/// streaming the text once in bounded memory.
fn read_text(
    reader: impl Read,
    args: &ReadArgs,
    path: &Path,
) -> Result<AgentToolResult, ToolError> {
    let start = args.offset.map_or(0, |o| to_count(o).saturating_sub(1));
    let wanted_end = match args.limit {
        Some(limit) => start.saturating_add(to_count(limit)),
        None => usize::MAX,
    };
    let options = TruncationOptions::default();
    let selection = select_lines(
        reader,
        start,
        wanted_end,
        options.max_lines,
        options.max_bytes,
    )
    .map_err(|e| ToolError::new(node_io_error(&e, "read", path)))?;
    let total = selection.total_lines;
    if start >= total {
        return Err(ToolError::new(format!(
            "Offset {} is beyond end of file ({total} lines total)",
            args.offset.map_or_else(String::new, js_number)
        )));
    }
    Ok(format_text(&selection, start, wanted_end.min(total), args))
}

/// The result text of a selection: content, truncation notices, details.
fn format_text(
    selection: &Selection,
    start: usize,
    end: usize,
    args: &ReadArgs,
) -> AgentToolResult {
    let total = selection.total_lines;
    let start_display = start + 1;
    let mut truncation = truncate_head(&selection.kept, TruncationOptions::default());
    if !selection.complete {
        // Only a prefix was kept: report the sizes of the whole selection.
        truncation.total_lines = selection.selected_lines;
        truncation.total_bytes = selection.selected_bytes;
    }

    if truncation.first_line_exceeds_limit {
        let size = format_size(selection.first_line_bytes);
        let limit = format_size(DEFAULT_MAX_BYTES);
        let text = format!(
            "[Line {start_display} is {size}, exceeds {limit} limit. Use bash: sed -n \
             '{start_display}p' {} | head -c {DEFAULT_MAX_BYTES}]",
            args.path
        );
        return AgentToolResult::with_details(
            vec![UserBlock::text(text)],
            &ReadDetails { truncation },
        );
    }
    if truncation.truncated {
        let end_display = start_display + truncation.output_lines - 1;
        let next = end_display + 1;
        let limit_note = match truncation.truncated_by {
            Some(TruncatedBy::Bytes) => format!(" ({} limit)", format_size(DEFAULT_MAX_BYTES)),
            Some(TruncatedBy::Lines) | None => String::new(),
        };
        let text = format!(
            "{}\n\n[Showing lines {start_display}-{end_display} of {total}{limit_note}. Use \
             offset={next} to continue.]",
            truncation.content
        );
        return AgentToolResult::with_details(
            vec![UserBlock::text(text)],
            &ReadDetails { truncation },
        );
    }
    let mut out = truncation.content;
    if args.limit.is_some() && end < total {
        out.push_str(&format!(
            "\n\n[{} more lines in file. Use offset={} to continue.]",
            total - end,
            end + 1
        ));
    }
    AgentToolResult::text(out)
}

/// Refuses a path that is neither a regular file nor a directory (a FIFO
/// would block forever, `/dev/zero` would fill memory): pi-rs only reads and
/// edits regular files.
pub(crate) fn special_file_error(
    metadata: &std::fs::Metadata,
    path: &str,
    verb: &str,
) -> Result<(), ToolError> {
    use std::os::unix::fs::FileTypeExt;
    let file_type = metadata.file_type();
    if file_type.is_file() || file_type.is_dir() {
        return Ok(());
    }
    let kind = if file_type.is_fifo() {
        "a FIFO (named pipe)"
    } else if file_type.is_char_device() || file_type.is_block_device() {
        "a device"
    } else if file_type.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    };
    Err(ToolError::new(format!(
        "Cannot {verb} {path}: it is {kind}; only regular files are supported. Use bash to inspect it."
    )))
}

/// The MIME type of a supported image, recognised by its magic bytes.
pub(crate) fn image_mime_type(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// A JSON number printed the way JavaScript prints it (`3`, not `3.0`).
fn js_number(value: f64) -> String {
    format!("{value}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_bytes_pick_the_mime_type() {
        assert_eq!(image_mime_type(b"\x89PNG\r\n\x1a\nrest"), Some("image/png"));
        assert_eq!(
            image_mime_type(&[0xFF, 0xD8, 0xFF, 0xE0]),
            Some("image/jpeg")
        );
        assert_eq!(image_mime_type(b"GIF89a...."), Some("image/gif"));
        assert_eq!(image_mime_type(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(image_mime_type(b"hello"), None);
    }

    #[test]
    fn offsets_print_like_javascript() {
        assert_eq!(js_number(7.0), "7");
        assert_eq!(js_number(2.5), "2.5");
    }
}
