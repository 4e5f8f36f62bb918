//! Configurable key bindings (pi's `KeybindingsManager`): every action has an id
//! (`tui.editor.cursorLeft`, `app.clear`, ...) and default keys in pi's syntax
//! (`ctrl+a`, `shift+enter`, `pageUp`). User entries replace an action's defaults; keys
//! claimed by two user entries are reported as [`Conflict`]s.

use std::collections::{BTreeMap, HashMap};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// One action: its id, default keys and a short description.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Definition {
    /// The id (`tui.input.submit`).
    pub id: &'static str,
    /// The default keys, in pi's syntax.
    pub default_keys: &'static [&'static str],
    /// What the action does.
    pub description: &'static str,
}

impl Definition {
    /// An action with its default keys and description (usable in consts).
    pub const fn new(
        id: &'static str,
        default_keys: &'static [&'static str],
        description: &'static str,
    ) -> Self {
        Self {
            id,
            default_keys,
            description,
        }
    }
}

use Definition as D;

const fn def(
    id: &'static str,
    default_keys: &'static [&'static str],
    description: &'static str,
) -> Definition {
    D::new(id, default_keys, description)
}

/// The editor, input and list actions (pi-tui's `TUI_KEYBINDINGS`).
pub const TUI_BINDINGS: &[Definition] = &[
    def("tui.editor.cursorUp", &["up"], "Move cursor up"),
    def("tui.editor.cursorDown", &["down"], "Move cursor down"),
    def(
        "tui.editor.cursorLeft",
        &["left", "ctrl+b"],
        "Move cursor left",
    ),
    def(
        "tui.editor.cursorRight",
        &["right", "ctrl+f"],
        "Move cursor right",
    ),
    def(
        "tui.editor.cursorWordLeft",
        &["alt+left", "ctrl+left", "alt+b"],
        "Move cursor word left",
    ),
    def(
        "tui.editor.cursorWordRight",
        &["alt+right", "ctrl+right", "alt+f"],
        "Move cursor word right",
    ),
    def(
        "tui.editor.cursorLineStart",
        &["home", "ctrl+a"],
        "Move to line start",
    ),
    def(
        "tui.editor.cursorLineEnd",
        &["end", "ctrl+e"],
        "Move to line end",
    ),
    def(
        "tui.editor.jumpForward",
        &["ctrl+]"],
        "Jump forward to character",
    ),
    def(
        "tui.editor.jumpBackward",
        &["ctrl+alt+]"],
        "Jump backward to character",
    ),
    def("tui.editor.pageUp", &["pageUp"], "Page up"),
    def("tui.editor.pageDown", &["pageDown"], "Page down"),
    def(
        "tui.editor.deleteCharBackward",
        &["backspace"],
        "Delete character backward",
    ),
    def(
        "tui.editor.deleteCharForward",
        &["delete", "ctrl+d"],
        "Delete character forward",
    ),
    def(
        "tui.editor.deleteWordBackward",
        &["ctrl+w", "alt+backspace"],
        "Delete word backward",
    ),
    def(
        "tui.editor.deleteWordForward",
        &["alt+d", "alt+delete"],
        "Delete word forward",
    ),
    def(
        "tui.editor.deleteToLineStart",
        &["ctrl+u"],
        "Delete to line start",
    ),
    def(
        "tui.editor.deleteToLineEnd",
        &["ctrl+k"],
        "Delete to line end",
    ),
    def("tui.editor.yank", &["ctrl+y"], "Yank"),
    def("tui.editor.yankPop", &["alt+y"], "Yank pop"),
    def("tui.editor.undo", &["ctrl+-"], "Undo"),
    def("tui.input.newLine", &["shift+enter"], "Insert newline"),
    def("tui.input.submit", &["enter"], "Submit input"),
    def("tui.input.tab", &["tab"], "Tab / autocomplete"),
    def("tui.input.copy", &["ctrl+c"], "Copy selection"),
    def("tui.select.up", &["up"], "Move selection up"),
    def("tui.select.down", &["down"], "Move selection down"),
    def("tui.select.pageUp", &["pageUp"], "Selection page up"),
    def("tui.select.pageDown", &["pageDown"], "Selection page down"),
    def("tui.select.confirm", &["enter"], "Confirm selection"),
    def(
        "tui.select.cancel",
        &["escape", "ctrl+c"],
        "Cancel selection",
    ),
];

