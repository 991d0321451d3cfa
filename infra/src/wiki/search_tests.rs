//! Search over a small fixed corpus on a real migrated store: expected top results, prefix
//! matching, filters, trashed documents never answering, and replacement of a document's
//! passages.

use serde_json::json;

use domain::collections::WIKI_DOCUMENTS;
use domain::wiki::{build_passages, check_query, fts_match_expression, PassageLimits};

use super::*;
use crate::store::{create_in, update_in};

const CORPUS: &[(&str, &str, &str)] = &[
    ("VPN concentrator", "sop", "To reset the VPN concentrator, drain the tunnels, then reboot the primary unit. Confirm the standby takes over."),
    ("Firewall changes", "sop", "Every firewall rule change needs a ticket. Review the rule base monthly and remove unused objects."),
    ("BGP quick guide", "cheatsheet", "Show bgp summary lists neighbours. A flapping neighbour usually means a physical link problem."),
    ("Branch VPN", "cheatsheet", "Branch offices use a site-to-site VPN. If the tunnel is down, check the pre-shared key and the peer address."),
];

fn store_with_corpus() -> (tempfile::TempDir, crate::db::DbPool, Vec<String>) {
    let tmp = tempfile::tempdir().unwrap();
    let (pool, _) = crate::db::open(&tmp.path().join("relay.db"), 1).unwrap();
    let mut conn = pool.get().unwrap();
    let mut ids = Vec::new();
    for (n, (title, kind, text)) in CORPUS.iter().enumerate() {
        let checksum = format!("{n:064x}");
        let body = json!({"sourceKey": format!("k{n}"), "categoryId": "wikiuncategoriz", "documentType": kind,
            "title": title, "fileName": format!("{n}.pdf"), "checksum": checksum, "byteSize": 10, "pageCount": 1,
            "lifecycleState": "active"});
        let doc = create_in(&mut conn, &WIKI_DOCUMENTS, &body, 0).unwrap();
        let id = doc["id"].as_str().unwrap().to_string();
        let passages = build_passages(1, text, &[], &PassageLimits::default());
        replace_passages(&mut conn, &id, &checksum, &passages, 1).unwrap();
        ids.push(id);
    }
    drop(conn);
    (tmp, pool, ids)
}

fn titles(pool: &crate::db::DbPool, typed: &str, filter: &SearchFilter) -> Vec<String> {
    let expression = fts_match_expression(&check_query(typed).unwrap()).unwrap();
    let mut conn = pool.get().unwrap();
    search_passages(&mut conn, &expression, filter, 20).unwrap().into_iter().map(|h| h.title).collect()
}

#[test]
fn the_expected_documents_answer_best_first() {
    let (_tmp, pool, _) = store_with_corpus();
    let all = SearchFilter::default();
    assert_eq!(titles(&pool, "reset vpn concentrator", &all), ["VPN concentrator"]);
    assert_eq!(titles(&pool, "vpn", &all), ["VPN concentrator", "Branch VPN"]);
    assert_eq!(titles(&pool, "neighb", &all), ["BGP quick guide"], "the last word is a prefix");
    assert_eq!(titles(&pool, "the rule", &all), ["Firewall changes"], "function words are dropped");
    assert!(titles(&pool, "kubernetes", &all).is_empty());
    let guides = SearchFilter { document_type: Some("cheatsheet".into()), ..SearchFilter::default() };
    assert_eq!(titles(&pool, "vpn", &guides), ["Branch VPN"]);
    let other_category = SearchFilter { category_id: Some("nothinghere0000".into()), ..SearchFilter::default() };
    assert!(titles(&pool, "vpn", &other_category).is_empty());
}

#[test]
fn trashed_documents_and_replaced_passages_never_answer() {
    let (_tmp, pool, ids) = store_with_corpus();
    let mut conn = pool.get().unwrap();
    update_in(&mut conn, &WIKI_DOCUMENTS, &ids[0], &json!({"lifecycleState": "trashed"}), 1).unwrap();
    drop(conn);
    assert_eq!(titles(&pool, "vpn", &SearchFilter::default()), ["Branch VPN"]);

    let mut conn = pool.get().unwrap();
    let checksum = format!("{:064x}", 3);
    let passages = build_passages(1, "Branch offices now use SD-WAN overlays.", &[], &PassageLimits::default());
    replace_passages(&mut conn, &ids[3], &checksum, &passages, 1).unwrap();
    drop(conn);
    assert!(titles(&pool, "vpn", &SearchFilter::default()).is_empty(), "old passages are gone");
    assert_eq!(titles(&pool, "overlays", &SearchFilter::default()), ["Branch VPN"]);
    let one = SearchFilter { document_id: Some(ids[2].clone()), ..SearchFilter::default() };
    assert!(titles(&pool, "overlays", &one).is_empty());
}

