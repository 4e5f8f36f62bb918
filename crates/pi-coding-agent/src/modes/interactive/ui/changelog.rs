//! `/changelog` and the start-up "What's New" of the [`Ui`]: this project's
//! CHANGELOG.md (built into the binary, see [`crate::changelog`]) shown as
//! pi shows its own.

use serde_json::Value;

use super::Ui;
use crate::changelog::{self, StartupNotice};
use crate::modes::interactive::blocks::Notice;
use crate::modes::interactive::md::{Md, MdStyle};

impl Ui {
    /// `/changelog`: every entry, oldest first, in a "What's New" panel.
    pub(super) fn show_changelog(&mut self) {
        let markdown = changelog::full_markdown(changelog::CHANGELOG);
        self.transcript
            .notice(Notice::panel("What's New", &markdown));
    }

    /// At start-up, as pi: a new session after an update shows the entries
    /// newer than `lastChangelogVersion` (or one line with
    /// `collapseChangelog`) and records this version; a first run records it
    /// silently; a session with messages shows nothing.
    pub fn show_changelog_if_updated(&mut self) {
        let has_messages = self.app.agent.with_state(|s| !s.messages.is_empty());
        let settings = &self.app.settings;
        let (notice, record) = changelog::startup(
            changelog::CHANGELOG,
            has_messages,
            changelog::last_seen_version(settings),
            changelog::collapse(settings),
            crate::VERSION,
        );
        if record
            && let Err(e) = self.app.settings_writer.set(&[(
                "lastChangelogVersion",
                Some(Value::String(crate::VERSION.to_owned())),
            )])
        {
            tracing::warn!("cannot record lastChangelogVersion: {e}");
        }
        let notice = match notice {
            StartupNotice::None => return,
            StartupNotice::WhatsNew(markdown) => Notice::Framed {
                title: Some("What's New".to_owned()),
                body: Box::new(Md::new(markdown.trim(), MdStyle::Plain)),
            },
            StartupNotice::Collapsed(version) => Notice::Framed {
                title: None,
                body: Box::new(Md::new(
                    format!("Updated to v{version}. Use **/changelog** to view full changelog."),
                    MdStyle::Plain,
                )),
            },
        };
        self.transcript.notice(notice);
    }
}
