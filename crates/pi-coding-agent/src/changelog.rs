//! This project's CHANGELOG.md, shipped in the binary, read as pi reads its
//! own: every `## [x.y.z]` heading starts an entry that runs to the next
//! `## ` heading (a `## ` heading without a version ends the entry and is
//! skipped with what follows it). `/changelog` shows every entry; after an
//! update the interactive mode shows the entries newer than the settings'
//! `lastChangelogVersion`.

use std::cmp::Ordering;

use crate::config::Settings;

/// The changelog as built into the binary.
pub const CHANGELOG: &str = include_str!("../CHANGELOG.md");

/// One version's entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// `major.minor.patch` of its heading.
    pub version: (u64, u64, u64),
    /// The heading line and everything up to the next `## ` heading, trimmed.
    pub content: String,
}

/// The version of a `## [x.y.z] ...` heading (brackets optional).
fn heading_version(line: &str) -> Option<(u64, u64, u64)> {
    let rest = line.strip_prefix("##")?.trim_start();
    let rest = rest.strip_prefix('[').unwrap_or(rest);
    let mut parts = rest.splitn(3, '.');
    let number = |s: &str| -> Option<u64> {
        let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() {
            None
        } else {
            digits.parse().ok()
        }
    };
    let major = parts.next()?;
    let minor = parts.next()?;
    let patch = parts.next()?;
    // The first two must be numbers only; the third may be followed by text.
    if !major.chars().all(|c| c.is_ascii_digit()) || !minor.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some((number(major)?, number(minor)?, number(patch)?))
}

/// The entries of changelog `text`, in the file's order.
pub fn parse(text: &str) -> Vec<Entry> {
    let mut entries = Vec::new();
    let mut current: Option<(u64, u64, u64)> = None;
    let mut lines: Vec<&str> = Vec::new();
    let mut flush = |version: Option<(u64, u64, u64)>, lines: &mut Vec<&str>| {
        if let Some(version) = version
            && !lines.is_empty()
        {
            entries.push(Entry {
                version,
                content: lines.join("\n").trim().to_owned(),
            });
        }
        lines.clear();
    };
    for line in text.split('\n') {
        if line.starts_with("## ") {
            flush(current, &mut lines);
            current = heading_version(line);
            if current.is_some() {
                lines.push(line);
            }
        } else if current.is_some() {
            lines.push(line);
        }
    }
    flush(current, &mut lines);
    entries
}

/// `x.y.z` read leniently as pi reads `lastChangelogVersion` (a missing or
/// unreadable part is 0).
fn lenient_version(text: &str) -> (u64, u64, u64) {
    let mut parts = text
        .split('.')
        .map(|p| p.trim().parse::<u64>().unwrap_or(0));
    (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    )
}

/// The entries newer than `last_version`.
pub fn new_entries<'a>(entries: &'a [Entry], last_version: &str) -> Vec<&'a Entry> {
    let last = lenient_version(last_version);
    entries
        .iter()
        .filter(|e| e.version.cmp(&last) == Ordering::Greater)
        .collect()
}

/// `/changelog`'s markdown: every entry, oldest first (the newest ends up
/// next to the editor), or pi's line when there is none.
pub fn full_markdown(text: &str) -> String {
    let entries = parse(text);
    if entries.is_empty() {
        return "No changelog entries found.".to_owned();
    }
    entries
        .iter()
        .rev()
        .map(|e| e.content.as_str())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// `lastChangelogVersion`.
pub fn last_seen_version(settings: &Settings) -> Option<&str> {
    settings
        .extra
        .get("lastChangelogVersion")
        .and_then(serde_json::Value::as_str)
}

/// `collapseChangelog` (default false).
pub fn collapse(settings: &Settings) -> bool {
    settings
        .extra
        .get("collapseChangelog")
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false)
}

/// What to show at start-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartupNotice {
    /// Nothing (a resumed session, a first run, no newer entry).
    None,
    /// The new entries' markdown, newest first.
    WhatsNew(String),
    /// The collapsed form: `Updated to v<version>`.
    Collapsed(String),
}

