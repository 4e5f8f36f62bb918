#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The file tools `read`, `write` and `edit`: happy paths, pi's notices and
//! error texts, and results compared with what pi 0.73.1 recorded in
//! `fixtures/pi-0.73.1/c-read-edit-*`.

use crate::tools_common::{run, text};
use base64::Engine as _;
use std::fs;
use std::path::Path;

use pi_agent_core::{AgentTool, ignore_updates};
use pi_ai::{CancellationToken, UserBlock};
use pi_coding_agent::tools::{EditTool, ReadTool, WriteTool};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// `{content, details?}` of the named tool's result in a fixture session.
fn fixture_result(tool: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/pi-0.73.1/c-read-edit-oai/session.jsonl");
    let session = fs::read_to_string(path).unwrap();
    for line in session.lines() {
        let entry: Value = serde_json::from_str(line).unwrap();
        let message = &entry["message"];
        if message["role"] == "toolResult" && message["toolName"] == tool {
            let mut result = json!({ "content": message["content"] });
            if let Some(details) = message.get("details") {
                result["details"] = details.clone();
            }
            return result;
        }
    }
    panic!("no {tool} result in the fixture");
}

fn numbered_lines(n: usize) -> String {
    (1..=n)
        .map(|i| format!("line{i}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn read_returns_what_pi_returned() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("notes.txt"), "alpha\nbeta\ngamma\n").unwrap();
    let result = run(&ReadTool::new(dir.path()), json!({"path": "notes.txt"}))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&result).unwrap(),
        fixture_result("read")
    );
}

#[tokio::test]
async fn read_offset_and_limit() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), numbered_lines(10)).unwrap();
    let tool = ReadTool::new(dir.path());
    let result = run(&tool, json!({"path": "f.txt", "offset": 3, "limit": 2}))
        .await
        .unwrap();
    assert_eq!(
        text(&result),
        "line3\nline4\n\n[6 more lines in file. Use offset=5 to continue.]"
    );
    assert_eq!(result.details, Value::Null);

    let result = run(&tool, json!({"path": "f.txt", "offset": 9}))
        .await
        .unwrap();
    assert_eq!(text(&result), "line9\nline10");

    let err = run(&tool, json!({"path": "f.txt", "offset": 20}))
        .await
        .unwrap_err();
    assert_eq!(
        err.message(),
        "Offset 20 is beyond end of file (10 lines total)"
    );
}

#[tokio::test]
async fn read_truncates_at_2000_lines_with_a_continuation_note() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("long.txt"), numbered_lines(2500)).unwrap();
    let result = run(&ReadTool::new(dir.path()), json!({"path": "long.txt"}))
        .await
        .unwrap();
    let expected = format!(
        "{}\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]",
        numbered_lines(2000)
    );
    assert_eq!(text(&result), expected);
    let truncation = &result.details["truncation"];
    assert_eq!(truncation["truncatedBy"], "lines");
    assert_eq!(truncation["totalLines"], 2500);
    assert_eq!(truncation["outputLines"], 2000);
    assert_eq!(truncation["maxBytes"], 51_200);
}

#[tokio::test]
async fn read_truncates_at_50kb_and_continues_from_an_offset() {
    let dir = tempfile::tempdir().unwrap();
    let body: Vec<String> = (0..100)
        .map(|i| format!("{i:04}{}", "x".repeat(996)))
        .collect();
    fs::write(dir.path().join("wide.txt"), body.join("\n")).unwrap();
    let tool = ReadTool::new(dir.path());
    let result = run(&tool, json!({"path": "wide.txt"})).await.unwrap();
    // 51 lines of 1000 bytes plus 50 newlines fit in 51200 bytes; 52 do not.
    let expected = format!(
        "{}\n\n[Showing lines 1-51 of 100 (50.0KB limit). Use offset=52 to continue.]",
        body[..51].join("\n")
    );
    assert_eq!(text(&result), expected);
    assert_eq!(result.details["truncation"]["truncatedBy"], "bytes");

    let result = run(&tool, json!({"path": "wide.txt", "offset": 52}))
        .await
        .unwrap();
    assert_eq!(text(&result), body[51..].join("\n"));
}

#[tokio::test]
async fn read_points_to_bash_for_an_overlong_line() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("min.js"), "y".repeat(60_000)).unwrap();
    let result = run(&ReadTool::new(dir.path()), json!({"path": "min.js"}))
        .await
        .unwrap();
    assert_eq!(
        text(&result),
        "[Line 1 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '1p' min.js | head -c 51200]"
    );
    assert_eq!(result.details["truncation"]["firstLineExceedsLimit"], true);
}

