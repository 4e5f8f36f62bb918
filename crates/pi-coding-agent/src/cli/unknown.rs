//! Flags pi does not know, found before clap parses the command line, so
//! they are reported as pi reports them (`Error: Unknown option: ...`).

use std::ffi::OsString;

use clap::CommandFactory;

use super::Args;

/// The unknown flags of a command line and the line without them.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Screened {
    /// The arguments clap may parse.
    pub args: Vec<OsString>,
    /// Unknown `-x` flags, in order (each an error in pi).
    pub unknown_short: Vec<String>,
    /// Unknown `--name` flags, without dashes or `=value` (together one error in pi).
    pub unknown_long: Vec<String>,
    /// The value each unknown `--name` took (`=value` or the next
    /// argument), in the order of `unknown_long`, and where in `args` a
    /// value taken from the next argument belongs if the flag turns out
    /// to take none.
    pub unknown_values: Vec<UnknownValue>,
}

/// The value an unknown `--name` flag took.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UnknownValue {
    /// The value, if any.
    pub value: Option<String>,
    /// Where it stood in `args` when it was the next argument.
    pub position: Option<usize>,
}

impl Screened {
    /// Resolves the unknown flags extensions registered (pi's second
    /// parse): returns their values (a boolean flag is `true` unless given
    /// `=false`; the argument after it stays an argument) and keeps the
    /// others unknown.
    pub fn take_extension_flags(
        &mut self,
        flags: &[crate::extensions::RegisteredFlag],
    ) -> Vec<(String, serde_json::Value)> {
        use crate::extensions::FlagKind;
        let mut found = Vec::new();
        let mut give_back = Vec::new();
        let mut index = 0;
        while index < self.unknown_long.len() {
            let name = &self.unknown_long[index];
            let Some(flag) = flags.iter().find(|f| &f.name == name) else {
                index += 1;
                continue;
            };
            let taken = self.unknown_values.get(index).cloned().unwrap_or_default();
            let value = match flag.kind {
                FlagKind::String => serde_json::Value::String(taken.value.unwrap_or_default()),
                FlagKind::Boolean => {
                    if let (Some(value), Some(position)) = (&taken.value, taken.position) {
                        give_back.push((position, value.clone()));
                        serde_json::Value::Bool(true)
                    } else {
                        serde_json::Value::Bool(taken.value.as_deref() != Some("false"))
                    }
                }
            };
            found.push((flag.name.clone(), value));
            self.unknown_long.remove(index);
            if index < self.unknown_values.len() {
                self.unknown_values.remove(index);
            }
        }
        give_back.sort_by_key(|(position, _)| std::cmp::Reverse(*position));
        for (position, value) in give_back {
            let at = position.min(self.args.len());
            self.args.insert(at, OsString::from(value));
        }
        found
    }
}

impl Screened {
    /// pi's error lines for the unknown flags (empty when there are none).
    pub fn errors(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .unknown_short
            .iter()
            .map(|flag| format!("Unknown option: {flag}"))
            .collect();
        if !self.unknown_long.is_empty() {
            let s = if self.unknown_long.len() == 1 {
                ""
            } else {
                "s"
            };
            let names: Vec<String> = self.unknown_long.iter().map(|n| format!("--{n}")).collect();
            lines.push(format!("Unknown option{s}: {}", names.join(", ")));
        }
        lines
    }
}

/// Splits `args` (program name first, pi's multi-letter shorts already
/// expanded) into what clap knows and the unknown flags. An unknown
/// `--name` takes the next argument as its value unless it starts with `-`
/// or `@`, as in pi.
pub fn screen(args: Vec<OsString>) -> Screened {
    let command = Args::command();
    let known = |arg: &str| -> Option<bool> {
        // Some(takes a value) for a known flag.
        command.get_arguments().find_map(|a| {
            let matches = if let Some(long) = arg.strip_prefix("--") {
                let name = long.split('=').next().unwrap_or(long);
                a.get_long() == Some(name)
                    || a.get_all_aliases()
                        .is_some_and(|aliases| aliases.contains(&name))
                    || matches!((name, a.get_id().as_str()), ("help", "help"))
            } else {
                let mut chars = arg.chars().skip(1);
                let first = chars.next();
                first.is_some() && a.get_short() == first
            };
            matches.then(|| a.get_action().takes_values() && !arg.contains('='))
        })
    };
    let mut out = Screened::default();
    let mut iter = args.into_iter();
    if let Some(program) = iter.next() {
        out.args.push(program);
    }
    let mut pending_value = false;
    let mut skip_value = false;
    let rest: Vec<OsString> = iter.collect();
    for (i, arg) in rest.iter().enumerate() {
        if pending_value {
            pending_value = false;
            out.args.push(arg.clone());
            continue;
        }
        if skip_value {
            skip_value = false;
            continue;
        }
        let Some(text) = arg.to_str() else {
            out.args.push(arg.clone());
            continue;
        };
        if text == "--help" || text == "-h" {
            out.args.push(arg.clone());
            continue;
        }
        // pi ignores a `--mode` it does not know (the value with it).
        let next = rest.get(i + 1).and_then(|n| n.to_str());
        if text == "--mode" && next.is_some_and(|m| !["text", "json", "rpc"].contains(&m)) {
            skip_value = true;
            continue;
        }
        if let Some(long) = text.strip_prefix("--") {
            match known(text) {
                Some(takes_value) => {
                    pending_value = takes_value && optional_value_present(&command, long, &rest, i);
                    out.args.push(arg.clone());
                }
                None => {
                    let (name, attached) = match long.split_once('=') {
                        Some((name, value)) => (name, Some(value)),
                        None => (long, None),
                    };
                    out.unknown_long.push(name.to_owned());
                    let next_value = rest
                        .get(i + 1)
                        .and_then(|n| n.to_str())
                        .filter(|n| !n.starts_with('-') && !n.starts_with('@'));
                    skip_value = attached.is_none() && next_value.is_some();
                    out.unknown_values.push(match (attached, next_value) {
                        (Some(value), _) => UnknownValue {
                            value: Some(value.to_owned()),
                            position: None,
                        },
                        (None, Some(value)) => UnknownValue {
                            value: Some(value.to_owned()),
                            position: Some(out.args.len()),
                        },
                        (None, None) => UnknownValue::default(),
                    });
                }
            }
        } else if text.len() > 1 && text.starts_with('-') {
            match known(text) {
                Some(takes_value) => {
                    pending_value = takes_value && text.len() == 2;
                    out.args.push(arg.clone());
                }
                None => out.unknown_short.push(text.to_owned()),
            }
        } else {
            out.args.push(arg.clone());
        }
    }
    out
}

