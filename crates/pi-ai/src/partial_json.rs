//! Incremental parsing of streamed JSON text (tool-call arguments).
//!
//! Providers stream tool-call arguments as JSON fragments. [`PartialJson`]
//! keeps the text received so far plus a small lexer/parser state and, after
//! every fragment, updates a [`Value`] in place to the best current value of
//! the text, in time proportional to the fragment (plus the nesting depth).
//! The semantics mirror pi's `parseStreamingJson` (npm `partial-json` with
//! every partial kind allowed):
//!
//! - an unterminated string is present with the characters so far; an
//!   incomplete escape (`\`, `\u00`, or a high surrogate still waiting for its
//!   low half) is held back until complete; lone surrogates become U+FFFD;
//! - an object key is absent until its value has started;
//! - unterminated objects and arrays are present with their members so far;
//! - a number being typed shows its longest valid prefix (`-` → absent,
//!   `1.`/`1e`/`1e-` → `1`), parsed by `serde_json` so the representation
//!   (u64/i64/f64) matches; a number token longer than 256 bytes stays absent
//!   until terminated, which keeps the cost linear;
//! - partially typed literals are completed: `t`/`tr`/`tru` → `true`,
//!   `f`… → `false`, `n`… → `null` (what `partial-json` does);
//! - invalid input stops the updates: the value keeps its best state so far
//!   and [`PartialJson::finish`] reports the `serde_json` error.

use serde_json::{Map, Value};

/// `serde_json` rejects the 128th nested container; so does this parser.
const MAX_DEPTH: usize = 127;
/// Longest in-progress number token that is shown before it terminates.
const MAX_LIVE_NUMBER: usize = 256;

/// Incremental parser for streamed JSON text.
#[derive(Debug, Default, Clone)]
pub struct PartialJson {
    /// All text received so far.
    text: String,
    /// Bytes of `text` consumed by the lexer.
    pos: usize,
    /// Lexer state of the innermost open container (or of the root).
    state: State,
    /// Open containers, outermost first.
    stack: Vec<Frame>,
}

/// One open container.
#[derive(Debug, Clone)]
enum Frame {
    /// An object; `key` is the key being read or whose value is being read.
    Object { key: String },
    /// An array; the member being read is its last element.
    Array,
}

/// Where the lexer is.
#[derive(Debug, Clone, Default)]
enum State {
    /// Expecting a value (root start, after `:`, after `,` in an array).
    #[default]
    Value,
    /// Right after `[`: a value or `]`.
    ArrayFirst,
    /// Right after `{`: a key or `}`.
    ObjectFirst,
    /// After `,` in an object: a key.
    KeyStart,
    /// Inside an object key.
    Key(Esc),
    /// After a key: `:`.
    Colon,
    /// Inside a string value.
    Str(Esc),
    /// Inside a number token starting at byte `start`; `shown` tells whether
    /// its current slot holds a value.
    Number {
        start: usize,
        phase: NumPhase,
        shown: bool,
    },
    /// Inside a literal; the completed value is already in place.
    Literal { word: &'static [u8], matched: usize },
    /// After a complete value: `,`, a closing bracket or (at the root) the end.
    After,
    /// Invalid input; nothing more is parsed.
    Error,
}

/// Escape state inside a string.
#[derive(Debug, Clone, Copy, Default)]
enum Esc {
    /// Plain characters.
    #[default]
    None,
    /// After `\`.
    Backslash,
    /// After `\u` and some hex digits: (pending high surrogate, the code
    /// unit so far, how many digits).
    Hex(Option<u16>, u16, u8),
    /// A complete high surrogate waiting for `\uDCxx`.
    High(u16),
    /// A high surrogate, then `\`.
    HighBackslash(u16),
}

/// Position inside a number token (JSON grammar).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NumPhase {
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    Exp,
    ExpSign,
    ExpDigits,
}

/// Outcome of scanning string characters.
enum Scan {
    Closed,
    More,
    Invalid,
}

