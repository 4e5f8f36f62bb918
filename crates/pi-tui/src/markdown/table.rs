//! GFM tables with box characters; columns shrink and cells wrap to fit the width (pi's
//! algorithm: natural widths when they fit, otherwise the longest word (up to 30 cells) as
//! a minimum and the rest shared by how much each column wants).

use super::MarkdownTheme;
use super::parse::Inline;
use super::render::{Base, inline};
use crate::text::{pad_to_width, visible_width, wrap};

const MAX_UNBROKEN_WORD: usize = 30;

fn longest_word(text: &str) -> usize {
    crate::text::strip_ansi(text)
        .split_whitespace()
        .map(visible_width)
        .max()
        .unwrap_or(0)
        .min(MAX_UNBROKEN_WORD)
}

fn column_widths(cells: &[Vec<String>], n: usize, available: usize) -> Vec<usize> {
    let overhead = 3 * n + 1;
    let for_cells = available - overhead;
    let mut natural = vec![0usize; n];
    let mut min_word = vec![1usize; n];
    for row in cells {
        for (i, c) in row.iter().enumerate().take(n) {
            let longest = c.split('\n').map(visible_width).max().unwrap_or(0);
            natural[i] = natural[i].max(longest);
            min_word[i] = min_word[i].max(longest_word(c));
        }
    }
    let mut min_cols = min_word.clone();
    let mut min_total: usize = min_cols.iter().sum();
    if min_total > for_cells {
        min_cols = vec![1; n];
        let remaining = for_cells - n;
        if remaining > 0 {
            let weight: usize = min_word.iter().map(|w| w - 1).sum();
            let growth: Vec<usize> = min_word
                .iter()
                .map(|w| ((w - 1) * remaining).checked_div(weight).unwrap_or(0))
                .collect();
            for (c, g) in min_cols.iter_mut().zip(&growth) {
                *c += g;
            }
            let mut leftover = remaining - growth.iter().sum::<usize>();
            for c in &mut min_cols {
                if leftover == 0 {
                    break;
                }
                *c += 1;
                leftover -= 1;
            }
        }
        min_total = min_cols.iter().sum();
    }
    if natural.iter().sum::<usize>() + overhead <= available {
        return natural
            .iter()
            .zip(&min_cols)
            .map(|(a, b)| *a.max(b))
            .collect();
    }
    let potential: usize = natural
        .iter()
        .zip(&min_cols)
        .map(|(nat, min)| nat.saturating_sub(*min))
        .sum();
    let extra = for_cells.saturating_sub(min_total);
    let mut widths: Vec<usize> = min_cols
        .iter()
        .zip(&natural)
        .map(|(min, nat)| {
            let delta = nat.saturating_sub(*min);
            min + (delta * extra).checked_div(potential).unwrap_or(0)
        })
        .collect();
    let mut remaining = for_cells.saturating_sub(widths.iter().sum());
    while remaining > 0 {
        let mut grew = false;
        for (w, nat) in widths.iter_mut().zip(&natural) {
            if remaining > 0 && *w < *nat {
                *w += 1;
                remaining -= 1;
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    widths
}

fn rule(widths: &[usize], left: &str, mid: &str, right: &str) -> String {
    let cells: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
    format!("{left}─{}─{right}", cells.join(&format!("─{mid}─")))
}

fn row_lines(cells: &[String], widths: &[usize], bold: Option<&MarkdownTheme>) -> Vec<String> {
    let wrapped: Vec<Vec<String>> = widths
        .iter()
        .enumerate()
        .map(|(i, w)| wrap(cells.get(i).map_or("", String::as_str), (*w).max(1)))
        .collect();
    let height = wrapped.iter().map(Vec::len).max().unwrap_or(1);
    (0..height)
        .map(|k| {
            let parts: Vec<String> = wrapped
                .iter()
                .zip(widths)
                .map(|(lines, w)| {
                    let padded = pad_to_width(lines.get(k).map_or("", String::as_str), *w);
                    match bold {
                        Some(style) => style.theme.bold(&padded),
                        None => padded,
                    }
                })
                .collect();
            format!("│ {} │", parts.join(" │ "))
        })
        .collect()
}

/// Renders a table at `width`; too narrow for one cell per column, the rows become plain
/// `a | b` lines.
pub(super) fn render_table(
    style: &MarkdownTheme,
    head: &[Vec<Inline>],
    rows: &[Vec<Vec<Inline>>],
    width: usize,
    base: Base,
) -> Vec<String> {
    let n = head.len();
    if n == 0 {
        return Vec::new();
    }
    let render_row = |cells: &[Vec<Inline>]| -> Vec<String> {
        (0..n)
            .map(|i| {
                cells
                    .get(i)
                    .map_or_else(String::new, |c| inline(style, c, base))
            })
            .collect()
    };
    let head_cells = render_row(head);
    let body: Vec<Vec<String>> = rows.iter().map(|r| render_row(r)).collect();
    let overhead = 3 * n + 1;
    if width < overhead + n {
        let mut out = Vec::new();
        for r in std::iter::once(&head_cells).chain(&body) {
            out.extend(wrap(&r.join(" | "), width.max(1)));
        }
        return out;
    }
    let mut all = vec![head_cells.clone()];
    all.extend(body.iter().cloned());
    let widths = column_widths(&all, n, width);
    let mut out = vec![rule(&widths, "┌", "┬", "┐")];
    out.extend(row_lines(&head_cells, &widths, Some(style)));
    let separator = rule(&widths, "├", "┼", "┤");
    out.push(separator.clone());
    for (i, r) in body.iter().enumerate() {
        out.extend(row_lines(r, &widths, None));
        if i + 1 < body.len() {
            out.push(separator.clone());
        }
    }
    out.push(rule(&widths, "└", "┴", "┘"));
    out
}
