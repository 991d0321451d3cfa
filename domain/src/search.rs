//! Contains-search rules for the `~` filter operator: PocketBase's LIKE pattern for a `~` value,
//! which text fields have a trigram search index (the FTS5 tables created by the
//! `search_index` migration, one per collection), and the FTS5 query that narrows a LIKE
//! pattern to candidate rows. The index is only ever a pre-filter: every required literal run
//! of a pattern must occur in a matching value, so the query selects a superset of the LIKE
//! matches and the caller keeps the LIKE predicate for the exact answer. Runs shorter than
//! three characters cannot be searched with trigrams; a pattern with none left falls back to a
//! scan. This module builds strings only; it never touches SQL or a database.

use crate::collections::CollectionSpec;

/// A trigram index over some text fields of one collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchIndex {
    pub collection: &'static str,
    /// The FTS5 table (its shadow tables share the `relay_` prefix, so they are never reported
    /// as unmanaged).
    pub table: &'static str,
    pub fields: &'static [&'static str],
}

/// The indexed fields: the text operators search in People, Servers, notes and alerts.
pub static SEARCH_INDEXES: &[SearchIndex] = &[
    SearchIndex { collection: "contacts", table: "relay_fts_contacts", fields: &["name", "email", "phone", "title"] },
    SearchIndex {
        collection: "servers",
        table: "relay_fts_servers",
        fields: &["name", "businessArea", "lob", "comment", "owner", "contact", "os"],
    },
    SearchIndex { collection: "notes", table: "relay_fts_notes", fields: &["note"] },
    SearchIndex { collection: "standalone_notes", table: "relay_fts_standalone_notes", fields: &["title", "content"] },
    SearchIndex { collection: "alert_history", table: "relay_fts_alert_history", fields: &["subject"] },
];

/// Shortest literal run a trigram index can look up.
pub const MIN_RUN_CHARS: usize = 3;

/// Most candidate rows for which a list that skips its total uses the index. A term matching
/// more rows is cheaper as a scan in the sort order, which stops once a page is full (at 40,000
/// contacts, `name ~ 'Person 1'` matches 11,111).
pub const INDEX_MAX_CANDIDATES: u32 = 2000;

/// Most candidate rows for which a list uses the index, in a collection of about `rows` rows.
/// With a total, a scan reads every row to count it, while the index path reads each candidate
/// twice (page and count) and sorts them: it wins up to about a quarter of the table (measured:
/// at 100,000 contacts, 11,111 candidates cost about 15 ms against 140 ms for the scan; at
/// 4,000, 1,111 candidates cost more than scanning all 4,000). Without a total only the page
/// is read, and a scan stops once it is full: at most [`INDEX_MAX_CANDIDATES`].
pub fn max_index_candidates(rows: u64, counts_total: bool) -> u32 {
    let quarter = u32::try_from(rows / 4).unwrap_or(u32::MAX);
    if counts_total {
        quarter
    } else {
        quarter.min(INDEX_MAX_CANDIDATES)
    }
}

/// How many rows a newest-first scan walks for the cost of one index candidate (measured at
/// 100,000 contacts: 80,000 rows walked in about 15 ms; 11,111 candidates read, sorted and
/// checked in about 7 ms).
pub const WALKED_ROWS_PER_CANDIDATE: u64 = 3;

/// Without a total, whether the index is cheaper than a newest-first scan that must walk
/// `walk_rows` rows before its page is full, for a term with `candidates` index candidates.
/// [`max_index_candidates`] assumes matches spread over the table, so a scan fills a page
/// early; when the newest matches are old rows the walk is long and the index wins.
pub fn index_beats_walk(candidates: u32, walk_rows: u64) -> bool {
    walk_rows > u64::from(candidates).saturating_mul(WALKED_ROWS_PER_CANDIDATE)
}

/// The index covering `field` of `spec`, if any.
pub fn index_for(spec: &CollectionSpec, field: &str) -> Option<&'static SearchIndex> {
    SEARCH_INDEXES.iter().find(|i| i.collection == spec.name && i.fields.contains(&field))
}

/// PocketBase `~` semantics: wrap in `%...%` unless the value already holds a `%` wildcard;
/// otherwise escape the LIKE metacharacters `\` and `_` so they match literally (`%` cannot
/// occur then). The pattern is used with `ESCAPE '\'`.
pub fn like_pattern(raw: &str) -> String {
    if raw.contains('%') {
        raw.to_string()
    } else {
        let escaped = raw.replace('\\', "\\\\").replace('_', "\\_");
        format!("%{escaped}%")
    }
}

/// The literal runs every value matching `pattern` (LIKE with `ESCAPE '\'`) contains, split at
/// the `%` and `_` wildcards. `None` when the pattern is one this module does not reason about
/// (a trailing escape, or a NUL, where SQLite's C-string matching would stop early).
pub fn literal_runs(pattern: &str) -> Option<Vec<String>> {
    let mut runs = Vec::new();
    let mut run = String::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\0' => return None,
            '%' | '_' => runs.push(std::mem::take(&mut run)),
            '\\' => match chars.next() {
                None | Some('\0') => return None,
                Some(escaped) => run.push(escaped),
            },
            _ => run.push(c),
        }
    }
    runs.push(run);
    Some(runs.into_iter().filter(|r| !r.is_empty()).collect())
}