/// A `width` x `height` PNG with a busy pattern (so it stays large).
fn busy_png(width: u32, height: u32) -> Vec<u8> {
    let image = image::RgbImage::from_fn(width, height, |x, y| {
        let n = x
            .wrapping_mul(2_654_435_761)
            .wrapping_add(y.wrapping_mul(40_503))
            >> 7;
        image::Rgb([(x % 256) as u8, (y % 256) as u8, (n % 256) as u8])
    });
    let mut out = Vec::new();
    image::DynamicImage::ImageRgb8(image)
        .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    out
}

#[tokio::test]
async fn read_returns_png_as_an_image_block() {
    let dir = tempfile::tempdir().unwrap();
    let png = busy_png(3, 2);
    fs::write(dir.path().join("pic.png"), &png).unwrap();
    let result = run(&ReadTool::new(dir.path()), json!({"path": "pic.png"}))
        .await
        .unwrap();
    let data = base64::engine::general_purpose::STANDARD.encode(&png);
    assert_eq!(
        result.content,
        vec![
            UserBlock::text("Read image file [image/png]"),
            UserBlock::image(data.clone(), "image/png"),
        ]
    );
    assert_eq!(
        serde_json::to_value(&result.content[1]).unwrap(),
        json!({"type": "image", "data": data, "mimeType": "image/png"})
    );
}

#[tokio::test]
async fn read_resizes_a_large_png_to_pis_limits_with_pis_note() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("big.png"), busy_png(4000, 3000)).unwrap();
    let result = run(&ReadTool::new(dir.path()), json!({"path": "big.png"}))
        .await
        .unwrap();
    let [UserBlock::Text(note), UserBlock::Image(image)] = result.content.as_slice() else {
        panic!("{:?}", result.content.len())
    };
    assert_eq!(
        note.text,
        format!(
            "Read image file [{}]\n[Image: original 4000x3000, displayed at 2000x1500. \
             Multiply coordinates by 2.00 to map to original image.]",
            image.mime_type
        )
    );
    assert!(image.data.len() < 4_718_592, "{}", image.data.len());
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&image.data)
        .unwrap();
    let decoded = image::load_from_memory(&bytes).unwrap();
    assert_eq!((decoded.width(), decoded.height()), (2000, 1500));

    // With resizing off (pi's images.autoResize: false) it goes as it is.
    let raw = run(
        &ReadTool::new(dir.path()).with_image_resize(false),
        json!({"path": "big.png"}),
    )
    .await
    .unwrap();
    assert_eq!(text(&raw), "Read image file [image/png]");
}

#[tokio::test]
async fn read_omits_an_image_it_cannot_decode_as_pi() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("pic.png"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    let result = run(&ReadTool::new(dir.path()), json!({"path": "pic.png"}))
        .await
        .unwrap();
    assert_eq!(
        result.content,
        vec![UserBlock::text(
            "Read image file [image/png]\n[Image omitted: could not be resized below the inline image size limit.]"
        )]
    );
}

#[tokio::test]
async fn read_errors_for_missing_directory_and_binary() {
    let dir = tempfile::tempdir().unwrap();
    let tool = ReadTool::new(dir.path());
    let missing = dir.path().join("nope.txt");
    let err = run(&tool, json!({"path": "nope.txt"})).await.unwrap_err();
    assert_eq!(
        err.message(),
        format!(
            "ENOENT: no such file or directory, access '{}'",
            missing.display()
        )
    );

    fs::create_dir(dir.path().join("sub")).unwrap();
    let err = run(&tool, json!({"path": "sub"})).await.unwrap_err();
    assert_eq!(
        err.message(),
        "EISDIR: illegal operation on a directory, read"
    );

    fs::write(dir.path().join("blob.bin"), b"ELF\0\x01\x02\x03").unwrap();
    let err = run(&tool, json!({"path": "blob.bin"})).await.unwrap_err();
    assert_eq!(
        err.message(),
        "Cannot read blob.bin: it is a binary file (only text files and png, jpeg, gif or webp \
         images can be read). Use bash to inspect it, for example with `file` or `xxd`."
    );
}

#[tokio::test]
async fn read_accepts_absolute_paths() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("abs.txt");
    fs::write(&file, "absolute").unwrap();
    let other_cwd = tempfile::tempdir().unwrap();
    let result = run(
        &ReadTool::new(other_cwd.path()),
        json!({"path": file.to_str().unwrap()}),
    )
    .await
    .unwrap();
    assert_eq!(text(&result), "absolute");
}