#[test]
fn filters_widen_the_candidate_window_until_they_find_enough_or_every_match() {
    let tmp = tempfile::tempdir().unwrap();
    let (pool, _) = crate::db::open(&tmp.path().join("relay.db"), 1).unwrap();
    let mut conn = pool.get().unwrap();
    let mut add = |category: &str, n: usize, text: &str, count: usize| {
        let checksum = format!("{n:064x}");
        let body = json!({"sourceKey": format!("k{n}"), "categoryId": category, "documentType": "sop",
            "title": format!("Doc {n}"), "fileName": format!("{n}.pdf"), "checksum": checksum, "byteSize": 1,
            "pageCount": count.min(1000), "lifecycleState": "active"});
        let id = create_in(&mut conn, &WIKI_DOCUMENTS, &body, 0).unwrap()["id"].as_str().unwrap().to_string();
        let passages: Vec<_> =
            (0..count).flat_map(|page| build_passages(page as u32 + 1, text, &[], &PassageLimits::default())).collect();
        replace_passages(&mut conn, &id, &checksum, &passages, 1).unwrap();
        id
    };
    // 2,500 strong matches in one category rank above the one weak match in another.
    add("categoryaaaaaaa", 1, "tunnel tunnel tunnel tunnel", 2_500);
    let weak = add("categorybbbbbbb", 2, "a long passage that mentions the tunnel only once among many other words", 1);
    drop(conn);
    let in_b = SearchFilter { category_id: Some("categorybbbbbbb".into()), ..SearchFilter::default() };
    let expression = fts_match_expression(&check_query("tunnel").unwrap()).unwrap();
    let mut conn = pool.get().unwrap();
    let hits = search_passages(&mut conn, &expression, &in_b, 20).unwrap();
    assert_eq!(hits.len(), 1, "found past the first windows");
    assert_eq!(hits[0].document_id, weak);
    let one = SearchFilter { document_id: Some(weak.clone()), ..SearchFilter::default() };
    assert_eq!(search_passages(&mut conn, &expression, &one, 50).unwrap().len(), 1, "the document's rowids only");
    assert_eq!(search_passages(&mut conn, &expression, &SearchFilter::default(), 20).unwrap().len(), 20);
}

#[test]
fn a_broad_query_is_ranked_among_its_newest_matches_and_filters_fall_back_to_every_match() {
    let tmp = tempfile::tempdir().unwrap();
    let (pool, _) = crate::db::open(&tmp.path().join("relay.db"), 1).unwrap();
    let mut conn = pool.get().unwrap();
    let mut add = |n: usize, category: &str, text: &str| {
        let checksum = format!("{n:064x}");
        let body = json!({"sourceKey": format!("k{n}"), "categoryId": category, "documentType": "sop",
            "title": format!("Doc {n}"), "fileName": format!("{n}.pdf"), "checksum": checksum, "byteSize": 1,
            "pageCount": 1, "lifecycleState": "active"});
        let id = create_in(&mut conn, &WIKI_DOCUMENTS, &body, 0).unwrap()["id"].as_str().unwrap().to_string();
        replace_passages(&mut conn, &id, &checksum, &build_passages(1, text, &[], &PassageLimits::default()), 1)
            .unwrap();
        id
    };
    // The strongest match is indexed first (oldest); then 12 weaker ones, the last 3 in another
    // category.
    let strongest = add(0, "categoryaaaaaaa", "router router router router");
    for n in 1..=9 {
        add(n, "categoryaaaaaaa", &format!("the router number {n} is described in a longer passage of text"));
    }
    let mut newest = Vec::new();
    for n in 10..=12 {
        newest.push(add(n, "categorybbbbbbb", &format!("router {n} in another category with some more words")));
    }
    drop(conn);
    let expression = fts_match_expression(&check_query("router").unwrap()).unwrap();
    let mut conn = pool.get().unwrap();
    let all = SearchFilter::default();
    let ids = |hits: Vec<PassageHit>| hits.into_iter().map(|h| h.document_id).collect::<Vec<_>>();

    // Narrow enough (13 matches, bound 20): every match is ranked, the strongest first.
    let every = ids(search_passages_within(&mut conn, &expression, &all, 3, 20).unwrap());
    assert_eq!(every[0], strongest);

    // Broad (13 matches, bound 5): ranked among the 5 newest, so the oldest strong one is not scored.
    let sampled = ids(search_passages_within(&mut conn, &expression, &all, 3, 5).unwrap());
    assert_eq!(sampled.len(), 3);
    assert!(!sampled.contains(&strongest), "only the newest matches are ranked: {sampled:?}");
    let sampled_all = ids(search_passages_within(&mut conn, &expression, &all, 20, 5).unwrap());
    assert_eq!(sampled_all.len(), 13, "a sample too small for the limit ranks every match");

    // Filtered so the newest sample holds too few: every match of the category is ranked.
    let in_a = SearchFilter { category_id: Some("categoryaaaaaaa".into()), ..SearchFilter::default() };
    let filtered = ids(search_passages_within(&mut conn, &expression, &in_a, 5, 5).unwrap());
    assert_eq!(filtered.len(), 5);
    assert_eq!(filtered[0], strongest, "the fallback scores every match");
    assert!(filtered.iter().all(|id| !newest.contains(id)));
}

