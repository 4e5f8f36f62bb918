//! Drawing the editor: rules, wrapped rows with a reverse-video cursor, scroll indicators and
//! the dropdown.

use super::Editor;
use super::segment::segments;
use crate::component::Component;
use crate::renderer::CURSOR_MARKER;
use crate::text::{pad_to_width, truncate_to_width, visible_width};

const CURSOR_ON: &str = "\x1b[7m";
const CURSOR_OFF: &str = "\x1b[0m";

fn rule(ed: &Editor, label: Option<String>, width: usize) -> String {
    let text = match label {
        None => "─".repeat(width),
        Some(label) => {
            let w = visible_width(&label);
            if w <= width {
                format!("{label}{}", "─".repeat(width - w))
            } else {
                truncate_to_width(&label, width, "")
            }
        }
    };
    ed.theme.fg(ed.border, &text)
}

pub(super) fn render(ed: &mut Editor, width: usize, max_rows: usize) -> Vec<String> {
    let max_rows = max_rows.max(1);
    let padding = ed.padding_x.min(width.saturating_sub(1) / 2);
    let content_width = width.saturating_sub(padding * 2).max(1);
    // Without padding one column is kept free for the cursor at the end of a row.
    let layout_width = content_width
        .saturating_sub(usize::from(padding == 0))
        .max(1);
    ed.layout_width = layout_width;
    ed.page_rows = max_rows;

    let vls = ed.visual_lines(layout_width);
    let cursor_row = Editor::visual_index(&vls, ed.buf.line, ed.buf.col);
    if cursor_row < ed.scroll {
        ed.scroll = cursor_row;
    } else if cursor_row >= ed.scroll + max_rows {
        ed.scroll = cursor_row + 1 - max_rows;
    }
    ed.scroll = ed.scroll.min(vls.len().saturating_sub(max_rows));
    let end = (ed.scroll + max_rows).min(vls.len());

    let mut out = Vec::with_capacity(end - ed.scroll + 2);
    let top = (ed.scroll > 0).then(|| format!("─── ↑ {} more ", ed.scroll));
    out.push(rule(ed, top, width));
    let pad = " ".repeat(padding);
    for (i, v) in vls.iter().enumerate().take(end).skip(ed.scroll) {
        let line = &ed.buf.lines[v.line];
        let text = &line[v.start..v.end];
        let body = if i == cursor_row {
            let at = ed.buf.col.clamp(v.start, v.end);
            let (before, after) = (&line[v.start..at], &line[at..v.end]);
            // The unit under the cursor (a whole marker when on one).
            let unit = segments(line, &ed.paste_ids)
                .into_iter()
                .find(|s| s.start == at && s.start < v.end)
                .map_or("", |s| &line[s.start..s.end().min(v.end)]);
            let marker = if ed.cursor_marker { CURSOR_MARKER } else { "" };
            if after.is_empty() || unit.is_empty() {
                format!("{before}{marker}{CURSOR_ON} {CURSOR_OFF}")
            } else {
                format!(
                    "{before}{marker}{CURSOR_ON}{unit}{CURSOR_OFF}{}",
                    &after[unit.len()..]
                )
            }
        } else {
            text.to_owned()
        };
        let body = pad_to_width(&body, content_width);
        out.push(truncate_to_width(&format!("{pad}{body}{pad}"), width, ""));
    }
    let below = vls.len() - end;
    let bottom = (below > 0).then(|| format!("─── ↓ {below} more "));
    out.push(rule(ed, bottom, width));
    if let Some(list) = ed.completion_list() {
        for l in list.render(content_width) {
            let l = pad_to_width(&l, content_width);
            out.push(truncate_to_width(&format!("{pad}{l}{pad}"), width, ""));
        }
    }
    out
}