#[tokio::test]
async fn write_creates_parents_and_reports_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let tool = WriteTool::new(dir.path());
    let result = run(&tool, json!({"path": "a/b/c.txt", "content": "héllo"}))
        .await
        .unwrap();
    assert_eq!(text(&result), "Successfully wrote 6 bytes to a/b/c.txt");
    assert_eq!(result.details, Value::Null);
    assert_eq!(
        fs::read_to_string(dir.path().join("a/b/c.txt")).unwrap(),
        "héllo"
    );

    run(&tool, json!({"path": "a/b/c.txt", "content": "new"}))
        .await
        .unwrap();
    assert_eq!(
        fs::read_to_string(dir.path().join("a/b/c.txt")).unwrap(),
        "new"
    );
}

#[tokio::test]
async fn edit_result_matches_pi() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("notes.txt"), "alpha\nbeta\ngamma\n").unwrap();
    let result = run(
        &EditTool::new(dir.path()),
        json!({"path": "notes.txt", "edits": [{"oldText": "beta", "newText": "BETA"}]}),
    )
    .await
    .unwrap();
    assert_eq!(
        serde_json::to_value(&result).unwrap(),
        fixture_result("edit")
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("notes.txt")).unwrap(),
        "alpha\nBETA\ngamma\n"
    );
}

#[tokio::test]
async fn edit_preserves_crlf_and_bom() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("win.txt");
    fs::write(&file, "\u{FEFF}one\r\ntwo\r\nthree\r\n").unwrap();
    let result = run(
        &EditTool::new(dir.path()),
        json!({"path": "win.txt", "edits": [{"oldText": "two\nthree", "newText": "2\n3"}]}),
    )
    .await
    .unwrap();
    assert_eq!(
        fs::read_to_string(&file).unwrap(),
        "\u{FEFF}one\r\n2\r\n3\r\n"
    );
    assert_eq!(
        result.details,
        json!({"diff": " 1 one\n-2 two\n-3 three\n+2 2\n+3 3", "firstChangedLine": 2})
    );
}

#[tokio::test]
async fn edit_applies_several_disjoint_edits() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.txt");
    let original: String = (1..=14).map(|i| format!("l{i}\n")).collect();
    fs::write(&file, &original).unwrap();
    let result = run(
        &EditTool::new(dir.path()),
        json!({"path": "f.txt", "edits": [
            {"oldText": "l13\n", "newText": "thirteen\n"},
            {"oldText": "l2\n", "newText": "two\n"}
        ]}),
    )
    .await
    .unwrap();
    assert_eq!(text(&result), "Successfully replaced 2 block(s) in f.txt.");
    assert_eq!(
        fs::read_to_string(&file).unwrap(),
        original
            .replace("l2\n", "two\n")
            .replace("l13\n", "thirteen\n")
    );
    assert_eq!(
        result.details,
        json!({
            "diff": "  1 l1\n- 2 l2\n+ 2 two\n  3 l3\n  4 l4\n  5 l5\n  6 l6\n    ...\n  9 l9\n 10 l10\n 11 l11\n 12 l12\n-13 l13\n+13 thirteen\n 14 l14",
            "firstChangedLine": 2
        })
    );
}