fn store_with_texts(texts: &[&str]) -> (tempfile::TempDir, crate::db::DbPool) {
    let tmp = tempfile::tempdir().unwrap();
    let (pool, _) = crate::db::open(&tmp.path().join("relay.db"), 1).unwrap();
    add_texts(&mut pool.get().unwrap(), texts);
    (tmp, pool)
}

fn add_texts(conn: &mut SqliteConnection, texts: &[&str]) {
    for (n, text) in texts.iter().enumerate() {
        let checksum = format!("{n:064x}");
        let body = json!({"sourceKey": format!("k{n}"), "categoryId": "wikiuncategoriz", "documentType": "sop",
            "title": format!("Doc {n}"), "fileName": format!("{n}.pdf"), "checksum": checksum, "byteSize": 1,
            "pageCount": 1, "lifecycleState": "active"});
        let id = create_in(conn, &WIKI_DOCUMENTS, &body, 0).unwrap()["id"].as_str().unwrap().to_string();
        replace_passages(conn, &id, &checksum, &build_passages(1, text, &[], &PassageLimits::default()), 1).unwrap();
    }
}

#[test]
fn common_words_are_those_in_more_than_a_fifth_of_all_passages() {
    // Ten passages: "alpha" in three (30%), "beta" in exactly two (20%), "gamma" in one.
    let texts =
        ["alpha beta gamma", "alpha beta", "alpha", "delta", "delta", "delta", "delta", "delta", "delta", "delta"];
    let (_tmp, pool) = store_with_texts(&texts);
    let mut conn = pool.get().unwrap();
    let words: Vec<String> = ["alpha", "beta", "gamma", "absent"].iter().map(|w| w.to_string()).collect();
    assert_eq!(common_words(&mut conn, &words).unwrap(), vec!["alpha".to_string()]);
    assert_eq!(common_words(&mut conn, &["delta".to_string()]).unwrap(), vec!["delta".to_string()]);
    assert!(common_words(&mut conn, &[]).unwrap().is_empty());
}

#[test]
fn common_words_of_an_empty_index_are_none() {
    let (_tmp, pool) = store_with_texts(&[]);
    assert!(common_words(&mut pool.get().unwrap(), &["alpha".to_string()]).unwrap().is_empty());
}

#[test]
fn the_prefix_migration_indexes_the_stored_passages_again_with_prefixes_up_to_eight_characters() {
    use diesel_migrations::MigrationHarness;
    const PREFIXES: &str = "2026-12-06-000001";
    let tmp = tempfile::tempdir().unwrap();
    let (pool, _) = crate::db::open(&tmp.path().join("relay.db"), 1).unwrap();
    let mut conn = pool.get().unwrap();
    // Back to the store before the prefix migration (bounded: one step per shipped migration).
    for _ in 0..100 {
        let reverted = conn.revert_last_migration(crate::db::MIGRATIONS).unwrap();
        if reverted.to_string().starts_with(&PREFIXES.replace('-', "")) || reverted.to_string().starts_with(PREFIXES) {
            break;
        }
    }
    let schema = |conn: &mut SqliteConnection| -> String {
        #[derive(QueryableByName)]
        struct Sql {
            #[diesel(sql_type = Text)]
            sql: String,
        }
        let rows: Vec<Sql> = diesel::sql_query("SELECT sql FROM sqlite_schema WHERE name = 'relay_wiki_passages_fts'")
            .load(conn)
            .unwrap();
        rows.into_iter().next().unwrap().sql
    };
    assert!(schema(&mut conn).contains("prefix='2 3 4'"), "reverted to the earlier index");
    add_texts(&mut conn, &["Escalate to the firewalling team after thirty minutes."]);

    conn.run_pending_migrations(crate::db::MIGRATIONS).unwrap();
    assert!(schema(&mut conn).contains("prefix='2 3 4 5 6 7 8'"));
    for typed in ["escal", "firewal", "firewall", "firewalling", "thirty"] {
        let expression = fts_match_expression(&check_query(typed).unwrap()).unwrap();
        let hits = search_passages(&mut conn, &expression, &SearchFilter::default(), 20).unwrap();
        assert_eq!(hits.len(), 1, "{typed}: the passage stored before the migration is indexed again");
    }
}