/// Outcome of feeding one byte to an escape sequence.
enum EscStep {
    Consumed,
    Reprocess,
    Invalid,
}

impl PartialJson {
    /// Creates a parser that has seen no text.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends `fragment` and updates `value` in place to the best current parse of all text so far.
    /// `value` must be the same Value passed on previous calls (the parser keeps only a path into it).
    /// Before the first token of the root arrives, `value` is left untouched (callers start tool args as `{}`).
    pub fn push(&mut self, fragment: &str, value: &mut Value) {
        self.text.push_str(fragment);
        if matches!(self.state, State::Error) {
            return;
        }
        let text = std::mem::take(&mut self.text);
        self.run(0, value, &text);
        self.text = text;
    }

    /// All text received so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Exact parse of the whole text with serde_json (used on toolcall_end).
    pub fn finish(&self) -> Result<Value, serde_json::Error> {
        serde_json::from_str(&self.text)
    }

    /// Parses at nesting level `d`: `node` holds the slot of level `d` (the
    /// root value itself for `d == 0`, else the container of `stack[d - 1]`).
    /// Returns when that container closes, the input ends or an error occurs.
    fn run(&mut self, d: usize, node: &mut Value, text: &str) {
        let bytes = text.as_bytes();
        while let Some(&b) = bytes.get(self.pos) {
            if self.stack.len() > d {
                // A deeper container is open: descend into it (its value is
                // this level's current slot).
                let parent = d.checked_sub(1).and_then(|i| self.stack.get(i));
                let want_object = matches!(self.stack.get(d), Some(Frame::Object { .. }));
                let (fresh, ok): (Value, fn(&Value) -> bool) = if want_object {
                    (Value::Object(Map::new()), Value::is_object)
                } else {
                    (Value::Array(Vec::new()), Value::is_array)
                };
                match slot_mut(node, parent) {
                    Some(child) if ok(child) => {}
                    Some(child) => *child = fresh,
                    None => start_slot(node, parent, fresh),
                }
                let Some(child) = slot_mut(node, parent) else {
                    return self.fail();
                };
                self.run(d + 1, child, text);
                if matches!(self.state, State::Error) {
                    return;
                }
                continue;
            }
            let parent = d.checked_sub(1).and_then(|i| self.stack.get(i));
            let in_array = matches!(parent, Some(Frame::Array));
            let in_object = matches!(parent, Some(Frame::Object { .. }));
            let is_ws = matches!(b, b' ' | b'\t' | b'\n' | b'\r');
            match &mut self.state {
                State::Error => return,
                State::Value | State::ArrayFirst if is_ws => self.pos += 1,
                State::ArrayFirst if b == b']' => return self.close(),
                State::Value | State::ArrayFirst => {
                    if !self.begin_value(b, d, node) {
                        return self.fail();
                    }
                }
                State::ObjectFirst | State::KeyStart | State::Colon if is_ws => self.pos += 1,
                State::ObjectFirst if b == b'}' => return self.close(),
                State::ObjectFirst | State::KeyStart => {
                    let Some(Frame::Object { key }) = self.stack.last_mut() else {
                        return self.fail();
                    };
                    if b != b'"' {
                        return self.fail();
                    }
                    key.clear();
                    self.pos += 1;
                    self.state = State::Key(Esc::None);
                }
                State::Key(esc) => {
                    let Some(Frame::Object { key }) = self.stack.last_mut() else {
                        return self.fail();
                    };
                    match scan_string(text, &mut self.pos, esc, key) {
                        Scan::Closed => self.state = State::Colon,
                        Scan::More => {}
                        Scan::Invalid => self.state = State::Error,
                    }
                }
                State::Colon => {
                    if b != b':' {
                        return self.fail();
                    }
                    self.pos += 1;
                    self.state = State::Value;
                }
                State::Str(esc) => {
                    let mut scratch = String::new();
                    let out = string_slot(node, parent);
                    match scan_string(text, &mut self.pos, esc, out.unwrap_or(&mut scratch)) {
                        Scan::Closed => self.state = State::After,
                        Scan::More => {}
                        Scan::Invalid => self.state = State::Error,
                    }
                }
                State::Number {
                    start,
                    phase,
                    shown,
                } => {
                    while let Some(next) = bytes.get(self.pos).and_then(|&c| num_next(*phase, c)) {
                        *phase = next;
                        self.pos += 1;
                    }
                    if self.pos >= bytes.len() {
                        break;
                    }
                    // A byte that cannot continue the number ends the token.
                    let token = text.get(*start..self.pos).unwrap_or_default();
                    let complete = phase.cut() == Some(0);
                    match complete.then(|| serde_json::from_str(token).ok()).flatten() {
                        Some(v) => {
                            set_slot(node, parent, v, *shown);
                            self.state = State::After;
                        }
                        None => {
                            show_number(node, parent, token, *phase, shown);
                            return self.fail();
                        }
                    }
                }
                State::Literal { word, matched } => {
                    if word.get(*matched) != Some(&b) {
                        return self.fail();
                    }
                    self.pos += 1;
                    *matched += 1;
                    if *matched >= word.len() {
                        self.state = State::After;
                    }
                }
                State::After if is_ws => self.pos += 1,
                State::After => {
                    match b {
                        b',' if in_array => self.state = State::Value,
                        b',' if in_object => self.state = State::KeyStart,
                        b']' if in_array => return self.close(),
                        b'}' if in_object => return self.close(),
                        _ => {
                            return self.fail();
                        }
                    }
                    self.pos += 1;
                }
            }
        }
        // The input is exhausted: show the number being typed, if any.
        if self.stack.len() == d {
            let parent = d.checked_sub(1).and_then(|i| self.stack.get(i));
            if let State::Number {
                start,
                phase,
                shown,
            } = &mut self.state
            {
                let token = text.get(*start..).unwrap_or_default();
                show_number(node, parent, token, *phase, shown);
            }
        }
    }