/// A key string that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid key \"{0}\"")]
pub struct KeyParseError(pub String);

/// One key with modifiers, parsed from pi's syntax (`shift+ctrl+p`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyCombo {
    code: KeyCode,
    mods: KeyModifiers,
    text: String,
}

fn named_key(name: &str) -> Option<KeyCode> {
    let code = match name.to_ascii_lowercase().as_str() {
        "escape" | "esc" => KeyCode::Esc,
        "enter" | "return" => KeyCode::Enter,
        "tab" => KeyCode::Tab,
        "space" => KeyCode::Char(' '),
        "backspace" => KeyCode::Backspace,
        "delete" => KeyCode::Delete,
        "insert" => KeyCode::Insert,
        "clear" => KeyCode::KeypadBegin,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "pageup" => KeyCode::PageUp,
        "pagedown" => KeyCode::PageDown,
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        other => {
            let n = other.strip_prefix('f')?.parse::<u8>().ok()?;
            return (1..=12).contains(&n).then_some(KeyCode::F(n));
        }
    };
    Some(code)
}

const SYMBOLS: &str = "`-=[]\\;',./!@#$%^&*()_+|~{}:<>?";

impl KeyCombo {
    /// Parses `modifier+...+key`; modifiers are `ctrl`, `shift`, `alt` and `super`.
    pub fn parse(text: &str) -> Result<Self, KeyParseError> {
        let err = || KeyParseError(text.to_owned());
        let trimmed = text.trim();
        // The key itself may be `+` (`ctrl++`).
        let (mod_part, key) = if let Some(head) = trimmed.strip_suffix("++") {
            (head, "+")
        } else if trimmed == "+" {
            ("", "+")
        } else {
            match trimmed.rsplit_once('+') {
                Some((head, key)) => (head, key),
                None => ("", trimmed),
            }
        };
        let mut mods = KeyModifiers::NONE;
        for part in mod_part.split('+').filter(|p| !p.is_empty()) {
            mods |= match part.to_ascii_lowercase().as_str() {
                "ctrl" => KeyModifiers::CONTROL,
                "shift" => KeyModifiers::SHIFT,
                "alt" => KeyModifiers::ALT,
                "super" => KeyModifiers::SUPER,
                _ => return Err(err()),
            };
        }
        let mut chars = key.chars();
        let code = match (chars.next(), chars.next()) {
            (Some(c), None) if c.is_ascii_alphanumeric() => KeyCode::Char(c.to_ascii_lowercase()),
            (Some(c), None) if SYMBOLS.contains(c) => KeyCode::Char(c),
            _ => named_key(key).ok_or_else(err)?,
        };
        Ok(Self {
            code,
            mods,
            text: trimmed.to_owned(),
        })
    }

    /// The key as written in the configuration.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// True when `key` is this combination (legacy encodings included: Ctrl+_ and
    /// Ctrl+7 for Ctrl+-, Ctrl+5 for Ctrl+]; Shift is ignored on Backspace, Delete and
    /// symbols, whose shifted form the terminal already reports).
    pub fn matches(&self, key: &KeyEvent) -> bool {
        let (code, mods) = normalize(key);
        if code == self.code && mods == self.mods {
            return true;
        }
        let shift_free = mods - KeyModifiers::SHIFT;
        let lenient = match self.code {
            KeyCode::Backspace | KeyCode::Delete => true,
            KeyCode::Char(c) => !c.is_ascii_alphanumeric() && c != ' ',
            _ => false,
        };
        if lenient && code == self.code && shift_free == self.mods {
            return true;
        }
        if self.mods.contains(KeyModifiers::CONTROL) {
            let alias: &[char] = match self.code {
                KeyCode::Char('-') => &['_', '7'],
                KeyCode::Char(']') => &['5'],
                _ => &[],
            };
            if let KeyCode::Char(c) = code {
                return alias.contains(&c) && shift_free == self.mods;
            }
        }
        false
    }

    /// The key for display: each part capitalised (`Shift+Ctrl+P`, `PageUp`).
    pub fn display(&self) -> String {
        capitalize_key(&self.text)
    }
}

