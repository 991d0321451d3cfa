//! The `~` search index against a real SQLite store: the indexed plan must select exactly the
//! rows and totals of the LIKE scan on random data and random terms (wildcards, escapes,
//! quotes, non-ASCII, one- and two-character terms), after inserts, updates and deletes; the
//! triggers keep the index current in each write's transaction; the migration indexes rows that
//! existed before it; and the planner really reads the index.

use diesel::connection::SimpleConnection;
use diesel::RunQueryDsl;
use diesel_migrations::MigrationHarness;
use proptest::prelude::*;
use serde_json::{json, Value};

use domain::collections::{CollectionSpec, CONTACTS, SERVERS};
use domain::filter::{CmpOp, Expr, Literal};
use domain::record::{ListPage, ListQuery};
use domain::sort::parse_sort;
use domain::validation::{validate_write, WriteMode};

use super::plan_memo::{PlanMemo, MEMO_TTL};

use super::tests::store;
use super::RecordStore;
use crate::sql::{Narrowing, SearchPlan};

/// Pieces random values and terms are built from: LIKE metacharacters, quotes, ASCII in both
/// cases, and non-ASCII whose case SQLite's LIKE does not fold but the trigram tokenizer does.
const PIECES: &[&str] = &[
    "a", "A", "b", "B", "e", "1", " ", "%", "_", "\\", "'", "\"", "Zoë", "ZOË", "zoë", "ñ", "Ñ", "ÑÚ", "ú", "😀", "İ",
    "ß", "ẞ", "Per", "son",
];

fn text(max_pieces: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..max_pieces).prop_map(|v| v.concat())
}

fn like(field: &str, op: CmpOp, term: String) -> Expr {
    Expr::Cmp { field: field.into(), op, value: Literal::Str(term) }
}

fn query(filter: Expr, per_page: u32, page: u32) -> ListQuery {
    ListQuery { page, per_page, sort: parse_sort("-created").unwrap(), filter: Some(filter), skip_total: false }
}

fn ids(page: &ListPage) -> Vec<String> {
    page.items.iter().map(|r| r["id"].as_str().unwrap().to_string()).collect()
}

fn create(s: &RecordStore, spec: &CollectionSpec, body: Value, now: i64) -> String {
    let w = validate_write(spec, &body, WriteMode::Create).unwrap();
    s.create(spec, &w, now).unwrap()["id"].as_str().unwrap().to_string()
}

fn update(s: &RecordStore, spec: &CollectionSpec, id: &str, body: Value, now: i64) {
    s.update(spec, id, &validate_write(spec, &body, WriteMode::Update).unwrap(), now).unwrap();
}

/// Every plan, same query: identical ids in order and identical totals. `Selective` with a
/// tiny limit mixes rowid-narrowed and scanned terms in one filter; with no limit every
/// indexable term is narrowed by the rowids read beforehand; `BySize` is what lists use.
fn same_answer(s: &RecordStore, spec: &CollectionSpec, q: &ListQuery) -> Result<usize, TestCaseError> {
    let scanned = s.list_planned(spec, q, SearchPlan::Scan).unwrap();
    let plans = [
        SearchPlan::Indexed,
        SearchPlan::Selective { max_candidates: 2 },
        SearchPlan::Selective { max_candidates: u32::MAX - 1 },
        SearchPlan::BySize,
    ];
    for plan in plans {
        let page = s.list_planned(spec, q, plan).unwrap();
        prop_assert_eq!(ids(&page), ids(&scanned), "{:?} {:?}", plan, q.filter);
        prop_assert_eq!(page.total_items, scanned.total_items, "{:?} {:?}", plan, q.filter);
    }
    Ok(scanned.items.len())
}

