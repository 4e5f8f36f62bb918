//! Number and path formats of pi's screens: token counts (`1.2k`, `12k`,
//! `1.2M`), thousands separators (`12,345`), durations (`3.1s`) and paths
//! with the home directory shown as `~`.

use std::path::Path;

/// A token count as pi's footer shows it: `<1000` as is, `<10k` with one
/// decimal (`1.2k`), `<1M` rounded (`12k`), `<10M` one decimal (`1.2M`),
/// else rounded (`12M`).
pub fn format_tokens(count: u64) -> String {
    // Counts are far below 2^52, so the f64 conversions are exact.
    let n = count as f64;
    if count < 1_000 {
        count.to_string()
    } else if count < 10_000 {
        format!("{}k", fixed1(n / 1_000.0))
    } else if count < 1_000_000 {
        format!("{}k", js_round(n / 1_000.0))
    } else if count < 10_000_000 {
        format!("{}M", fixed1(n / 1_000_000.0))
    } else {
        format!("{}M", js_round(n / 1_000_000.0))
    }
}

/// `toFixed(1)`: one decimal, halves rounded up (Rust's `{:.1}` rounds them to even).
fn fixed1(x: f64) -> String {
    fixed(x, 1)
}

/// JavaScript's `x.toFixed(digits)` (halves rounded away from zero).
pub fn fixed(x: f64, digits: i32) -> String {
    let scale = 10f64.powi(digits);
    let digits = usize::try_from(digits).unwrap_or(0);
    format!("{:.digits$}", (x * scale).round() / scale)
}

/// `Math.round`: halves round up.
fn js_round(x: f64) -> i64 {
    // Rounded values of token counts fit an i64.
    (x + 0.5).floor() as i64
}

/// A count with `,` between thousands (`toLocaleString` in an English locale).
pub fn format_thousands(count: u64) -> String {
    let digits = count.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Milliseconds as seconds with one decimal (`3.1s`).
pub fn format_duration_ms(ms: u128) -> String {
    // Durations are far below 2^52 ms.
    let seconds = ms as f64 / 1_000.0;
    format!("{seconds:.1}s")
}

/// `path` with the home directory replaced by `~`.
pub fn shorten_home(path: &str, home: Option<&Path>) -> String {
    if let Some(home) = home.and_then(Path::to_str).filter(|h| !h.is_empty())
        && let Some(rest) = path.strip_prefix(home)
    {
        return format!("~{rest}");
    }
    path.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_counts_as_pi() {
        let cases = [
            (0, "0"),
            (999, "999"),
            (1_000, "1.0k"),
            (4_700, "4.7k"),
            (9_999, "10.0k"),
            (10_000, "10k"),
            (12_499, "12k"),
            (12_500, "13k"),
            (272_000, "272k"),
            (1_000_000, "1.0M"),
            (1_250_000, "1.3M"),
            (12_000_000, "12M"),
        ];
        for (n, text) in cases {
            assert_eq!(format_tokens(n), text, "{n}");
        }
    }

    #[test]
    fn thousands_and_durations() {
        assert_eq!(format_thousands(0), "0");
        assert_eq!(format_thousands(999), "999");
        assert_eq!(format_thousands(12_345), "12,345");
        assert_eq!(format_thousands(1_234_567), "1,234,567");
        assert_eq!(format_duration_ms(3_140), "3.1s");
        assert_eq!(format_duration_ms(0), "0.0s");
    }

    #[test]
    fn home_becomes_tilde() {
        let home = Path::new("/home/u");
        assert_eq!(shorten_home("/home/u/src", Some(home)), "~/src");
        assert_eq!(shorten_home("/tmp/x", Some(home)), "/tmp/x");
        assert_eq!(shorten_home("/tmp/x", None), "/tmp/x");
    }
}