#[tokio::test]
async fn edit_errors_use_pi_texts() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), "same\nsame\nother\n").unwrap();
    let tool = EditTool::new(dir.path());
    let one = |old: &str| json!({"path": "f.txt", "edits": [{"oldText": old, "newText": "X"}]});

    let err = run(&tool, one("missing")).await.unwrap_err();
    assert_eq!(
        err.message(),
        "Could not find the exact text in f.txt. The old text must match exactly including all whitespace and newlines."
    );
    let err = run(&tool, one("same")).await.unwrap_err();
    assert_eq!(
        err.message(),
        "Found 2 occurrences of the text in f.txt. The text must be unique. Please provide more context to make it unique."
    );
    let err = run(
        &tool,
        json!({"path": "f.txt", "edits": [
            {"oldText": "same\nother", "newText": "A"},
            {"oldText": "other\n", "newText": "B"}
        ]}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        err.message(),
        "edits[0] and edits[1] overlap in f.txt. Merge them into one edit or target disjoint regions."
    );
    let err = run(&tool, json!({"path": "f.txt", "edits": []}))
        .await
        .unwrap_err();
    assert_eq!(
        err.message(),
        "Edit tool input is invalid. edits must contain at least one replacement."
    );
    let err = run(
        &tool,
        json!({"path": "gone.txt", "edits": [{"oldText": "a", "newText": "b"}]}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        err.message(),
        "Could not edit file: gone.txt. Error code: ENOENT."
    );
    // Nothing was written by the failed calls.
    assert_eq!(
        fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "same\nsame\nother\n"
    );
}

#[tokio::test]
async fn edit_accepts_the_legacy_single_replacement() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), "keep\nold\n").unwrap();
    // The loop prepares the arguments before validating and executing them.
    let tool = EditTool::new(dir.path());
    let mut sent = json!({"path": "f.txt", "oldText": "old", "newText": "new"});
    let prepared = tool.prepare_arguments(&mut sent).unwrap();
    assert_eq!(
        prepared,
        json!({"path": "f.txt", "edits": [{"oldText": "old", "newText": "new"}]})
    );
    let result = run(&tool, prepared).await.unwrap();
    assert_eq!(text(&result), "Successfully replaced 1 block(s) in f.txt.");
    assert_eq!(
        fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "keep\nnew\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_edits_of_one_file_all_land() {
    // pi's file mutation queue: calls on one file run one after the other.
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = (0..40).map(|i| format!("line{i}")).collect();
    fs::write(dir.path().join("f.txt"), lines.join("\n")).unwrap();
    let tool = std::sync::Arc::new(EditTool::new(dir.path()));
    let calls: Vec<_> = (0..40)
        .map(|i| {
            let tool = std::sync::Arc::clone(&tool);
            tokio::spawn(async move {
                let edits =
                    json!([{"oldText": format!("line{i}\n"), "newText": format!("LINE{i}\n")}]);
                let edits = if i == 39 {
                    json!([{"oldText": "line39", "newText": "LINE39"}])
                } else {
                    edits
                };
                run(tool.as_ref(), json!({"path": "f.txt", "edits": edits})).await
            })
        })
        .collect();
    for call in calls {
        call.await.unwrap().unwrap();
    }
    let expected: Vec<String> = (0..40).map(|i| format!("LINE{i}")).collect();
    assert_eq!(
        fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        expected.join("\n")
    );
}

#[tokio::test]
async fn cancelled_calls_answer_operation_aborted() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), "x").unwrap();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let err = ReadTool::new(dir.path())
        .execute("c", json!({"path": "f.txt"}), cancel, ignore_updates())
        .await
        .unwrap_err();
    assert_eq!(err.message(), "Operation aborted");
}

#[tokio::test]
async fn read_and_edit_refuse_fifos_and_devices_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    nix_mkfifo(&fifo);
    let started = std::time::Instant::now();
    let read = run(&ReadTool::new(dir.path()), json!({"path": "pipe"}))
        .await
        .unwrap_err();
    assert_eq!(
        read.to_string(),
        "Cannot read pipe: it is a FIFO (named pipe); only regular files are supported. Use bash to inspect it."
    );
    let zero = run(&ReadTool::new(dir.path()), json!({"path": "/dev/zero"}))
        .await
        .unwrap_err();
    assert_eq!(
        zero.to_string(),
        "Cannot read /dev/zero: it is a device; only regular files are supported. Use bash to inspect it."
    );
    let edit = run(
        &EditTool::new(dir.path()),
        json!({"path": "pipe", "edits": [{"oldText": "a", "newText": "b"}]}),
    )
    .await
    .unwrap_err();
    assert!(
        edit.to_string()
            .starts_with("Cannot edit pipe: it is a FIFO"),
        "{edit}"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

fn nix_mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

#[tokio::test]
async fn a_large_file_read_with_a_limit_reports_the_whole_file() {
    let dir = tempfile::tempdir().unwrap();
    // 300 000 lines, ~3.4 MB: only the selected lines are kept in memory.
    let body = numbered_lines(300_000);
    fs::write(dir.path().join("big.txt"), &body).unwrap();
    let tool = ReadTool::new(dir.path());
    let limited = run(&tool, json!({"path": "big.txt", "offset": 5, "limit": 3}))
        .await
        .unwrap();
    assert_eq!(
        text(&limited),
        "line5\nline6\nline7\n\n[299993 more lines in file. Use offset=8 to continue.]"
    );
    let whole = run(&tool, json!({"path": "big.txt", "offset": 299_000}))
        .await
        .unwrap();
    assert!(text(&whole).ends_with("line300000"));
    let head = run(&tool, json!({"path": "big.txt"})).await.unwrap();
    assert!(
        text(&head).ends_with("[Showing lines 1-2000 of 300000. Use offset=2001 to continue.]"),
        "{}",
        &text(&head)[text(&head).len() - 100..]
    );
    assert_eq!(head.details["truncation"]["totalLines"], 300_000);
    assert_eq!(head.details["truncation"]["totalBytes"], body.len());
    let beyond = run(&tool, json!({"path": "big.txt", "offset": 300_001}))
        .await
        .unwrap_err();
    assert_eq!(
        beyond.to_string(),
        "Offset 300001 is beyond end of file (300000 lines total)"
    );
}