/// What the start-up shows, and whether `lastChangelogVersion` must be set
/// to `version`, as pi decides: nothing for a session with messages; on a
/// first run (no version recorded) the version is recorded silently; when
/// entries newer than the recorded version exist they are shown and the
/// version recorded.
pub fn startup(
    text: &str,
    has_messages: bool,
    last_seen: Option<&str>,
    collapsed: bool,
    version: &str,
) -> (StartupNotice, bool) {
    if has_messages {
        return (StartupNotice::None, false);
    }
    let Some(last_seen) = last_seen else {
        return (StartupNotice::None, true);
    };
    let entries = parse(text);
    let new = new_entries(&entries, last_seen);
    if new.is_empty() {
        return (StartupNotice::None, false);
    }
    let markdown = new
        .iter()
        .map(|e| e.content.as_str())
        .collect::<Vec<_>>()
        .join("\n\n");
    if collapsed {
        // pi names the first version heading of what it would show.
        let latest = parse(&markdown)
            .first()
            .map_or_else(|| version.to_owned(), |e| format_version(e.version));
        (StartupNotice::Collapsed(latest), true)
    } else {
        (StartupNotice::WhatsNew(markdown), true)
    }
}

fn format_version((major, minor, patch): (u64, u64, u64)) -> String {
    format!("{major}.{minor}.{patch}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "# Changelog\n\nintro\n\n## [Unreleased]\n\n- soon\n\n\
        ## [1.2.0] - 2026-01-02\n\n### Added\n\n- two\n\n## 1.1.10\n\n- ten\n\n\
        ## [1.1.2]\n- one\n";

    #[test]
    fn entries_are_the_versioned_headings_only() {
        let entries = parse(TEXT);
        let versions: Vec<_> = entries.iter().map(|e| e.version).collect();
        assert_eq!(versions, vec![(1, 2, 0), (1, 1, 10), (1, 1, 2)]);
        assert_eq!(
            entries[0].content,
            "## [1.2.0] - 2026-01-02\n\n### Added\n\n- two"
        );
        assert_eq!(entries[2].content, "## [1.1.2]\n- one");
    }

    #[test]
    fn newer_entries_compare_numerically() {
        let entries = parse(TEXT);
        let newer: Vec<_> = new_entries(&entries, "1.1.9")
            .iter()
            .map(|e| e.version)
            .collect();
        assert_eq!(newer, vec![(1, 2, 0), (1, 1, 10)]);
        assert!(new_entries(&entries, "1.2.0").is_empty());
        assert_eq!(new_entries(&entries, "garbage").len(), 3);
    }

    #[test]
    fn full_markdown_is_oldest_first() {
        let md = full_markdown(TEXT);
        let one = md.find("1.1.2").unwrap_or(usize::MAX);
        let two = md.find("1.2.0").unwrap_or(usize::MAX);
        assert!(one < two, "{md}");
        assert_eq!(full_markdown("# nothing\n"), "No changelog entries found.");
    }

    #[test]
    fn startup_follows_pi() {
        // A resumed session: nothing, nothing recorded.
        assert_eq!(
            startup(TEXT, true, Some("0.0.1"), false, "1.2.0"),
            (StartupNotice::None, false)
        );
        // First run: recorded silently.
        assert_eq!(
            startup(TEXT, false, None, false, "1.2.0"),
            (StartupNotice::None, true)
        );
        // Up to date.
        assert_eq!(
            startup(TEXT, false, Some("1.2.0"), false, "1.2.0"),
            (StartupNotice::None, false)
        );
        // Updated: the new entries, newest first, or the collapsed line.
        let (notice, record) = startup(TEXT, false, Some("1.1.2"), false, "1.2.0");
        assert!(record);
        let StartupNotice::WhatsNew(md) = notice else {
            panic!("{notice:?}");
        };
        assert!(md.starts_with("## [1.2.0]") && md.contains("## 1.1.10") && !md.contains("1.1.2"));
        assert_eq!(
            startup(TEXT, false, Some("1.1.2"), true, "9.9.9"),
            (StartupNotice::Collapsed("1.2.0".to_owned()), true)
        );
    }

    #[test]
    fn the_shipped_changelog_has_this_version() {
        let entries = parse(CHANGELOG);
        assert!(
            entries
                .iter()
                .any(|e| format_version(e.version) == crate::VERSION),
            "CHANGELOG.md has no entry for {}",
            crate::VERSION
        );
    }
}