fn fts_integrity(s: &RecordStore, table: &str) {
    let sql = format!("INSERT INTO \"{table}\" (\"{table}\", rank) VALUES ('integrity-check', 1)");
    s.conn().unwrap().batch_execute(&sql).expect("the index matches its content table");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn indexed_contains_search_equals_the_scan(
        rows in prop::collection::vec((text(6), text(4), text(4)), 1..20),
        edits in prop::collection::vec((any::<prop::sample::Index>(), text(6), any::<bool>()), 0..6),
        terms in prop::collection::vec((prop::sample::select(&["name", "phone", "title", "id"][..]), text(4), text(3)), 1..10),
    ) {
        let (_tmp, s) = store();
        let mut live: Vec<String> = Vec::new();
        for (i, (name, phone, title)) in rows.iter().enumerate() {
            let name = format!("n{name}");
            live.push(create(&s, &CONTACTS, json!({"name": name, "phone": phone, "title": title}), 1_000 + i as i64));
        }
        for (i, (pick, value, delete)) in edits.iter().enumerate() {
            if live.is_empty() {
                break;
            }
            let at = pick.index(live.len());
            if *delete {
                s.delete(&CONTACTS, &live.remove(at)).unwrap();
            } else {
                update(&s, &CONTACTS, &live[at], json!({"name": format!("u{value}"), "title": value}), 5_000 + i as i64);
            }
        }
        fts_integrity(&s, "relay_fts_contacts");
        for (field, term, other) in terms {
            same_answer(&s, &CONTACTS, &query(like(field, CmpOp::Like, term.clone()), 1000, 1))?;
            same_answer(&s, &CONTACTS, &query(like(field, CmpOp::NotLike, term.clone()), 1000, 1))?;
            same_answer(&s, &CONTACTS, &query(like(field, CmpOp::Like, format!("%{term}%{other}")), 1000, 1))?;
            let either = Expr::Or(Box::new(like(field, CmpOp::Like, term.clone())), Box::new(like("title", CmpOp::Like, other.clone())));
            same_answer(&s, &CONTACTS, &query(either, 3, 2))?;
            let both = Expr::And(Box::new(like("name", CmpOp::Like, term)), Box::new(like("phone", CmpOp::NotLike, other)));
            same_answer(&s, &CONTACTS, &query(both, 1000, 1))?;
        }
    }
}

#[test]
fn writes_keep_the_index_current() {
    let (_tmp, s) = store();
    let search = |term: &str| {
        let page = s.list(&SERVERS, &query(like("owner", CmpOp::Like, term.into()), 30, 1)).unwrap();
        (page.total_items, page.items.len())
    };
    let id = create(&s, &SERVERS, json!({"name": "db-01", "owner": "Platform Alpha"}), 1_000);
    assert_eq!(search("alpha"), (1, 1), "an insert is indexed");
    update(&s, &SERVERS, &id, json!({"owner": "Platform Bravo"}), 2_000);
    assert_eq!((search("alpha"), search("BRAVO")), ((0, 0), (1, 1)), "an update replaces the indexed value");
    update(&s, &SERVERS, &id, json!({"os": "linux"}), 3_000);
    assert_eq!(search("bravo"), (1, 1), "an update of an unindexed-by-owner column keeps it");
    s.delete(&SERVERS, &id).unwrap();
    assert_eq!(search("bravo"), (0, 0), "a delete removes it");
    fts_integrity(&s, "relay_fts_servers");
}

#[test]
fn the_migration_indexes_existing_rows() {
    let (_tmp, s) = store();
    let mut conn = s.conn().unwrap();
    // Revert the newer migrations, then the search index's own.
    let mut reverted = String::new();
    for _ in 0..10 {
        reverted = conn.revert_last_migration(crate::db::MIGRATIONS).unwrap().to_string();
        if reverted == "20261203000002" {
            break;
        }
    }
    assert_eq!(reverted, "20261203000002", "the search index migration was reverted");
    conn.batch_execute(
        "INSERT INTO contacts (id, created, updated, revision, name) VALUES \
         ('old1', '2026-01-01 00:00:00.000Z', '2026-01-01 00:00:00.000Z', 1, 'Legacy Person'), \
         ('old2', '2026-01-01 00:00:01.000Z', '2026-01-01 00:00:01.000Z', 2, 'Someone Else');",
    )
    .unwrap();
    conn.run_pending_migrations(crate::db::MIGRATIONS).unwrap();
    drop(conn);
    let q = query(like("name", CmpOp::Like, "legacy".into()), 30, 1);
    let page = s.list(&CONTACTS, &q).unwrap();
    assert_eq!((page.total_items, ids(&page)), (1, vec!["old1".to_string()]));
    fts_integrity(&s, "relay_fts_contacts");
}

#[test]
fn the_planner_reads_the_index_for_a_long_term() {
    #[derive(diesel::QueryableByName)]
    struct Plan {
        #[diesel(sql_type = diesel::sql_types::Text)]
        detail: String,
    }
    let (_tmp, s) = store();
    let expr = like("name", CmpOp::Like, "Person 1".into());
    let w = crate::sql::compile_filter(&CONTACTS, &expr).unwrap();
    let mut sql = format!("EXPLAIN QUERY PLAN SELECT id FROM contacts WHERE {} ORDER BY created DESC", w.sql);
    for bind in &w.binds {
        let domain::validation::SqlValue::Text(t) = bind else { unreachable!() };
        sql = sql.replacen('?', &format!("'{}'", t.replace('\'', "''")), 1);
    }
    let plan: Vec<Plan> = diesel::sql_query(sql).load(&mut s.conn().unwrap()).unwrap();
    let details: Vec<&str> = plan.iter().map(|p| p.detail.as_str()).collect();
    assert!(details.iter().any(|d| d.contains("VIRTUAL TABLE INDEX")), "{details:?}");
}