    /// Enters the error state.
    fn fail(&mut self) {
        self.state = State::Error;
    }

    /// Closes the innermost container (the current byte is its bracket).
    fn close(&mut self) {
        self.stack.pop();
        self.pos += 1;
        self.state = State::After;
    }

    /// Starts the value whose first byte is `b` in the current slot of level
    /// `d`. Returns `false` when `b` cannot start a value.
    fn begin_value(&mut self, b: u8, d: usize, node: &mut Value) -> bool {
        let parent = d.checked_sub(1).and_then(|i| self.stack.get(i));
        let (value, state, frame) = match b {
            b'"' => (Value::String(String::new()), State::Str(Esc::None), None),
            b'{' | b'[' if self.stack.len() >= MAX_DEPTH => return false,
            b'{' => {
                let frame = Frame::Object { key: String::new() };
                (Value::Object(Map::new()), State::ObjectFirst, Some(frame))
            }
            b'[' => (
                Value::Array(Vec::new()),
                State::ArrayFirst,
                Some(Frame::Array),
            ),
            b'-' | b'0'..=b'9' => {
                // A number is absent until it has a valid prefix, so a
                // duplicate key's older value goes away now.
                if let (Some(Frame::Object { key }), Value::Object(map)) = (parent, &mut *node) {
                    map.shift_remove(key.as_str());
                }
                let phase = num_next(NumPhase::Minus, b).unwrap_or(NumPhase::Minus);
                let start = self.pos;
                self.state = State::Number {
                    start,
                    phase,
                    shown: false,
                };
                self.pos += 1;
                return true;
            }
            b't' => (Value::Bool(true), literal(b"true"), None),
            b'f' => (Value::Bool(false), literal(b"false"), None),
            b'n' => (Value::Null, literal(b"null"), None),
            _ => return false,
        };
        start_slot(node, parent, value);
        self.stack.extend(frame);
        self.state = state;
        self.pos += 1;
        true
    }
}

/// The state right after the first byte of literal `word`.
fn literal(word: &'static [u8]) -> State {
    State::Literal { word, matched: 1 }
}