/// The FTS5 query selecting candidate rows for `field LIKE pattern`: every literal run of at
/// least [`MIN_RUN_CHARS`] characters as a phrase restricted to the field's column. `None`
/// when no run is long enough (the caller scans).
pub fn match_query(field: &str, pattern: &str) -> Option<String> {
    debug_assert!(field.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    let phrases: Vec<String> = literal_runs(pattern)?
        .into_iter()
        .filter(|run| run.chars().count() >= MIN_RUN_CHARS)
        .map(|run| format!("{{{field}}} : \"{}\"", run.replace('"', "\"\"")))
        .collect();
    (!phrases.is_empty()).then(|| phrases.join(" AND "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collections::{collection, ALERT_HISTORY, CONTACTS, ONCALL};

    #[test]
    fn indexes_name_real_text_fields() {
        for index in SEARCH_INDEXES {
            let spec = collection(index.collection).expect(index.collection);
            assert_eq!(index.table, format!("relay_fts_{}", index.collection));
            for field in index.fields {
                assert!(
                    matches!(
                        spec.field(field).map(|f| f.kind),
                        Some(crate::collections::FieldKind::Text { .. } | crate::collections::FieldKind::Email)
                    ),
                    "{}.{field}",
                    index.collection
                );
            }
        }
        assert_eq!(index_for(&CONTACTS, "email").map(|i| i.table), Some("relay_fts_contacts"));
        assert_eq!(index_for(&ALERT_HISTORY, "subject").map(|i| i.table), Some("relay_fts_alert_history"));
        assert!(index_for(&ALERT_HISTORY, "bodyHtml").is_none());
        assert!(index_for(&CONTACTS, "id").is_none());
        assert!(index_for(&ONCALL, "name").is_none());
    }

    #[test]
    fn the_index_is_used_for_up_to_a_quarter_of_the_rows() {
        assert_eq!(max_index_candidates(4_000, true), 1_000, "1,111 `Person 1` matches at 4,000 rows scan");
        assert_eq!(max_index_candidates(100_000, true), 25_000, "11,111 matches at 100,000 use the index");
        assert_eq!(max_index_candidates(100_000, false), INDEX_MAX_CANDIDATES, "no total: a scan stops early");
        assert_eq!(max_index_candidates(4_000, false), 1_000);
        assert_eq!(max_index_candidates(3, true), 0, "a tiny table always scans");
        assert_eq!(max_index_candidates(u64::MAX, true), u32::MAX);
    }

    #[test]
    fn the_index_beats_a_walk_three_times_its_candidates() {
        assert!(index_beats_walk(11_111, 80_000), "old matches at 100,000: the index");
        assert!(!index_beats_walk(11_111, 270), "matches spread out: the walk stops early");
        assert!(!index_beats_walk(2_001, 6_003), "equal cost: the scan");
        assert!(index_beats_walk(2_001, 6_004));
        assert!(!index_beats_walk(u32::MAX, u64::from(u32::MAX) * 3), "the product does not overflow");
    }

    #[test]
    fn like_pattern_keeps_pocketbase_semantics() {
        assert_eq!(like_pattern("a_b"), "%a\\_b%");
        assert_eq!(like_pattern("a\\b"), "%a\\\\b%");
        assert_eq!(like_pattern("Ad%"), "Ad%");
        assert_eq!(like_pattern("a_%\\x"), "a_%\\x", "an explicit wildcard keeps the value as written");
        assert_eq!(like_pattern(""), "%%");
    }

    #[test]
    fn literal_runs_split_at_wildcards_and_honour_escapes() {
        assert_eq!(literal_runs("%Person 1%").unwrap(), vec!["Person 1"]);
        assert_eq!(literal_runs(&like_pattern("a_b\\c")).unwrap(), vec!["a_b\\c"]);
        assert_eq!(literal_runs("Ad%min_x").unwrap(), vec!["Ad", "min", "x"]);
        assert_eq!(literal_runs("%%").unwrap(), Vec::<String>::new());
        assert_eq!(literal_runs("abc\\"), None, "a trailing escape is left to SQLite");
        assert_eq!(literal_runs("ab\0c"), None);
    }

    #[test]
    fn match_query_needs_three_characters_and_quotes_phrases() {
        assert_eq!(match_query("name", &like_pattern("Person 1")).unwrap(), "{name} : \"Person 1\"");
        assert_eq!(match_query("name", &like_pattern("O\"Br")).unwrap(), "{name} : \"O\"\"Br\"");
        assert_eq!(match_query("name", &like_pattern("Zoë")).unwrap(), "{name} : \"Zoë\"");
        assert_eq!(match_query("name", &like_pattern("😀ab")).unwrap(), "{name} : \"😀ab\"");
        assert_eq!(match_query("name", "abc%de_fgh").unwrap(), "{name} : \"abc\" AND {name} : \"fgh\"");
        for short in ["", "a", "ÑÚ", "😀😀", "%ab%", "ab%cd"] {
            let pattern = if short.contains('%') { short.to_string() } else { like_pattern(short) };
            assert_eq!(match_query("name", &pattern), None, "{short:?}");
        }
    }
}
