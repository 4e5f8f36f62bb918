use pretty_assertions::assert_eq;

use super::*;

fn numbered(n: usize) -> String {
    (1..=n)
        .map(|i| format!("line {i}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn format_size_matches_pi() {
    assert_eq!(format_size(0), "0B");
    assert_eq!(format_size(1023), "1023B");
    assert_eq!(format_size(1024), "1.0KB");
    assert_eq!(format_size(51_200), "50.0KB");
    // 1.25 KB rounds half up, like JavaScript's toFixed.
    assert_eq!(format_size(1280), "1.3KB");
    assert_eq!(format_size(1_572_864), "1.5MB");
    assert_eq!(format_size(1024 * 1024 - 1), "1024.0KB");
}

#[test]
fn small_input_is_untouched() {
    let r = truncate_head("a\nb\n", TruncationOptions::default());
    assert_eq!(
        r,
        TruncationResult {
            content: "a\nb\n".into(),
            truncated: false,
            truncated_by: None,
            total_lines: 3,
            total_bytes: 4,
            output_lines: 3,
            output_bytes: 4,
            last_line_partial: false,
            first_line_exceeds_limit: false,
            max_lines: 2000,
            max_bytes: 51_200,
        }
    );
    assert_eq!(truncate_tail("a\nb\n", TruncationOptions::default()), r);
}

#[test]
fn head_keeps_first_lines_by_line_limit() {
    let options = TruncationOptions {
        max_lines: 3,
        max_bytes: 1000,
    };
    let r = truncate_head(&numbered(10), options);
    assert_eq!(r.content, "line 1\nline 2\nline 3");
    assert_eq!(r.truncated_by, Some(TruncatedBy::Lines));
    assert_eq!((r.total_lines, r.output_lines), (10, 3));
    assert_eq!(r.output_bytes, r.content.len());
}

#[test]
fn head_stops_before_the_line_that_passes_the_byte_limit() {
    let options = TruncationOptions {
        max_lines: 100,
        max_bytes: 15,
    };
    // "line 1\nline 2" is 13 bytes; adding "\nline 3" would make 20.
    let r = truncate_head(&numbered(5), options);
    assert_eq!(r.content, "line 1\nline 2");
    assert_eq!(r.truncated_by, Some(TruncatedBy::Bytes));
    assert_eq!(r.output_lines, 2);
}

#[test]
fn head_reports_a_first_line_over_the_limit() {
    let options = TruncationOptions {
        max_lines: 100,
        max_bytes: 10,
    };
    let r = truncate_head("0123456789abc\nshort", options);
    assert!(r.first_line_exceeds_limit);
    assert_eq!(r.content, "");
    assert_eq!(r.output_lines, 0);
    assert_eq!(r.truncated_by, Some(TruncatedBy::Bytes));
}

#[test]
fn tail_keeps_last_lines() {
    let options = TruncationOptions {
        max_lines: 2,
        max_bytes: 1000,
    };
    let r = truncate_tail(&numbered(5), options);
    assert_eq!(r.content, "line 4\nline 5");
    assert_eq!(r.truncated_by, Some(TruncatedBy::Lines));
    assert_eq!((r.total_lines, r.output_lines), (5, 2));

    let options = TruncationOptions {
        max_lines: 100,
        max_bytes: 15,
    };
    let r = truncate_tail(&numbered(5), options);
    assert_eq!(r.content, "line 4\nline 5");
    assert_eq!(r.truncated_by, Some(TruncatedBy::Bytes));
}

#[test]
fn tail_keeps_the_end_of_an_overlong_last_line_on_a_char_boundary() {
    let options = TruncationOptions {
        max_lines: 100,
        max_bytes: 5,
    };
    // "é" is two bytes: the cut at 5 bytes from the end lands inside one.
    let r = truncate_tail("first\nabcéééé", options);
    assert!(r.last_line_partial);
    assert_eq!(r.content, "éé");
    assert_eq!((r.output_lines, r.output_bytes), (1, 4));
}

#[test]
fn lines_are_cut_at_the_character_limit() {
    assert_eq!(truncate_line("short", 500), ("short".into(), false));
    let long = "x".repeat(501);
    let (text, cut) = truncate_line(&long, GREP_MAX_LINE_LENGTH);
    assert!(cut);
    assert_eq!(text, format!("{}... [truncated]", "x".repeat(500)));
    let accented = "é".repeat(500);
    let (text, cut) = truncate_line(&accented, GREP_MAX_LINE_LENGTH);
    assert!(!cut);
    assert_eq!(text.chars().count(), 500);
}

#[test]
fn truncation_serializes_with_pi_field_names() {
    let r = truncate_head(&numbered(3), TruncationOptions::default());
    let json = serde_json::to_string(&r).unwrap();
    assert_eq!(
        json,
        r#"{"content":"line 1\nline 2\nline 3","truncated":false,"truncatedBy":null,"totalLines":3,"totalBytes":20,"outputLines":3,"outputBytes":20,"lastLinePartial":false,"firstLineExceedsLimit":false,"maxLines":2000,"maxBytes":51200}"#
    );
}