/// The slot of level `parent` inside `node`, if it exists.
fn slot_mut<'a>(node: &'a mut Value, parent: Option<&Frame>) -> Option<&'a mut Value> {
    match parent {
        None => Some(node),
        Some(Frame::Object { key }) => node.as_object_mut()?.get_mut(key.as_str()),
        Some(Frame::Array) => node.as_array_mut()?.last_mut(),
    }
}

/// Puts a new member `value` into the slot of `parent` inside `node`.
fn start_slot(node: &mut Value, parent: Option<&Frame>, value: Value) {
    match parent {
        None => *node = value,
        Some(Frame::Object { key }) => {
            if let Value::Object(map) = node {
                map.insert(key.clone(), value);
            } else {
                *node = Value::Object(Map::from_iter([(key.clone(), value)]));
            }
        }
        Some(Frame::Array) => {
            if let Value::Array(items) = node {
                items.push(value);
            } else {
                *node = Value::Array(vec![value]);
            }
        }
    }
}

/// The string in the slot of `parent`, made a string if it is not one.
fn string_slot<'a>(node: &'a mut Value, parent: Option<&Frame>) -> Option<&'a mut String> {
    match slot_mut(node, parent) {
        Some(Value::String(_)) => {}
        Some(other) => *other = Value::String(String::new()),
        None => start_slot(node, parent, Value::String(String::new())),
    }
    match slot_mut(node, parent) {
        Some(Value::String(s)) => Some(s),
        _ => None,
    }
}

/// Sets the slot of `parent` to `value`, replacing it when `shown`.
fn set_slot(node: &mut Value, parent: Option<&Frame>, value: Value, shown: bool) {
    match slot_mut(node, parent) {
        Some(slot) if shown => *slot = value,
        _ => start_slot(node, parent, value),
    }
}

/// Removes the slot of `parent` (the root becomes `{}`).
fn remove_slot(node: &mut Value, parent: Option<&Frame>) {
    match (parent, node) {
        (None, node) => *node = Value::Object(Map::new()),
        (Some(Frame::Object { key }), Value::Object(map)) => {
            map.shift_remove(key.as_str());
        }
        (Some(Frame::Array), Value::Array(items)) => {
            items.pop();
        }
        _ => {}
    }
}

/// Shows the in-progress number `token` (longest valid prefix) in its slot.
fn show_number(
    node: &mut Value,
    parent: Option<&Frame>,
    token: &str,
    phase: NumPhase,
    shown: &mut bool,
) {
    let value = (phase.cut())
        .filter(|_| token.len() <= MAX_LIVE_NUMBER)
        .and_then(|cut| token.get(..token.len().saturating_sub(cut)))
        .and_then(|prefix| serde_json::from_str::<Value>(prefix).ok());
    match value {
        Some(v) => {
            set_slot(node, parent, v, *shown);
            *shown = true;
        }
        None if *shown => {
            remove_slot(node, parent);
            *shown = false;
        }
        None => {}
    }
}

impl NumPhase {
    /// Bytes to drop from a token in this phase to get its longest valid
    /// prefix (`Some(0)`: the token is complete; `None`: no valid prefix).
    fn cut(self) -> Option<usize> {
        match self {
            Self::Minus => None,
            Self::Zero | Self::Int | Self::Frac | Self::ExpDigits => Some(0),
            Self::Dot | Self::Exp => Some(1),
            Self::ExpSign => Some(2),
        }
    }
}

/// The phase after byte `b` in phase `phase`, or `None` when `b` ends the token.
fn num_next(phase: NumPhase, b: u8) -> Option<NumPhase> {
    use NumPhase::*;
    Some(match (phase, b) {
        (Minus, b'0') => Zero,
        (Minus, b'1'..=b'9') | (Int, b'0'..=b'9') => Int,
        (Zero | Int, b'.') => Dot,
        (Dot | Frac, b'0'..=b'9') => Frac,
        (Zero | Int | Frac, b'e' | b'E') => Exp,
        (Exp, b'+' | b'-') => ExpSign,
        (Exp | ExpSign | ExpDigits, b'0'..=b'9') => ExpDigits,
        _ => return None,
    })
}

