//! The one dispatcher: every [`Action`] (from a key, a slash command, a
//! selector or a dialog) is carried out here, by the [`Ui`]'s handlers in
//! this folder; what is left for the terminal loop comes back as an
//! [`Effect`].

use super::Ui;
use crate::modes::interactive::action::{Action, Effect};
use crate::modes::interactive::blocks::Notice;

impl Ui {
    /// Carries out `action`.
    pub fn dispatch(&mut self, action: Action) -> Effect {
        match action {
            Action::Submit(text) => return self.submit(&text),
            Action::FollowUp(text) => return self.follow_up(&text),
            Action::Interrupt => self.interrupt(),
            Action::Clear => return self.clear(),
            Action::Dequeue => self.dequeue(),
            Action::Suspend => return Effect::Suspend,
            Action::ExternalEditor => return Effect::ExternalEditor,
            Action::Quit => return Effect::Quit,
            Action::ToggleExpanded => {
                self.view.expanded = !self.view.expanded;
                self.view.reprint = true;
            }
            Action::ToggleThinking => self.toggle_thinking(),
            Action::CycleModel { backward } => self.cycle_model(backward),
            Action::CycleThinking => self.cycle_thinking(),
            Action::ModelCommand(search) => self.model_command(search.as_deref()),
            Action::Compact(instructions) => self.compact(instructions),
            Action::Name(name) => self.name(name.as_deref()),
            Action::SessionInfo => self.session_info(),
            Action::Copy => return self.copy(),
            Action::PasteImage => self.paste_image(),
            Action::NewSession => self.new_session(),
            Action::CloneSession => self.clone_session(),
            Action::Export(path) => self.export(path.as_deref()),
            Action::Share => self.share(),
            Action::Hotkeys => {
                let mut table =
                    crate::modes::interactive::hotkeys::hotkeys_markdown(&self.look.keys);
                table.push_str(&self.extension_hotkeys());
                self.transcript
                    .notice(Notice::panel("Keyboard Shortcuts", &table));
            }
            Action::Changelog => self.show_changelog(),
            Action::Reload => self.reload(),
            Action::Error(text) => self.error(text),
            Action::OpenSessions { startup } => self.open_session_picker(startup),
            Action::OpenTree => self.open_tree(None),
            Action::OpenFork => self.open_fork(),
            Action::OpenScopedModels => self.open_scoped_models(),
            Action::ConfirmImport(path) => self.confirm_import(&path),
            Action::OpenSettings => self.open_settings(),
            Action::OpenLogin => self.open_login(),
            Action::OpenLogout => self.open_logout(),
            Action::Model(model) => self.set_model(*model),
            Action::Resume(path) => self.resume(&path),
            Action::TreeTarget(id) => self.tree_target(id),
            Action::Fork(id) => self.fork(&id),
            Action::Choice(kind, answer) => self.choice(kind, answer),
            Action::Text(kind, text) => self.text_answer(kind, text),
            Action::Status(text) => self.status_line(&text),
            Action::Setting(id, value) => self.apply_setting(id, &value),
            Action::PreviewSetting(id, value) => {
                if id == "theme" {
                    self.preview_theme(&value);
                }
            }
            Action::SaveApiKey { provider, key } => self.save_api_key(&provider, &key),
            Action::Logout(provider) => self.logout(&provider),
            Action::StartOauth(provider) => self.start_oauth(&provider),
        }
        Effect::None
    }
}