/// pi's key display: the first letter of every `+`-separated part of every
/// `/`-separated key in upper case (`ctrl+c/escape` is `Ctrl+C/Escape`).
pub fn capitalize_key(text: &str) -> String {
    let part = |part: &str| {
        let mut chars = part.chars();
        chars.next().map_or_else(String::new, |c| {
            c.to_uppercase().chain(chars).collect::<String>()
        })
    };
    text.split('/')
        .map(|key| key.split('+').map(part).collect::<Vec<_>>().join("+"))
        .collect::<Vec<_>>()
        .join("/")
}

/// The event's key and modifiers in the form [`KeyCombo::parse`] produces
/// (lower-case letters with Shift, BackTab as Shift+Tab).
fn normalize(key: &KeyEvent) -> (KeyCode, KeyModifiers) {
    let mut mods = key.modifiers
        & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT | KeyModifiers::SUPER);
    let code = match key.code {
        KeyCode::Char(c) if c.is_ascii_uppercase() => {
            mods |= KeyModifiers::SHIFT;
            KeyCode::Char(c.to_ascii_lowercase())
        }
        KeyCode::BackTab => {
            mods |= KeyModifiers::SHIFT;
            KeyCode::Tab
        }
        other => other,
    };
    (code, mods)
}

/// A key claimed by more than one user entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// The key.
    pub key: String,
    /// The actions that claim it.
    pub ids: Vec<String>,
}

/// The effective bindings: each action's defaults or the user's replacement.
#[derive(Debug, Clone)]
pub struct Keybindings {
    definitions: Vec<Definition>,
    keys: HashMap<&'static str, Vec<KeyCombo>>,
    conflicts: Vec<Conflict>,
    invalid: Vec<(String, String)>,
}

impl Default for Keybindings {
    fn default() -> Self {
        Self::new(TUI_BINDINGS.to_vec(), &BTreeMap::new())
    }
}

impl Keybindings {
    /// The bindings of `definitions` with `user` entries (id to keys) replacing defaults.
    /// Entries for unknown ids are ignored, as pi ignores them.
    pub fn new(definitions: Vec<Definition>, user: &BTreeMap<String, Vec<String>>) -> Self {
        let mut keys = HashMap::new();
        let mut invalid = Vec::new();
        let mut claims: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for d in &definitions {
            let texts: Vec<&str> = match user.get(d.id) {
                Some(list) => list.iter().map(String::as_str).collect(),
                None => d.default_keys.to_vec(),
            };
            let mut combos: Vec<KeyCombo> = Vec::new();
            for text in texts {
                match KeyCombo::parse(text) {
                    Ok(combo) if !combos.contains(&combo) => combos.push(combo),
                    Ok(_) => {}
                    Err(_) => invalid.push((d.id.to_owned(), text.to_owned())),
                }
            }
            if user.contains_key(d.id) {
                for combo in &combos {
                    let ids = claims.entry(combo.as_str().to_owned()).or_default();
                    ids.push(d.id.to_owned());
                }
            }
            keys.insert(d.id, combos);
        }
        let conflicts = claims
            .into_iter()
            .filter(|(_, ids)| ids.len() > 1)
            .map(|(key, ids)| Conflict { key, ids })
            .collect();
        Self {
            definitions,
            keys,
            conflicts,
            invalid,
        }
    }

    /// True when `key` is one of `id`'s keys.
    pub fn matches(&self, key: &KeyEvent, id: &str) -> bool {
        self.keys
            .get(id)
            .is_some_and(|combos| combos.iter().any(|c| c.matches(key)))
    }

    /// True when `id` is a known action.
    pub fn has(&self, id: &str) -> bool {
        self.keys.contains_key(id)
    }

    /// `id`'s keys as configured (empty for an unbound or unknown action).
    pub fn keys(&self, id: &str) -> Vec<&str> {
        self.keys
            .get(id)
            .map(|c| c.iter().map(KeyCombo::as_str).collect())
            .unwrap_or_default()
    }

    /// `id`'s keys for display, capitalised and joined with `/` (`Home/Ctrl+A`).
    pub fn display(&self, id: &str) -> String {
        capitalize_key(&self.keys(id).join("/"))
    }

