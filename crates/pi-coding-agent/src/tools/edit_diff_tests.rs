use pretty_assertions::assert_eq;

use super::*;

fn edit(old: &str, new: &str) -> Edit {
    Edit {
        old_text: old.into(),
        new_text: new.into(),
    }
}

fn apply(content: &str, edits: &[Edit]) -> Result<String, String> {
    apply_edits_to_normalized_content(content, edits, "f.txt")
        .map(|a| a.new_content)
        .map_err(|e| e.message().to_owned())
}

#[test]
fn line_endings_and_bom() {
    assert_eq!(detect_line_ending("a\r\nb\nc"), LineEnding::CrLf);
    assert_eq!(detect_line_ending("a\nb\r\n"), LineEnding::Lf);
    assert_eq!(detect_line_ending("no break"), LineEnding::Lf);
    assert_eq!(normalize_to_lf("a\r\nb\rc\n"), "a\nb\nc\n");
    assert_eq!(
        restore_line_endings("a\nb\n", LineEnding::CrLf),
        "a\r\nb\r\n"
    );
    assert_eq!(strip_bom("\u{FEFF}x"), ("\u{FEFF}", "x"));
    assert_eq!(strip_bom("x"), ("", "x"));
}

#[test]
fn edits_match_the_original_not_each_other() {
    // The second edit's oldText only exists in the original, not after the first.
    let out = apply("a b c\n", &[edit("a", "b"), edit("b c", "X")]).unwrap();
    assert_eq!(out, "b X\n");
}

#[test]
fn error_texts_for_one_edit() {
    assert_eq!(
        apply("abc", &[edit("zzz", "y")]).unwrap_err(),
        "Could not find the exact text in f.txt. The old text must match exactly including all whitespace and newlines."
    );
    assert_eq!(
        apply("x x x", &[edit("x", "y")]).unwrap_err(),
        "Found 3 occurrences of the text in f.txt. The text must be unique. Please provide more context to make it unique."
    );
    assert_eq!(
        apply("abc", &[edit("", "y")]).unwrap_err(),
        "oldText must not be empty in f.txt."
    );
    assert_eq!(
        apply("abc", &[edit("b", "b")]).unwrap_err(),
        "No changes made to f.txt. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected."
    );
}

#[test]
fn error_texts_for_several_edits() {
    assert_eq!(
        apply("abc", &[edit("a", "A"), edit("zzz", "y")]).unwrap_err(),
        "Could not find edits[1] in f.txt. The oldText must match exactly including all whitespace and newlines."
    );
    assert_eq!(
        apply("a x x", &[edit("a", "A"), edit("x", "y")]).unwrap_err(),
        "Found 2 occurrences of edits[1] in f.txt. Each oldText must be unique. Please provide more context to make it unique."
    );
    assert_eq!(
        apply("abcdef", &[edit("cde", "1"), edit("abc", "2")]).unwrap_err(),
        "edits[1] and edits[0] overlap in f.txt. Merge them into one edit or target disjoint regions."
    );
    assert_eq!(
        apply("abc", &[edit("a", "a"), edit("b", "b")]).unwrap_err(),
        "No changes made to f.txt. The replacements produced identical content."
    );
    assert_eq!(
        apply("abc", &[edit("a", "A"), edit("", "y")]).unwrap_err(),
        "edits[1].oldText must not be empty in f.txt."
    );
}

#[test]
fn fuzzy_fallback_tolerates_trailing_spaces_and_typographic_quotes() {
    let content = "let s = \u{201C}hi\u{201D};   \nnext\n";
    let out = apply(
        content,
        &[edit("let s = \"hi\";\nnext", "let s = \"bye\";\nnext")],
    )
    .unwrap();
    // The fallback works in the normalized form of the whole file.
    assert_eq!(out, "let s = \"bye\";\nnext\n");
}

#[test]
fn diff_matches_the_pi_fixture() {
    // fixtures/pi-0.73.1/c-read-edit-*: beta -> BETA in notes.txt.
    let d = generate_diff_string(
        "alpha\nbeta\ngamma\n",
        "alpha\nBETA\ngamma\n",
        DIFF_CONTEXT_LINES,
    );
    assert_eq!(d.diff, " 1 alpha\n-2 beta\n+2 BETA\n 3 gamma");
    assert_eq!(d.first_changed_line, Some(2));
}

#[test]
fn diff_elides_distant_context() {
    let old: String = (1..=20).map(|i| format!("l{i}\n")).collect();
    let new = old.replace("l2\n", "L2\n").replace("l18\n", "L18\n");
    let d = generate_diff_string(&old, &new, 2);
    let expected = [
        "  1 l1", "- 2 l2", "+ 2 L2", "  3 l3", "  4 l4", "    ...", " 16 l16", " 17 l17",
        "-18 l18", "+18 L18", " 19 l19", " 20 l20",
    ]
    .join("\n");
    assert_eq!(d.diff, expected);
    assert_eq!(d.first_changed_line, Some(2));
}

#[test]
fn diff_of_an_insertion_reports_the_new_line() {
    let d = generate_diff_string("a\nb\n", "a\nnew\nb\n", 4);
    assert_eq!(d.diff, " 1 a\n+2 new\n 2 b");
    assert_eq!(d.first_changed_line, Some(2));
}

