//! "Did you mean": the built-in names close to a mistyped one. A name that starts with
//! the text comes first (`seed-003` finds the `seed-003-…` scenarios); otherwise the names
//! within a few edits.

use super::builtin;

/// Names offered at most.
const MAX_SUGGESTIONS: usize = 4;

/// Built-in names close to `text`, best first.
pub(crate) fn builtin_names_like(text: &str) -> Vec<String> {
    let names: Vec<String> = builtin::all().into_iter().map(|s| s.name).collect();
    let prefixed: Vec<String> = names
        .iter()
        .filter(|n| n.starts_with(text) && !text.is_empty())
        .take(MAX_SUGGESTIONS)
        .cloned()
        .collect();
    if !prefixed.is_empty() {
        return prefixed;
    }
    let allowed = (text.chars().count() / 4).clamp(1, 4);
    let mut near: Vec<(usize, String)> = names
        .into_iter()
        .map(|n| (edit_distance(text, &n), n))
        .filter(|(d, _)| *d <= allowed)
        .collect();
    near.sort();
    near.into_iter()
        .take(MAX_SUGGESTIONS)
        .map(|(_, n)| n)
        .collect()
}

/// Levenshtein distance in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_then_typos() {
        let s = builtin_names_like("seed-003");
        assert!(s.contains(&"seed-003-incident".to_string()), "{s:?}");
        assert!(s.iter().all(|n| n.starts_with("seed-003")), "{s:?}");
        assert_eq!(
            builtin_names_like("kleppman-pause-past-lease"),
            ["kleppmann-pause-past-lease"]
        );
        assert!(builtin_names_like("zzzz").is_empty());
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