#[test]
fn the_index_tables_match_the_search_descriptors() {
    let (_tmp, s) = store();
    let mut conn = s.conn().unwrap();
    for index in domain::search::SEARCH_INDEXES {
        let columns = crate::db::table_columns(&mut conn, index.table).unwrap();
        assert_eq!(columns, index.fields, "{}", index.table);
        fts_integrity(&s, index.table);
    }
    assert!(crate::db::unmanaged_tables(&mut conn).unwrap().is_empty(), "index tables are not reported as unmanaged");
}

#[test]
fn selective_plans_read_candidates_up_to_one_past_the_limit() {
    let (_tmp, s) = store();
    for i in 0..5 {
        create(&s, &CONTACTS, json!({"name": format!("Common {i}")}), 1_000 + i);
    }
    create(&s, &CONTACTS, json!({"name": "Rare one"}), 2_000);
    let index = domain::search::index_for(&CONTACTS, "name").unwrap();
    let mut conn = s.conn().unwrap();
    let found = |conn: &mut diesel::SqliteConnection, query: &str| super::candidates(conn, index, query, 3).unwrap();
    assert_eq!(found(&mut conn, "{name} : \"common\""), (4, "[1,2,3,4]".into()), "stops past the limit");
    assert_eq!(found(&mut conn, "{name} : \"rare\""), (1, "[6]".into()));
    assert_eq!(found(&mut conn, "{name} : \"none\""), (0, "[]".into()));
    assert_eq!(super::approximate_rows(&mut conn, &CONTACTS), 6);
    let selective = SearchPlan::Selective { max_candidates: 3 };
    let choose = |conn: &mut diesel::SqliteConnection, plan, query| {
        super::choose_index(conn, &PlanMemo::new(MEMO_TTL), plan, index, query)
    };
    assert_eq!(choose(&mut conn, selective, "{name} : \"common\""), Narrowing::Scan, "too many candidates: scan");
    assert_eq!(choose(&mut conn, selective, "{name} : \"rare\""), Narrowing::Rowids("[6]".into()));
    assert_eq!(choose(&mut conn, selective, "{name} : \"none\""), Narrowing::Rowids("[]".into()));
    assert_eq!(choose(&mut conn, SearchPlan::Indexed, "{name} : \"common\""), Narrowing::Match);
    assert_eq!(choose(&mut conn, SearchPlan::Scan, "{name} : \"rare\""), Narrowing::Scan);
    drop(conn);
    let q = query(like("name", CmpOp::Like, "common".into()), 2, 1);
    let page = s.list_planned(&CONTACTS, &q, SearchPlan::Selective { max_candidates: 3 }).unwrap();
    assert_eq!((page.total_items, page.items.len()), (5, 2), "a common term scans with the same answer");
}

#[test]
fn lists_size_the_candidate_limit_to_the_collection() {
    let (_tmp, s) = store();
    for i in 0..12 {
        create(&s, &CONTACTS, json!({"name": format!("Person {i}")}), 1_000 + i);
    }
    let index = domain::search::index_for(&CONTACTS, "name").unwrap();
    let mut conn = s.conn().unwrap();
    // 12 rows: a quarter is 3. `Person 1` has 3 candidates (1, 10, 11): the index; `Person` 12: a scan.
    let limit = domain::search::max_index_candidates(super::approximate_rows(&mut conn, &CONTACTS), true);
    assert_eq!(limit, 3);
    let selective = SearchPlan::Selective { max_candidates: limit };
    assert!(matches!(
        super::choose_index(&mut conn, &PlanMemo::new(MEMO_TTL), selective, index, "{name} : \"Person 1\""),
        Narrowing::Rowids(_)
    ));
    assert_eq!(
        super::choose_index(&mut conn, &PlanMemo::new(MEMO_TTL), selective, index, "{name} : \"Person\""),
        Narrowing::Scan
    );
    drop(conn);
    for (term, total) in [("Person 1", 3), ("Person", 12), ("son 11", 1)] {
        for skip_total in [false, true] {
            let mut q = query(like("name", CmpOp::Like, term.into()), 2, 1);
            q.skip_total = skip_total;
            let listed = s.list(&CONTACTS, &q).unwrap();
            let scanned = s.list_planned(&CONTACTS, &q, SearchPlan::Scan).unwrap();
            assert_eq!((ids(&listed), listed.total_items), (ids(&scanned), scanned.total_items), "{term}");
            assert_eq!(listed.total_items, if skip_total { -1 } else { total }, "{term}");
        }
    }
}