/// Decodes string characters from `text[*pos..]` into `out` until the
/// closing quote, the end of the input or invalid input.
fn scan_string(text: &str, pos: &mut usize, esc: &mut Esc, out: &mut String) -> Scan {
    let bytes = text.as_bytes();
    while let Some(&b) = bytes.get(*pos) {
        if let Esc::None = esc {
            let rest = bytes.get(*pos..).unwrap_or_default();
            let run = rest
                .iter()
                .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
                .unwrap_or(rest.len());
            if run > 0 {
                // The run ends at an ASCII byte or the end: a char boundary.
                let Some(chunk) = text.get(*pos..*pos + run) else {
                    return Scan::Invalid;
                };
                out.push_str(chunk);
                *pos += run;
                continue;
            }
            *pos += 1;
            match b {
                b'"' => return Scan::Closed,
                b'\\' => *esc = Esc::Backslash,
                _ => return Scan::Invalid,
            }
            continue;
        }
        match step_escape(esc, b, out) {
            EscStep::Consumed => *pos += 1,
            EscStep::Reprocess => {}
            EscStep::Invalid => return Scan::Invalid,
        }
    }
    Scan::More
}

/// Feeds byte `b` to the escape sequence in progress.
fn step_escape(esc: &mut Esc, b: u8, out: &mut String) -> EscStep {
    match *esc {
        Esc::None => return EscStep::Reprocess,
        Esc::Backslash => {
            let c = match b {
                b'"' => '"',
                b'\\' => '\\',
                b'/' => '/',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => {
                    *esc = Esc::Hex(None, 0, 0);
                    return EscStep::Consumed;
                }
                _ => return EscStep::Invalid,
            };
            out.push(c);
            *esc = Esc::None;
        }
        Esc::Hex(high, unit, digits) => {
            let Some(h) = hex(b) else {
                return EscStep::Invalid;
            };
            let unit = unit << 4 | h;
            *esc = match high {
                _ if digits < 3 => Esc::Hex(high, unit, digits + 1),
                Some(high) if (0xDC00..=0xDFFF).contains(&unit) => {
                    let code =
                        0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                    out.push(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
                    Esc::None
                }
                Some(_) => {
                    out.push(char::REPLACEMENT_CHARACTER);
                    complete_unit(unit, out)
                }
                None => complete_unit(unit, out),
            };
        }
        Esc::High(high) => {
            if b != b'\\' {
                out.push(char::REPLACEMENT_CHARACTER);
                *esc = Esc::None;
                return EscStep::Reprocess;
            }
            *esc = Esc::HighBackslash(high);
        }
        Esc::HighBackslash(high) => {
            if b != b'u' {
                out.push(char::REPLACEMENT_CHARACTER);
                *esc = Esc::Backslash;
                return EscStep::Reprocess;
            }
            *esc = Esc::Hex(Some(high), 0, 0);
        }
    }
    EscStep::Consumed
}

/// Emits a complete `\uXXXX` code unit, or holds a high surrogate back.
fn complete_unit(unit: u16, out: &mut String) -> Esc {
    if (0xD800..=0xDBFF).contains(&unit) {
        return Esc::High(unit);
    }
    out.push(char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER));
    Esc::None
}

/// The value of hex digit `b`.
fn hex(b: u8) -> Option<u16> {
    char::from(b)
        .to_digit(16)
        .and_then(|d| u16::try_from(d).ok())
}

/// One-shot best-effort parse of possibly-truncated JSON: exact serde_json parse if valid, else the partial parse, else `{}` (an empty object) when nothing usable. Mirrors pi's parseStreamingJson.
pub fn parse_partial_json(text: &str) -> Value {
    if let Ok(value) = serde_json::from_str(text) {
        return value;
    }
    let mut value = Value::Object(Map::new());
    PartialJson::new().push(text, &mut value);
    value
}

#[cfg(test)]
#[path = "partial_json_tests.rs"]
mod tests;
