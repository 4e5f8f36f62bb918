//! `/login` → "Use a subscription" in the interactive mode, in a
//! pseudo-terminal: the subscriptions are listed with pi's names, GitHub
//! Copilot's login dialog asks for the Enterprise domain, and escape
//! cancels it without a request or a stored credential.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::e2e_common;
use crate::pty_common;

use e2e_common::Scenario;
use pty_common::Tui;

#[tokio::test(flavor = "multi_thread")]
async fn a_subscription_login_opens_its_dialog_and_escape_cancels_it() {
    let s = Scenario::start(Vec::new()).await;
    let mut tui = Tui::start(&s, &[], 80, 40);
    tui.wait_screen(|s| s.contains("mock-gpt"), "the footer");
    tui.submit("/login");
    tui.wait_screen(|s| s.contains("→ Use a subscription"), "the method step");
    tui.send("\r");
    let list = tui.wait_screen(
        |s| s.contains("ChatGPT Plus/Pro (Codex Subscription)"),
        "the subscriptions",
    );
    assert!(list.contains("Anthropic (Claude Pro/Max)"), "{list}");
    assert!(list.contains("GitHub Copilot"), "{list}");
    tui.send("copilot");
    tui.wait_screen(|s| s.contains("→ GitHub Copilot"), "Copilot selected");
    tui.send("\r");
    let dialog = tui.wait_screen(
        |s| s.contains("GitHub Enterprise URL/domain (blank for github.com)"),
        "the Enterprise prompt",
    );
    assert!(dialog.contains("Login to GitHub Copilot"), "{dialog}");
    assert!(dialog.contains("e.g., company.ghe.com"), "{dialog}");
    tui.send("\x1b");
    tui.wait_screen(
        |s| !s.contains("Login to GitHub Copilot"),
        "the dialog closed",
    );
    assert!(!s.agent_dir.path().join("auth.json").exists());
    assert!(tui.quit().success());
}
