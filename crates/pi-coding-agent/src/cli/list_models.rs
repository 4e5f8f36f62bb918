//! `pi --list-models [search]`: the models that have a key, as pi prints
//! them (sorted by provider and id, columns padded, tokens as `200K`/`1M`).

use pi_ai::Model;

use crate::config::{AuthStorage, ModelRegistry};

/// `200000` -> `200K`, `1000000` -> `1M`, `1500` -> `1.5K`.
fn format_tokens(count: u64) -> String {
    // The counts are token limits, far below 2^53, so the float is exact.
    let value = count as f64;
    let (scaled, unit) = if count >= 1_000_000 {
        (value / 1_000_000.0, "M")
    } else if count >= 1_000 {
        (value / 1_000.0, "K")
    } else {
        return count.to_string();
    };
    if scaled.fract() == 0.0 {
        format!("{scaled}{unit}")
    } else {
        format!("{scaled:.1}{unit}")
    }
}

/// True when every whitespace-separated part of `pattern` occurs in `text`
/// as a subsequence of characters, ignoring case.
fn fuzzy_matches(text: &str, pattern: &str) -> bool {
    let text = text.to_lowercase();
    pattern.split_whitespace().all(|part| {
        let mut chars = text.chars();
        part.to_lowercase()
            .chars()
            .all(|wanted| chars.any(|c| c == wanted))
    })
}

/// The table (or pi's message when nothing matches).
pub fn list_models(registry: &ModelRegistry, auth: &AuthStorage, search: Option<&str>) -> String {
    let mut models: Vec<&Model> = registry.available_models(None, auth);
    if models.is_empty() {
        return "No models available. Set an API key (e.g. ANTHROPIC_API_KEY) or add models in models.json.\n".to_owned();
    }
    if let Some(search) = search.filter(|s| !s.trim().is_empty()) {
        models.retain(|m| fuzzy_matches(&format!("{} {}", m.provider, m.id), search));
        if models.is_empty() {
            return format!("No models matching \"{search}\"\n");
        }
    }
    models.sort_by(|a, b| {
        a.provider
            .as_str()
            .cmp(b.provider.as_str())
            .then_with(|| a.id.cmp(&b.id))
    });
    let header = [
        "provider", "model", "context", "max-out", "thinking", "images",
    ]
    .map(str::to_owned);
    let rows: Vec<[String; 6]> = models
        .iter()
        .map(|m| {
            [
                m.provider.to_string(),
                m.id.clone(),
                format_tokens(m.context_window),
                format_tokens(m.max_tokens),
                if m.reasoning { "yes" } else { "no" }.to_owned(),
                if m.supports_images() { "yes" } else { "no" }.to_owned(),
            ]
        })
        .collect();
    let mut widths = header.clone().map(|h| h.chars().count());
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: &[String; 6]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        padded.join("  ") + "\n"
    };
    let mut out = line(&header);
    for row in &rows {
        out.push_str(&line(row));
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::config::ModelsFile;

    #[test]
    fn tokens_read_like_pi() {
        assert_eq!(format_tokens(200_000), "200K");
        assert_eq!(format_tokens(1_000_000), "1M");
        assert_eq!(format_tokens(1_048_576), "1.0M");
        assert_eq!(format_tokens(4_096), "4.1K");
        assert_eq!(format_tokens(512), "512");
    }

    #[test]
    fn the_table_lists_models_with_keys_sorted_and_padded() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pi-0.73.1/models.json");
        let registry =
            ModelRegistry::from_parts(Vec::new(), ModelsFile::load(&path).unwrap()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let auth = AuthStorage::load(dir.path()).unwrap();
        let table = list_models(&registry, &auth, Some("ant think"));
        assert_eq!(
            table,
            "provider  model              context  max-out  thinking  images\n\
             mock-ant  mock-claude-think  200K     8.2K     yes       no    \n"
        );
        assert_eq!(
            list_models(&registry, &auth, Some("zzz")),
            "No models matching \"zzz\"\n"
        );
        assert_eq!(list_models(&registry, &auth, None).lines().count(), 9);
    }
}
