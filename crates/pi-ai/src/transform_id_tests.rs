//! The tool-call id normalizers of each wire.

use super::tests::model;
use super::*;

#[test]
fn anthropic_ids_are_sanitized_and_cut_to_64() {
    assert_eq!(
        normalize_tool_call_id_anthropic("toolu_01AbC-x"),
        "toolu_01AbC-x"
    );
    assert_eq!(
        normalize_tool_call_id_anthropic("call_abc|fc_123"),
        "call_abc_fc_123"
    );
    assert_eq!(
        normalize_tool_call_id_anthropic("fn.read:0 x"),
        "fn_read_0_x"
    );
    // One UTF-16 unit for é, two for the emoji, as JavaScript counts them.
    assert_eq!(normalize_tool_call_id_anthropic("é😀x"), "___x");
    assert_eq!(
        normalize_tool_call_id_anthropic(&"a".repeat(100)),
        "a".repeat(64)
    );
    assert_eq!(
        normalize_tool_call_id_anthropic(&"😀".repeat(40)),
        "_".repeat(64)
    );
    assert_eq!(normalize_tool_call_id_anthropic(""), "");
}

#[test]
fn completions_ids_keep_the_call_part_and_openai_ids_are_cut_to_40() {
    let openai = model("openai", "openai-completions", "gpt-4o");
    let groq = model("groq", "openai-completions", "llama");
    assert_eq!(
        normalize_tool_call_id_completions("call_abc|fc_123", &groq),
        "call_abc"
    );
    assert_eq!(
        normalize_tool_call_id_completions("call.x:y|item|more", &groq),
        "call_x_y"
    );
    assert_eq!(normalize_tool_call_id_completions("|item", &groq), "");
    let long_call = format!("{}|fc_1", "c".repeat(50));
    assert_eq!(
        normalize_tool_call_id_completions(&long_call, &groq),
        "c".repeat(40)
    );
    // Without `|` only provider openai cuts, and it does not sanitize.
    let long = format!("{}.{}", "a".repeat(30), "b".repeat(30));
    assert_eq!(normalize_tool_call_id_completions(&long, &groq), long);
    assert_eq!(
        normalize_tool_call_id_completions(&long, &openai),
        format!("{}.{}", "a".repeat(30), "b".repeat(9))
    );
    assert_eq!(
        normalize_tool_call_id_completions("call:1", &openai),
        "call:1"
    );
    // The cut counts UTF-16 units and never splits a character.
    assert_eq!(
        normalize_tool_call_id_completions(&"😀".repeat(25), &openai),
        "😀".repeat(20)
    );
    let odd = format!("{}😀", "a".repeat(39));
    assert_eq!(
        normalize_tool_call_id_completions(&odd, &openai),
        "a".repeat(39)
    );
}

#[test]
fn responses_ids_are_sanitized_per_part_with_an_fc_item() {
    assert_eq!(
        normalize_tool_call_id_responses("call_abc|fc_123"),
        "call_abc|fc_123"
    );
    assert_eq!(
        normalize_tool_call_id_responses("call.1|msg:2"),
        "call_1|fc_msg_2"
    );
    assert_eq!(
        normalize_tool_call_id_responses("call_abc|rs+/="),
        "call_abc|fc_rs"
    );
    assert_eq!(normalize_tool_call_id_responses("fcx|fcitem"), "fcx|fcitem");
    assert_eq!(normalize_tool_call_id_responses("a|b|c"), "a|fc_b");
    assert_eq!(normalize_tool_call_id_responses("a|"), "a|fc");
    assert_eq!(normalize_tool_call_id_responses("toolu_01.x"), "toolu_01.x");
    assert_eq!(normalize_tool_call_id_responses("é|😀"), "|fc");
    let long = format!("{}|{}", "c".repeat(70), "i".repeat(70));
    assert_eq!(
        normalize_tool_call_id_responses(&long),
        format!("{}|fc_{}", "c".repeat(64), "i".repeat(61))
    );
    // The trailing `_` left by the cut is stripped.
    let cut_on_underscore = format!("{}+b|fc_{}=z", "a".repeat(63), "i".repeat(60));
    assert_eq!(
        normalize_tool_call_id_responses(&cut_on_underscore),
        format!("{}|fc_{}", "a".repeat(63), "i".repeat(60))
    );
}
