use super::*;

#[test]
fn only_base64_signatures_are_valid() {
    assert!(is_valid_thought_signature("AAAA"));
    assert!(is_valid_thought_signature("ab+/cd=="));
    assert!(is_valid_thought_signature("abc="));
    assert!(!is_valid_thought_signature(""));
    assert!(
        !is_valid_thought_signature("abc"),
        "length not a multiple of 4"
    );
    assert!(
        !is_valid_thought_signature("a==="),
        "at most two padding characters"
    );
    assert!(!is_valid_thought_signature("===="));
    assert!(
        !is_valid_thought_signature("ab-_"),
        "base64url is not accepted"
    );
    assert!(!is_valid_thought_signature("a=bc"));
    assert!(!is_valid_thought_signature(SKIP_THOUGHT_SIGNATURE));
}

#[test]
fn blank_means_javascript_trim_leaves_nothing() {
    assert!(is_blank(""));
    assert!(is_blank(" \n\t\u{a0}\u{feff}\u{2028}"));
    assert!(!is_blank("\u{85}"), "NEL is not whitespace to JavaScript");
    assert!(!is_blank(" x "));
}