#[test]
fn a_term_too_broad_for_the_index_is_remembered_and_scanned_with_the_same_answer() {
    let (_tmp, s) = store();
    for i in 0..12 {
        create(&s, &CONTACTS, json!({"name": format!("Person {i}")}), 1_000 + i);
    }
    // 12 rows, a total counted: the index serves up to 3 candidates. `Person` has 12.
    let broad = query(like("name", CmpOp::Like, "Person".into()), 2, 1);
    let first = s.list(&CONTACTS, &broad).unwrap();
    assert_eq!((s.memo.len(), s.memo.hits()), (1, 0), "the overflow is remembered");
    let again = s.list(&CONTACTS, &broad).unwrap();
    assert_eq!(s.memo.hits(), 1, "the second list went straight to the scan");
    let scanned = s.list_planned(&CONTACTS, &broad, SearchPlan::Scan).unwrap();
    assert_eq!((ids(&again), again.total_items), (ids(&first), 12));
    assert_eq!((ids(&again), again.total_items), (ids(&scanned), scanned.total_items));
    let narrow = query(like("name", CmpOp::Like, "Person 1".into()), 2, 1);
    s.list(&CONTACTS, &narrow).unwrap();
    assert_eq!((s.memo.len(), s.memo.hits()), (1, 1), "a term that fits is not remembered");
}

#[test]
fn a_newest_first_list_without_a_total_reads_the_index_when_its_matches_are_old_rows() {
    let (_tmp, s) = store();
    // 10,000 contacts created in order; the oldest 2,200 are `Old i`, the rest `New i`.
    let sql = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000) \
               INSERT INTO contacts (id, created, updated, revision, name) \
               SELECT printf('c%014d', i), printf('2026-12-07 %02d:%02d:%02d.000Z', i / 3600, i / 60 % 60, i % 60), \
               printf('2026-12-07 %02d:%02d:%02d.000Z', i / 3600, i / 60 % 60, i % 60), i, \
               CASE WHEN i <= 2200 THEN 'Old ' || i ELSE 'New ' || i END FROM n";
    s.conn().unwrap().batch_execute(sql).unwrap();
    // One row written after them with the oldest `created`: the store can no longer show that
    // rowid order is `created` order, so these lists do not take the rowid walk
    // (`newest_first`) and the size rule and the long-walk rescue plan them.
    let straggler = "INSERT INTO contacts (id, created, updated, revision, name) VALUES \
                     ('straggler000001', '2026-12-07 00:00:00.000Z', '', 10001, 'Straggler')";
    s.conn().unwrap().batch_execute(straggler).unwrap();
    let without_total = |term: &str, page: u32| ListQuery {
        skip_total: true,
        ..query(like("name", CmpOp::Like, term.into()), 30, page)
    };

    // `Old`: 2,200 candidates, over the 2,000 a list without a total reads; the page's last match
    // is 7,800 rows below the newest, more than three times the candidates: the index.
    for page in [1, 3] {
        let q = without_total("Old", page);
        let rescued_before = s.memo.rescues();
        let listed = s.list(&CONTACTS, &q).unwrap();
        assert_eq!(s.memo.rescues(), rescued_before + 1, "page {page} read the index");
        let scanned = s.list_planned(&CONTACTS, &q, SearchPlan::Scan).unwrap();
        assert_eq!(ids(&listed), ids(&scanned), "the same page either way");
        assert_eq!(listed.items[0]["name"], format!("Old {}", 2200 - 30 * (page - 1)));
    }
    // `New`: 7,800 candidates whose newest is the newest row: the scan stops after a page.
    let listed = s.list(&CONTACTS, &without_total("New", 1)).unwrap();
    assert_eq!(s.memo.rescues(), 2, "a term whose matches are recent scans");
    assert_eq!(listed.items[0]["name"], "New 10000");
    // With a total, or sorted another way, the size rule alone decides.
    s.list(&CONTACTS, &query(like("name", CmpOp::Like, "Old".into()), 30, 1)).unwrap();
    let by_name = ListQuery { sort: parse_sort("name").unwrap(), ..without_total("Old", 1) };
    s.list(&CONTACTS, &by_name).unwrap();
    assert_eq!(s.memo.rescues(), 2);
    assert_eq!(s.memo.newest_first_counts(), [0, 0, 3], "each newest-first list without a total tried the walk first");
}