#[test]
fn fuzzy_form_applies_nfkc_and_javascript_trim() {
    // Full-width letters, ligatures and circled digits become plain text.
    assert_eq!(
        normalize_for_fuzzy_match("\u{FF21}\u{FF22} \u{FB01}le \u{2460}"),
        "AB file 1"
    );
    // JavaScript's trimEnd removes a trailing BOM but keeps U+0085.
    assert_eq!(
        normalize_for_fuzzy_match("a\u{FEFF}\nb\u{85}"),
        "a\nb\u{85}"
    );
    // Typographic punctuation folds after normalization.
    assert_eq!(
        normalize_for_fuzzy_match("\u{2018}x\u{2019} \u{2014} y\u{3000}"),
        "'x' - y"
    );
}

#[test]
fn diff_edges_of_the_split_off_common_lines() {
    // The fuzz input of the edit_match target's first finding (a `\r`, which
    // the tool turns into a line break before it diffs), in its LF form.
    let content = normalize_to_lf("onev\r&two\n");
    let d = generate_diff_string(&content, "", 4);
    assert_eq!(d.diff, "-1 onev\n-2 &two");
    assert_eq!(d.first_changed_line, Some(1));
    // Identical texts, with and without a final line break.
    for text in ["a\nb", "a\nb\n", ""] {
        let d = generate_diff_string(text, text, 4);
        assert_eq!((d.diff.as_str(), d.first_changed_line), ("", None));
    }
    // A final line gaining its line break is a changed line.
    let d = generate_diff_string("a\nb", "a\nb\n", 4);
    assert_eq!(d.diff, " 1 a\n-2 b\n+2 b");
    assert_eq!(d.first_changed_line, Some(2));
    // Changes at the very start and the very end.
    let d = generate_diff_string("x\nm\n", "y\nm\n", 4);
    assert_eq!(d.diff, "-1 x\n+1 y\n 2 m");
    let d = generate_diff_string("m\nx", "m\ny", 4);
    assert_eq!(d.diff, " 1 m\n-2 x\n+2 y");
}

#[test]
fn common_lines_are_found_when_texts_differ_inside_a_character() {
    // edit_match's second finding: "ＡＢ" and "＼\u{F862}" share their
    // first byte (EF), so the first difference falls inside a character.
    let d = generate_diff_string("\u{FF21}\u{FF22}", "\u{FF3C}\u{F862}", 4);
    assert_eq!(d.diff, "-1 \u{FF21}\u{FF22}\n+1 \u{FF3C}\u{F862}");
    // The same at the end: U+FF21 and U+FE21 share their last byte (A1).
    let d = generate_diff_string("x\n\u{FF21}", "x\n\u{FE21}", 4);
    assert_eq!(d.diff, " 1 x\n-2 \u{FF21}\n+2 \u{FE21}");
    let d = generate_diff_string("\u{FF21}b\n", "\u{FF22}b\n", 4);
    assert_eq!(d.diff, "-1 \u{FF21}b\n+1 \u{FF22}b");
}

#[test]
fn a_change_next_to_equal_lines_is_placed_as_pi_places_it() {
    // fuzz edit_match: an added blank line next to a blank line. pi's jsdiff
    // (`diffLines`) keeps the first blank line and adds the second, as a
    // diff over the whole texts does; splitting off the common end first
    // (without a margin) added the first one.
    let diff = generate_diff_string(" \n\nTwo\n", "\n\nTwo\n", 4);
    assert_eq!(diff.diff, "-1  \n 2 \n+2 \n 3 Two");
    assert_eq!(diff.first_changed_line, Some(1));
}

#[test]
fn every_added_line_is_shown_whatever_the_order_of_the_diff_ops() {
    // The diff's compaction can give a deletion an empty range of the new
    // text far ahead of the next insertion; the added lines "a" and "é"
    // must both be shown.
    let old = "\n \n \né\nTwo\n \né\n";
    let new = "\n \n \né\n\nTwo\né\na\né\n";
    let diff = generate_diff_string(old, new, 4);
    assert_eq!(
        diff.diff,
        "  1 \n  2  \n  3  \n  4 é\n+ 5 \n  5 Two\n- 6  \n  7 é\n+ 8 a\n+ 9 é"
    );
}

#[test]
fn a_change_slides_through_a_long_run_of_equal_lines_as_in_pi() {
    // fuzz edit_match: "x" emptied on line 12 of a file with 100 blank lines
    // after it. pi's jsdiff keeps the old line 12 as removed and adds the
    // blank line at the end of the run (line 112), however long the run.
    let old = format!("head\n{}x\n{}end", "\n".repeat(10), "\n".repeat(100));
    let new = old.replacen('x', "", 1);
    let diff = generate_diff_string(&old, &new, 1);
    assert_eq!(
        diff.diff,
        "     ...\n  11 \n- 12 x\n  13 \n     ...\n 112 \n+112 \n 113 end"
    );
}

#[test]
fn a_change_in_a_repeating_block_longer_than_the_margin_is_placed_as_in_pi() {
    // fuzz edit_match: the last of 30 copies of a five-line block removed.
    // The removal could slide up through every copy; pi's jsdiff removes
    // lines 147-151 (the last copy), as a diff over the whole texts does.
    // Splitting off the common start with a 64-line margin removed 146-150.
    let block = "x y\nx y\nc\nx y\nc\n";
    let old = format!("n1\n{}n2\n", block.repeat(30));
    let new = format!("n1\n{}n2\n", block.repeat(29));
    let diff = generate_diff_string(&old, &new, 1);
    assert_eq!(
        diff.diff,
        "     ...\n 146 c\n-147 x y\n-148 x y\n-149 c\n-150 x y\n-151 c\n 152 n2"
    );
    assert_eq!(diff.first_changed_line, Some(147));
}