/// Whether a known value-taking `--long` flag takes the next argument: a
/// flag with an optional value (`--list-models`) takes it only when it is
/// not itself a flag or a file.
fn optional_value_present(
    command: &clap::Command,
    long: &str,
    rest: &[OsString],
    i: usize,
) -> bool {
    let optional = command
        .get_arguments()
        .find(|a| a.get_long() == Some(long))
        .and_then(clap::Arg::get_num_args)
        .is_some_and(|range| range.min_values() == 0);
    if !optional {
        return true;
    }
    rest.get(i + 1)
        .and_then(|n| n.to_str())
        .is_some_and(|n| !n.starts_with('-') && !n.starts_with('@'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Screened {
        screen(
            std::iter::once("pi")
                .chain(args.iter().copied())
                .map(OsString::from)
                .collect(),
        )
    }

    #[test]
    fn extension_flags_are_parsed_in_a_second_pass() {
        use crate::extensions::{FlagKind, RegisteredFlag};
        let flag = |name: &str, kind| RegisteredFlag {
            name: name.to_owned(),
            description: None,
            kind,
            default: None,
            extension_path: "<test>".to_owned(),
        };
        let flags = [
            flag("plan", FlagKind::Boolean),
            flag("preset", FlagKind::String),
        ];
        let mut s = run(&["--plan", "Hi", "--preset", "fast", "--other", "-p", "there"]);
        let values = s.take_extension_flags(&flags);
        assert_eq!(
            values,
            [
                ("plan".to_owned(), serde_json::json!(true)),
                ("preset".to_owned(), serde_json::json!("fast")),
            ]
        );
        // A boolean flag leaves the argument after it alone.
        assert_eq!(s.args, ["pi", "Hi", "-p", "there"]);
        assert_eq!(s.errors(), ["Unknown option: --other"]);

        let mut s = run(&["--plan=false", "--preset=x"]);
        let values = s.take_extension_flags(&flags);
        assert_eq!(values[0].1, serde_json::json!(false));
        assert_eq!(values[1].1, serde_json::json!("x"));
        assert!(s.errors().is_empty());
    }

    #[test]
    fn unknown_flags_are_taken_out_as_pi_reads_them() {
        let s = run(&["--frobnicate", "yes", "-p", "--model", "m", "Hi"]);
        assert_eq!(s.unknown_long, ["frobnicate"]);
        assert_eq!(s.args, ["pi", "-p", "--model", "m", "Hi"]);
        assert_eq!(s.errors(), ["Unknown option: --frobnicate"]);

        let s = run(&["--frob=1", "--x", "-p", "@f", "--y", "@g"]);
        assert_eq!(s.unknown_long, ["frob", "x", "y"]);
        assert_eq!(s.args, ["pi", "-p", "@f", "@g"]);
        assert_eq!(s.errors(), ["Unknown options: --frob, --x, --y"]);

        let s = run(&["-x", "-p", "Hi"]);
        assert_eq!(s.errors(), ["Unknown option: -x"]);
        assert_eq!(s.args, ["pi", "-p", "Hi"]);
    }

    #[test]
    fn known_flags_keep_their_values_even_when_they_look_like_flags() {
        let s = run(&[
            "--append-system-prompt",
            "--odd",
            "-t",
            "read",
            "--list-models",
            "-p",
            "x",
        ]);
        assert!(s.errors().is_empty(), "{:?}", s.errors());
        assert_eq!(
            s.args,
            [
                "pi",
                "--append-system-prompt",
                "--odd",
                "-t",
                "read",
                "--list-models",
                "-p",
                "x"
            ]
        );
        let s = run(&["--no-builtin-tools", "--help"]);
        assert!(s.errors().is_empty());
        // An unknown mode is dropped with its value, as pi drops it.
        let s = run(&["--mode", "xml", "-p", "Hi", "--mode", "json"]);
        assert!(s.errors().is_empty());
        assert_eq!(s.args, ["pi", "-p", "Hi", "--mode", "json"]);
    }
}
