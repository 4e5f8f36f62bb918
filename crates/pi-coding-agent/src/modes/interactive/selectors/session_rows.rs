//! The session picker's rows: pi's session ages and the threaded view
//! (forks under their parent session).

use std::collections::HashMap;
use std::path::Path;

use chrono::{DateTime, Utc};

use crate::session::SessionInfo;

/// One visible row: a session and its tree prefix.
#[derive(Debug, Clone)]
pub(super) struct Row {
    pub(super) index: usize,
    pub(super) depth: usize,
    pub(super) is_last: bool,
    pub(super) continues: Vec<bool>,
}

/// pi's session age: `now`, `5m`, `3h`, `2d`, `1w`, `4mo`, `1y`.
pub fn format_age(modified: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let ms = (now - modified).num_milliseconds();
    let (mins, hours, days) = (ms / 60_000, ms / 3_600_000, ms / 86_400_000);
    if mins < 1 {
        "now".to_owned()
    } else if mins < 60 {
        format!("{mins}m")
    } else if hours < 24 {
        format!("{hours}h")
    } else if days < 7 {
        format!("{days}d")
    } else if days < 30 {
        format!("{}w", days / 7)
    } else if days < 365 {
        format!("{}mo", days / 30)
    } else {
        format!("{}y", days / 365)
    }
}

/// Sessions as a tree by `parentSession` (forks under their parent), roots
/// and children newest first, flattened with their tree prefixes.
pub(super) fn threaded(sessions: &[SessionInfo], candidates: &[usize]) -> Vec<Row> {
    let by_path: HashMap<&Path, usize> = candidates
        .iter()
        .map(|&i| (sessions[i].path.as_path(), i))
        .collect();
    let mut children: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut roots = Vec::new();
    for &i in candidates {
        let parent = sessions[i]
            .parent_session_path
            .as_deref()
            .and_then(|p| by_path.get(Path::new(p)))
            .filter(|&&p| p != i);
        match parent {
            Some(&p) => children.entry(p).or_default().push(i),
            None => roots.push(i),
        }
    }
    let newest_first = |list: &mut Vec<usize>| {
        list.sort_by(|&a, &b| sessions[b].modified.cmp(&sessions[a].modified));
    };
    newest_first(&mut roots);
    for list in children.values_mut() {
        newest_first(list);
    }
    let mut rows = Vec::new();
    let mut seen = vec![false; sessions.len()];
    // (index, depth, is_last, continues), walked depth first without recursion.
    let mut stack: Vec<(usize, usize, bool, Vec<bool>)> = roots
        .iter()
        .enumerate()
        .rev()
        .map(|(n, &i)| (i, 0, n + 1 == roots.len(), Vec::new()))
        .collect();
    while let Some((index, depth, is_last, continues)) = stack.pop() {
        if std::mem::replace(&mut seen[index], true) {
            continue;
        }
        if let Some(kids) = children.get(&index) {
            let mut next = continues.clone();
            next.push(depth > 0 && !is_last);
            for (n, &kid) in kids.iter().enumerate().rev() {
                stack.push((kid, depth + 1, n + 1 == kids.len(), next.clone()));
            }
        }
        rows.push(Row {
            index,
            depth,
            is_last,
            continues,
        });
    }
    rows
}