    /// Every action, in definition order.
    pub fn definitions(&self) -> &[Definition] {
        &self.definitions
    }

    /// Keys claimed by several user entries.
    pub fn conflicts(&self) -> &[Conflict] {
        &self.conflicts
    }

    /// User keys that could not be parsed, as (action id, key).
    pub fn invalid_keys(&self) -> &[(String, String)] {
        &self.invalid
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    #[test]
    fn parses_pi_key_syntax() {
        let c = KeyCombo::parse("shift+ctrl+p").unwrap();
        assert!(c.matches(&key(
            KeyCode::Char('P'),
            KeyModifiers::CONTROL | KeyModifiers::SHIFT
        )));
        assert!(c.matches(&key(
            KeyCode::Char('p'),
            KeyModifiers::CONTROL | KeyModifiers::SHIFT
        )));
        assert!(!c.matches(&key(KeyCode::Char('p'), KeyModifiers::CONTROL)));
        let page = KeyCombo::parse("pageUp").unwrap();
        assert!(page.matches(&key(KeyCode::PageUp, KeyModifiers::NONE)));
        assert_eq!(page.display(), "PageUp");
        assert!(
            KeyCombo::parse("ctrl++")
                .unwrap()
                .matches(&key(KeyCode::Char('+'), KeyModifiers::CONTROL))
        );
        assert!(
            KeyCombo::parse("shift+tab")
                .unwrap()
                .matches(&key(KeyCode::BackTab, KeyModifiers::SHIFT))
        );
        assert!(
            KeyCombo::parse("f5")
                .unwrap()
                .matches(&key(KeyCode::F(5), KeyModifiers::NONE))
        );
        for bad in ["hyper+a", "ctrl+", "f13", "ab", ""] {
            assert!(KeyCombo::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn legacy_encodings_match() {
        let undo = KeyCombo::parse("ctrl+-").unwrap();
        assert!(undo.matches(&key(KeyCode::Char('_'), KeyModifiers::CONTROL)));
        assert!(undo.matches(&key(KeyCode::Char('7'), KeyModifiers::CONTROL)));
        let jump = KeyCombo::parse("ctrl+]").unwrap();
        assert!(jump.matches(&key(KeyCode::Char('5'), KeyModifiers::CONTROL)));
        let backspace = KeyCombo::parse("backspace").unwrap();
        assert!(backspace.matches(&key(KeyCode::Backspace, KeyModifiers::SHIFT)));
        let enter = KeyCombo::parse("enter").unwrap();
        assert!(!enter.matches(&key(KeyCode::Enter, KeyModifiers::SHIFT)));
    }

    #[test]
    fn user_entries_replace_defaults_and_conflicts_are_reported() {
        let mut user = BTreeMap::new();
        user.insert("tui.input.submit".to_owned(), vec!["ctrl+s".to_owned()]);
        user.insert("tui.editor.yank".to_owned(), vec!["ctrl+s".to_owned()]);
        user.insert("tui.editor.undo".to_owned(), vec!["nonsense+x".to_owned()]);
        user.insert("no.such.action".to_owned(), vec!["ctrl+q".to_owned()]);
        let kb = Keybindings::new(TUI_BINDINGS.to_vec(), &user);
        let enter = key(KeyCode::Enter, KeyModifiers::NONE);
        let ctrl_s = key(KeyCode::Char('s'), KeyModifiers::CONTROL);
        assert!(!kb.matches(&enter, "tui.input.submit"));
        assert!(kb.matches(&ctrl_s, "tui.input.submit"));
        assert!(kb.matches(&enter, "tui.select.confirm"));
        assert_eq!(
            kb.conflicts(),
            &[Conflict {
                key: "ctrl+s".to_owned(),
                ids: vec!["tui.editor.yank".to_owned(), "tui.input.submit".to_owned()],
            }]
        );
        assert_eq!(
            kb.invalid_keys(),
            &[("tui.editor.undo".to_owned(), "nonsense+x".to_owned())]
        );
        assert!(kb.keys("tui.editor.undo").is_empty());
        assert_eq!(kb.display("tui.editor.cursorLineStart"), "Home/Ctrl+A");
    }
}
