use super::*;
use pretty_assertions::assert_eq;
use rmcp::model::ContentBlock;

fn result(content: Vec<ContentBlock>, structured: Option<Value>, error: bool) -> CallToolResult {
    let mut result = CallToolResult::default();
    result.content = content;
    result.structured_content = structured;
    result.is_error = error.then_some(true);
    result
}

#[test]
fn text_blocks_join_and_images_stay_images() {
    let out = to_agent_result(
        "srv",
        "t",
        result(
            vec![
                ContentBlock::text("one"),
                ContentBlock::image("aGk=", "image/png"),
                ContentBlock::text("two"),
                ContentBlock::embedded_text("file:///x", "three"),
            ],
            None,
            false,
        ),
    )
    .unwrap();
    assert_eq!(
        out.content,
        vec![
            UserBlock::text("one\ntwo\nthree"),
            UserBlock::image("aGk=", "image/png")
        ]
    );
    assert_eq!(out.details, json!({"server": "srv", "tool": "t"}));
}

#[test]
fn structured_content_is_the_text_when_there_is_none_and_kept_in_details() {
    let out = to_agent_result("s", "t", result(vec![], Some(json!({"a": 1})), false)).unwrap();
    assert_eq!(out.content, vec![UserBlock::text("{\n  \"a\": 1\n}")]);
    assert_eq!(out.details["structuredContent"], json!({"a": 1}));
}

#[test]
fn an_error_result_fails_the_call_with_its_text() {
    let error = to_agent_result(
        "s",
        "t",
        result(vec![ContentBlock::text("bad")], None, true),
    );
    assert_eq!(error, Err(ToolError::new("bad")));
    let empty = to_agent_result("s", "t", result(vec![], None, true));
    assert_eq!(empty, Err(ToolError::new("MCP tool t on s failed")));
}

#[test]
fn long_output_keeps_the_head_with_pi_s_notice_and_saves_the_whole() {
    let text: String = (1..=3000).map(|i| format!("line {i}\n")).collect();
    let out = to_agent_result(
        "s",
        "t",
        result(vec![ContentBlock::text(&text)], None, false),
    )
    .unwrap();
    let shown = out.content[0].as_text().unwrap();
    assert!(shown.starts_with("line 1\nline 2\n"));
    let notice = shown.rsplit("\n\n").next().unwrap();
    let path = out.details["fullOutputPath"].as_str().unwrap();
    assert_eq!(
        notice,
        format!(
            "[Output truncated: 2000 of 3001 lines (18.4KB of 28.2KB). Full output saved to: {path}]"
        )
    );
    assert_eq!(std::fs::read_to_string(path).unwrap(), text);
    assert_eq!(out.details["truncation"]["truncatedBy"], "lines");
    assert!(out.details["truncation"].get("content").is_none());
    std::fs::remove_file(path).unwrap();
}

#[test]
fn one_huge_line_keeps_its_first_50kb() {
    let text = "é".repeat(40_000);
    let (shown, cut) = truncate(&text, "pi-mcp-test");
    let (truncation, path) = cut.unwrap();
    assert!(shown.starts_with(&"é".repeat(100)));
    assert_eq!(truncation.output_bytes, 51_200);
    assert!(shown.ends_with(&format!(
        "(50.0KB of 78.1KB). Full output saved to: {path}]"
    )));
    std::fs::remove_file(path).unwrap();
}
